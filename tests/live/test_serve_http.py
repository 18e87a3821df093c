"""ccreport serve over real HTTP: contained static files, headers, the API and its cursors, SSE."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import socket

import pytest

from serve_helpers import OTHER, Stream, api, request, PROJECT, SID, append, conversation, main_file, make_live_home, page_url
from serve_helpers import watching

from ccreport.site.build import Options, build
from ccreport.live import serve
from ccreport.live.events import Live
from ccreport.live.serve import resolve_static
from ccreport.live.serve import PortError, Running, is_loopback, make_server


def _serve(tmp_path):
    home = make_live_home(tmp_path / "home", turns=130)  # 261 messages in the main transcript
    site = tmp_path / "site"
    build(home, site, Options())
    (tmp_path / "secret.txt").write_text("TOP-SECRET")
    running = Running(make_server(site, home, port=0, live=Live(site)))
    running.home, running.site, running.tmp = home, site, tmp_path
    return running


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Read-only tests share one server (tests that change the home use ``fresh``)."""
    with _serve(tmp_path_factory.mktemp("served")) as running:
        yield running


@pytest.fixture
def fresh(tmp_path):
    with _serve(tmp_path) as running:
        yield running


# --- static files --------------------------------------------------------------------------------
TRAVERSALS = [
    "/../secret.txt", "/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/%2e%2e%2fsecret.txt",
    "/p/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/..%5csecret.txt", "/%5c..%5csecret.txt",
    "//etc/passwd", "/%2fetc%2fpasswd", "/%2Fetc/passwd", "/.%2e/secret.txt", "/%252e%252e/secret.txt",
    "/index.html%00.txt", "/./../secret.txt", "/C:/Windows/win.ini",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_traversal_is_404(served, path):
    status, _, body = request(served, path)
    assert status == 404
    assert b"TOP-SECRET" not in body and b"root:" not in body


def test_symlink_out_of_the_site_is_404(fresh):
    served = fresh
    (served.site / "leak.txt").symlink_to(served.tmp / "secret.txt")
    (served.site / "leakdir").symlink_to(served.tmp)
    assert request(served, "/leak.txt")[0] == 404
    assert request(served, "/leakdir/secret.txt")[0] == 404
    # A symlink that stays inside the site is an ordinary file.
    (served.site / "alias.html").symlink_to(served.site / "index.html")
    assert request(served, "/alias.html")[0] == 200


def test_resolve_static_refuses_outside_paths(tmp_path):
    site = tmp_path / "site"
    (site / "d").mkdir(parents=True)
    (site / "d" / "index.html").write_text("x")
    assert resolve_static(site, "/d/") == (site / "d" / "index.html").resolve()
    assert resolve_static(site, "/d") == (site / "d" / "index.html").resolve()
    assert resolve_static(site, "/d/../d/index.html") is None
    assert resolve_static(site, "/missing.html") is None


def test_pages_are_no_store_and_typed(served):
    status, headers, body = request(served, "/" + page_url(1))
    assert status == 200
    assert headers["Cache-Control"] == "no-store"
    assert headers["Content-Type"].startswith("text/html")
    assert b'id="L1"' in body
    status, headers, _ = request(served, "/")
    assert status == 200 and headers["Cache-Control"] == "no-store"
    status, headers, body = request(served, f"/p/{PROJECT}/{SID}/")
    assert status == 200 and SID.encode() in body


def test_hashed_assets_are_cacheable_and_served(served):
    index = (served.site / "index.html").read_text()
    live = next(part.split('"')[0] for part in index.split('src="')[1:] if "live." in part)
    status, headers, body = request(served, "/" + live)
    assert status == 200 and b"__events" in body
    assert "immutable" in headers["Cache-Control"]
    assert headers["Content-Type"].startswith("text/javascript") or "javascript" in headers["Content-Type"]


def test_missing_file_and_head(served):
    assert request(served, "/nope.html")[0] == 404
    status, headers, body = request(served, "/index.html", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


# --- the API ---------------------------------------------------------------------------------------
def test_transcripts_lists_every_kind(served):
    status, body = api(served, f"/api/sessions/{SID}/transcripts")
    assert status == 200
    by_id = {t["id"]: t for t in body["transcripts"]}
    assert set(by_id) == {"main", "a1b2c3", "acompact-9f8e7d"}
    assert by_id["main"]["type"] == "main" and by_id["main"]["message_count"] == 261
    assert by_id["a1b2c3"]["type"] == "subagent" and by_id["a1b2c3"]["agent_type"] == "code-reviewer"
    assert by_id["a1b2c3"]["message_count"] == 2  # the tool result is folded into its call
    assert by_id["acompact-9f8e7d"]["type"] == "compaction" and by_id["acompact-9f8e7d"]["message_count"] == 1
    for t in body["transcripts"]:
        assert {"id", "name", "type", "agent_type", "message_count"} <= set(t)


def test_transcript_default_is_latest_n_with_fields(served):
    status, body = api(served, f"/api/sessions/{SID}/transcript?limit=10")
    assert status == 200
    assert body["total"] == 261 and body["has_more"] is True and len(body["messages"]) == 10
    lines = [m["line"] for m in body["messages"]]
    assert lines == sorted(lines) and lines[-1] == 261  # the malformed last line is a message too
    assert body["first_line"] == lines[0] and body["last_line"] == lines[-1]
    last = body["messages"][-1]
    assert last["type"] == "malformed" and last["content"][0]["text"] == "this line is not JSON"
    reply = next(m for m in body["messages"] if m["type"] == "assistant")
    assert reply["model"].startswith("claude-") and reply["usage"]["output_tokens"] == 5
    assert reply["content"][0]["type"] == "text" and reply["content"][0]["text"].startswith("reply number")
    assert reply["timestamp"].startswith("2025-06-01T")


def test_limit_is_capped_at_200(served):
    status, body = api(served, f"/api/sessions/{SID}/transcript?limit=100000")
    assert status == 200 and len(body["messages"]) == 200 and body["has_more"] is True


def test_before_pages_back_to_the_first_message(served):
    seen = []
    status, body = api(served, f"/api/sessions/{SID}/transcript?limit=37")
    seen = [m["line"] for m in body["messages"]]
    while body["has_more"]:
        status, body = api(served, f"/api/sessions/{SID}/transcript?limit=37&before={body['first_line']}")
        assert status == 200 and body["messages"]
        seen = [m["line"] for m in body["messages"]] + seen
    assert seen[0] == 1 and len(seen) == len(set(seen)) == 261
    assert seen == sorted(seen)


def test_after_never_repeats_and_sees_appends(fresh):
    served = fresh
    cursor, seen = 0, []
    while True:
        status, body = api(served, f"/api/sessions/{SID}/transcript?limit=50&after={cursor}")
        assert status == 200
        seen += [m["line"] for m in body["messages"]]
        if not body["has_more"]:
            break
        cursor = body["last_line"]
    assert len(seen) == len(set(seen)) == 261
    cursor = body["last_line"]
    status, body = api(served, f"/api/sessions/{SID}/transcript?after={cursor}")
    assert body["messages"] == [] and body["has_more"] is False
    append(main_file(served.home), conversation(2, start=500))
    status, body = api(served, f"/api/sessions/{SID}/transcript?after={cursor}")
    assert [m["content"][0]["text"] for m in body["messages"]] == [
        "prompt number 500", "reply number 500", "prompt number 501", "reply number 501"]
    assert all(m["line"] > cursor for m in body["messages"])


def test_offset_and_agent_transcript(served):
    status, body = api(served, f"/api/sessions/{SID}/transcript?offset=4&limit=2")
    assert [m["line"] for m in body["messages"]] == [5, 6] and body["has_more"] is True
    status, body = api(served, f"/api/sessions/{SID}/transcript?agent_id=a1b2c3")
    assert status == 200 and body["agent_id"] == "a1b2c3" and body["total"] == 2
    call = body["messages"][1]["content"][0]
    assert call["type"] == "tool_use" and call["name"] == "Bash" and call["result"]["content"] == "file.txt"


def test_prefix_resolves_session(served):
    status, body = api(served, f"/api/sessions/{OTHER[:8]}/transcript")
    assert status == 200 and body["session_id"] == OTHER and body["total"] == 2


@pytest.mark.parametrize("path,code", [
    ("/api/sessions/nope-nope/transcript", 404),
    (f"/api/sessions/{SID}/transcript?agent_id=zzzz", 404),
    ("/api/sessions/a..b/transcript", 400),
    ("/api/sessions/..%2F..%2Fetc/transcript", 400),
    ("/api/sessions/%2e%2e/transcripts", 400),
    (f"/api/sessions/{SID}/transcript?agent_id=..%2Fx", 400),
    (f"/api/sessions/{SID}/transcript?agent_id=a%5Cb", 400),
    (f"/api/sessions/{SID}/transcript?limit=abc", 400),
    (f"/api/sessions/{SID}/transcript?limit=0", 400),
    (f"/api/sessions/{SID}/transcript?after=-1", 400),
    (f"/api/sessions/{SID}/transcript?after=3&before=9", 400),
    (f"/api/sessions/{SID}/transcript?offset=3&after=9", 400),
    (f"/api/sessions/{SID}/nothing", 404),
])
def test_api_errors_have_a_reason(served, path, code):
    status, headers, body = request(served, path)
    data = json.loads(body)
    assert status == code and data["status"] == code and data["error"]
    assert headers["Cache-Control"] == "no-store"


def test_ambiguous_prefix_is_409(fresh):
    status, body = api(fresh, "/api/sessions/11111111/transcripts")
    assert status == 200 and body["session_id"] == SID
    twin = SID[:8] + "-ffff-4fff-8fff-00000000000f"
    append(main_file(fresh.home, twin), conversation(1, sid=twin))
    status, body = api(fresh, "/api/sessions/11111111/transcripts")
    assert status == 409 and "ambiguous" in body["error"]


# --- ports, hosts ----------------------------------------------------------------------------------
def test_port_in_use_moves_on_or_says_so(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("hi")
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    port = blocker.getsockname()[1]
    try:
        monkeypatch.setattr(serve, "PORT_TRIES", 5)
        server = make_server(site, None, "127.0.0.1", port)
        assert server.server_address[1] != port
        server.server_close()
        monkeypatch.setattr(serve, "PORT_TRIES", 1)
        with pytest.raises(PortError, match="in use"):
            make_server(site, None, "127.0.0.1", port)
    finally:
        blocker.close()


def test_loopback_detection():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")


# --- live events -----------------------------------------------------------------------------------
def test_events_stream_hello_change_error_and_ends_on_stop(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("x")
    live = Live(site)
    running = Running(make_server(site, None, port=0, live=live)).start()
    stream = Stream(running)
    try:
        hello = stream.event()
        assert hello["hello"] is True and hello["error"] is None
        live.changed([site / "index.html", site / "assets" / "x.css", tmp_path / "elsewhere.html"])
        assert stream.event()["urls"] == ["index.html"]
        live.failed("the home vanished")
        ev = stream.event()
        assert ev["error"] == "the home vanished"
        assert api(running, "/__live")[1] == {"live": True, "error": "the home vanished"}
        live.changed([])  # a good rebuild clears the error even when nothing changed
        assert stream.event()["error"] is None
    finally:
        running.stop()
    # The stream ends with the server: no hanging request.
    assert stream.event() is None
    stream.close()


def test_not_live_without_watch(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    with Running(make_server(site, None, port=0)) as running:
        assert api(running, "/__live")[1]["live"] is False
        assert request(running, "/__events")[0] == 404
        assert request(running, "/api/sessions/x/transcripts")[0] == 404


def test_watch_rebuilds_and_announces_the_changed_page(tmp_path):
    """What `serve --watch` runs: follow.Follower (incremental, state in memory) feeding the pages:
    the page first, on its own, then the session overview and the site index."""
    home = make_live_home(tmp_path / "home")
    site = tmp_path / "site"
    opts = Options(jobs=1)
    build(home, site, opts)
    with watching(site, home, opts) as running:
        assert running.wait_ready()
        stream = Stream(running)
        assert stream.event()["hello"]
        append(main_file(home), conversation(1, start=900))
        ev = stream.event()
        while page_url(1) not in ev["urls"]:
            ev = stream.event()
        assert b"prompt number 900" in request(running, "/" + page_url(1))[2]
        # an incremental update writes the touched pages only, never every page of the site
        assert len(ev["urls"]) <= 5
        announced = set(ev["urls"])
        while not {f"p/{PROJECT}/{SID}/index.html", "index.html"} <= announced:
            ev = stream.event()
            announced |= set(ev["urls"])
        stream.close()


def test_failed_rebuild_keeps_the_last_good_site(tmp_path):
    home = make_live_home(tmp_path / "home")
    site = tmp_path / "site"
    build(home, site, Options())
    before = (site / page_url(1)).read_bytes()
    shutil.move(home / "projects", tmp_path / "moved")
    with watching(site, home, Options(jobs=1)) as running:
        assert running.wait_ready()
        assert re.search("projects", running.server.live.error)
        assert api(running, "/__live")[1]["error"] == running.server.live.error
    assert (site / page_url(1)).read_bytes() == before


def test_api_messages_are_the_pages_messages(served):
    """Same model as the site: every API message's line is a message anchor on some page."""
    status, body = api(served, f"/api/sessions/{SID}/transcript?limit=200&offset=0")
    status, rest = api(served, f"/api/sessions/{SID}/transcript?limit=200&offset=200")
    lines = [m["line"] for m in body["messages"] + rest["messages"]]
    assert len(lines) == body["total"]
    pages = "".join(p.read_text() for p in sorted((served.site / "p" / PROJECT / SID).glob("page-*.html")))
    anchors = {int(n) for n in re.findall(r'<(?:article|div) class="msg[^"]*" id="L(\d+)"', pages)}
    assert set(lines) == anchors
