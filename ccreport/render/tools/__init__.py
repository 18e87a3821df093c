"""Per-tool views: each tool call as a collapsed <details> a person can read.

A view is ``fn(call, inp, x, ctx) -> (summary_html, input_html, result_html_or_None)``, ``inp`` and ``x``
the call's input and structured result (base.input_of, extra_of); a result of None is rendered the generic way (its text, conventions recognised); a tool without a view gets a
key/value table of its input. A summary's words are ``summary_text(call)``: the views put them in
markup, the Markdown export uses them as they are. Shapes: docs/formats.md F2; views: one module per
tool family.
"""

from __future__ import annotations

import re

import orjson

from ccreport.model.messages import ToolCall
from ccreport.render.blocks import kv_table, kv_value
from ccreport.render.markup import esc
from ccreport.render.paths import relative
from ccreport.render.tools.agents import v_ask, v_plan, v_send_message, v_skill, v_task
from ccreport.render.tools.carried import NAMES as CARRIED_NAMES, v_carried
from ccreport.render.tools.base import (as_str, extra_of, generic_result, input_of, ok_text, persisted_link, short,
                                       tool_summary)
from ccreport.render.tools.files import change_counts, v_edit, v_read, v_write
from ccreport.render.tools.search import v_search, v_tool_search, v_web_fetch, v_web_search
from ccreport.render.tools.shell import v_bash, v_bash_output
from ccreport.render.tools.modern import NAMES as MODERN_NAMES, v_modern
from ccreport.render.tools.tasks import (v_task_create, v_task_get, v_task_list, v_task_output, v_task_stop,
                                         v_task_update, v_todo)


def v_mcp(call, inp: dict, x: dict, ctx):
    body = kv_table(call.input)
    res = None
    t = (ok_text(call) or "").strip()
    # MCP servers often answer with JSON text: show it as a table when it is an object.
    if t.startswith(("{", "[")) and len(t) < 200_000:
        try:
            obj = orjson.loads(t)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, (dict, list)) and obj:
            res = kv_value(obj)
    return "", body, res  # the summary: the generic one


# Grouped by tool family (the module the views live in).
VIEWS = {
    "Bash": v_bash, "PowerShell": v_bash, "BashOutput": v_bash_output,
    "Read": v_read, "Edit": v_edit, "MultiEdit": v_edit, "Write": v_write,
    "Grep": v_search, "Glob": v_search, "LS": v_search, "ToolSearch": v_tool_search,
    "WebFetch": v_web_fetch, "WebSearch": v_web_search,
    "TodoWrite": v_todo, "TaskCreate": v_task_create, "TaskUpdate": v_task_update, "TaskList": v_task_list,
    "Task": v_task, "Agent": v_task, "AskUserQuestion": v_ask, "ExitPlanMode": v_plan, "exit_plan_mode": v_plan,
    "Skill": v_skill, "SendMessage": v_send_message,
    "TaskGet": v_task_get, "TaskOutput": v_task_output, "TaskStop": v_task_stop,
} | {name: v_modern for name in MODERN_NAMES} | {name: v_carried for name in CARRIED_NAMES}


def view_for(name: str):
    """The specific view of a tool name, or None for the generic key/value one."""
    return VIEWS.get(name) or (v_mcp if name.startswith("mcp__") else None)


def summary_text(call) -> str:
    """A call's summary as plain text: its view's words, else (as the page falls back) its first telling
    input value; then what the view's summary line shows beside them: a command's description, the
    lines an edit adds and removes ("src/app.py +3 −1")."""
    text = tool_summary(call) or _generic_text(call)
    counts = change_counts(call)
    if counts is not None:
        return f"{text} +{counts[0]} −{counts[1]}"
    desc = as_str(input_of(call).get("description")) if call.name in ("Bash", "PowerShell") else ""
    return f"{text} — {desc}" if desc.strip() and text else text


def _generic_text(call) -> str:
    inp = input_of(call)
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "skill", "subject", "taskId"):
        if isinstance(inp.get(key), (str, int)) and inp[key] != "":
            return as_str(inp[key])
    return next((v for v in inp.values() if isinstance(v, str) and v), "")


_MCP_NAME = re.compile(r"^mcp__(.+?)__(.+)$")


def tool_label(name: str) -> str:
    # (every call's label: a built-in tool's name is told apart without the regex)
    m = _MCP_NAME.match(name) if name.startswith("mcp__") else None
    if m:
        return f'<span class="mcp">MCP</span> <span class="dim">{esc(m.group(1))} ›</span> {esc(m.group(2))}'
    return esc(name)


# toolDenialKind → why, in words (an unknown kind is shown as it is written).
DENIALS = {"automode-blocked": "blocked by auto mode's safety check", "user-rejected": "rejected by the user",
           "permission-denied": "not allowed by the permission settings"}


def denial_text(kind: str) -> str:
    return DENIALS.get(kind, kind.replace("-", " "))


def render_call(call, ctx) -> str:
    view = view_for(call.name)
    summary, body, res_html = (view(call, input_of(call), extra_of(call), ctx) if view else (None, None, None))
    if not summary:
        text = _generic_text(call)
        summary = f"<code>{esc(short(text))}</code>" if text else ""
    if body is None:
        body = kv_table(call.input)
    elif view is not None and call.input is not None and not isinstance(call.input, dict):
        # Views read an object; an input of another shape (a bare string, a list) must still show.
        body += kv_table(call.input)
    name = call.name
    r = call.result
    err = r is not None and r.is_error
    if r is None:
        status = '<span class="pending">no result on this page</span>'
        result = ""
    else:
        status = '<span class="errflag">error</span>' if err else ""
        inner = (res_html if res_html is not None else generic_result(r, ctx)) + persisted_link(r, ctx)
        if r.denial:  # (toolDenialKind, 2.1.2xx: who or what refused the call, said first)
            status = f'<span class="errflag">denied: {esc(denial_text(r.denial))}</span>'
            inner = f'<p class="denial">⛔ The call was denied: {esc(denial_text(r.denial))}.</p>' + inner
        if err and isinstance(r.extra, (dict, list)) and r.extra:
            # Views skip the structured result of a failed call; it may still say what happened.
            inner += f'<details class="raw"><summary>structured result (toolUseResult)</summary>{kv_table(r.extra)}</details>'
        result = f'<div class="tout{" err" if err else ""}" id="L{r.line}"><div class="lbl">Result</div>{inner}</div>'
    body = _full_path(call, ctx) + (body or "")
    tin = f'<div class="tin">{body}</div>' if body else ""
    # (data-line: a link to the call's line — a sub-agent's "back to the call" — opens this fold: app.js)
    # (a call whose input is a sub-agent's result is shown open: the result is what a reader looks for)
    return (f'<details class="tool{" error" if err else ""}" data-tool="{esc(name)}" id="T-{esc(call.id)}"'
            f' data-line="{int(call.line)}"{" open" if name in CARRIED_NAMES else ""}>'
            f'<summary><span class="tname">{tool_label(name)}</span> <span class="tsum">{summary}</span> {status}</summary>'
            f'{tin}{result}</details>')


def _full_path(call, ctx) -> str:
    """The full path of a call's file when its summary shows it relative to the project (paths.py)."""
    cwd = getattr(ctx, "cwd", None)
    inp = call.input if isinstance(call.input, dict) and cwd else {}
    for key in ("file_path", "notebook_path", "path"):
        v = inp.get(key)
        if isinstance(v, str) and relative(v, cwd) != v:
            return f'<p class="fullpath small dim">{esc(v)}</p>'
    return ""


def result_only_html(res, name, ctx) -> str:
    """A result whose call is on another page: its text the generic way."""
    view = view_for(name) if isinstance(name, str) else None
    if view is not None:
        # The call's input is on another page; the view still reads the structured result.
        call = ToolCall(res.tool_use_id, name, None, 0, result=res)
        _, _, html = view(call, {}, extra_of(call), ctx)
        if html is not None:
            return html + persisted_link(res, ctx)
    return generic_result(res, ctx) + persisted_link(res, ctx)
