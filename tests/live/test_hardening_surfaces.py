"""Issue 9 across every surface: the served site, the transcript API, tail and export get the same
hostile text, bad ids and escapes as the build, and the server stays correct under load while a
session is being written.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from ccreport.site.build import Options, build
from ccreport.live.events import Live
from ccreport.live.serve import Running, make_server
from hostile import LITERAL_LINE, assert_inert, make_hostile_home, scan_html
from serve_helpers import SID, append, conversation, main_file, make_live_home, page_url, watching
from pathhelp import BAD_IDS, SECRET, linked_home  # noqa: F401  (fixture)

CLI = [sys.executable, "-m", "ccreport"]


def _get(running, path: str):
    host, port = running.server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-surfaces")
    literal = make_hostile_home(root / "home")
    res = build(root / "home", root / "site", Options(jobs=1))
    assert res.written
    return root / "home", root / "site", literal


@pytest.mark.browser
def test_served_hostile_pages_run_nothing(hostile_site, browser):
    home, site, _ = hostile_site
    with Running(make_server(site, home, port=0, live=Live(site))) as running:
        pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
        urls = [running.url.rstrip("/") + "/" + quote(p) for p in pages]
        # over http the live script is active too: it must not turn any transcript text into markup
        text = assert_inert(urls[:60], browser, expect_text=[LITERAL_LINE])
        assert "window.__pwned" in text  # the payloads are on the pages, as text


def test_api_and_static_routes_refuse_every_bad_id(hostile_site):
    home, site, _ = hostile_site
    with Running(make_server(site, home, port=0)) as running:
        for bad in BAD_IDS:
            q = quote(bad, safe="")
            for path in (f"/api/sessions/{q}/transcripts", f"/api/sessions/{q}/transcript",
                         f"/api/sessions/s-hostile/transcript?agent_id={q}", f"/p/{q}/x/index.html"):
                status, body = _get(running, path)
                assert status in (400, 404, 409), (path, status)
                assert b"root:" not in body and SECRET.encode() not in body


def test_api_answers_hostile_text_as_json_data(hostile_site):
    home, site, _ = hostile_site
    with Running(make_server(site, home, port=0)) as running:
        status, body = _get(running, "/api/sessions/s-hostile/transcript?limit=200")
        assert status == 200
        data = json.loads(body)
        assert data["messages"] and "<script>" in body.decode()  # as JSON strings, never as a page


def test_tail_and_export_refuse_bad_ids(linked_home, tmp_path):  # noqa: F811
    home, _ = linked_home
    for bad in BAD_IDS[:25]:
        if "\x00" in bad:
            continue  # cannot be passed in argv at all
        for cmd in (["tail", "--home", str(home), bad], ["export", "--home", str(home), bad, "-o", str(tmp_path / "x.html")]):
            r = subprocess.run(CLI + cmd, capture_output=True, text=True, timeout=60)
            assert r.returncode != 0, (cmd, r.stdout[:200])
            assert "Traceback" not in r.stderr
            assert SECRET not in r.stdout + r.stderr


def test_symlinked_transcripts_are_not_found_by_tail_or_export(linked_home, tmp_path):  # noqa: F811
    home, _ = linked_home
    for sid in ("sess-link", "sess-outproj", "sess-dangling"):
        for cmd in (["tail", "--home", str(home), sid, "--json"], ["export", "--home", str(home), sid, "--format", "md"]):
            r = subprocess.run(CLI + cmd, capture_output=True, text=True, timeout=60)
            assert r.returncode != 0 and SECRET not in r.stdout


@pytest.mark.browser
def test_exported_hostile_session_is_inert(hostile_site, browser, tmp_path):
    home, _, _ = hostile_site
    out = tmp_path / "hostile.html"
    r = subprocess.run(CLI + ["export", "--home", str(home), "s-hostile", "-o", str(out), "--no-redact"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    html = out.read_text(encoding="utf-8")
    assert scan_html(html, single_file=True) == []
    assert_inert(out.as_uri(), browser, expect_text=[LITERAL_LINE], single_file=True)


@pytest.mark.slow
def test_server_under_load_while_a_session_is_written(tmp_path):
    """8 loopback clients for a bounded time while lines are appended: 0 errors, 0 partial pages."""
    home = make_live_home(tmp_path / "home")
    site = tmp_path / "site"
    opts = Options(jobs=1)
    build(home, site, opts)
    stop = threading.Event()
    errors: list[str] = []
    counts = [0] * 8
    with watching(site, home, opts) as running:
        assert running.wait_ready()
        paths = ["/" + page_url(1), "/index.html", f"/api/sessions/{SID}/transcript?limit=20",
                 f"/api/sessions/{SID}/transcripts"]

        def client(i: int) -> None:
            host, port = running.server.server_address[:2]
            conn = http.client.HTTPConnection(host, port, timeout=10)
            n = 0
            while not stop.is_set():
                path = paths[n % len(paths)]
                n += 1
                try:
                    conn.request("GET", path)
                    resp = conn.getresponse()
                    body = resp.read()
                except (OSError, http.client.HTTPException) as exc:
                    errors.append(f"{path}: {exc!r}")
                    conn.close()
                    conn = http.client.HTTPConnection(host, port, timeout=10)
                    continue
                if resp.status != 200:
                    errors.append(f"{path}: HTTP {resp.status}")
                elif path.endswith(".html") and not body.rstrip().endswith(b"</html>"):
                    errors.append(f"{path}: partial page ({len(body)} bytes)")
                elif path.startswith("/api/"):
                    json.loads(body)
                counts[i] += 1
            conn.close()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for k in range(10):  # appends arrive while the clients read
            append(main_file(home), conversation(1, start=500 + k))
            time.sleep(0.4)
        stop.set()
        for t in threads:
            t.join(timeout=30)
    assert errors == []
    assert sum(counts) > 100
    assert b"prompt number 509" in (site / page_url(1)).read_bytes() or any(
        b"prompt number 509" in p.read_bytes() for p in site.rglob("page-*.html"))
