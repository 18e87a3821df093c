"""The task board (model.tasks): a fold over TaskCreate/TaskUpdate/TaskList/TaskGet calls in file order,
carried across pages; each board call keeps the board after its change."""

from __future__ import annotations

from ccreport.model.messages import Builder
from ccreport.source.jsonl import Entry
from util import assistant, tool_result

import orjson


def _feed(builder: Builder, objs, start: int = 1) -> None:
    for i, obj in enumerate(objs, start):
        raw = orjson.dumps(obj).decode()
        builder.feed(Entry(line=i, offset=0, end=len(raw) + 1, obj=obj))


def _call(n: int, name: str, inp: dict, result: str, extra=None, is_error=False):
    cid = f"toolu_{n}"
    return [assistant(f"a{n}", [{"type": "tool_use", "id": cid, "name": name, "input": inp}], mid=f"msg_{n}"),
            tool_result(f"r{n}", cid, result, extra=extra, is_error=is_error)]


def _calls(builder: Builder) -> dict:
    return {c.id: c for m in builder.out for c in m.calls}


def test_board_after_each_change_in_file_order():
    b = Builder()
    _feed(b, _call(1, "TaskCreate", {"subject": "Measure"}, "Task #1 created successfully: Measure",
                   {"task": {"id": "1", "subject": "Measure"}})
          + _call(2, "TaskCreate", {"subject": "Cache"}, "Task #2 created successfully: Cache")  # id from the text
          + _call(3, "TaskUpdate", {"taskId": "1", "status": "in_progress", "owner": "dana"}, "Updated task #1")
          + _call(4, "TaskUpdate", {"taskId": "2", "addBlockedBy": ["1"]}, "Updated task #2")
          + _call(5, "TaskUpdate", {"taskId": "1", "status": "completed"}, "oops", is_error=True)  # failed: no change
          + _call(6, "TaskUpdate", {"taskId": "1", "status": "completed"}, "Updated task #1"))
    calls = _calls(b)
    assert [(t["id"], t["subject"], t["status"]) for t in calls["toolu_1"].board] == [("1", "Measure", "pending")]
    assert [t["id"] for t in calls["toolu_2"].board] == ["1", "2"]
    assert calls["toolu_3"].board[0] | {} == {"id": "1", "subject": "Measure", "status": "in_progress", "owner": "dana"}
    assert calls["toolu_4"].board[1]["blockedBy"] == ["1"]
    assert calls["toolu_5"].board is None  # an error changes nothing
    assert [t["status"] for t in calls["toolu_6"].board] == ["completed", "pending"]
    # Earlier snapshots are copies: later changes did not reach them.
    assert calls["toolu_1"].board[0]["status"] == "pending"


def test_board_survives_a_page_break_and_tasklist_resyncs_it():
    b = Builder()
    _feed(b, _call(1, "TaskCreate", {"subject": "A"}, "Task #1 created successfully: A", {"task": {"id": "1"}}))
    b.close_page()
    carry = orjson.loads(orjson.dumps(b.carry))  # the carry is plain data, saved between builds
    b2 = Builder(carry)
    _feed(b2, _call(2, "TaskUpdate", {"taskId": "1", "status": "deleted"}, "Updated task #1")
          + _call(3, "TaskList", {}, "#4 [pending] Rebuilt (ana)\n#5 [completed] Done"), start=10)
    calls = _calls(b2)
    assert calls["toolu_2"].board == []
    assert [(t["id"], t["status"], t.get("owner")) for t in calls["toolu_3"].board] == [
        ("4", "pending", "ana"), ("5", "completed", None)]
