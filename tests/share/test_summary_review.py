"""A PR summary a reviewer trusts (issue 28.1), read the way GitHub renders it (cmark-gfm): headings from the
transcript below the summary's own, paths relative to the session's folder and no home path, a header with
duration, cost, models, prompts and files changed (sub-agents' edits counted), and in the Markdown parts the
hook notes folded once per turn and diffs with the file's real line numbers."""

from __future__ import annotations

import io
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from ccreport.model.prices import price_of
from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from exporthelp import github_view, md_problems
from util import assistant, make_home, tool_result, user

SID = "5e55a0e1-0000-4000-8000-00000000aaaa"
AGENT = "a77e0001"
CWD = "/home/alice/repo"
MODEL = "claude-opus-4-5-20251101"
USAGE = {"input_tokens": 200_000, "output_tokens": 100_000, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 0}
PATCH = [{"oldStart": 111, "oldLines": 3, "newStart": 111, "newLines": 4,
          "lines": [" a", "-b", "+c", "+d", " e"]}]
ANSWER = "## Summary\n\nAll done in `src/app.py`.\n\n# ✅ Issue Fixed!\n\nSetext heading\n---\n\nSee " + CWD + "/src/app.py."


def _hook_note(uuid, parent, tool="Edit"):
    return {"type": "system", "uuid": uuid, "parentUuid": parent, "sessionId": SID, "cwd": CWD, "level": "info",
            "isMeta": False, "toolUseID": "t", "timestamp": "2025-06-01T10:30:00.000Z",
            "content": f"Running \x1b[1mPostToolUse:{tool}\x1b[22m..."}


def _main() -> list:
    kw = {"sid": SID, "cwd": CWD}
    edit = {"file_path": f"{CWD}/src/app.py", "old_string": "b\n", "new_string": "c\nd\n"}
    return [
        user("u1", "# Fix the app\n\nPlease fix it.", ts="2025-06-01T10:00:00.000Z", **kw),
        assistant("a1", [{"type": "tool_use", "id": "t1", "name": "Edit", "input": edit}], parent="u1", mid="m1",
                  usage=USAGE, model=MODEL, ts="2025-06-01T10:10:00.000Z", **kw),
        tool_result("r1", "t1", "updated", parent="a1", extra={"structuredPatch": PATCH}, **kw),
        _hook_note("h1", "r1"), _hook_note("h2", "h1"), _hook_note("h3", "h2", "MultiEdit"),
        assistant("a2", [{"type": "tool_use", "id": "t2", "name": "Task", "input": {
            "description": "fix the docs", "prompt": "fix the docs", "subagent_type": "general-purpose"}}],
                  parent="h3", mid="m2", model=MODEL, ts="2025-06-01T11:00:00.000Z", **kw),
        tool_result("r2", "t2", "done", parent="a2", extra={"agentId": AGENT, "status": "completed"}, **kw),
        assistant("a3", [{"type": "text", "text": ANSWER}], parent="r2", mid="m3", model=MODEL,
                  ts="2025-06-01T11:30:00.000Z", **kw),
        user("u2", "And the tests?", parent="a3", ts="2025-06-01T11:40:00.000Z", **kw),
        _hook_note("h4", "u2"), _hook_note("h5", "h4"),
        assistant("a4", [{"type": "text", "text": "Tests pass."}], parent="h5", mid="m4", model=MODEL,
                  ts="2025-06-01T12:00:00.000Z", **kw),
    ]


def _agent() -> list:
    kw = {"sid": SID, "cwd": CWD, "isSidechain": True, "agentId": AGENT}
    calls = [("Edit", {"file_path": f"{CWD}/docs/guide.md", "old_string": "x", "new_string": "y"}),
             ("Write", {"file_path": f"{CWD}/docs/new.md", "content": "1\n2\n"}),
             ("NotebookEdit", {"notebook_path": f"{CWD}/nb/a.ipynb", "new_source": "print(1)\nprint(2)\n"})]
    lines, prev = [user("g0", "fix the docs", **kw)], "g0"
    for i, (name, inp) in enumerate(calls):
        lines.append(assistant(f"g{i}a", [{"type": "tool_use", "id": f"gt{i}", "name": name, "input": inp}],
                               parent=prev, mid=f"gm{i}", model=MODEL, usage=USAGE, **kw))
        lines.append(tool_result(f"g{i}r", f"gt{i}", "ok", parent=f"g{i}a", **kw))
        prev = f"g{i}r"
    return lines


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "h", {"-home-alice-repo": {f"{SID}.jsonl": _main(),
                                                           f"{SID}/subagents/agent-{AGENT}.jsonl": _agent()}})


def _export(home, **kw) -> str:
    buf = io.StringIO()
    run_export(home, SID, "-", ExportOptions(format="md", **kw), stdout=buf)
    return buf.getvalue()


def _headings(md: str) -> list[tuple[int, str]]:
    html = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    return [(int(n), re.sub(r"<[^>]+>", "", t).strip()) for n, t in re.findall(r"<h(\d)>(.*?)</h\1>", html, re.S)]


@pytest.mark.parametrize("redact", [True, False])
def test_summary_headings_paths_and_header(home, redact):
    md = _export(home, summary=True, redact=redact)
    text, problems = github_view(md)
    assert problems == [] and md_problems(md) == []
    levels = dict((t, n) for n, t in _headings(md))
    own = [n for t, n in levels.items() if t.startswith(("1. Prompt", "2. Prompt", "Files changed"))]
    assert own == [3, 3, 3] and levels["Summary"] > 3 and levels["✅ Issue Fixed!"] > 3
    assert levels["Setext heading"] > 3 and levels["Fix the app"] > 3  # (a heading in the prompt, too)
    assert sorted(n for t, n in levels.items() if n < 4) == [1, 3, 3, 3]  # the title and the summary's own
    # paths relative to the session's folder, and no home path anywhere
    assert "/home/alice" not in md and "Edit: src/app.py +2 −1" in text and "See src/app.py." in text
    assert "\nsrc/app.py +2 −1" in text and "\ndocs/new.md +2 −0 by a sub-agent" in text
    assert "nb/a.ipynb +2 −0 by a sub-agent" in text and "Session " + SID in text and " · repo · " in text
    # the header: prompts, calls, files (sub-agents' included), duration, cost, models
    inp, out = price_of(MODEL)
    cost = 4 * (USAGE["input_tokens"] * inp + USAGE["output_tokens"] * out) / 1e6  # 1 main + 3 agent responses priced
    head = re.search(r"2 prompts · 2 tool calls · (.*)", text).group(1)
    assert head.startswith("4 files changed (3 by sub-agents) · 2.0 h from first to last message")
    assert f"${cost:,.2f}" in head and "claude-opus-4-5" in head


def test_markdown_parts_fold_hook_notes_once_per_turn_and_show_real_line_numbers(home):
    md = _export(home, max_chars=10_000_000)
    text, problems = github_view(md)
    assert problems == [] and md_problems(md) == []
    assert "System (note)" not in md and "Running" not in re.sub(r"<details>.*?</details>", "", md, flags=re.S)
    main = md.split("\n## Sub-agent transcript")[0]
    turns = main.split("### 👤 User")[1:]
    assert [t.count("<summary>Hook notes") for t in turns] == [1, 1]
    assert "<summary>Hook notes (3): PostToolUse:Edit ×2 · PostToolUse:MultiEdit</summary>" in turns[0]
    assert "@@ -111,3 +111,4 @@" in main and "@@ -1," not in main  # (the recorded patch, not one from the strings)
    levels = [n for n, t in _headings(md) if t in ("Summary", "✅ Issue Fixed!", "Fix the app")]
    assert levels and min(levels) > 3


@pytest.mark.slow
def test_corpus_summaries_read_right_on_github(corpus_home):
    """Every corpus session: the summary's own headings are the only ones above h4, no home path shows,
    the header has its figures; session ef958aa1's sub-agents' 3 files are counted."""
    from ccreport.source.home import discover

    for s in discover(corpus_home).sessions():
        md = _summary_of(corpus_home, s.id)
        big = [t for n, t in _headings(md) if n < 4]
        assert all(re.match(r"(\d+\. Prompt|Before the first prompt|Files changed)", t) for t in big[1:]), (s.id, big)
        assert not re.search(r"/Users/|/home/", md), s.id
    md = _summary_of(corpus_home, "ef958aa1")
    assert "3 files changed (3 by sub-agents) · 2.0 h from first to last message · $" in github_view(md)[0]


def _summary_of(home, spec: str) -> str:
    buf = io.StringIO()
    run_export(home, spec, "-", ExportOptions(format="md", summary=True), stdout=buf)
    return buf.getvalue()


def test_corpus_hook_notes_fold_once_per_turn(corpus_home):
    buf = io.StringIO()
    run_export(corpus_home, "37f83ec9", "-", ExportOptions(format="md", max_chars=10_000_000), stdout=buf)
    md = buf.getvalue()
    assert "System (note): Running" not in md
    assert all(t.count("<summary>Hook notes") <= 1 for t in md.split("### 👤 User"))
    assert md.count("<summary>Hook notes") >= 5
