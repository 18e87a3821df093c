"""Golden fragments for every tool and message kind (issue 3).

Each test feeds a few entries in the real shapes (docs/formats.md F1–F3) through the model and the
renderer and checks the HTML a reader gets: the right summary, the structured body, escaped text.
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import pytest

from ccreport.render.context import BlobStore
from ccreport.render.markup import colours_in_browser
from ccreport.source.jsonl import Entry
from ccreport.model.messages import Builder
from ccreport.render.message import RenderContext, render_message
from ccreport.render.tools import VIEWS, view_for
from ccreport.render.tools.code import parse_numbered
from util import assistant, tool_result, user

PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4ae0000000049454e44ae426082")).decode()


def render(entries, tmp_path=None, **ctx) -> str:
    b = Builder()
    for i, e in enumerate(entries, 1):
        b.feed(Entry(i, 0, 0, e))
    rc = RenderContext(root="../../../", blobs=BlobStore(tmp_path) if tmp_path else None, **ctx)
    return "\n".join(render_message(m, rc) for m in b.out)


_n = iter(range(10**6))


def call(name, inp, content, extra=None, is_error=False):
    k = next(_n)
    tid = f"toolu_{k}"
    return [assistant(f"a{k}", [{"type": "tool_use", "id": tid, "name": name, "input": inp}], mid=f"msg_{k}"),
            tool_result(f"r{k}", tid, content, extra=extra, is_error=is_error)]


def summary_of(html: str) -> str:
    m = re.search(r"<summary>(.*?)</summary>", html, re.S)
    assert m, html
    return m.group(1)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "iframe", "object", "embed"):
            self.bad.append(tag)
        for k, v in attrs:
            if k.startswith("on") or k == "style" or (k in ("href", "src") and v and v.strip().lower().startswith(("javascript:", "data:text"))):
                self.bad.append(f"{tag}[{k}={v}]")


def sources(html: str) -> list[str]:
    """The original texts folded after transformed views (<details class="raw"> "source"), unescaped."""
    from html import unescape

    return [unescape(m) for m in re.findall(r'<details class="raw"><summary>source[^<]*</summary><pre>(.*?)</pre></details>',
                                            html, re.S)]


def no_unsafe(html: str) -> None:
    """Parsed as a browser would: no script/style element, no on* or style attribute, no raw ANSI."""
    p = _Tags()
    p.feed(html)
    assert p.bad == []
    assert "\x1b" not in html


# --- edits ----------------------------------------------------------------------------------------
def test_edit_uses_structured_patch_with_path_and_counts():
    patch = [{"oldStart": 11, "oldLines": 3, "newStart": 11, "newLines": 3,
              "lines": ["     def restock(self, n):", "-        if n <= 0:", "+        if n < 1:", "             raise"]}]
    html = render(call("Edit", {"file_path": "/p/app.py", "old_string": "if n <= 0:", "new_string": "if n < 1:"},
                       "The file /p/app.py has been updated.", {"filePath": "/p/app.py", "structuredPatch": patch}))
    s = summary_of(html)
    assert '<code class="path">/<wbr>p/<wbr>app.py</code>' in s
    assert '<span class="dadd">+1</span> <span class="ddel">−1</span>' in s
    assert '<span class="hunk">@@ -11,3 +11,3 @@\n</span>' in html
    assert '<span class="del">-        if n &lt;<del>=</del> <del>0</del>:\n</span>' in html
    assert '<span class="add">+        if n &lt; <ins>1</ins>:\n</span>' in html
    assert '<span class="ctx">     def restock(self, n):\n</span>' in html


def test_edit_without_patch_diffs_old_and_new_strings():
    html = render(call("Edit", {"file_path": "a.txt", "old_string": "one\ntwo\nthree", "new_string": "one\n2\nthree"}, "ok"))
    assert '<span class="del">-two\n</span>' in html and '<span class="add">+2\n</span>' in html
    assert '<span class="ctx"> one\n</span>' in html


def test_multiedit_shows_every_edit():
    html = render(call("MultiEdit", {"file_path": "m.py", "edits": [
        {"old_string": "a = 1", "new_string": "a = 2"}, {"old_string": "b = 1", "new_string": "b = 3"}]}, "Applied 2 edits"))
    assert "2 edits" in summary_of(html)
    for frag in ('<span class="del">-a = <del>1</del>\n</span>', '<span class="add">+a = <ins>2</ins>\n</span>',
                 '<span class="add">+b = <ins>3</ins>\n</span>'):
        assert frag in html


def test_write_highlighted_numbered_and_folded_when_long():
    content = "import os\n" + "".join(f"x{i} = {i}\n" for i in range(80))
    with colours_in_browser():
        html = render(call("Write", {"file_path": "/p/gen.py", "content": content}, "File created",
                           {"type": "create", "filePath": "/p/gen.py", "content": content, "structuredPatch": []}))
    s = summary_of(html)
    assert "/<wbr>p/<wbr>gen.py" in s and "81 lines, new file" in s
    # The site leaves the colours to the browser (assets/code.js): the language by extension, plain text.
    assert '<pre class="code hl num" tabindex="0" data-lang="python"><span class="ln">1</span><span class="lsep">\t</span>import os' in html
    assert '<details class="more"><summary>show all 81 lines</summary><pre class="code hl num cont" tabindex="0" data-lang="python">' in html
    assert '<span class="ln">81</span>' in html
    # Outside the site build (the self-contained export has no highlighter script): pygments.
    exported = render(call("Write", {"file_path": "/p/gen.py", "content": content}, "File created",
                           {"type": "create", "filePath": "/p/gen.py", "content": content, "structuredPatch": []}))
    assert '<span class="ln">1</span><span class="lsep">\t</span><span class="kn">import</span>' in exported
    assert "data-lang" not in exported


def test_write_update_shows_diff_and_folds_full_content():
    html = render(call("Write", {"file_path": "s.csv", "content": "a,b\n1,2\n"}, "updated",
                       {"type": "update", "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 2,
                                                               "lines": [" a,b", "+1,2"]}]}))
    assert "overwritten" in summary_of(html)
    assert '<span class="add">+1,2\n</span>' in html
    assert '<details class="more"><summary>full content (2 lines)</summary>' in html


# --- reads ----------------------------------------------------------------------------------------
def test_read_real_line_numbers_parsed_out_and_range_in_summary():
    text = "    10→def f():\n    11→    return 1\n\n<system-reminder>\nconsider malware\n</system-reminder>\n"
    html = render(call("Read", {"file_path": "/p/m.py", "offset": 10, "limit": 2}, text,
                       {"type": "text", "file": {"filePath": "/p/m.py", "content": "def f():\n    return 1",
                                                 "numLines": 2, "startLine": 10, "totalLines": 40}}))
    assert "lines 10–11 of 40" in summary_of(html)
    assert '<span class="ln">10</span><span class="lsep">→</span><span class="k">def</span>' in html
    assert '<span class="ln">11</span>' in html
    # The number is shown once, in the gutter; the reminder is folded, not mixed into the code.
    assert "    10→" not in html
    assert '<details class="injected"><summary>System reminder</summary>' in html
    # Its tags went; their source sits inside the reminder's own fold (no extra line under it).
    assert sources(html) == ["<system-reminder>\nconsider malware\n</system-reminder>"]
    assert ('<pre>consider malware</pre><details class="raw"><summary>source</summary><pre>&lt;system-reminder&gt;'
            '\nconsider malware\n&lt;/system-reminder&gt;</pre></details></details>') in html


def test_parse_numbered_handles_tab_form_and_rejects_plain_text():
    assert parse_numbered("3\tx\n4\ty") == ([3, 4], "x\ny", "\t", "")
    assert parse_numbered("hello\nworld") is None


def test_read_image_shown_as_lazy_image(tmp_path):
    html = render(call("Read", {"file_path": "/p/shot.png"},
                       [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}],
                       {"type": "image", "file": {"base64": PNG, "type": "image/png", "originalSize": 70}}), tmp_path)
    assert re.search(r'<img src="\.\./\.\./\.\./blobs/[0-9a-f]{24}\.png"[^>]*loading="lazy"', html)
    assert len(list((tmp_path / "blobs").iterdir())) == 1


# --- shell ----------------------------------------------------------------------------------------
def test_bash_command_description_stdout_stderr_and_ansi():
    html = render(call("Bash", {"command": "pytest -q", "description": "Run tests"}, "x",
                       {"stdout": "\x1b[32m3 passed\x1b[0m", "stderr": "warn <b>", "interrupted": False, "isImage": False}))
    s = summary_of(html)
    assert '<code class="cmdline">pytest -q</code>' in s and "Run tests" in s
    assert '<span class="ansi-fg32">3 passed</span>' in html
    assert '<div class="lbl">stderr</div><pre class="term err">warn &lt;b&gt;</pre>' in html
    # The colours dropped the escapes: the text with them follows, folded (ESC written \u001b as in
    # the JSONL); the plain stderr needs no copy.
    assert sources(html) == ["\\u001b[32m3 passed\\u001b[0m"]
    no_unsafe(html)


def test_bash_error_interrupted_and_background():
    err = render(call("Bash", {"command": "false"}, "Exit code 1\nboom", {"stdout": "", "stderr": "", "interrupted": False},
                      is_error=True))
    assert '<span class="errflag">error</span>' in err and "Exit code 1" in err
    assert '<span class="chip warnchip">exit 1</span>' in err
    intr = render(call("Bash", {"command": "sleep 9"}, "interrupted", {"stdout": "", "stderr": "", "interrupted": True}))
    assert '<span class="chip warnchip">interrupted</span>' in intr
    bg = render(call("Bash", {"command": "serve", "run_in_background": True}, "started",
                     {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": "b81f"}))
    assert '<span class="chip">background</span>' in bg and "background task b81f" in bg


def test_powershell_and_bash_output():
    ps = render(call("PowerShell", {"command": "Get-ChildItem", "description": "list"}, "a", {"stdout": "a", "stderr": ""}))
    assert 'data-tool="PowerShell"' in ps and "Get-ChildItem" in summary_of(ps)
    bo = render(call("BashOutput", {"bash_id": "dce0af"},
                     "<status>running</status>\n\n<stdout>\n\x1b[1mVITE\x1b[0m ready\n</stdout>\n\n<timestamp>t</timestamp>"))
    assert "shell <code>dce0af</code>" in summary_of(bo)
    assert '<span class="chip">status running</span>' in bo
    assert '<span class="ansi-b">VITE</span> ready' in bo
    # One source for the whole tagged text (not a second one for the ANSI inside it).
    assert sources(bo) == ["<status>running</status>\n\n<stdout>\n\\u001b[1mVITE\\u001b[0m ready\n</stdout>\n\n<timestamp>t</timestamp>"]
    no_unsafe(bo)


def test_bash_mode_tags():
    html = render([user("u1", "<bash-input>ls -la</bash-input>"),
                   user("u2", "<bash-stdout>\x1b[34mdir\x1b[0m</bash-stdout><bash-stderr></bash-stderr>")])
    assert '<span class="prompt-sign">$ </span>ls -la' in html
    assert '<span class="ansi-fg34">dir</span>' in html and "Bash output" in html
    assert sources(html) == ["<bash-input>ls -la</bash-input>",
                             "<bash-stdout>\\u001b[34mdir\\u001b[0m</bash-stdout><bash-stderr></bash-stderr>"]
    no_unsafe(html)


# --- search -----------------------------------------------------------------------------------------
def test_grep_glob_ls_file_lists_with_counts():
    g = render(call("Grep", {"pattern": "restock", "path": "src", "output_mode": "files_with_matches"},
                    "Found 2 files\na.py\nb.py", {"mode": "files_with_matches", "filenames": ["a.py", "b.py"], "numFiles": 2}))
    s = summary_of(g)
    assert "<code>restock</code>" in s and '<code class="path">src</code>' in s
    assert '<span class="chip">2 files</span>' in g and '<pre class="files">a.py\nb.py</pre>' in g
    c = render(call("Grep", {"pattern": "x", "output_mode": "content"}, "a.py:1:x",
                    {"mode": "content", "filenames": [], "numFiles": 0, "content": "a.py:1:x", "numLines": 1}))
    assert "<span class=chip>1 line</span>" in c and "a.py:1:x" in c
    gl = render(call("Glob", {"pattern": "**/*.py"}, "a.py\nb.py\nc.py",
                     {"filenames": ["a.py", "b.py", "c.py"], "numFiles": 3, "truncated": True}))
    assert "3 files (truncated)" in gl
    ls = render(call("LS", {"path": "/p"}, "- /p/\n  - a.py\n  - sub/\n    - b.py\n"))
    assert "3 entries" in ls and '<code class="path">/<wbr>p</code>' in summary_of(ls)


# --- task lists -------------------------------------------------------------------------------------
def test_todowrite_checklist_with_status():
    html = render(call("TodoWrite", {"todos": [
        {"content": "Read", "status": "completed", "activeForm": "Reading"},
        {"content": "Fix", "status": "in_progress", "activeForm": "Fixing"},
        {"content": "Ship", "status": "pending", "activeForm": "Shipping"}]}, "Todos have been modified successfully."))
    assert "1/3 done" in summary_of(html) and "Fixing" in summary_of(html)
    assert '<li class="todo st-completed"><span class="mark">☑</span> Read' in html
    assert '<li class="todo st-in_progress"><span class="mark">◐</span> Fix' in html
    assert '<li class="todo st-pending"><span class="mark">☐</span> Ship' in html
    assert "rawjson" not in html


def test_task_create_update_list():
    c = render(call("TaskCreate", {"subject": "Publish", "description": "Copy **it**"}, "Task #1 created successfully: Publish",
                    {"task": {"id": "1", "subject": "Publish"}}))
    assert "#1 Publish" in summary_of(c) and "<strong>it</strong>" in c
    u = render(call("TaskUpdate", {"taskId": "1", "status": "completed"}, "Updated task #1 status",
                    {"success": True, "taskId": "1", "statusChange": {"from": "in_progress", "to": "completed"}}))
    s = summary_of(u)
    assert "#1" in s and "in progress" in s and "☑" in s
    # TaskList without a structured result: the text lines are parsed into the checklist.
    lst = render(call("TaskList", {}, "#1 [completed] Research (alice)\n#2 [pending] Merge"))
    assert "1/2 done" in summary_of(lst)
    assert '<li class="todo st-completed"><span class="mark">☑</span> #1 Research' in lst
    assert '<span class="chip">alice</span>' in lst


# --- web ----------------------------------------------------------------------------------------------
def test_webfetch_markdown_with_html_off():
    html = render(call("WebFetch", {"url": "https://ex.com/a", "prompt": "sum up"}, "# Title\n\n<script>alert(1)</script> text",
                       {"code": 200, "codeText": "OK", "bytes": 2048, "durationMs": 1500, "url": "https://ex.com/a",
                        "result": "# Title\n\n<script>alert(1)</script> text"}))
    assert "https://ex.com/a" in summary_of(html)
    assert "<h1>Title</h1>" in html and "&lt;script&gt;" in html
    assert "HTTP 200 OK" in html and "2.0 KB" in html
    no_unsafe(html)


def test_websearch_query_and_links():
    text = 'Web search results for query: "q"\n\nLinks: [{"title":"Docs","url":"https://docs.ex.com/x"}]\n\nSummary **here**.'
    html = render(call("WebSearch", {"query": "python csv"}, text, {"query": "python csv", "durationSeconds": 1.5, "results": []}))
    assert "<code>python csv</code>" in summary_of(html)
    assert '<a href="https://docs.ex.com/x" rel="noreferrer">Docs</a>' in html and "<strong>here</strong>" in html


# --- agents ---------------------------------------------------------------------------------------------
def test_agent_summary_link_answer_and_stats():
    content = [{"type": "text", "text": "Found **2** issues."},
               {"type": "text", "text": "agentId: a1b2 (use SendMessage with to: 'a1b2' to continue this agent)\n"
                                        "<usage>total_tokens: 99\ntool_uses: 2\nduration_ms: 1500</usage>"}]
    html = render(call("Agent", {"description": "Review code", "subagent_type": "reviewer", "prompt": "Look at x"}, content,
                       {"agentId": "a1b2", "status": "completed", "totalDurationMs": 15400, "totalTokens": 18234,
                        "totalToolUseCount": 2, "agentType": "reviewer"}),
                  agent_urls={"a1b2": "p/x/s/agent-a1b2/page-0001.html"})
    s = summary_of(html)
    assert "Review code" in s and '<span class="chip">reviewer</span>' in s
    assert '<details class="prompt-fold"><summary>Prompt (9 characters)</summary>' in html
    assert 'href="../../../p/x/s/agent-a1b2/page-0001.html"' in html
    assert "Found <strong>2</strong> issues." in html
    for frag in ("15.4 s", "18,234 tokens", "2 tool uses", "completed"):
        assert frag in html
    assert '<p class="trailer">agentId: a1b2' in html  # trailer kept, apart from the answer


def test_task_old_name_uses_same_view():
    assert view_for("Task") is view_for("Agent")


# --- questions, plans, skills, deferred tools, MCP, unknown --------------------------------------------
def test_ask_user_question_marks_chosen_answers():
    qs = [{"question": "Where?", "header": "Dest", "multiSelect": False,
           "options": [{"label": "Drive", "description": "copy"}, {"label": "Email", "description": "send"}]},
          {"question": "Formats?", "header": "Fmt", "multiSelect": True,
           "options": [{"label": "HTML"}, {"label": "CSV"}, {"label": "PDF"}]}]
    html = render(call("AskUserQuestion", {"questions": qs}, "User has answered your questions: ...",
                       {"questions": qs, "answers": {"Where?": "Drive", "Formats?": "HTML, CSV"}}))
    assert '<li class="opt picked">☑ <b>Drive</b> — copy</li>' in html
    assert '<li class="opt">☐ <b>Email</b> — send</li>' in html
    assert '<li class="opt picked">☑ <b>CSV</b></li>' in html and '<li class="opt">☐ <b>PDF</b></li>' in html
    assert "+1 more" in summary_of(html)


def test_exit_plan_mode_plan_as_markdown():
    html = render(call("ExitPlanMode", {"plan": "## Plan\n\n1. **fix**\n2. ship"}, "User has approved your plan."))
    assert "Plan" in summary_of(html)
    assert '<div class="md plan"><h2>Plan</h2>' in html and "<strong>fix</strong>" in html


def test_skill_and_tool_search():
    sk = render(call("Skill", {"skill": "pdf", "args": "x.html"}, "Launching skill: pdf", {"success": True, "commandName": "pdf"}))
    assert '<span class="cmd">pdf</span>' in summary_of(sk)
    ts = render(call("ToolSearch", {"query": "select:TaskCreate,TaskList"},
                     [{"type": "tool_reference", "tool_name": "TaskCreate"}, {"type": "tool_reference", "tool_name": "TaskList"}],
                     {"matches": ["TaskCreate", "TaskList"], "total_deferred_tools": 37}))
    assert "2 tools loaded of 37 deferred" in ts
    assert '<span class="chip tref">TaskCreate</span>' in ts


def test_mcp_tool_names_server_and_tool_with_kv_input():
    html = render(call("mcp__github__create_issue", {"repo": "g", "labels": ["bug"], "meta": {"a": 1}},
                       [{"type": "text", "text": '{"number": 42, "url": "https://x"}'}]))
    s = summary_of(html)
    assert '<span class="mcp">MCP</span> <span class="dim">github ›</span> create_issue' in s
    assert "<tr><th>repo</th><td><code>g</code></td></tr>" in html
    assert "<ul class=\"kvlist\"><li><code>bug</code></li></ul>" in html
    assert "<tr><th>number</th><td><code>42</code></td></tr>" in html  # JSON answer as a table
    assert "rawjson" not in html


def test_unknown_tool_gets_kv_table_and_text():
    html = render(call("NotebookEdit", {"notebook_path": "n.ipynb", "new_source": "x = 1"}, "Updated cell"))
    assert "<th>notebook_path</th>" in html and "Updated cell" in html and "rawjson" not in html


def test_tool_use_error_is_an_error_line():
    html = render(call("glob", {"pattern": "*"}, "<tool_use_error>Error: No such tool available: glob</tool_use_error>",
                       "Error: No such tool available: glob", is_error=True))
    assert '<p class="tool-error">⚠ Error: No such tool available: glob</p>' in html
    assert sources(html) == ["<tool_use_error>Error: No such tool available: glob</tool_use_error>"]


# --- images and documents ---------------------------------------------------------------------------------
def test_user_images_written_once_and_pdf_link(tmp_path):
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": base64.b64encode(b"%PDF-1.4 x" * 10).decode()}}
    html = render([user("u1", [{"type": "text", "text": "look"}, img, pdf]), user("u2", [img])], tmp_path)
    assert html.count('loading="lazy"') == 2
    assert len([p for p in (tmp_path / "blobs").iterdir() if p.suffix == ".png"]) == 1
    assert re.search(r'<a href="\.\./\.\./\.\./blobs/[0-9a-f]{24}\.pdf" download>document</a>', html)
    assert "application/pdf, 100 B" in html
    assert "base64," not in html  # nothing inlined


# --- text conventions ----------------------------------------------------------------------------------------
def test_slash_command_chip_and_terminal_output():
    html = render([user("u1", "<command-name>/model</command-name>\n  <command-message>model</command-message>\n"
                              "  <command-args>opus</command-args>"),
                   user("u2", "<local-command-stdout>Set \x1b[1mopus\x1b[22m</local-command-stdout>")])
    assert '<span class="cmd">/model</span> <span class="cmd-args">opus</span>' in html
    assert '<pre class="term">Set <span class="ansi-b">opus</span></pre>' in html
    assert sources(html) == ["<command-name>/model</command-name>\n  <command-message>model</command-message>\n"
                             "  <command-args>opus</command-args>",
                             "<local-command-stdout>Set \\u001b[1mopus\\u001b[22m</local-command-stdout>"]
    no_unsafe(html)


def test_injected_text_folded_and_labelled():
    html = render([
        user("u1", "<local-command-caveat>Caveat: The messages below were generated</local-command-caveat>", isMeta=True),
        user("u2", [{"type": "text", "text": "Base directory for this skill: /s\n\n# Skill"}], isMeta=True),
        user("u3", "<ide_opened_file>The user opened the file a.py in the IDE.</ide_opened_file>"),
        user("u4", "<user-prompt-submit-hook>run tests first</user-prompt-submit-hook>"),
        user("u5", "real question\n<system-reminder>be careful</system-reminder>"),
        user("u6", "<system-reminder>only this</system-reminder>"),
    ])
    assert '<details class="injected"><summary>Caveat (injected by Claude Code)</summary>' in html
    assert "<summary>Skill instructions (not typed by the user)</summary>" in html
    assert "<summary>IDE: opened file</summary>" in html
    assert "<summary>Hook output (prompt submit)</summary>" in html
    assert '<div class="prompt">real question</div><details class="injected"><summary>System reminder</summary>' in html
    # Each folded convention that took its tags off keeps its source; the skill body (no tags) needs none.
    assert sources(html) == ["<local-command-caveat>Caveat: The messages below were generated</local-command-caveat>",
                             "<ide_opened_file>The user opened the file a.py in the IDE.</ide_opened_file>",
                             "<user-prompt-submit-hook>run tests first</user-prompt-submit-hook>",
                             "real question\n<system-reminder>be careful</system-reminder>",
                             "<system-reminder>only this</system-reminder>"]
    # A fold's source sits inside that fold (no extra line under a closed fold).
    assert ('<summary>IDE: opened file</summary><pre>The user opened the file a.py in the IDE.</pre>'
            '<details class="raw"><summary>source</summary>') in html
    assert ('<pre>only this</pre><details class="raw"><summary>source</summary><pre>&lt;system-reminder&gt;only this'
            '&lt;/system-reminder&gt;</pre></details></details>') in html


def test_task_notification_card_and_interrupt_marker():
    html = render([user("u1", "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
                              "<summary>done &amp; dusted</summary>\n</task-notification>"),
                   user("u2", [{"type": "text", "text": "[Request interrupted by user]"}])])
    assert '<div class="card status-completed"><p><b>Background task completed</b></p>' in html
    assert "done &amp;amp; dusted" in html  # escaped once more: the text is shown, not interpreted
    assert '<p class="marker">■ [Request interrupted by user]</p>' in html
    assert sources(html) == ["<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
                             "<summary>done &amp; dusted</summary>\n</task-notification>"]  # the marker drops nothing


def test_api_errors_as_error_notes():
    html = render([
        assistant("a1", [{"type": "text", "text": "API Error: 529 overloaded"}], model="<synthetic>",
                  isApiErrorMessage=True, error="server_error", apiErrorStatus=529),
        {"type": "system", "subtype": "api_error", "uuid": "s1", "timestamp": "2025-06-01T10:00:00.000Z", "level": "error",
         "error": {"status": 529, "error": {"type": "overloaded_error", "message": "Overloaded"}},
         "retryInMs": 2000, "retryAttempt": 1, "maxRetries": 10}])
    assert 'class="msg assistant step api-error"' in html
    assert '<span class="chip errchip">HTTP 529</span> <span class="chip errchip">server_error</span>' in html
    assert "API error HTTP 529 overloaded_error: Overloaded — retry 1/10 in 2.0 s" in html
    assert "rawjson" not in html


def test_compaction_divider_and_folded_summary():
    html = render([
        {"type": "system", "subtype": "compact_boundary", "uuid": "c1", "parentUuid": None, "timestamp": "2025-06-01T10:00:00Z",
         "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 151234}},
        user("u1", "This session is being continued… Summary:\n1. **did** things", isCompactSummary=True,
             isVisibleInTranscriptOnly=True)])
    assert '<div class="divider" id="L1"><span>Context compacted (auto, 151k tokens)</span>' in html
    assert '<details class="compact-summary"><summary>Summary of the earlier conversation (compaction)</summary>' in html
    assert sources(html) == []  # markdown keeps the words: no source copy


def test_persisted_output_links_copied_file(tmp_path):
    src = tmp_path / "tool-results"
    src.mkdir()
    (src / "toolu_big.txt").write_text("all of it")
    from ccreport.site import toolresults
    from ccreport.site.write import Writer

    w = Writer(tmp_path / "site")
    copy = toolresults.copier(src, "p/proj/sess/tool-results", "p/proj/sess/tool-results", w)
    text = ("<persisted-output>\nOutput too large (63.6KB). Full output saved to: /h/.claude/projects/x/s/tool-results/"
            "toolu_big.txt\n\nPreview (first 2KB):\nhead of it\n</persisted-output>")
    html = render(call("Bash", {"command": "cat big"}, text, {"stdout": "", "stderr": "", "interrupted": False}),
                  copy_tool_result=copy)
    assert '<a class="persisted" href="../../../p/proj/sess/tool-results/toolu_big.txt">' in html
    assert "Output too large (63.6KB)" in html and "head of it" in html
    assert sources(html) == [text]
    assert (tmp_path / "site" / "p/proj/sess/tool-results/toolu_big.txt").read_text() == "all of it"
    # A name that is not a plain file name in that folder is never copied.
    assert copy("../secret") is None and copy("missing.txt") is None
    missing = render(call("Bash", {"command": "x"}, text.replace("toolu_big", "toolu_gone"),
                          {"stdout": "", "stderr": ""}), copy_tool_result=copy)
    assert "not found in this home" in missing


def test_thinking_not_recorded_and_recorded():
    html = render([assistant("a1", [{"type": "thinking", "thinking": "", "signature": "Eq"},
                                    {"type": "thinking", "thinking": "step *one*", "signature": "Eq"}])])
    assert "Thinking not recorded</summary>" in html and "with a signature, no text in the transcript" in html
    assert "Thinking: <span class=\"think-head\">step *one*</span>" in html  # the first line in the fold's summary
    assert '<span class="dim">(2 words)</span></summary>' in html


def test_per_message_model_tokens_and_time():
    html = render([assistant("a1", [{"type": "text", "text": "hi"}], ts="2025-06-01T10:00:01.000Z",
                             usage={"input_tokens": 1200, "output_tokens": 34, "cache_read_input_tokens": 9000,
                                    "cache_creation_input_tokens": 300})])
    assert '<span class="model">claude-sonnet-4-5-20250929</span>' in html
    assert "in 1,200 · out 34 · cache read 9,000 · cache write 300" in html
    assert '<time datetime="2025-06-01T10:00:01.000Z" title="2025-06-01T10:00:01.000Z">' in html


# --- safety over every view -----------------------------------------------------------------------------------
EVIL = '<script>alert(1)</script>"\' onload=x style=y'


@pytest.mark.parametrize("name", sorted(VIEWS) + ["mcp__s__t", "Unknown"])
def test_every_view_escapes_hostile_input(name, tmp_path):
    inp = {k: EVIL for k in ("command", "description", "file_path", "pattern", "path", "url", "prompt", "query",
                             "plan", "skill", "subject", "taskId", "content", "old_string", "new_string", "to", "message")}
    inp["todos"] = [{"content": EVIL, "status": EVIL}]
    inp["questions"] = [{"question": EVIL, "header": EVIL, "options": [{"label": EVIL, "description": EVIL}]}]
    inp["edits"] = [{"old_string": EVIL, "new_string": EVIL}]
    extra = {"stdout": EVIL, "stderr": EVIL, "filenames": [EVIL], "content": EVIL, "agentId": EVIL, "status": EVIL,
             "answers": {EVIL: EVIL}, "tasks": [{"id": EVIL, "subject": EVIL, "status": EVIL}], "result": EVIL,
             "statusChange": {"from": EVIL, "to": EVIL}, "task": {"id": EVIL, "subject": EVIL}}
    html = render(call(name, inp, f"<persisted-output>Full output saved to: /x/{EVIL}\n</persisted-output>{EVIL}", extra),
                  tmp_path)
    no_unsafe(html)


def test_markdown_table_alignment_uses_classes_not_style():
    from ccreport.render.markup import markdown

    html = markdown("| a | b |\n|:--|--:|\n| 1 | 2 |")
    assert '<th class="al-left">a</th>' in html and '<td class="al-right">2</td>' in html
    assert "style=" not in html


def test_edit_result_snippet_numbered_not_raw():
    text = ("The file /p/a.py has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
            "    41→def g():\n    42→    return 2")
    html = render(call("Edit", {"file_path": "/p/a.py", "old_string": "1", "new_string": "2"}, text))
    assert "<p class=\"confirm\">The file /p/a.py has been updated." in html
    assert '<span class="ln">41</span><span class="lsep">→</span><span class="k">def</span>' in html
    with colours_in_browser():  # the site: the language named, the colours left to the browser
        site = render(call("Edit", {"file_path": "/p/a.py", "old_string": "1", "new_string": "2"}, text))
    assert '<pre class="code hl num" tabindex="0" data-lang="python"><span class="ln">41</span><span class="lsep">→</span>def g():' in site


def test_task_notification_in_queue_operation_is_a_card():
    note = "<task-notification>\n<task-id>t1</task-id>\n<status>failed</status>\n<summary>boom</summary>\n</task-notification>"
    html = render([{"type": "queue-operation", "operation": "enqueue", "timestamp": "2025-06-01T10:00:00Z", "content": note},
                   {"type": "attachment", "uuid": "x", "timestamp": "2025-06-01T10:00:01Z",
                    "attachment": {"type": "queued_command", "prompt": note, "commandMode": "task-notification"}}])
    assert html.count('<div class="card status-failed"><p><b>Background task failed</b></p>') == 2


def test_result_whose_call_is_on_an_earlier_page_keeps_its_view():
    from ccreport.model.messages import ToolResult
    from ccreport.render.tools import result_only_html

    res = ToolResult("toolu_x", "    7→x = 1", False,
                     {"type": "text", "file": {"filePath": "/p/a.py", "content": "x = 1", "numLines": 1, "startLine": 7}}, 9)
    with colours_in_browser():
        html = result_only_html(res, "Read", RenderContext(root=""))
    assert '<span class="ln">7</span>' in html and 'data-lang="python"' in html
    exported = result_only_html(res, "Read", RenderContext(root=""))
    assert '<span class="ln">7</span>' in exported and '<span class="n">x</span>' in exported
    bash = ToolResult("toolu_y", "out", False, {"stdout": "\x1b[31mred\x1b[0m", "stderr": ""}, 10)
    assert '<span class="ansi-fg31">red</span>' in result_only_html(bash, "Bash", RenderContext(root=""))
    assert "plain" in result_only_html(ToolResult("z", "plain", False, None, 11), None, RenderContext(root=""))


def test_hook_attachment_names_the_hook():
    html = render([{"type": "attachment", "uuid": "x", "timestamp": "2025-06-01T10:00:01Z",
                    "attachment": {"type": "hook_success", "hookName": "PostToolUse:Bash", "stdout": "formatted\n",
                                   "exitCode": 0, "content": ""}}])
    assert "<b>attachment</b> hook_success PostToolUse:Bash exit 0" in html and "<pre>formatted\n</pre>" in html
    assert "<details>" in html  # inside the folded bookkeeping group


def test_plain_prompt_and_markdown_answer_have_no_source_copy():
    html = render([user("u1", "fix the <b> tag in a.html"),
                   assistant("a1", [{"type": "text", "text": "Done: `<b>` is **closed** now."}])])
    assert "fix the &lt;b&gt; tag in a.html" in html
    assert "details class=\"raw\"" not in html


def test_source_copy_is_capped_and_states_the_full_size():
    from ccreport.render.markup import SOURCE_MAX, human_size

    big = "<local-command-stdout>" + "\x1b[1mx\x1b[0m row\n" * 2000 + "</local-command-stdout>"
    html = render([user("u1", big)])
    [shown] = sources(html)
    assert shown == big[:SOURCE_MAX].replace("\x1b", "\\u001b")
    assert len(big) > 10 * SOURCE_MAX  # the cap is what keeps the page light
    assert f"<summary>source ({human_size(len(big.encode()))}, first {SOURCE_MAX:,} of {len(big):,} characters shown)</summary>" in html
    no_unsafe(html)


def test_parse_numbered_block_pass_agrees_with_the_line_by_line_reading():
    # parse_numbered reads a block in one regex pass; the line loop it falls back to is the reference.
    import random

    from ccreport.render.tools.code import _parse_numbered_lines, parse_numbered

    rng = random.Random(5)
    pieces = ["   1→a", "  12→def f():", "3\tx", "\t", "", " ", "  7→", "plain", "<system-reminder>", "  9→  y = 2  ",
              "10→z", "\r", "   4→é", "  5\t", "→", "1→", " 3→a→b", "4\tx\ty"]
    for _ in range(20_000):
        t = "\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 9))) + ("\n" if rng.random() < 0.3 else "")
        assert parse_numbered(t) == _parse_numbered_lines(t), repr(t)
