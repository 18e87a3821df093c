"""TodoWrite and the Task* tools: checklists with their states. TaskCreate/TaskUpdate/TaskList/TaskGet
change the task board (model.tasks folds them in file order); each shows the board after its change.
TaskOutput/TaskStop read or stop a background task (a shell or an agent), not the board."""

from __future__ import annotations

from ccreport.model.tasks import parse_list
from ccreport.render.blocks import kv_table
from ccreport.render.checklist import STATUS_MARK, board_count, board_html, checklist, todo_item
from ccreport.render.markup import esc, markdown, pre, source_fold
from ccreport.render.tools.base import (as_str, chip_line, in_progress, rest_table, result_text, short, small_result,
                                        tool_summary)


def v_todo(call, inp: dict, x: dict, ctx):
    todos = inp.get("todos")
    if not isinstance(todos, list):
        return "", kv_table(inp), None
    html, done, n = checklist(todos)
    summary = f'<span class="dim">{done}/{n} done</span>' + (
        f' ◐ {esc(short(tool_summary(call), 100))}' if in_progress(inp) else "")
    return summary, html, small_result(call, ctx)


def _status(st: str) -> str:
    return f'{STATUS_MARK.get(st, "")} <span class="tstatus">{esc(st.replace("_", " "))}</span>'


def v_task_create(call, inp: dict, x: dict, ctx):
    task = x.get("task") if isinstance(x.get("task"), dict) else {}
    subject = tool_summary(call)
    tid = task.get("id")
    if tid is None and call.board:  # the id the board gave it (read from the result's text)
        tid = next((t["id"] for t in reversed(call.board) if t.get("subject") == subject), None)
    summary = (f"#{esc(tid)} " if tid is not None else "") + esc(short(subject, 120)) + " " + board_count(call.board)
    item = todo_item((f"#{as_str(tid)} " if tid is not None else "") + subject, "pending")
    desc = as_str(inp.get("description"))
    body = f'<ul class="todos">{item}</ul>' + (f'<div class="md">{markdown(desc)}</div>' if desc else "")
    body += rest_table(inp, ("subject", "description"))
    body += board_html(call.board, as_str(tid) if tid is not None else None)
    return summary, body, small_result(call, ctx)


def v_task_update(call, inp: dict, x: dict, ctx):
    ch = x.get("statusChange") if isinstance(x.get("statusChange"), dict) else {}
    st = as_str(inp.get("status") or ch.get("to"))
    summary = esc(tool_summary(call))
    subject = next((t.get("subject") for t in call.board or [] if t.get("id") == as_str(inp.get("taskId"))), None)
    if subject:
        summary += f" {esc(short(subject, 80))}"
    if ch:
        was = esc(as_str(ch.get("from")).replace("_", " "))
        summary += f' <span class="tstatus">{was}</span> → {_status(as_str(ch.get("to")))}'
    elif st:
        summary += f" → {_status(st)}"
    if inp.get("owner"):
        summary += f' <span class="chip">{esc(inp["owner"])}</span>'
    for key, words in (("addBlockedBy", "blocked by"), ("addBlocks", "blocks")):
        if isinstance(inp.get(key), list) and inp[key]:
            summary += f' <span class="dim">{words} {esc(", ".join("#" + as_str(v) for v in inp[key]))}</span>'
    summary += " " + board_count(call.board)
    body = rest_table(inp, ("taskId", "status", "owner")) + board_html(call.board, as_str(inp.get("taskId")) or None)
    return summary, body, small_result(call, ctx)


def v_task_list(call, inp: dict, x: dict, ctx):
    res = None
    tasks = x.get("tasks") if isinstance(x.get("tasks"), list) else None
    if tasks is None and call.result is not None and not call.result.is_error:
        tasks = parse_list(result_text(call.result))
    summary = ""
    if tasks is not None:
        res, done, n = checklist(tasks)
        summary = f'<span class="dim">{done}/{n} done</span>'
        if call.result is not None:
            # The checklist is read out of the result's text: keep that text too, folded.
            res += source_fold(result_text(call.result))
    return summary, rest_table(inp, ()), res


def v_task_get(call, inp: dict, x: dict, ctx):
    task = x.get("task") if isinstance(x.get("task"), dict) else None
    tid = as_str(inp.get("taskId") or (task or {}).get("id"))
    summary = f"#{esc(tid)}" + (f" {esc(short(as_str(task.get('subject')), 100))} {_status(as_str(task.get('status')))}"
                                if task else "")
    res = None
    if task:
        html, _, _ = checklist([task])
        desc = as_str(task.get("description"))
        res = html + (f'<div class="md">{markdown(desc)}</div>' if desc else "") + rest_table(
            task, ("id", "subject", "status", "owner", "blockedBy", "description", "activeForm"))
        if call.result is not None:
            res += source_fold(result_text(call.result))  # the task as the model read it
    return summary, rest_table(inp, ("taskId",)), res


def _bg_task(inp: dict, x: dict) -> tuple[str, dict]:
    task = x.get("task") if isinstance(x.get("task"), dict) else {}
    tid = as_str(inp.get("task_id") or inp.get("taskId") or inp.get("shell_id") or x.get("task_id")
                 or task.get("task_id"))
    return tid, task


def v_task_output(call, inp: dict, x: dict, ctx):
    tid, task = _bg_task(inp, x)
    st = as_str(task.get("status") or x.get("retrieval_status"))
    kind = as_str(task.get("task_type") or x.get("task_type"))
    summary = f"<code>{esc(tid)}</code>" + (f' <span class="chip">{esc(kind)}</span>' if kind else "") + (
        f' <span class="tstatus">{esc(st)}</span>' if st else "")
    res = None
    if task and call.result is not None and not call.result.is_error:
        bits = [esc(b) for b in (task.get("description"), f"exit {task['exitCode']}" if task.get("exitCode") is not None
                                 else None) if b]
        out = as_str(task.get("output"))
        res = chip_line(bits) + (pre(out, cls="out") if out else '<p class="dim">(no output yet)</p>') + source_fold(
            result_text(call.result))
    return summary, rest_table(inp, ("task_id", "taskId", "shell_id")), res


def v_task_stop(call, inp: dict, x: dict, ctx):
    tid, _ = _bg_task(inp, x)
    kind = as_str(x.get("task_type"))
    summary = f"stop <code>{esc(tid)}</code>" + (f' <span class="chip">{esc(kind)}</span>' if kind else "")
    return summary, rest_table(inp, ("task_id", "taskId", "shell_id")), small_result(call, ctx)
