"""serve --watch's small updates: a page pushed as soon as it is written, with only its changed
messages (a "fragment") in the event or at /__fragment; and live.js merging them in a browser."""

from __future__ import annotations

import json
import os
import time

import pytest

from serve_helpers import PROJECT, SID, append, conversation, main_file, page_url
from serve_helpers import Stream, live_server, request
from util import assistant, tool_result, user

from ccreport.live.events import INLINE_MAX, Live
from ccreport.live.serve import Running, make_server

WAIT = 20_000  # ms: a guard against a hang on a loaded machine, never a measured budget
PAGE = page_url(1)


def wait_until(cond, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def fragment_of(ids, body: str) -> dict:
    return {"ids": ids, "removed": [], "html": f'<main id="main"><div class="messages" id="messages">{body}</div></main>'}


# --- /__fragment -------------------------------------------------------------------------------------
@pytest.fixture
def site_server(tmp_path):
    site = tmp_path / "site"
    (site / "p" / "x" / "s").mkdir(parents=True)
    (site / "p" / "x" / "s" / "page-0001.html").write_text("the page")
    (site / "p" / "x" / "s" / "page-0002.html").write_text("another page")
    (tmp_path / "outside.html").write_text("outside")
    os.symlink(tmp_path / "outside.html", site / "p" / "x" / "s" / "page-0003.html")
    live = Live(site)
    with Running(make_server(site, None, port=0, live=live)) as running:
        running.site, running.live = site, live
        yield running


def test_fragment_is_served_for_the_latest_version_only(site_server):
    live, site = site_server.live, site_server.site
    stream = Stream(site_server)
    assert stream.event()["hello"]
    rel = "p/x/s/page-0001.html"
    small = fragment_of(["L3"], '<article id="L3">new &lt;b&gt;</article>')
    assert live.changed([site / rel], fragments={rel: small}) is True
    ev = stream.event()
    assert ev["urls"] == [rel] and ev["fragments"][rel] == {"ids": ["L3"], "removed": [], "html": small["html"]}
    v = ev["version"]
    status, headers, body = request(site_server, f"/__fragment?url={rel}&v={v}")
    assert status == 200 and body.decode() == small["html"]
    assert headers["Cache-Control"] == "no-store" and headers["Content-Type"].startswith("text/html")
    head = request(site_server, f"/__fragment?url={rel}&v={v}", method="HEAD")
    assert head[0] == 200 and head[2] == b""
    for q in (f"url={rel}&v={v - 1}", f"url={rel}&v={v + 1}", f"url={rel}", f"url={rel}&v=1e3", f"url={rel}&v=-{v}",
              f"v={v}", f"url=p/x/s/../s/page-0001.html&v={v}", f"url=p/x/s/%2e%2e/s/page-0001.html&v={v}",
              f"url=/p/x/s/page-0001.html&v={v}", f"url=p/x/s/page-0002.html&v={v}", f"url=p/x/s&v={v}",
              f"url={rel}&v={v}&a=1&b=2&c=3"):
        assert request(site_server, "/__fragment?" + q)[0] == 404, q
    # A large fragment is not put in the event; it waits at /__fragment.
    big = fragment_of(["L4"], '<article id="L4">' + "x" * INLINE_MAX + "</article>")
    live.changed([site / rel], fragments={rel: big})
    ev = stream.event()
    assert "html" not in ev["fragments"][rel] and ev["fragments"][rel]["ids"] == ["L4"]
    assert request(site_server, f"/__fragment?url={rel}&v={v}")[0] == 404  # replaced by the newer one
    assert request(site_server, f"/__fragment?url={rel}&v={ev['version']}")[2].decode() == big["html"]
    # Rewritten without a fragment (a full render): the held one is stale and goes.
    live.changed([site / rel])
    ev = stream.event()
    assert "fragments" not in ev
    assert request(site_server, f"/__fragment?url={rel}&v={ev['version'] - 1}")[0] == 404
    stream.close()


def test_fragment_of_a_page_outside_the_site_is_never_held(site_server):
    live, site = site_server.live, site_server.site
    rel = "p/x/s/page-0003.html"  # a symlink to a file outside the site
    live.changed([site / rel], fragments={rel: fragment_of(["L1"], "x")})
    assert rel not in live.fragments
    assert request(site_server, f"/__fragment?url={rel}&v={live.version}")[0] == 404


def test_served_transcript_pages_are_noted_for_warming(site_server):
    request(site_server, "/p/x/s/page-0001.html")
    request(site_server, "/p/x/s/page-0002.html", method="HEAD")  # a HEAD is not a reader
    request(site_server, "/p/x/s/")
    assert site_server.live.take_views() == ["p/x/s/page-0001.html"]
    assert site_server.live.take_views() == []


def test_a_client_that_resets_its_connection_leaves_no_traceback(site_server, capsys):
    import socket
    import struct

    host, port = site_server.server.server_address[:2]
    for _ in range(3):
        s = socket.create_connection((host, port), timeout=10)
        s.sendall(f"GET /p/x/s/page-0001.html HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()  # a reset, while the server waits for the next request on this connection
    assert request(site_server, "/p/x/s/page-0001.html")[0] == 200  # still serving
    assert "Traceback" not in capsys.readouterr().err


# --- serve --watch end to end ------------------------------------------------------------------------
def test_an_append_pushes_the_page_first_with_only_the_new_messages(tmp_path):
    running = live_server(tmp_path)
    try:
        stream = Stream(running)
        assert stream.event()["hello"]
        assert request(running, "/" + PAGE)[0] == 200  # a reader opens the page: its renders are warmed
        assert wait_until(lambda: running.follower.cache.has((PROJECT, SID, "main")))
        append(main_file(running.home), conversation(1, start=500))
        ev = stream.event()
        # The page leaves on its own, before the session overview and the indexes are redone.
        assert ev["urls"] == [PAGE]
        frag = ev["fragments"][PAGE]
        assert frag["ids"] == ["L8", "turn-L8", "L9"] and frag["removed"] == []
        assert "prompt number 500" in frag["html"] and 'id="L7"' not in frag["html"]
        later = stream.event()
        while "index.html" not in later["urls"]:
            later = stream.event()
        assert PAGE not in later["urls"] and later["version"] > ev["version"]
        stream.close()
    finally:
        running.stop()


# --- in a browser ------------------------------------------------------------------------------------
@pytest.fixture
def ctx(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    yield context
    context.close()


def open_page(ctx, running):
    page = ctx.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(running.url + PAGE)
    page.wait_for_selector("body[data-live-stream=open]", timeout=WAIT)
    page.evaluate("window.__notReloaded = true")
    return page


def page_fetches(page) -> int:
    return page.evaluate("performance.getEntriesByType('resource').filter(r => r.name.includes('page-0001.html')).length")


@pytest.mark.browser
def test_fragments_grow_replace_and_remove_messages_in_the_browser(ctx, tmp_path):
    running = live_server(tmp_path)
    try:
        page = open_page(ctx, running)
        assert wait_until(lambda: running.follower.cache.has((PROJECT, SID, "main")))
        fetched = page_fetches(page)
        hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>'
        append(main_file(running.home), [
            user("u900", "run " + hostile, sid=SID, ts="2025-06-01T12:00:00.000Z"),
            assistant("a900", [{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "echo hi"}}],
                      parent="u900", sid=SID, mid="msg_900", rid="req_900", ts="2025-06-01T12:00:01.000Z"),
        ])
        page.wait_for_selector("#L9", timeout=WAIT)
        assert hostile in page.inner_text("#L8")
        # The result arrives: the call's message is replaced in place, nothing is added.
        append(main_file(running.home), [tool_result("r900", "toolu_9", "RESULT-OK", parent="a900", sid=SID,
                                                     ts="2025-06-01T12:00:02.000Z")])
        page.wait_for_function("() => document.getElementById('L9').textContent.includes('RESULT-OK')", timeout=WAIT)
        assert page.locator("#messages > #L10").count() == 0
        # An unfinished line shows on its own; completed, it continues the reply before it and
        # its own message goes.
        more = assistant("a901", [{"type": "text", "text": "first part"}], sid=SID, mid="msg_901", rid="req_901",
                         ts="2025-06-01T12:00:03.000Z")
        cont = json.dumps(assistant("a902", [{"type": "text", "text": "second part"}], parent="a901", sid=SID,
                                    mid="msg_901", rid="req_901", ts="2025-06-01T12:00:04.000Z")).encode()
        with open(main_file(running.home), "ab") as fh:
            fh.write(json.dumps(more).encode() + b"\n" + cont[:40])
        page.wait_for_selector("#L12", timeout=WAIT)
        with open(main_file(running.home), "ab") as fh:
            fh.write(cont[40:] + b"\n")
        # (L12 is still an anchor inside L11: only the top-level message goes.)
        page.wait_for_function("() => !document.querySelector('#messages > #L12') && document.getElementById('L11').textContent.includes('second part')",
                               timeout=WAIT)
        ids = page.eval_on_selector_all("#messages > [id^=L]", "els => els.map(e => e.id)")
        assert ids[-4:] == ["L7", "L8", "L9", "L11"] and len(ids) == len(set(ids))
        # All of it came in the events: the page itself was not fetched again.
        assert page_fetches(page) == fetched
        assert page.evaluate("window.__notReloaded") is True and page.dialogs == []
        assert page.locator("#messages script, #messages img[onerror]").count() == 0
    finally:
        running.stop()


@pytest.mark.browser
def test_a_fragment_that_is_gone_falls_back_to_the_whole_page(ctx, tmp_path):
    """An event names a fragment that is not inline and no longer held (a newer update replaced
    it): live.js fetches the whole page instead."""
    running = live_server(tmp_path)
    try:
        page = open_page(ctx, running)
        append(main_file(running.home), conversation(1, start=700))
        page.wait_for_selector("text=reply number 700", timeout=WAIT)
        fetched = page_fetches(page)
        stamp = page.evaluate("document.body.getAttribute('data-live-updated')")
        # The event of a large fragment (not inline) whose HTML the server does not hold (any more).
        running.server.live._publish({"urls": [PAGE], "error": None, "at": time.time(),
                                      "fragments": {PAGE: {"ids": ["L8"], "removed": []}}})
        page.wait_for_function(f"() => performance.getEntriesByType('resource').filter(r => r.name.includes('page-0001.html')).length > {fetched}",
                               timeout=WAIT)
        page.wait_for_function(f"() => document.body.getAttribute('data-live-updated') !== {json.dumps(stamp)}", timeout=WAIT)
        assert page.locator("#messages > #L8").count() == 1 and "reply number 700" in page.inner_text("#messages")
        assert page.evaluate("window.__notReloaded") is True
    finally:
        running.stop()
