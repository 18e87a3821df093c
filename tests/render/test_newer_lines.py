"""Claude Code 2.1.207–2.1.286 lines (docs/formats.md F8; issue 28, point 7), each rendered
for reading: a hook's message to the user is a visible notice, a cut Read says so, a cut stream is
marked, a denied call says why, an interrupting prompt says what it interrupted, effort and plugin /
MCP attribution show beside the model, a frame link reads as one, and StructuredOutput /
ReportFindings show the result they carry. The gallery session shows them all."""

from __future__ import annotations

import re

import pytest

from ccreport.model.messages import Builder
from ccreport.render.message import RenderContext, render_message
from ccreport.render.notes import bookkeeping_gist
from ccreport.source.jsonl import Entry
from util import assistant, tool_result, user

GALLERY_SID = "9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21"
HOSTILE = "<script>alert(1)</script>"
# What the gallery's pages must hold, one for each newer line (sample_home/make_gallery.py newer_lines).
NEWER_IN_GALLERY = (
    'class="sysnote hook-message"', 'class="sysnote read-cut"', 'class="note aborted"',
    '<span class="errflag">denied: blocked by auto mode', 'class="chip interrupted"',
    '<span class="chip source">effort high</span>', "via plugin publish-tools", "via MCP github › create_issue",
    "artifact frame at https://claude.ai/code/artifact/", 'data-tool="ReportFindings"',
    'data-tool="StructuredOutput"', '<ol class="findings">')


def _html(entries) -> str:
    b = Builder()
    for i, e in enumerate(entries, 1):
        b.feed(Entry(i, 0, 0, e))
    return "\n".join(render_message(m, RenderContext(root="../../../")) for m in b.out)


def _attachment(att: dict) -> dict:
    return {"type": "attachment", "uuid": "at1", "parentUuid": None, "sessionId": "s1", "isSidechain": False,
            "timestamp": "2025-06-01T10:00:02.000Z", "attachment": att}


def test_hook_system_message_is_a_visible_notice_not_bookkeeping():
    html = _html([_attachment({"type": "hook_system_message", "hookName": "Stop", "hookEvent": "Stop",
                               "toolUseID": "x", "content": f"Tests still failing {HOSTILE}"})])
    assert 'class="sysnote hook-message"' in html and "Message from a hook" in html
    assert "Tests still failing &lt;script&gt;" in html and "<script>" not in html
    assert "bookkeeping" not in html and "<details" not in html  # shown, not folded


def test_read_truncation_notice_says_the_read_was_cut():
    html = _html([_attachment({"type": "read_truncation_notice", "toolUseID": "t1",
                               "banner": "Output truncated: showing lines 1-200 of 900."})])
    assert 'class="sysnote read-cut"' in html and "Read cut short:" in html and "lines 1-200 of 900" in html


def test_aborted_stream_effort_and_attribution():
    a = assistant("a1", [{"type": "text", "text": "Half an answ"}], effort="high", attributionPlugin="pr-tools",
                  attributionMcpServer="github", attributionMcpTool="create_issue", isAbortedMidStream=True)
    html = _html([a])
    assert '<span class="chip source">effort high</span>' in html
    assert "via plugin pr-tools" in html and "via MCP github › create_issue" in html
    assert 'class="note aborted"' in html and "cut off here (aborted mid-stream)" in html
    plain = _html([assistant("a2", [{"type": "text", "text": "Whole."}])])
    assert "aborted" not in plain and "chip source" not in plain


def test_denied_call_says_why():
    entries = [assistant("a1", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "rm -rf build"}}]),
               tool_result("r1", "toolu_1", "Permission denied.", is_error=True, toolDenialKind="automode-blocked")]
    html = _html(entries)
    assert '<span class="errflag">denied: blocked by auto mode&#x27;s safety check</span>' in html
    assert '<p class="denial">⛔ The call was denied: blocked by auto mode&#x27;s safety check.</p>' in html
    odd = _html([entries[0], tool_result("r1", "toolu_1", "no", is_error=True, toolDenialKind=f"x-{HOSTILE}")])
    assert "denied: x &lt;script&gt;alert(1)&lt;/script&gt;" in odd and "<script>" not in odd


def test_interrupting_prompt_says_so():
    html = _html([user("u1", "[Request interrupted by user]", interruptedMessageId="msg_01Abc")])
    assert 'class="chip interrupted"' in html and "interrupted the response" in html and "msg_01Abc" in html


def test_frame_link_reads_as_a_link_to_an_artifact_frame():
    gist = bookkeeping_gist({"type": "frame-link", "frameUrl": "https://claude.ai/code/artifact/art_1",
                             "sessionId": "s1", "timestamp": "t", "frameId": "f7"})
    assert gist == "artifact frame at https://claude.ai/code/artifact/art_1 (frameId=f7)"


def test_report_findings_and_structured_output_show_the_result_they_carry():
    findings = {"findings": [{"title": f"Race in {HOSTILE}", "severity": "high", "file": "a.py", "line": 9,
                              "description": "Lock **before** reading."}]}
    html = _html([assistant("a1", [{"type": "tool_use", "id": "toolu_f", "name": "ReportFindings", "input": findings}]),
                  tool_result("r1", "toolu_f", "ok")])
    assert 'data-tool="ReportFindings"' in html and re.search(r'data-tool="ReportFindings"[^>]* open>', html)
    assert "1 finding" in html and '<ol class="findings">' in html and "<b>Race in &lt;script&gt;" in html
    assert '<span class="chip">high</span> <code>a.py:9</code>' in html and "<strong>before</strong>" in html
    out = {"matched": 42, "note": "All counts **match**."}
    html = _html([assistant("a2", [{"type": "tool_use", "id": "toolu_s", "name": "StructuredOutput", "input": out}]),
                  tool_result("r2", "toolu_s", "Structured output provided successfully")])
    assert '<table class="kv"><tr><th>matched</th><td><code>42</code></td></tr></table>' in html
    assert '<div class="lbl">note</div><div class="md"><p>All counts <strong>match</strong>.</p>' in html
    assert 'class="rawjson"' not in html


def test_gallery_shows_every_newer_line(sample_site):
    site, _ = sample_site
    folder = site / "p" / "-home-demo-gallery" / GALLERY_SID
    html = "".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("**/page-*.html")))
    assert [frag for frag in NEWER_IN_GALLERY if frag not in html] == []


@pytest.mark.browser
def test_hook_message_and_denial_are_visible_without_opening_anything(sample_site, browser):
    site, _ = sample_site
    page = browser.new_page()
    folder = site / "p" / "-home-demo-gallery" / GALLERY_SID
    target = next(p for p in sorted(folder.glob("page-*.html")) if "hook-message" in p.read_text(encoding="utf-8"))
    page.goto(target.as_uri())
    assert page.locator(".sysnote.hook-message").is_visible()
    assert "read-only on Fridays" in page.locator(".sysnote.hook-message").inner_text()
    assert page.locator("summary .errflag", has_text="denied").is_visible()
    assert page.locator(".note.aborted").is_visible()
    page.close()
