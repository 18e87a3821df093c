"""TodoWrite and the Task* tools: checklists with their states."""

from __future__ import annotations

import re

from ccreport.render.blocks import kv_table
from ccreport.render.markup import esc, markdown, source_fold
from ccreport.render.tools.base import (as_str, in_progress, rest_table, result_text, short, small_result,
                                        tool_summary)


STATUS_MARK = {"completed": "☑", "in_progress": "◐", "pending": "☐", "deleted": "☒", "cancelled": "☒"}


def _todo_item(text: str, status: str, extra: str = "") -> str:
    st = status or "pending"
    return (f'<li class="todo st-{esc(st)}"><span class="mark">{STATUS_MARK.get(st, "☐")}</span> {esc(text)}'
            f' <span class="tstatus">{esc(st.replace("_", " "))}</span>{extra}</li>')


def checklist(items) -> tuple[str, int, int]:
    out = []
    done = 0
    for t in items:
        if not isinstance(t, dict):
            out.append(f"<li>{esc(t)}</li>")
            continue
        st = as_str(t.get("status")) or "pending"
        done += st == "completed"
        text = as_str(t.get("content") or t.get("subject") or t.get("activeForm") or t.get("description"))
        if t.get("id") is not None:
            text = f"#{as_str(t['id'])} {text}"
        extra = ""
        if t.get("owner"):
            extra += f' <span class="chip">{esc(t["owner"])}</span>'
        if t.get("blockedBy"):
            extra += f' <span class="dim">blocked by {esc(", ".join(map(as_str, t["blockedBy"])))}</span>'
        out.append(_todo_item(text, st, extra))
    return f'<ul class="todos">{"".join(out)}</ul>', done, len(items)


def v_todo(call, inp: dict, x: dict, ctx):
    todos = inp.get("todos")
    if not isinstance(todos, list):
        return "", kv_table(inp), None
    html, done, n = checklist(todos)
    summary = f'<span class="dim">{done}/{n} done</span>' + (
        f' ◐ {esc(short(tool_summary(call), 100))}' if in_progress(inp) else "")
    return summary, html, small_result(call, ctx)


def v_task_create(call, inp: dict, x: dict, ctx):
    task = x.get("task") if isinstance(x.get("task"), dict) else {}
    subject = tool_summary(call)
    tid = task.get("id")
    summary = (f"#{esc(tid)} " if tid is not None else "") + esc(short(subject, 120))
    item = _todo_item((f"#{as_str(tid)} " if tid is not None else "") + subject, "pending")
    desc = as_str(inp.get("description"))
    body = f'<ul class="todos">{item}</ul>' + (f'<div class="md">{markdown(desc)}</div>' if desc else "")
    return summary, body + rest_table(inp, ("subject", "description")), small_result(call, ctx)


def v_task_update(call, inp: dict, x: dict, ctx):
    ch = x.get("statusChange") if isinstance(x.get("statusChange"), dict) else {}
    st = as_str(inp.get("status") or ch.get("to"))
    summary = esc(tool_summary(call))
    if ch:
        summary += (f' <span class="tstatus">{esc(as_str(ch.get("from")).replace("_", " "))}</span> → '
                    f'{STATUS_MARK.get(as_str(ch.get("to")), "")} <span class="tstatus">{esc(as_str(ch.get("to")).replace("_", " "))}</span>')
    elif st:
        summary += f' → {STATUS_MARK.get(st, "")} <span class="tstatus">{esc(st.replace("_", " "))}</span>'
    if inp.get("owner"):
        summary += f' <span class="chip">{esc(inp["owner"])}</span>'
    return summary, rest_table(inp, ("taskId", "status", "owner")), small_result(call, ctx)


_TASK_LINE = re.compile(r"^#(\S+) \[(\w+)\] (.*?)(?: \(([^()]*)\))?$")


def v_task_list(call, inp: dict, x: dict, ctx):
    res = None
    tasks = x.get("tasks") if isinstance(x.get("tasks"), list) else None
    if tasks is None and call.result is not None and not call.result.is_error:
        parsed = [_TASK_LINE.match(ln) for ln in result_text(call.result).split("\n") if ln.strip()]
        if parsed and all(parsed):
            tasks = [{"id": m.group(1), "status": m.group(2), "subject": m.group(3), "owner": m.group(4)} for m in parsed]
    summary = ""
    if tasks is not None:
        res, done, n = checklist(tasks)
        summary = f'<span class="dim">{done}/{n} done</span>'
        if call.result is not None:
            # The checklist is read out of the result's text: keep that text too, folded.
            res += source_fold(result_text(call.result))
    return summary, rest_table(inp, ()), res
