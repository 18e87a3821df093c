"""The terminal commands agree with the site and with each other: one message count, one 'latest',
empty sessions hidden, real project paths, and the same exit code (2) and hint for every usage error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from ccreport.inspect.listing import list_rows
from ccreport.source.activity import latest
from ccreport.source.home import discover
from serve_helpers import SID, append, conversation, main_file, make_live_home
from util import SAMPLE_HOME, make_home, saved_states, user

EMPTY = "e0000000-0000-4000-8000-00000000000e"
TITLED = "e0000000-0000-4000-8000-00000000000f"


def _run(args):
    return CliRunner().invoke(cli, args)


def _site_counts(site: Path) -> dict:
    """session id → the message count the site's pages show (its saved session info)."""
    return {sid: st["info"]["messages"] for (_, sid), st in saved_states(site).items()}


@pytest.fixture
def home(tmp_path):
    h = make_live_home(tmp_path / "home")
    # Two empty sessions, newer than the rest: an empty file and one holding only a title.
    make_home(h, {"-home-u-proj": {f"{EMPTY}.jsonl": [], f"{TITLED}.jsonl": [
        {"type": "summary", "summary": "only a title", "timestamp": "2031-01-01T00:00:00.000Z"}]}})
    return h


# --- one count, one latest, no empty rows -----------------------------------------------------------
@pytest.mark.parametrize("which", ["sample", "corpus"])
def test_list_counts_messages_as_the_site_does(which, sample_site, request):
    site = sample_site[0] if which == "sample" else request.getfixturevalue("corpus_site")[0]
    home = SAMPLE_HOME if which == "sample" else request.getfixturevalue("corpus_home")
    rows = {r.id: r.messages for r in list_rows(home)}
    assert rows == _site_counts(site)
    from ccreport.live.api import CatalogCache, handle

    cache = CatalogCache()
    for sid, n in list(rows.items())[:12]:  # the API's per-transcript counts add up to the same figure
        status, body = handle(home, f"/api/sessions/{sid}/transcripts", "", 50, cache)
        assert status == 200 and sum(t["message_count"] or 0 for t in body["transcripts"]) == n, sid
    if which == "corpus":  # issue 16: list said 199 where the site says 54 (the whole session)
        assert rows["7acd37a8-2745-4b58-a8a9-46164b22ad9e"] == 54


def test_list_hides_empty_sessions_unless_asked(home):
    res = _run(["list", "--home", str(home)])
    assert res.exit_code == 0 and EMPTY not in res.stdout and TITLED not in res.stdout and SID in res.stdout
    assert "2 empty sessions not shown (--all lists them)" in res.stderr
    res = _run(["list", "--home", str(home), "--all"])
    assert EMPTY in res.stdout and TITLED in res.stdout
    rows = json.loads(_run(["list", "--home", str(home), "--json", "--all"]).stdout)
    assert {r["id"]: r["empty"] for r in rows}[TITLED] is True and rows[0]["id"] == TITLED  # newest line stamp


@pytest.mark.parametrize("which", ["live", "corpus"])
def test_latest_is_the_first_row_list_shows_everywhere(which, home, request):
    h = home if which == "live" else request.getfixturevalue("corpus_home")
    first = json.loads(_run(["list", "--home", str(h), "--json"]).stdout)[0]["id"]
    assert latest(discover(h)).id == first
    assert json.loads(_run(["tail", "--home", str(h), "latest", "-n", "1", "--json"]).stdout)["sessionId"] == first
    res = _run(["export", "latest", "--home", str(h), "--format", "md", "--agents", "none"])
    assert res.exit_code == 0 and f"Session `{first}`" in res.stdout
    from ccreport.live.api import CatalogCache, handle

    status, body = handle(h, "/api/sessions/latest/transcripts", "", 50, CatalogCache())
    assert status == 200 and body["session_id"] == first


def test_stats_shows_whole_project_paths(tmp_path):
    cwd = "/home/someone/work/" + "a-rather-long-folder-name/" * 3 + "project"
    h = make_home(tmp_path / "h", {"-p": {"s.jsonl": [user("u", "hi", cwd=cwd)]}})
    res = _run(["stats", "--home", str(h)])
    assert res.exit_code == 0 and cwd in res.stdout
    data = json.loads(_run(["stats", "--home", str(h), "--json"]).stdout)
    assert data["projects"]["-p"]["path"] == cwd


# --- usage errors: exit 2, one line, the hint ----------------------------------------------------------
@pytest.mark.parametrize("args,says", [
    (["tail", "ffffffff"], "no session ffffffff"),
    (["tail", "../x"], "not a valid session id"),
    (["tail", SID, "--agent", "nope"], "no transcript nope"),
    (["tail"], "Missing argument 'SESSION'"),
    (["tail", SID, "--bogus"], "No such option"),
    (["export", "ffffffff"], "no session ffffffff"),
    (["export", "e0"], "ambiguous"),
    (["export"], "Missing argument 'SESSION'"),
    (["export", SID, "--format", "pdf"], "Invalid value for '--format'"),
])
def test_session_usage_errors_exit_2_and_point_at_list(home, args, says):
    res = _run(args[:1] + ["--home", str(home)] + args[1:])
    assert res.exit_code == 2 and says in res.output and "ccreport list" in res.output, res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("cmd", ["build", "list", "stats", "watch", "serve", "tail", "export"])
def test_every_command_exits_2_on_a_bad_option_or_home(cmd, tmp_path):
    res = _run([cmd, "--no-such-option"])
    assert res.exit_code == 2 and "No such option" in res.output
    args = [cmd, "--home", str(tmp_path / "nope")] + (["latest"] if cmd in ("tail", "export") else []) + (
        ["--out", str(tmp_path / "site")] if cmd in ("build", "watch", "serve") else [])
    res = _run(args)
    assert res.exit_code == 2 and "Claude home not found" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("out,fmt,says", [
    ("out.pdf", None, "cannot write .pdf files"),
    ("out.txt", "md", "cannot write .txt files"),
    ("out.html", "md", "names a html file but the format is md"),
    ("out.html", None, "--summary writes Markdown"),
])
def test_export_refuses_an_output_it_would_not_write(home, tmp_path, out, fmt, says):
    args = ["export", SID, "--home", str(home), "-o", str(tmp_path / out)] + (["--format", fmt] if fmt else [])
    res = _run(args + (["--summary"] if says.startswith("--summary") else []))
    assert res.exit_code == 2 and says in res.output and not (tmp_path / out).exists()
    assert not list(tmp_path.glob("out*"))


# --- tail -f ----------------------------------------------------------------------------------------------
def _reader(proc, seen: list, started: threading.Event, found: threading.Event, needle: str):
    for line in proc.stdout:
        seen.append(line)
        started.set()
        if needle in line:
            found.set()


@pytest.mark.parametrize("as_json", [False, True])
def test_tail_follow_prints_appended_lines(home, as_json):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cmd = [sys.executable, "-m", "ccreport", "tail", "--home", str(home), SID, "-n", "1", "-f"]
    proc = subprocess.Popen(cmd + (["--json"] if as_json else []), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    seen: list = []
    started, found = threading.Event(), threading.Event()
    threading.Thread(target=_reader, args=(proc, seen, started, found, "reply number 42"), daemon=True).start()
    try:
        assert started.wait(60)  # the tail is printed: what is appended from now on must follow
        with open(main_file(home), "ab") as fh:  # half a line first: printed only once it is complete
            line = json.dumps(conversation(1, start=41)[0]).encode()
            fh.write(line[:20])
            fh.flush()
            # No sleep is asserted on: the wait below ends as soon as the line shows (or fails after 60 s).
            fh.write(line[20:] + b"\n")
        append(main_file(home), conversation(1, start=42))
        assert found.wait(60), "".join(seen)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = "".join(seen)
    assert text.count("prompt number 41") == 1 and "Traceback" not in proc.stderr.read()
    if as_json:
        assert [json.loads(ln).get("uuid") for ln in text.splitlines()[1:]] == ["u41", "u42", "a42"]
    else:
        assert "── line 8 · user" in text  # numbered after the 7 lines already there
