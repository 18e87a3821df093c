"""`ccreport export --summary` (issue 16.6): one GitHub comment per session, checked with cmark-gfm; and what
the full Markdown export now does with injected context, Bash descriptions, edits and terminal escapes."""

from __future__ import annotations

import io
import re

import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from ccreport.model.messages import ToolCall, ToolResult
from ccreport.share.markdown import injected
from ccreport.render.tools import summary_text
from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from exporthelp import SID, github_view, make_export_home, md_problems
from util import assistant, make_home, tool_result, user

GITHUB_MAX = 65_536
RED = "\x1b[31m"


def _summary(home, spec=SID, **kw) -> str:
    buf = io.StringIO()
    run_export(home, spec, "-", ExportOptions(format="md", summary=True, **kw), stdout=buf)
    return buf.getvalue()


def _call(name, inp, extra=None, error=False):
    return ToolCall("t1", name, inp, 1, result=ToolResult("t1", "done", error, extra, 2))


# --- the summary lines (render/tools.summary_text, shared by the pages and the export) --------------------
def test_summary_text_has_bash_descriptions_and_edit_counts():
    assert summary_text(_call("Bash", {"command": "npm test", "description": "run the tests"})) == \
        "npm test — run the tests"
    assert summary_text(_call("Bash", {"command": "ls"})) == "ls"
    edit = {"file_path": "/p/app.py", "old_string": "a\nb\n", "new_string": "a\nc\nd\n"}
    assert summary_text(_call("Edit", edit)) == "/p/app.py +2 −1"
    patch = [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 3, "lines": ["-x", "+y", "+z", "+w"]}]
    # the recorded patch wins over the strings
    assert summary_text(_call("Edit", edit, {"structuredPatch": patch})) == "/p/app.py +3 −1"
    multi = {"file_path": "/p/m.py", "edits": [{"old_string": "1", "new_string": "2"}] * 2}
    assert summary_text(_call("MultiEdit", multi)) == "/p/m.py +2 −2"
    assert summary_text(_call("Write", {"file_path": "/p/new.py", "content": "1\n2\n3"})) == "/p/new.py +3 −0"


# --- a small session ---------------------------------------------------------------------------------------
def _session() -> list:
    kw = {"sid": SID, "cwd": "/work/app"}
    return [
        user("i1", "<system-reminder>CONTEXT-ONE loaded</system-reminder>", ts="2025-06-01T10:00:00.000Z", **kw),
        user("i2", f"Caveat: {RED}CONTEXT-TWO\x1b[0m injected", parent="i1", **kw),
        user("u1", f"PROMPT-ONE fix the {RED}build", parent="i2", **kw),
        assistant("a1", [{"type": "text", "text": "Looking."},
                         {"type": "tool_use", "id": "t1", "name": "Bash",
                          "input": {"command": "make test", "description": "RUN-THE-TESTS"}}], parent="u1", mid="m1",
                  **kw),
        tool_result("r1", "t1", f"{RED}FAILED\x1b[0m", parent="a1", extra={"stdout": f"{RED}FAILED", "stderr": ""},
                    **kw),
        assistant("a2", [{"type": "tool_use", "id": "t2", "name": "Edit", "input": {
            "file_path": "/work/app/src/x.py", "old_string": "a = 1\n", "new_string": "a = 2\nb = 3\n"}}],
                  parent="r1", mid="m2", **kw),
        tool_result("r2", "t2", "updated", parent="a2", **kw),
        assistant("a3", [{"type": "text", "text": f"ANSWER-ONE all green {RED}now"}], parent="r2", mid="m3", **kw),
        user("u2", "PROMPT-TWO and the docs <details>", parent="a3", **kw),
        assistant("a4", [{"type": "tool_use", "id": "t3", "name": "Write",
                          "input": {"file_path": "/work/app/README.md", "content": "# x\n\ny\n"}}],
                  parent="u2", mid="m4", **kw),
        tool_result("r3", "t3", "written", parent="a4", **kw),
        assistant("a5", [{"type": "text", "text": "ANSWER-TWO written </details> ```"}], parent="r3", mid="m5", **kw),
    ]


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "h", {"-work-app": {f"{SID}.jsonl": _session()}})


def test_summary_holds_prompts_answers_a_line_per_call_and_files(home):
    md = _summary(home)
    text, problems = github_view(md)
    assert problems == [] and md_problems(md) == []
    marks = ("PROMPT-ONE", "PROMPT-TWO", "ANSWER-ONE", "ANSWER-TWO", "2 prompts · 3 tool calls · 2 files changed")
    for mark in marks:
        assert mark in text
    assert "Looking." not in text  # only the final answer of a turn
    # paths relative to the session's folder (/work/app)
    assert "Bash: make test — RUN-THE-TESTS" in text and "Edit: src/x.py +2 −1" in text
    assert "Files changed (2)" in text and "\nREADME.md +3 −0" in text and "/work/app" not in text
    # the context Claude Code injected comes after the first prompt, folded
    body = text[text.index("1. Prompt"):]
    assert body.index("PROMPT-ONE") < body.index("CONTEXT-ONE") < body.index("CONTEXT-TWO") < body.index("Bash:")
    assert re.search(r"<details><summary>Context injected by Claude Code \(2\)</summary>", md)
    assert "\x1b" not in md and "[31m" not in md and "[0m" not in md


def test_full_markdown_export_puts_context_after_the_first_prompt_and_no_ansi(home):
    res = CliRunner().invoke(cli, ["export", SID, "--home", str(home), "--format", "md"])
    md = res.stdout
    text, problems = github_view(md)
    assert res.exit_code == 0 and problems == [] and md_problems(md) == []
    body = md[md.index("User <sub>"):]
    assert body.index("PROMPT-ONE") < body.index("Injected by Claude Code: CONTEXT-ONE") < body.index("Looking.")
    assert "<summary>Bash: make test — RUN-THE-TESTS</summary>" in md and '"description"' not in md
    assert "<summary>Edit: /work/app/src/x.py +2 −1</summary>" in md
    assert "\x1b" not in md and "[31m" not in md and "[0m" not in md


def test_context_of_a_slash_command_stays_before_its_answer(tmp_path):
    h = make_home(tmp_path / "h", {"-p": {f"{SID}.jsonl": [
        user("c1", "<command-name>/init</command-name>", sid=SID),
        assistant("a1", [{"type": "text", "text": "INIT-ANSWER"}], parent="c1", sid=SID),
        user("u1", "LATER-PROMPT", parent="a1", sid=SID)]}})
    md = CliRunner().invoke(cli, ["export", SID, "--home", str(h), "--format", "md"]).stdout
    body = md[md.index("Exported by ccreport"):]
    assert body.index("/init") < body.index("INIT-ANSWER") < body.index("LATER-PROMPT")


def test_a_long_session_still_fits_one_comment(tmp_path):
    lines, prev = [], None
    for i in range(300):
        lines.append(user(f"u{i}", f"PROMPT-{i} " + "word " * 800, parent=prev, sid=SID))
        for j in range(12):
            lines.append(assistant(f"a{i}.{j}", [{"type": "tool_use", "id": f"t{i}.{j}", "name": "Read",
                                                  "input": {"file_path": f"/p/file-{j}.py"}}],
                                   parent=f"u{i}", sid=SID, mid=f"m{i}.{j}"))
            lines.append(tool_result(f"r{i}.{j}", f"t{i}.{j}", "x", parent=f"a{i}.{j}", sid=SID))
        lines.append(assistant(f"z{i}", [{"type": "text", "text": f"ANSWER-{i} " + "text " * 1500}],
                               parent=f"r{i}.11", sid=SID, mid=f"z{i}"))
        prev = f"z{i}"
    h = make_home(tmp_path / "h", {"-p": {f"{SID}.jsonl": lines}})
    out = tmp_path / "s.md"
    res = CliRunner().invoke(cli, ["export", SID, "--home", str(h), "--summary", "-o", str(out)])
    md = out.read_text(encoding="utf-8")
    assert res.exit_code == 0 and len(md) < GITHUB_MAX and not list(tmp_path.glob("s.part*"))
    text, problems = github_view(md)
    assert problems == [] and md_problems(md) == []
    # the first and the last prompts are there, with what was left out between them said
    assert "PROMPT-0 " in text and "PROMPT-299 " in text and "ANSWER-299" in text
    assert re.search(r"… \d+ more prompts and their answers", text)


# --- every session of the real corpus ---------------------------------------------------------------------
def _typed_texts(obj) -> list[str]:
    """What starts a turn in a user line, as the outline counts them: the text a person typed (an IDE
    context block may come first in the same line: one prompt per line) or a slash command."""
    if not obj or obj.get("type") != "user" or obj.get("isMeta") or obj.get("isSidechain") \
            or obj.get("isCompactSummary") or (obj.get("origin") or {}).get("kind") not in (None, "human"):
        return []
    c = obj["message"].get("content")
    blocks = [b for b in c if isinstance(b, dict) and b.get("type") == "text"] if isinstance(c, list) else []
    texts = [c] if isinstance(c, str) else [b.get("text", "") for b in blocks]
    if isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c[:1]):
        return []
    typed = [t for t in texts if t.strip() and not injected(obj, t) and "<teammate-message" not in t]
    if typed:
        return ["\n\n".join(typed)]
    return [t for t in texts[:1] if "<command-name>" in t]


@pytest.mark.slow
def test_every_corpus_session_summary_fits_one_comment(corpus_home):
    from ccreport.source.home import discover
    from ccreport.source.jsonl import read_entries

    for s in discover(corpus_home).sessions():
        md = _summary(corpus_home, s.id)
        assert len(md) < GITHUB_MAX, (s.id, len(md))
        text, problems = github_view(md)
        assert problems == [] and md_problems(md) == [], (s.id, problems)
        prompts = [p for e in read_entries(s.main.path) for p in _typed_texts(e.obj)] if s.main else []
        # every typed prompt and command has its numbered heading (or the comment says how many were left out)
        shown = len(re.findall(r"^### \d+\. Prompt", md, re.M))
        left = re.search(r"… (\d+) more prompts", text)
        assert shown + (int(left.group(1)) if left else 0) == len(prompts), s.id
