"""Agent trees, forked transcripts (folded, not counted twice) and agent-team messages, in the model."""

from __future__ import annotations

from pathlib import Path

from ccreport.model.agents import agent_tree, ancestry
from ccreport.model.messages import Builder
from ccreport.model.teams import TeamFacts, protocol_note, teammate_messages
from ccreport.model.usage import FIELDS, TranscriptUsage, merge_ledgers
from ccreport.model.workflows import journal_steps, run_id_of
from ccreport.source.home import Transcript
from ccreport.source.jsonl import Entry


def _agent(aid, parent=None):
    return Transcript(aid, "agent", Path(f"agent-{aid}.jsonl"), parent_agent_id=parent)


def test_tree_puts_children_under_parents_and_survives_loops():
    a, b, c, d = _agent("a"), _agent("b", "a"), _agent("c", "b"), _agent("d", "missing")
    assert [(depth, t.id) for depth, t in agent_tree([c, b, a, d])] == [(0, "a"), (1, "b"), (2, "c"), (0, "d")]
    x, y = _agent("x", "y"), _agent("y", "x")
    assert {t.id for _, t in agent_tree([x, y])} == {"x", "y"}  # a loop: still listed, once each
    assert [t.id for t in ancestry(c, {t.id: t for t in (a, b, c)})] == ["a", "b"]
    assert ancestry(x, {"x": x, "y": y}) == [y]


def _asst(uuid, sid, mid, out=10, **kw):
    return {"type": "assistant", "uuid": uuid, "sessionId": sid, "timestamp": "2026-10-05T08:00:00.000Z",
            "message": {"id": mid, "model": "claude-sonnet-4-5-20250929", "role": "assistant",
                        "content": [{"type": "text", "text": "hi"}],
                        "usage": {"input_tokens": 1, "output_tokens": out}}, **kw}


FORK_LINES = [
    {"type": "fork-context-ref", "parentSessionId": "P", "parentLastUuid": "u2", "contextLength": 2},
    {"type": "user", "uuid": "u1", "sessionId": "P", "message": {"role": "user", "content": "copied prompt"}},
    _asst("u2", "P", "msg_parent"),
    {"type": "user", "uuid": "u3", "sessionId": "F", "message": {"role": "user", "content": "own prompt"}},
    _asst("u4", "F", "msg_own", out=20),
]


def test_fork_prefix_is_flagged_and_not_counted():
    b = Builder()
    led = TranscriptUsage()
    for n, obj in enumerate(FORK_LINES, 1):
        b.feed(Entry(n, 0, 0, obj))
        led.feed(obj, n)
    kinds = [(m.kind, m.forked) for m in b.out]
    assert kinds == [("fork", False), ("user", True), ("assistant", True), ("user", False), ("assistant", False)]
    assert led.tokens()["output_tokens"] == 20 and led.forked_lines == 1
    report = merge_ledgers([("main", "main", led)])
    assert report["total"]["responses"] == 1 and report["forked_lines"] == 1


def test_fork_prefix_is_not_counted_again_by_a_resumed_read():
    led = TranscriptUsage()
    for n, obj in enumerate(FORK_LINES[:3], 1):
        led.feed(obj, n)
    again = TranscriptUsage(led.to_json())  # a resumed read starts over at a page start
    for n, obj in enumerate(FORK_LINES, 1):
        again.feed(obj, n)
    assert again.tokens()["output_tokens"] == 20 and again.total[len(FIELDS)] == 1


def test_a_fork_with_no_copied_lines_counts_everything():
    lines = [{"type": "fork-context-ref", "parentSessionId": "P", "parentLastUuid": "zz"},
             _asst("a1", "P", "msg_a", isSidechain=True)]
    led = TranscriptUsage()
    for n, obj in enumerate(lines, 1):
        led.feed(obj, n)
    assert led.tokens()["output_tokens"] == 10 and led.forked_lines == 0


def test_teammate_messages_and_protocol_notes():
    text = ('Another Claude session sent a message:\n<teammate-message teammate_id="profiler" color="blue" '
            'summary="Found it">\nThe slow route.\n</teammate-message>\n<teammate-message teammate_id="rev" '
            'color="green">{"type":"idle_notification","idleReason":"waiting"}</teammate-message>')
    first, second = teammate_messages(text)
    assert (first.sender, first.color, first.summary, first.body, first.protocol) == (
        "profiler", "blue", "Found it", "The slow route.", None)
    assert second.protocol["type"] == "idle_notification"
    assert protocol_note(second.protocol) == "is idle (waiting)"
    assert protocol_note({"type": "task_assignment", "taskId": "3"}) == "assigned task #3"


def test_send_message_is_linked_to_the_reply():
    call = {"type": "assistant", "uuid": "a", "message": {"id": "m1", "role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "SendMessage", "input": {"to": "profiler", "message": "go"}}]}}
    result = {"type": "user", "uuid": "r", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "sent"}]}}
    reply = {"type": "user", "uuid": "b", "message": {"role": "user", "content":
             '<teammate-message teammate_id="profiler" color="blue">done</teammate-message>'}}
    b = Builder()
    for n, obj in enumerate((call, result, reply), 1):
        b.feed(Entry(n, 0, 0, obj))
    sent = b.out[0].calls[0]
    assert sent.reply_line == 3 and b.out[1].reply_to == {"id": "t1", "line": 1, "page": 1, "to": "profiler"}
    # On a later page: the reply still links back (the carry remembers the call).
    b2 = Builder()
    b2.feed(Entry(1, 0, 0, call))
    b2.feed(Entry(2, 0, 0, result))
    b2.close_page()
    b2.feed(Entry(3, 0, 0, reply))
    assert b2.out[0].reply_to["page"] == 1


def test_team_facts_from_calls_are_idempotent():
    f = TeamFacts()
    f.call("TeamCreate", {"team_name": "t"}, None)
    f.call("Agent", {"name": "p", "team_name": "t", "subagent_type": "general-purpose"}, {"agentId": "a1"})
    for _ in range(2):  # a resumed read feeds a page again
        f.call("TaskCreate", {"subject": "s"}, {"task": {"id": "1", "subject": "s"}})
        f.call("TaskUpdate", {"taskId": "1", "status": "completed", "addBlockedBy": ["2"]}, None)
    assert f.data["teams"] == ["t"] and f.data["members"]["p"] == {"agentType": "general-purpose", "agentId": "a1"}
    assert f.data["tasks"]["1"] == {"id": "1", "subject": "s", "status": "completed", "blockedBy": ["2"]}


def test_journal_steps_and_run_id():
    steps = journal_steps('{"type":"step_end","step":"bench","agentId":"a1","status":"completed","x":1}\nnot json\n')
    assert (steps[0].kind, steps[0].name, steps[0].agent_id, steps[0].status, steps[0].rest) == (
        "step_end", "bench", "a1", "completed", {"x": 1})
    assert steps[1].raw == "not json"

    class R:
        extra, content = {}, "Workflow done (run wf_3c9e1a27-4b1)."

    class C:
        result = R()

    assert run_id_of(C()) == "wf_3c9e1a27-4b1"


def test_send_message_whose_page_closes_before_the_reply_links_forward():
    call = {"type": "assistant", "uuid": "a", "message": {"id": "m1", "role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "SendMessage", "input": {"to": "profiler", "message": "go"}}]}}
    result = {"type": "user", "uuid": "r", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "sent"}]}}
    b = Builder()
    b.feed(Entry(1, 0, 0, call))
    b.feed(Entry(2, 0, 0, result))
    sent = b.out[0].calls[0]
    assert not sent.reply_later  # the page is open: the reply may still come on it
    b.close_page()
    assert sent.reply_later and sent.reply_line is None
