"""What every tool view reads a call with: its input, its structured result, its result text."""

from __future__ import annotations

import re

from ccreport.model.text import as_str
from ccreport.render.blocks import kv_table, result_content_html
from ccreport.render.conventions import output_text
from ccreport.render import paths
from ccreport.render.markup import esc

def short(text: str, n: int = 160) -> str:
    """Text on one line (whitespace runs as one space), cut to n characters."""
    text = " ".join(as_str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def input_of(call) -> dict:
    return call.input if isinstance(call.input, dict) else {}


def extra_of(call) -> dict:
    """The structured result (toolUseResult) of a call when it is an object, else {}."""
    r = call.result
    return r.extra if r is not None and isinstance(r.extra, dict) else {}


def rest_table(inp: dict, shown) -> str:
    """The input keys a view did not show (those not in ``shown``) as a table; '' when none are left."""
    rest = {k: v for k, v in inp.items() if k not in shown}
    return kv_table(rest) if rest else ""


def plural(n, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}" if isinstance(n, int) else f"{esc(n)} {word}s"


def result_text(r) -> str:
    """The text of a tool_result (string content, or its text blocks joined)."""
    if r is None:
        return ""
    c = r.content
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(b["text"] for b in c
                         if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    return ""


def text_only(r) -> bool:
    """True when a tool_result holds text alone (no image, no document, no tool reference)."""
    c = r.content if r is not None else None
    return isinstance(c, str) or (isinstance(c, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in c))


def ok_text(call) -> str | None:
    """The text of a call's result when the call succeeded and answered with text alone, else None."""
    r = call.result
    return result_text(r) if r is not None and not r.is_error and text_only(r) else None


def generic_result(r, ctx) -> str:
    """A tool_result the generic way: its text (conventions recognised), or its blocks."""
    if text_only(r):
        t = result_text(r)
        if not t:
            return '<p class="dim">(no output)</p>'
        return output_text(t, ctx, "out err" if r.is_error else "out")
    return result_content_html(r.content, ctx, r.is_error)


def persisted_link(r, ctx) -> str:
    """A link to the full output a result's ``persistedOutputPath`` names ('' when it names none).

    The path is absolute on the machine that wrote it (docs/formats.md F4): the file is looked up by its
    name in this session's tool-results/ folder."""
    path = r.extra.get("persistedOutputPath") if isinstance(r.extra, dict) else None
    if not isinstance(path, str) or not path or "<persisted-output>" in result_text(r):
        return ""  # (a <persisted-output> note in the text gets its link from conventions.persisted_output)
    name = re.split(r"[\\/]", path)[-1]
    url = ctx.copy_tool_result(name) if name and ctx.copy_tool_result is not None else None
    if url:
        return (f'<p class="persisted-link"><a class="persisted" href="{esc(ctx.href(url))}">'
                f'open the full output ({esc(name)})</a></p>')
    return f'<p class="dim">Full output saved to <code>{esc(path)}</code> (not found in this home)</p>'


def small_result(call, ctx) -> str | None:
    """A confirmation text shown small (errors the normal way)."""
    t = ok_text(call)
    return f'<p class="confirm">{esc(t)}</p>' if t and len(t) < 1000 and "<" not in t else None


def path_html(path: str, ctx=None) -> str:
    """A path, relative to the project's folder when inside it (render.paths)."""
    return paths.path_html(path, getattr(ctx, "cwd", None))


def chips(obj: dict, spec) -> list[str]:
    """A chip for each (key, label, warning) of spec whose key is set in obj; {} in the label is its value."""
    return [f'<span class="chip{" warnchip" if warn else ""}">{label.format(esc(obj[key]))}</span>'
            for key, label, warn in spec if obj.get(key)]


def chip_line(bits: list[str]) -> str:
    """Facts about a result (size, time, counts) as a line of chips ('' when there are none)."""
    return f'<p class="rinfo">{" ".join(f"<span class=chip>{b}</span>" for b in bits)}</p>' if bits else ""


# --- what a summary line says -------------------------------------------------------------------
def in_progress(inp: dict) -> dict:
    """The TodoWrite item in progress ({} when none is)."""
    todos = inp.get("todos") if isinstance(inp.get("todos"), list) else []
    return next((t for t in todos if isinstance(t, dict) and t.get("status") == "in_progress"), {})


def questions(inp: dict, x: dict):
    """The questions of an AskUserQuestion call (a list, or what stands in their place)."""
    return inp.get("questions") if isinstance(inp.get("questions"), list) else x.get("questions")


def _first_question(inp: dict, x: dict):
    qs = questions(inp, x)
    if not isinstance(qs, list):
        return inp.get("question")
    return qs[0].get("question") if qs and isinstance(qs[0], dict) else ""


def _dict_at(x: dict, key: str) -> dict:
    return x[key] if isinstance(x.get(key), dict) else {}


# The words of each view's summary line, from its input and structured result (read as text): the views
# put them in markup (the chips, counts and statuses around them are theirs), the Markdown export as they are.
_SUMMARIES = {name: words for names, words in (
    ("Bash PowerShell", lambda inp, x: inp.get("command")),
    ("BashOutput", lambda inp, x: inp.get("bash_id") or inp.get("shell_id") or x.get("shellId")),
    ("Read", lambda inp, x: inp.get("file_path") or inp.get("path") or inp.get("notebook_path")
     or _dict_at(x, "file").get("filePath")),
    ("Edit MultiEdit Write", lambda inp, x: inp.get("file_path") or x.get("filePath")),
    ("Grep Glob LS", lambda inp, x: inp.get("pattern")),
    ("ToolSearch WebSearch", lambda inp, x: inp.get("query") or x.get("query")),
    ("WebFetch", lambda inp, x: inp.get("url") or x.get("url")),
    ("TodoWrite", lambda inp, x: in_progress(inp).get("activeForm") or in_progress(inp).get("content")),
    ("TaskCreate", lambda inp, x: inp.get("subject") or _dict_at(x, "task").get("subject")),
    ("TaskUpdate", lambda inp, x: "#" + as_str(inp.get("taskId") or x.get("taskId"))),
    ("Task Agent", lambda inp, x: inp.get("description") or x.get("description")),
    ("AskUserQuestion", _first_question),
    ("ExitPlanMode exit_plan_mode", lambda inp, x: next(
        (ln.lstrip("# ").strip() for ln in as_str(inp.get("plan") or x.get("plan")).split("\n") if ln.strip()), "")),
    ("Skill", lambda inp, x: inp.get("skill") or inp.get("command") or x.get("commandName")),
    ("SendMessage", lambda inp, x: inp.get("to") or inp.get("recipient")),
    ("TaskGet", lambda inp, x: "#" + as_str(inp.get("taskId") or _dict_at(x, "task").get("id"))),
    ("TaskOutput TaskStop", lambda inp, x: inp.get("task_id") or inp.get("taskId") or inp.get("shell_id")),
    ("Workflow", lambda inp, x: _first(inp, "name", "workflow", "workflow_name", "description") or x.get("runId")),
    ("Monitor", lambda inp, x: _first(inp, "description", "command")),
    ("CronCreate", lambda inp, x: " — ".join(
        as_str(v) for v in (_first(inp, "cron", "schedule"), inp.get("prompt")) if v)),
    ("CronDelete", lambda inp, x: _first(inp, "id", "job_id", "cron_id")),
    ("Artifact", lambda inp, x: _first(inp, "title", "name", "path", "file_path")),
    ("SendUserFile", lambda inp, x: _first(inp, "file_path", "path", "name")),
    ("SendFeedback", lambda inp, x: _first(inp, "feedback", "message", "summary")),
    ("SubagentHandback", lambda inp, x: _first(inp, "summary", "message", "result")),
    ("EnterWorktree", lambda inp, x: _first(inp, "name", "branch", "path") or x.get("worktreePath")),
    ("ExitWorktree", lambda inp, x: _first(inp, "action", "name")),
    ("TeamCreate TeamDelete", lambda inp, x: _first(inp, "team_name", "name", "team")),
    ("CronList ListAgents", lambda inp, x: ""),
) for name in names.split()}


def _first(inp: dict, *keys):
    """The first of ``keys`` set in inp (the tools of 2.1.2xx name the same thing differently)."""
    return next((inp[k] for k in keys if inp.get(k) not in (None, "")), None)


def tool_summary(call) -> str:
    """What the summary line of the call's tool view says, as plain text ('' for a tool without a view)."""
    words = _SUMMARIES.get(call.name)
    return as_str(words(input_of(call), extra_of(call))) if words else ""
