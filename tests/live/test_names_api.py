"""Every session of the awkward-names home (tests/nameshome.py) — '#', '%', '?', a tab, spaces,
non-Latin letters, 250-character names — is reachable through the API, `tail` and `export`, and
so are its sub-agents (issue 18, point 5): an id is looked up among the names found in the home,
never checked against a character list (source/locate.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from urllib.parse import quote

import pytest

from ccreport.inspect.tail import tail
from ccreport.live.serve import Running, make_server
from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from ccreport.source.locate import LocateError, find_session
from nameshome import LONG_AGENT, LONG_SESSION, NAMES, make_names_home, needle
from serve_helpers import request


def _agent(n: int, sid: str) -> str:
    return LONG_AGENT if sid == LONG_SESSION else f"ag{n}"


def test_every_awkward_session_id_is_served_tailed_and_exported(tmp_path):
    home = make_names_home(tmp_path / "home")
    (tmp_path / "site").mkdir()
    with Running(make_server(tmp_path / "site", home, port=0)) as running:
        for n, (_, sid) in enumerate(NAMES):
            status, _, body = request(running, f"/api/sessions/{quote(sid, safe='')}/transcript")
            assert status == 200, (sid, body[:200])
            assert needle(n) in json.dumps(json.loads(body)), sid
            status, _, body = request(running, f"/api/sessions/{quote(sid, safe='')}/transcripts")
            assert status == 200 and _agent(n, sid) in [t["id"] for t in json.loads(body)["transcripts"]], sid
            agent = quote(_agent(n, sid), safe="")
            status, _, body = request(running, f"/api/sessions/{quote(sid, safe='')}/transcript?agent_id={agent}")
            assert status == 200 and "agent task" in body.decode(), sid
            assert needle(n) in json.dumps(tail(home, sid, 50, None)), sid
            assert "agent task" in json.dumps(tail(home, sid, 50, _agent(n, sid))), sid
            out = tmp_path / f"export-{n}.md"
            run_export(home, sid, str(out), ExportOptions(format="md", redact=False))
            assert needle(n) in out.read_text(encoding="utf-8"), sid


def test_awkward_ids_from_the_command_line(tmp_path):
    home = make_names_home(tmp_path / "home")
    for n in (0, 1, 2, 3, 4, 5):
        sid = NAMES[n][1]
        r = subprocess.run([sys.executable, "-m", "ccreport", "tail", "--home", str(home), sid, "--json"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and needle(n) in r.stdout, (sid, r.stderr)
        out = tmp_path / f"e{n}.html"
        r = subprocess.run([sys.executable, "-m", "ccreport", "export", "--home", str(home), sid, "-o", str(out)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and needle(n) in out.read_text(encoding="utf-8"), (sid, r.stderr)


def test_exact_names_only_plain_ids_as_prefixes(tmp_path):
    home = make_names_home(tmp_path / "home")
    # The decomposed form of a name (as macOS stores it) finds the same session.
    decomposed = unicodedata.normalize("NFD", "ü" * 120)
    assert find_session(home, decomposed).id == "ü" * 120
    for spec in ("s#", "s%2", "s p", "セッション", "s?q", "s\t"):  # a part of an awkward name is no prefix
        with pytest.raises(LocateError) as exc:
            find_session(home, spec)
        assert exc.value.status == 400, spec
    assert find_session(home, "x" * 200).id == "x" * 230  # a plain prefix still works
    for spec in ("s#1/..", "../s#1", "s#1\x00", "s" * 256):
        with pytest.raises(LocateError) as exc:
            find_session(home, spec)
        assert exc.value.status == 400, spec
