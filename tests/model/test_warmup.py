"""Warm-up runs (model.warmup): a sub-agent file of only a "Warmup" prompt or only its reply."""

from __future__ import annotations

from ccreport.model.messages import Builder
from ccreport.model.warmup import is_warmup
from ccreport.source.jsonl import Entry
from util import assistant, user


def _carry(*objs) -> dict:
    b = Builder()
    for i, o in enumerate(objs, 1):
        b.feed(Entry(line=i, offset=i * 100, end=i * 100 + 99, obj=o))
    return b.carry


SIDE = {"isSidechain": True}
REPLY = assistant("a1", [{"type": "text", "text": "I'm ready to help you explore the codebase."}], **SIDE)


def _warm(*objs) -> bool:
    c = _carry(*objs)
    return is_warmup("agent", c["messages"], c)


def test_warmup_prompt_and_reply_or_reply_alone():
    assert _warm(user("u1", "Warmup", **SIDE), REPLY)
    assert _warm(REPLY)
    assert _warm(user("u1", [{"type": "text", "text": "Warmup"}], **SIDE))


def test_a_run_that_works_is_no_warmup():
    call = assistant("a2", [{"type": "tool_use", "id": "t1", "name": "Glob", "input": {"pattern": "*"}}], **SIDE)
    assert not _warm(user("u1", "Warmup", **SIDE), call)
    assert not _warm(user("u1", "Investigate the pagination", **SIDE), REPLY)
    assert not _warm()  # an empty file is empty, not a warm-up
    c = _carry(user("u1", "Warmup", **SIDE), REPLY)
    assert not is_warmup("main", c["messages"], c)  # a main transcript never is
