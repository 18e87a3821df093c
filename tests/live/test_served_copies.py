"""Issue 29, points 1 and 2: nothing `serve` hands out runs unless ccreport wrote it as a page, no
other origin may frame anything, and no dot file or folder (the state, the lock, the raw store) is
served.

A session's tool-results/ holds evil.html, evil.svg, evil.xhtml and evil.js (tests/storedscripts.py),
named by its outputs: the site stores them as .txt, serve sends them as text/plain, sandboxed."""

from __future__ import annotations

import http.server
import posixpath
import re
import socket
import threading
from functools import partial
from urllib.parse import quote, unquote

import pytest

from ccreport.live.events import Live
from ccreport.live.serve import Running, make_server
from ccreport.site.build import Options, build
from serve_helpers import PROJECT, SID, make_live_home, page_url
from storedscripts import EVIL_FILES, plant_stored_scripts

LINK = re.compile(r'<a class="persisted" href="([^"]+)"')


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("copies")
    home = make_live_home(tmp / "home")
    sid, _ = plant_stored_scripts(home, PROJECT)
    build(home, tmp / "site", Options(jobs=1))
    # What a build before this fix left: the copy under its own name.
    stale = tmp / "site" / "p" / PROJECT / sid / "tool-results" / "old.html"
    stale.write_text(EVIL_FILES["evil.html"], encoding="utf-8")
    (tmp / "site" / ".hidden.html").write_text("<p>hidden", encoding="utf-8")
    with Running(make_server(tmp / "site", home, port=0, live=Live(tmp / "site"))) as running:
        running.site, running.sid = tmp / "site", sid
        yield running


def raw(running, target: str, head: dict | None = None) -> tuple[int, dict, bytes]:
    """One request as written (no client-side normalising of the path)."""
    port = running.server.server_address[1]
    head = {"Host": f"127.0.0.1:{port}", **(head or {})}
    text = "\r\n".join([f"GET {target} HTTP/1.1"] + [f"{k}: {v}" for k, v in head.items()]
                       + ["Connection: close", "", ""])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(text.encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
            if b"text/event-stream" in data:
                break  # (an event stream does not end by itself)
    top, _, body = data.partition(b"\r\n\r\n")
    status, *rest = top.decode("latin-1").split("\r\n")
    return int(status.split()[1]), {k.lower(): v.strip() for k, _, v in (r.partition(":") for r in rest)}, body


def evil_links(running) -> list[str]:
    page = (running.site / page_url(1, running.sid)).read_text(encoding="utf-8")
    return LINK.findall(page)


def test_copies_are_stored_under_names_no_browser_runs(served):
    folder = served.site / "p" / PROJECT / served.sid / "tool-results"
    links = evil_links(served)
    assert len(links) == len(EVIL_FILES)
    for link in links:
        assert link.endswith(".txt") and (served.site / "p" / PROJECT / served.sid / unquote(link)).is_file(), link
    stored = {f.name for f in folder.iterdir()} - {"old.html"}
    assert stored == {name + "~.txt" for name in EVIL_FILES}
    for name, body in EVIL_FILES.items():
        assert (folder / f"{name}~.txt").read_text(encoding="utf-8") == body


def test_copies_are_sent_as_sandboxed_plain_text(served):
    base = f"/p/{PROJECT}/{served.sid}/"
    for target in [posixpath.normpath(base + link) for link in evil_links(served)] + [base + "tool-results/old.html"]:
        status, hdrs, body = raw(served, target)
        assert status == 200 and b"window.__pwned" in body, target
        assert hdrs["content-type"] == "text/plain; charset=utf-8", target
        assert "sandbox" in hdrs["content-security-policy"].split("; "), target


def _kinds(served) -> dict[str, tuple[str, dict, int]]:
    """Each kind of answer serve gives: what to ask, extra headers, the status it gets."""
    site = served.site
    asset = next(p for p in (site / "assets").iterdir() if p.suffix == ".js").name
    shard = next(p for p in (site / "search").rglob("*.js") if p.name != "manifest.js").relative_to(site).as_posix()
    own = {"Host": f"127.0.0.1:{served.server.server_address[1]}"}
    return {
        "home page": ("/", {}, 200), "session page": ("/" + quote(page_url(1, SID)), {}, 200),
        "asset": (f"/assets/{asset}", {}, 200), "search manifest": ("/search/manifest.js", {}, 200),
        "search shard": ("/" + shard, {}, 200), "favicon": ("/favicon.ico", {}, 200),
        "api json": (f"/api/sessions/{SID}/transcript?limit=1", {}, 200), "live": ("/__live", {}, 200),
        "api 400": (f"/api/sessions/{SID}/transcript?limit=x", {}, 400), "api 404": ("/api/sessions/nope/transcripts", {}, 404),
        "fragment 404": ("/__fragment?url=x&v=1", {}, 404), "static 404": ("/nope.html", {}, 404),
        "dot 404": ("/.ccreport/state.json", {}, 404), "foreign host 421": ("/", {"Host": "evil.example"}, 421),
        "other origin 403": ("/api/sessions", {"Origin": "http://evil.example", **own}, 403),
        "too long 414": ("/" + "x" * 70_000, {}, 414), "events": ("/__events", {}, 200),
    }


def test_every_kind_of_answer_carries_csp_and_no_framing(served):
    for kind, (target, head, expected) in _kinds(served).items():
        status, hdrs, _ = raw(served, target, head)
        assert status == expected, (kind, status)
        csp = hdrs.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp, (kind, csp)
        assert hdrs.get("x-frame-options") == "DENY" and hdrs.get("x-content-type-options") == "nosniff", kind
        page = kind.endswith("page")
        assert ("sandbox" in csp.split("; ")) is not page, (kind, csp)  # only ccreport's own pages run script
        if page:
            assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp, csp
    status, hdrs, _ = raw(served, "/", {"X-Long": "a" * 70_000})  # the base class's own error answers
    assert status == 431 and "sandbox" in hdrs["content-security-policy"] and hdrs["x-frame-options"] == "DENY"


DOT_TARGETS = [
    "/.ccreport/state.json", "/.ccreport/sessions.json", "/.ccreport/ccreport.sqlite", "/.ccreport/lock", "/.ccreport/", "/.ccreport",
    "/%2eccreport/state.json", "/%2Eccreport/state.json", "/%2e%63%63report/state.json", "/p/..%2f.ccreport/state.json",
    "/%2f.ccreport/state.json", "/p/%2F..%2F.ccreport%2Fstate.json", "/.%63creport/state.json",
    "/./.ccreport/state.json", "//.ccreport/state.json", "/p/../.ccreport/state.json", "/assets/../.ccreport/lock",
    "/.ccreport%2fstate.json", "/.ccreport/state.json%00", "/.ccreport\\state.json", "/.hidden.html", "/%2ehidden.html",
    "/.ccreport/state.json?x=1", "/.ccreport/state.json#x", "/%252eccreport/state.json",
]


@pytest.mark.parametrize("target", DOT_TARGETS)
def test_no_dot_file_or_folder_is_served(served, target):
    assert (served.site / ".ccreport" / "ccreport.sqlite").is_file()
    status, hdrs, body = raw(served, target)
    assert status in (400, 404), (target, status)
    assert b'"format"' not in body and b"hidden" not in body and b"pid" not in body
    assert "sandbox" in hdrs["content-security-policy"]


def test_the_store_is_not_served(served):
    store = served.site / ".ccreport"
    files = [p.relative_to(served.site).as_posix() for p in store.rglob("*") if p.is_file()] if store.is_dir() else []
    assert files, "the build keeps a store"
    for rel in files[:20]:
        assert raw(served, "/" + quote(rel))[0] == 404, rel


@pytest.mark.browser
def test_opening_a_stored_script_runs_nothing_and_reads_no_transcript(served, browser):
    ctx = browser.new_context()
    page = ctx.new_page()
    asked, dialogs = [], []
    page.on("request", lambda r: asked.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        start = served.url + quote(page_url(1, served.sid))
        page.goto(start)
        count = page.locator("a.persisted").count()
        assert count == len(EVIL_FILES)
        opened = []
        for i in range(count):
            page.goto(start)  # (the links sit in folded results: opened by their URL, as a click would)
            page.goto(page.locator("a.persisted").nth(i).evaluate("a => a.href"), referer=start)
            opened.append(page.url)
            _assert_shown_not_run(page)
        stale = served.url + f"p/{PROJECT}/{served.sid}/tool-results/old.html"
        page.goto(stale)
        _assert_shown_not_run(page)
        assert all(u.endswith(".txt") for u in opened), opened
        assert page.goto(served.url + ".ccreport/state.json").status == 404
        assert page.goto(served.url + "%2eccreport/state.json").status == 404
        assert not [u for u in asked if "/api/" in u], "a copied file asked the transcript API"
        assert dialogs == []
    finally:
        ctx.close()


def _assert_shown_not_run(page):
    page.wait_for_timeout(150)  # (the fetch a running copy would make has time to come back)
    assert page.evaluate("() => window.__pwned === undefined") is True, page.url
    assert "PWNED" not in page.title()
    assert "window.__pwned" in page.locator("body").inner_text()  # the source, shown as text


@pytest.mark.browser
def test_no_other_origin_can_frame_a_page(served, browser, tmp_path):
    (tmp_path / "frame.html").write_text(f'<iframe id="f" src="{served.url}{quote(page_url(1, SID))}"></iframe>')
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(http.server.SimpleHTTPRequestHandler,
                                                                       directory=str(tmp_path)))
    threading.Thread(target=other.serve_forever, daemon=True).start()
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/frame.html")
        page.wait_for_timeout(300)
        frame = page.frame_locator("#f")
        assert frame.locator("text=prompt number").count() == 0
        assert "prompt number" in ctx.new_page().goto(served.url + quote(page_url(1, SID))).text()  # (it is there)
    finally:
        ctx.close()
        other.shutdown()
        other.server_close()


def test_a_session_named_like_the_copies_folder_is_still_a_page(tmp_path):
    from util import assistant, make_home, user

    lines = [user("u1", "named tool-results", sid="tool-results"),
             assistant("a1", [{"type": "text", "text": "seen"}], parent="u1", sid="tool-results")]
    home = make_home(tmp_path / "home", {"tool-results": {"tool-results.jsonl": lines}})
    assert build(home, tmp_path / "site", Options(jobs=1)).errors == []
    with Running(make_server(tmp_path / "site", home, port=0)) as running:
        status, hdrs, body = raw(running, "/p/tool-results/tool-results/page-0001.html")
        assert status == 200 and hdrs["content-type"] == "text/html; charset=utf-8" and b"named tool-results" in body
        assert "sandbox" not in hdrs["content-security-policy"]


def test_a_home_name_with_a_leading_dot_is_still_served(tmp_path):
    """Dot folders are never served, so a project or session whose name starts with a dot gets a
    folder name without it (layout.site_name): its pages are linked and served."""
    from util import assistant, make_home, user

    lines = [user("u1", "a dotted session", sid=".hidden"), assistant("a1", [{"type": "text", "text": "seen"}], parent="u1",
                                                                       sid=".hidden")]
    home = make_home(tmp_path / "home", {".dotproj": {".hidden.jsonl": lines}})
    assert build(home, tmp_path / "site", Options(jobs=1)).errors == []
    pages = [p.relative_to(tmp_path / "site") for p in (tmp_path / "site" / "p").rglob("page-0001.html")]
    assert len(pages) == 1 and not any(part.startswith(".") for part in pages[0].parts)
    with Running(make_server(tmp_path / "site", home, port=0)) as running:
        index = raw(running, "/p/" + quote(pages[0].parts[1]) + "/")[2].decode()
        assert quote(pages[0].parts[2]) in index
        status, _, body = raw(running, "/" + quote(pages[0].as_posix()))
        assert status == 200 and b"a dotted session" in body
