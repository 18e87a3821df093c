"""Long session ids of the awkward-names home (tests/nameshome.py) are reachable through the API,
`tail` and `export` (issue 18, point 5). Ids with '#', spaces or non-Latin letters stay refused
there by the id rule of the earlier hardening (source.home.valid_id): their pages are in the site."""

from __future__ import annotations

import json
from urllib.parse import quote

from ccreport.inspect.tail import tail
from ccreport.source.home import valid_id
from ccreport.live.serve import Running, make_server
from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from nameshome import NAMES, make_names_home, needle
from serve_helpers import request


def test_every_awkward_session_id_is_served_tailed_and_exported(tmp_path):
    home = make_names_home(tmp_path / "home")
    (tmp_path / "site").mkdir()
    with Running(make_server(tmp_path / "site", home, port=0)) as running:
        plain = [(n, sid) for n, (_, sid) in enumerate(NAMES) if valid_id(sid)]
        assert max(len(sid) for _, sid in plain) == 249
        for n, sid in plain:
            status, _, body = request(running, f"/api/sessions/{quote(sid, safe='')}/transcript")
            assert status == 200, (sid, body[:200])
            assert needle(n) in json.dumps(json.loads(body)), sid
            assert needle(n) in json.dumps(tail(home, sid, 50, None)), sid
            out = tmp_path / f"export-{n}.md"
            run_export(home, sid, str(out), ExportOptions(format="md", redact=False))
            assert needle(n) in out.read_text(encoding="utf-8"), sid
