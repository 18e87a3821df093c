"""Live pages in a real browser: lines appended to a session appear without a reload, the reader
who scrolled up gets a button instead of a jump, and transcript text never runs as script."""

from __future__ import annotations

import pytest

from serve_helpers import PROJECT, SID, append, conversation, live_server, main_file, make_live_home, page_url
from util import assistant, user

from ccreport.site.build import Options, build

pytestmark = pytest.mark.browser
WAIT = 20_000  # ms: a generous guard so a loaded machine does not fail, never a measured budget


@pytest.fixture
def ctx(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    yield context
    context.close()


def open_live(ctx, running, rel):
    page = ctx.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.csp_errors = []
    page.on("console", lambda m: page.csp_errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(running.url + rel)
    page.wait_for_selector("body[data-live-stream=open]", timeout=WAIT)
    page.evaluate("window.__notReloaded = true")
    return page, dialogs


def test_appended_lines_appear_without_reload(ctx, tmp_path):
    running = live_server(tmp_path)
    try:
        page, dialogs = open_live(ctx, running, page_url(1))
        append(main_file(running.home), conversation(1, start=700))
        page.wait_for_selector("text=reply number 700", timeout=WAIT)
        assert page.evaluate("window.__notReloaded") is True
        ids = page.eval_on_selector_all("#messages > [id^=L]", "els => els.map(e => e.id)")
        assert len(ids) == len(set(ids)) == 6 + 1 + 2  # 3 turns, the malformed line, the new turn
        assert ids[-2:] == ["L8", "L9"]
        # the new turn's quiet line came in with it, after its prompt (turns stay one block live)
        every = page.eval_on_selector_all("#messages > [id]", "els => els.map(e => e.id)")
        assert every[-3:] == ["L8", "turn-L8", "L9"] and len(every) == len(set(every))
        # A reply that arrives in two lines of one API response grows the message in place.
        append(main_file(running.home), [
            user("u800", "run it", ts="2025-06-01T12:00:00.000Z"),
            assistant("a800", [{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "echo hi"}}],
                      parent="u800", mid="msg_800", rid="req_800"),
        ])
        page.wait_for_selector("#L11", timeout=WAIT)
        append(main_file(running.home), [{"type": "user", "uuid": "r800", "parentUuid": "a800", "sessionId": SID,
                                          "timestamp": "2025-06-01T12:00:02.000Z",
                                          "message": {"role": "user", "content": [
                                              {"type": "tool_result", "tool_use_id": "toolu_9", "content": "RESULT-OK"}]}}])
        page.wait_for_function("() => document.getElementById('L11').textContent.includes('RESULT-OK')", timeout=WAIT)
        assert page.locator("#messages > #L11").count() == 1 and page.locator("#messages > #L12").count() == 0
        assert page.evaluate("window.__notReloaded") is True and dialogs == []
        assert page.csp_errors == []  # live.js works under the pages' CSP (no inline script, no eval)
    finally:
        running.stop()


def test_follows_at_bottom_and_offers_a_button_when_scrolled_up(ctx, tmp_path):
    running = live_server(tmp_path, turns=30, page_size=200)
    try:
        page, _ = open_live(ctx, running, page_url(1))
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        append(main_file(running.home), conversation(1, start=300))
        page.wait_for_selector("text=reply number 300", timeout=WAIT)
        page.wait_for_function("() => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 130",
                               timeout=WAIT)
        assert page.locator("#live-new").count() == 0 or not page.locator("#live-new").is_visible()

        page.evaluate("window.scrollTo(0, 0)")
        append(main_file(running.home), conversation(1, start=301))
        page.wait_for_selector("text=reply number 301", state="attached", timeout=WAIT)
        button = page.locator("#live-new")
        button.wait_for(state="visible", timeout=WAIT)
        assert page.evaluate("window.scrollY") == 0  # the reader's place is kept
        button.click()
        page.wait_for_function("() => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 130",
                               timeout=WAIT)
        assert not button.is_visible()
    finally:
        running.stop()


HOSTILE = ['<script>alert(1)</script>', '<img src=x onerror=alert(2)>', '<svg onload=alert(3)>',
           '"><iframe src="javascript:alert(4)"></iframe>']


def test_no_script_runs_from_transcript_text(ctx, tmp_path):
    running = live_server(tmp_path)
    try:
        append(main_file(running.home), [user("x1", HOSTILE[0] + " before", ts="2025-06-01T12:00:00.000Z")])
        build(running.home, running.site, Options())
        page, dialogs = open_live(ctx, running, page_url(1))
        append(main_file(running.home), [
            user("x2", " ".join(HOSTILE), ts="2025-06-01T12:00:01.000Z"),
            assistant("x3", [{"type": "text", "text": "\n\n".join(HOSTILE)},
                             {"type": "tool_use", "id": "toolu_x", "name": HOSTILE[1], "input": {"c": HOSTILE[2]}}],
                      parent="x2", mid="msg_x3", rid="req_x3"),
        ])
        page.wait_for_selector("#L10", timeout=WAIT)
        text = page.inner_text("#messages")
        for h in HOSTILE:
            assert h in text  # shown as text…
        # …and never as elements.
        assert page.locator("#messages script, #messages img[onerror], #messages svg[onload], #messages iframe").count() == 0
        assert dialogs == []
    finally:
        running.stop()


def test_new_page_is_offered_on_the_old_last_page(ctx, tmp_path):
    running = live_server(tmp_path, turns=2, page_size=5)  # 4 messages + the malformed line: page 1 is full
    try:
        page, _ = open_live(ctx, running, page_url(1))
        assert page.locator("nav.pager a[rel=next]").count() == 0
        append(main_file(running.home), conversation(3, start=40))
        link = page.locator("#live-next a")
        link.wait_for(state="visible", timeout=WAIT)
        assert link.get_attribute("href") == "page-0002.html"
        link.click()
        page.wait_for_selector("text=prompt number 41", timeout=WAIT)
    finally:
        running.stop()


def test_overview_pages_refresh_their_counts(ctx, tmp_path):
    running = live_server(tmp_path)
    try:
        page, _ = open_live(ctx, running, f"p/{PROJECT}/{SID}/index.html")
        # The transcripts table (the usage box above it has its own table.list, of models).
        main_row = page.locator("section.transcripts table.list tbody tr").first
        assert main_row.locator("td").nth(1).inner_text() == "7"
        append(main_file(running.home), conversation(2, start=60))
        page.wait_for_function("() => document.querySelector('section.transcripts table.list tbody tr td:nth-child(2)').textContent === '11'",
                               timeout=WAIT)
        assert page.evaluate("window.__notReloaded") is True
    finally:
        running.stop()


def test_a_failed_rebuild_is_shown_then_cleared(ctx, tmp_path):
    running = live_server(tmp_path)
    try:
        page, dialogs = open_live(ctx, running, page_url(1))
        running.server.live.failed("cannot read <img src=x onerror=alert(5)>")
        status = page.locator("#live-status")
        status.wait_for(state="visible", timeout=WAIT)
        assert "cannot read <img src=x onerror=alert(5)>" in status.inner_text()
        assert page.locator("#live-status img").count() == 0
        running.server.live.changed([])
        status.wait_for(state="hidden", timeout=WAIT)
        assert dialogs == []
    finally:
        running.stop()


def test_one_event_stream_per_browser(ctx, tmp_path):
    running = live_server(tmp_path)
    streams = []
    ctx.on("request", lambda r: streams.append(r.url) if r.url.endswith("/__events") else None)
    try:
        first, _ = open_live(ctx, running, page_url(1))
        second = ctx.new_page()
        second.goto(running.url + page_url(1))
        second.wait_for_selector("body[data-live=on]", timeout=WAIT)
        append(main_file(running.home), conversation(1, start=90))
        first.wait_for_selector("text=reply number 90", timeout=WAIT)
        second.wait_for_selector("text=reply number 90", timeout=WAIT)
        assert len(streams) == 1
        assert second.evaluate("document.body.getAttribute('data-live-stream')") is None
    finally:
        running.stop()


def test_inert_from_file_urls(ctx, tmp_path):
    home = make_live_home(tmp_path / "home")
    site = tmp_path / "site"
    build(home, site, Options())
    page = ctx.new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto((site / page_url(1)).as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("document.body.hasAttribute('data-live')") is False
    assert not any("__live" in u or "__events" in u for u in requested)
