"""Checklists of tasks (TodoWrite items, Task* boards, task reminders): one item per line with its
status mark, owner and blockers. Below the tool views and the attachment notes, which both use it."""

from __future__ import annotations

from ccreport.model.text import as_str
from ccreport.render.markup import esc

STATUS_MARK = {"completed": "☑", "in_progress": "◐", "pending": "☐", "deleted": "☒", "cancelled": "☒"}


def todo_item(text: str, status: str, extra: str = "", cls: str = "") -> str:
    st = status or "pending"
    mark = STATUS_MARK.get(st, "☐")
    return (f'<li class="todo st-{esc(st)}{" " + cls if cls else ""}"><span class="mark">{mark}</span>'
            f' {esc(text)} <span class="tstatus">{esc(st.replace("_", " "))}</span>{extra}</li>')


def checklist(items, mark: str | None = None) -> tuple[str, int, int]:
    """(html, done, total) of a list of task objects; the item whose id is ``mark`` is highlighted."""
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
            blockers = t["blockedBy"] if isinstance(t["blockedBy"], list) else [t["blockedBy"]]
            extra += f' <span class="dim">blocked by {esc(", ".join("#" + as_str(b) for b in blockers))}</span>'
        hit = mark is not None and t.get("id") is not None and as_str(t["id"]) == mark
        out.append(todo_item(text, st, extra, "changed" if hit else ""))
    return f'<ul class="todos">{"".join(out)}</ul>', done, len(items)


def board_html(board: list | None, mark: str | None = None, label: str = "Task board after this change") -> str:
    """The task board a call left behind (model.tasks), as a checklist under a small heading."""
    if board is None:
        return ""
    if not board:
        return f'<div class="board"><div class="lbl">{esc(label)}</div><p class="dim">(no tasks)</p></div>'
    html, done, n = checklist(board, mark)
    return f'<div class="board"><div class="lbl">{esc(label)}: {done}/{n} done</div>{html}</div>'


def board_count(board: list | None) -> str:
    """'board 2/5 done' for a summary line ('' without a board)."""
    if not board:
        return ""
    done = sum(1 for t in board if isinstance(t, dict) and t.get("status") == "completed")
    return f'<span class="dim">· board {done}/{len(board)} done</span>'
