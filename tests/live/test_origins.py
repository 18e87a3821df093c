"""serve answers only to its own address and origin (issue 18, point 1): DNS rebinding (another
Host) and cross-origin reads (another local port) get nothing."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from functools import partial

import pytest

from ccreport.live.serve import Running, make_server
from ccreport.site.build import Options, build
from serve_helpers import PROJECT, SID, make_live_home

DATA_PATHS = ["/api/sessions/%s/transcript" % SID, "/search/manifest.js", "/__live",
              f"/p/{PROJECT}/{SID}/page-0001.html", "/"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("origins")
    home = make_live_home(tmp / "home")
    build(home, tmp / "site", Options(jobs=1))
    with Running(make_server(tmp / "site", home, port=0)) as running:
        yield running


def raw(running, path: str, headers: dict[str, str | None], version: str = "HTTP/1.1") -> tuple[int, dict, bytes]:
    """One request with exactly these headers (a None value leaves the header out)."""
    port = running.server.server_address[1]
    lines = [f"GET {path} {version}"] + [f"{k}: {v}" for k, v in headers.items() if v is not None]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(("\r\n".join(lines + ["Connection: close", "", ""])).encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *rest = head.decode("latin-1").split("\r\n")
    hdrs = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in rest)}
    return int(status_line.split()[1]), hdrs, body


def own(running) -> str:
    return f"127.0.0.1:{running.server.server_address[1]}"


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "127.0.0.1",
                                  "127.0.0.1:1", "localhost:0", "[::1]", "evil.example:{port}", "127.0.0.1:{port}x",
                                  "[::1:{port}", "", None])
def test_a_foreign_host_gets_nothing(served, host):
    port = served.server.server_address[1]
    for path in DATA_PATHS:
        status, hdrs, body = raw(served, path, {"Host": host.format(port=port) if host is not None else None})
        assert status == 421, (host, path, status)
        assert b"prompt number" not in body and b"ccreportSearch" not in body and b"<html" not in body.lower()
        assert hdrs["cross-origin-resource-policy"] == "same-origin" and hdrs["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_own_names_are_answered(served, host):
    port = served.server.server_address[1]
    for path in DATA_PATHS:
        status, hdrs, _ = raw(served, path, {"Host": host.format(port=port)})
        assert status == 200, (host, path, status)
        assert hdrs["cross-origin-resource-policy"] == "same-origin" and hdrs["x-content-type-options"] == "nosniff"


def test_every_answer_carries_the_safety_headers(served):
    for path in ["/nope", "/api/sessions/none/transcript", "/assets/", "/" + "x" * 70_000]:
        status, hdrs, _ = raw(served, path, {"Host": own(served)})
        assert status in (404, 400, 414), (path, status)
        assert hdrs["cross-origin-resource-policy"] == "same-origin" and hdrs["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                                     {"Origin": "http://localhost:8733"}, {"Origin": "null"},
                                     {"Referer": "http://127.0.0.1:8733/evil.html"}, {"Origin": "http://evil.example"}])
def test_other_origins_get_no_data_nor_scripts(served, headers):
    for path in DATA_PATHS[:3]:
        status, _, body = raw(served, path, {"Host": own(served), **headers})
        assert status == 403, (headers, path)
        assert b"prompt number" not in body and b"ccreportSearch" not in body


def test_own_origin_and_navigation_from_elsewhere_still_work(served):
    port = served.server.server_address[1]
    mine = {"Host": own(served), "Sec-Fetch-Site": "same-origin", "Origin": f"http://127.0.0.1:{port}"}
    for path in DATA_PATHS:
        assert raw(served, path, mine)[0] == 200, path
    # A link to the archive clicked on another site opens the page (it cannot read it).
    nav = {"Host": own(served), "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    assert raw(served, f"/p/{PROJECT}/{SID}/page-0001.html", nav)[0] == 200


EVIL_PAGE = """<!doctype html><meta charset=utf-8><title>evil</title><script>
window.got = {script: null, fetch: null, done: 0};
// Whatever the index scripts call (manifest, units, terms, docs…) records what it was given.
window.ccreportSearch = new Proxy({}, {get: () => function (d) { window.got.script = JSON.stringify(d).length; }});
</script>
<script src="http://127.0.0.1:PORT/search/manifest.js" onload="got.done++" onerror="got.done++"></script>
<script>
fetch("http://127.0.0.1:PORT/api/sessions/SID/transcript", {mode: "no-cors"})
  .then(r => r.text()).then(t => { got.fetch = t.length; }).catch(e => { got.fetch = -1; })
  .finally(() => { got.done++; });
</script>"""


def test_another_local_origin_in_a_browser_reads_nothing(served, browser, tmp_path):
    """A second server on another port (another origin, same site) serves a page that includes the
    search script and fetches the API: neither reaches the page."""
    port = served.server.server_address[1]
    (tmp_path / "evil.html").write_text(EVIL_PAGE.replace("PORT", str(port)).replace("PROJECT", PROJECT)
                                        .replace("SID", SID))
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        page.goto(f"http://localhost:{evil.server_address[1]}/evil.html")
        page.wait_for_function("window.got.done >= 2", timeout=10_000)
        got = page.evaluate("window.got")
        page.close()
    finally:
        evil.shutdown()
        evil.server_close()
    assert got["script"] is None, json.dumps(got)  # the index never reached ccreportSearch.add
    assert got["fetch"] in (0, -1), json.dumps(got)  # an opaque or failed answer: nothing read
