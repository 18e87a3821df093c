"""The task board of a transcript (TaskCreate/TaskUpdate/TaskList/TaskGet, Claude Code 2.1.142+) as a
fold over its calls in file order: each successful call changes the board, and the call keeps a copy
of the board after its change (docs/formats.md F7: "the task board at any point = replaying these
calls"). The board is plain data so the builder's carry takes it across pages."""

from __future__ import annotations

import re

BOARD_TOOLS = {"TaskCreate", "TaskUpdate", "TaskList", "TaskGet"}
# How TaskList answers in text: "#3 [in_progress] Write the parser (owner)".
TASK_LINE = re.compile(r"^#(\S+) \[(\w+)\] (.*?)(?: \(([^()]*)\))?$")
_CREATED = re.compile(r"#(\w+)")
_FIELDS = ("subject", "status", "owner", "activeForm", "blockedBy", "blocks")


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _key(v) -> str | None:
    return str(v) if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v) else None


def _merge(item: dict, src: dict) -> None:
    for k in _FIELDS:
        v = src.get(k)
        if isinstance(v, str) and v:
            item[k] = v
        elif isinstance(v, list):
            item[k] = [str(x) for x in v if isinstance(x, (str, int))]


def parse_list(text: str) -> list[dict] | None:
    """The tasks of a TaskList answer in text, None when it is not one."""
    found = [TASK_LINE.match(ln.strip()) for ln in text.split("\n") if ln.strip()]
    if not found or not all(found):
        return None
    return [{"id": m.group(1), "status": m.group(2), "subject": m.group(3), "owner": m.group(4)} for m in found]


def _create(board: dict, inp: dict, x: dict, text: str) -> None:
    task = x.get("task") if isinstance(x.get("task"), dict) else {}
    tid = _key(task.get("id"))
    if tid is None:
        m = _CREATED.search(text)
        tid = m.group(1) if m else str(1 + max((int(k) for k in board if k.isdigit()), default=0))
    item = board.setdefault(tid, {"status": "pending"})
    _merge(item, inp)
    _merge(item, task)


def _update(board: dict, inp: dict, x: dict) -> None:
    tid = _key(inp.get("taskId")) or _key(x.get("taskId"))
    if tid is None:
        return
    if inp.get("status") == "deleted":
        board.pop(tid, None)
        return
    item = board.setdefault(tid, {"status": "pending"})
    _merge(item, {k: v for k, v in inp.items() if k not in ("blockedBy", "blocks")})
    for add, key in (("addBlockedBy", "blockedBy"), ("addBlocks", "blocks")):
        if isinstance(inp.get(add), list):
            have = list(item.get(key) or [])
            item[key] = have + [str(v) for v in inp[add] if str(v) not in have]
    ch = x.get("statusChange") if isinstance(x.get("statusChange"), dict) else {}
    if isinstance(ch.get("to"), str) and not isinstance(inp.get("status"), str):
        item["status"] = ch["to"]


def _replace(board: dict, tasks: list) -> None:
    board.clear()
    for t in tasks:
        tid = _key(t.get("id")) if isinstance(t, dict) else None
        if tid is not None:
            item = board.setdefault(tid, {"status": "pending"})
            _merge(item, t)


def apply(board: dict, name: str, inp, result) -> bool:
    """Change ``board`` by one call whose result arrived (``result``: a model.messages.ToolResult);
    True when the call is a board call that succeeded."""
    if name not in BOARD_TOOLS or result is None or result.is_error:
        return False
    inp = inp if isinstance(inp, dict) else {}
    x = result.extra if isinstance(result.extra, dict) else {}
    if name == "TaskCreate":
        _create(board, inp, x, _text(result.content))
    elif name == "TaskUpdate":
        _update(board, inp, x)
    elif name == "TaskList":
        tasks = x.get("tasks") if isinstance(x.get("tasks"), list) else parse_list(_text(result.content))
        if tasks is not None:
            _replace(board, tasks)
    elif isinstance(x.get("task"), dict):  # TaskGet: the task as it stands
        tid = _key(x["task"].get("id")) or _key(inp.get("taskId"))
        if tid is not None:
            _merge(board.setdefault(tid, {"status": "pending"}), x["task"])
    return True


def snapshot(board: dict) -> list[dict]:
    """The board as a list of tasks (``id`` included), in creation order."""
    return [dict(item, id=tid) for tid, item in board.items()]
