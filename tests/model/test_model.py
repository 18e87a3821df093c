"""The message model: merging split assistant lines, pairing tool calls, usage de-duplication, titles."""

from __future__ import annotations

import io
import json

from ccreport.source.jsonl import Reader
from ccreport.model.messages import Builder, set_summary_title, title_of, typed_prompt_text
from ccreport.model.usage import TranscriptUsage
from util import assistant, tool_result, user


def _data(entries) -> bytes:
    return b"".join((json.dumps(e).encode() if isinstance(e, dict) else e) + b"\n" for e in entries)


def feed(*entries) -> Builder:
    b = Builder()
    for e in Reader(io.BytesIO(_data(entries))):
        b.feed(e)
    return b


def usage_totals(*entries) -> dict:
    """The token totals of a transcript of these entries (the index row's usage)."""
    ledger = TranscriptUsage()
    for e in Reader(io.BytesIO(_data(entries))):
        ledger.feed(e.obj, e.line)
    return ledger.tokens()


def U(n, **kw):
    return {"input_tokens": 3, "output_tokens": n, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 100, **kw}


def test_split_assistant_lines_merge_by_message_id():
    b = feed(
        user("u1", "hi"),
        assistant("a1", [{"type": "thinking", "thinking": "hmm", "signature": "s"}], mid="msg_A", usage=U(5)),
        assistant("a2", [{"type": "text", "text": "Let me look."}], mid="msg_A", usage=U(20)),
        assistant("a3", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}}], mid="msg_A", usage=U(40)),
        assistant("a4", [{"type": "text", "text": "Other reply"}], mid="msg_B", rid="req_2"),
    )
    kinds = [m.kind for m in b.out]
    assert kinds == ["user", "assistant", "assistant"]
    a = b.out[1]
    assert a.msg_id == "msg_A" and a.lines == [2, 3, 4] and a.line == 2
    assert [t for t, _ in a.blocks] == ["thinking", "text", "tool_use"]
    assert a.usage["output_tokens"] == 40  # the largest of the repeated usages
    assert b.out[2].blocks == [("text", "Other reply")]
    assert b.carry["messages"] == 3


def test_usage_deduplicated_by_message_and_request_keeping_the_largest():
    tot = usage_totals(
        assistant("a1", [{"type": "text", "text": "x"}], mid="msg_A", rid="req_1", usage=U(10)),
        assistant("a2", [{"type": "text", "text": "y"}], mid="msg_A", rid="req_1", usage=U(50)),
        assistant("a3", [{"type": "text", "text": "z"}], mid="msg_A", rid="req_1", usage=U(30)),
        assistant("b1", [{"type": "text", "text": "w"}], mid="msg_B", rid="req_2", usage=U(7)),
    )
    assert tot["output_tokens"] == 57
    assert tot["input_tokens"] == 6 and tot["cache_read_input_tokens"] == 200


def test_usage_of_many_messages_is_all_counted():
    entries = [assistant(f"a{i}", [{"type": "text", "text": str(i)}], mid=f"msg_{i}", rid=f"req_{i}", usage=U(i))
               for i in range(1, 201)]
    tot = usage_totals(*entries)
    assert tot["output_tokens"] == sum(range(1, 201))


def test_tool_call_pairs_with_its_result():
    b = feed(
        user("u1", "list files"),
        assistant("a1", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]),
        tool_result("r1", "toolu_1", "a.txt\nb.txt", extra={"stdout": "a.txt\nb.txt", "stderr": ""}),
        assistant("a2", [{"type": "text", "text": "Two files."}], mid="msg_2"),
    )
    assert [m.kind for m in b.out] == ["user", "assistant", "assistant"]  # the result line is absorbed
    call = b.out[1].calls[0]
    assert call.name == "Bash" and call.result is not None
    assert call.result.content == "a.txt\nb.txt" and call.result.line == 3
    assert call.result.extra["stdout"] == "a.txt\nb.txt"
    assert not b.open_calls


def test_result_without_a_call_is_its_own_message_and_errors_are_marked():
    b = feed(tool_result("r1", "toolu_unknown", "<tool_use_error>No such tool</tool_use_error>", is_error=True))
    assert [m.kind for m in b.out] == ["result"]
    res = b.out[0].blocks[0][1]
    assert res.is_error and res.tool_use_id == "toolu_unknown" and b.out[0].late_call is None


def test_open_call_is_reported_until_its_result_arrives():
    b = feed(assistant("a1", [{"type": "tool_use", "id": "t9", "name": "Grep", "input": {"pattern": "x"}}]))
    assert b.open_calls
    b2 = feed(assistant("a1", [{"type": "tool_use", "id": "t9", "name": "Grep", "input": {"pattern": "x"}}]),
              tool_result("r", "t9", "none"))
    assert not b2.open_calls


def test_inline_sidechain_links_to_the_task_call_by_prompt():
    prompt = "Profile zsh startup and report the slowest functions."
    b = feed(
        user("u1", "zsh is slow"),
        assistant("a1", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": prompt, "description": "d"}}]),
        user("s1", prompt, isSidechain=True),
        assistant("s2", [{"type": "text", "text": "nvm is slow"}], mid="msg_s", isSidechain=True),
        tool_result("r1", "t1", "nvm is slow"),
    )
    call = b.out[1].calls[0]
    side = b.out[2]
    assert side.sidechain and side.kind == "user"
    assert call.sidechain_line == 3
    assert side.late_call["sidechain"] and side.late_call["line"] == 2
    assert call.result is not None and call.result.line == 5


def test_title_priority_custom_ai_summary_prompt():
    base = [user("u1", "fix the login bug")]
    assert title_of(feed(*base).carry) == "fix the login bug"
    summary = {"type": "summary", "summary": "Login bug summary", "leafUuid": "x"}
    ai = {"type": "ai-title", "aiTitle": "AI: login", "sessionId": "s1"}
    custom = {"type": "custom-title", "customTitle": "My title", "sessionId": "s1"}
    # A summary line in the file does not title it (its leaf is most often another session's);
    # the summary title the project's lines give the session is set from outside (source.summaries).
    assert title_of(feed(summary, *base).carry) == "fix the login bug"
    titled = feed(summary, *base)
    set_summary_title(titled.carry, "Login bug summary")
    assert title_of(titled.carry) == "Login bug summary"
    with_ai = feed(*base, ai, summary)
    set_summary_title(with_ai.carry, "Login bug summary")
    assert title_of(with_ai.carry) == "AI: login"
    assert title_of(feed(custom, *base, ai, summary).carry) == "My title"
    # Later ai-title lines replace earlier ones (Claude Code rewrites the title as the session goes on).
    assert title_of(feed(ai, {"type": "ai-title", "aiTitle": "Newer", "sessionId": "s1"}).carry) == "Newer"


def test_first_typed_prompt_ignores_injected_lines():
    b = feed(
        user("c0", "<local-command-caveat>Caveat: The messages below were generated by the user while running local "
                   "commands.</local-command-caveat>", isMeta=True),
        user("c1", "Caveat: The messages below were generated by the user while running local commands."),
        user("c2", "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"),
        user("c3", "<local-command-stdout></local-command-stdout>"),
        user("c4", "Base directory for this skill: /x", isMeta=True),
        user("c5", "This session is being continued from a previous conversation. Summary: …", isCompactSummary=True),
        user("c6", "Summary:\n1. earlier work", isCompactSummary=True, isVisibleInTranscriptOnly=True),
        user("c7", "side prompt", isSidechain=True),
        tool_result("c8", "t0", "output"),
        user("c9", [{"type": "text", "text": "  Please add rate limiting  "}]),
        user("c10", "second prompt"),
    )
    assert b.carry["titles"]["prompt"] == "Please add rate limiting  "
    assert title_of(b.carry) == "Please add rate limiting  "
    assert typed_prompt_text(user("x", "[Request interrupted by user]")) is None


def test_nothing_is_dropped_unknown_types_and_malformed_lines():
    b = feed(
        {"type": "brand-new-kind", "payload": 1},
        b"not json at all",
        assistant("a1", [{"type": "server_tool_use", "id": "s", "name": "web"}, {"type": "text", "text": "ok"}]),
        user("u1", [{"type": "mystery", "x": 1}]),
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "queue-operation", "operation": "enqueue"},
        {"type": "system", "subtype": "turn_duration", "durationMs": 5},
    )
    kinds = [m.kind for m in b.out]
    assert kinds == ["other", "malformed", "assistant", "user", "meta", "system"]
    assert b.out[1].raw == "not json at all" and b.carry["counts"]["(malformed)"] == 1
    assert b.out[2].blocks[0][0] == "unknown" and b.out[3].blocks[0][0] == "unknown"
    # Consecutive bookkeeping lines share one note, each line kept.
    assert b.out[4].lines == [5, 6]
    assert b.carry["counts"] == {"brand-new-kind": 1, "(malformed)": 1, "assistant": 1, "user": 1,
                                 "file-history-snapshot": 1, "queue-operation": 1, "system": 1}


def test_envelope_facts_are_collected():
    b = feed(
        {"type": "summary", "summary": "t", "leafUuid": "x"},
        user("u1", "hi", ts="2025-06-01T10:00:05.000Z", gitBranch="main"),
        assistant("a1", [{"type": "text", "text": "yo"}], ts="2025-06-01T10:00:09.000Z", model="claude-opus-4-1-20250805"),
        assistant("a2", [{"type": "text", "text": "err"}], mid="m2", model="<synthetic>"),
    )
    c = b.carry
    assert c["cwd"] == "/home/u/proj" and c["git_branch"] == "main"
    assert c["first_ts"] == "2025-06-01T10:00:01.000Z" and c["last_ts"] == "2025-06-01T10:00:09.000Z"
    assert c["models"] == ["claude-opus-4-1-20250805"]
    json.dumps(c)  # the carry is plain data: it can be saved and resumed
