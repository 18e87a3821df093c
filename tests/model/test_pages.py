"""Stable pagination: page size, no cut with an open tool call, the 2N cap, exact resumption."""

from __future__ import annotations

import io
import json

import pytest

from ccreport.source.home import discover
from ccreport.source.jsonl import Reader
from ccreport.model.messages import Builder
from ccreport.model.pages import paginate
from ccreport.render.message import RenderContext, render_message
from util import SAMPLE_HOME, assistant, tool_result, user


def data_of(entries) -> bytes:
    return b"".join((json.dumps(e).encode() if isinstance(e, dict) else e) + b"\n" for e in entries)


def pages_of(data: bytes, size: int, **kw):
    return list(paginate(Reader(io.BytesIO(data)), Builder(), size, **kw))


def call(i, tid, name="Bash", mid=None):
    return assistant(f"a{i}", [{"type": "tool_use", "id": tid, "name": name, "input": {"command": f"echo {i}"}}],
                     mid=mid or f"msg_{i}", rid=f"req_{i}")


def test_pages_hold_page_size_messages():
    data = data_of(user(f"u{i}", f"message {i}") for i in range(120))
    pages = pages_of(data, 50)
    assert [len(p.messages) for p in pages] == [50, 50, 20]
    assert [p.no for p in pages] == [1, 2, 3]
    assert [p.closed for p in pages] == [True, True, False]
    assert [p.first_line for p in pages] == [1, 51, 101]
    # first_offset is the byte where the page's first line starts
    for p in pages:
        assert data[p.first_offset:].startswith(b'{"type": "user"') and data[:p.first_offset].count(b"\n") == p.first_line - 1


def test_no_cut_while_a_tool_call_waits_for_its_result():
    entries = [user(f"u{i}", f"m{i}") for i in range(49)]
    entries.append(call(49, "t49"))  # message 50: a call, still open
    entries.append(user("late", "[Request interrupted by user]"))  # message 51 arrives while it is open
    entries.append(tool_result("r49", "t49", "49"))
    entries += [user(f"v{i}", f"n{i}") for i in range(10)]
    pages = pages_of(data_of(entries), 50)
    first = pages[0]
    assert len(first.messages) == 51
    calls = [c for m in first.messages for c in m.calls]
    assert calls and all(c.result is not None for c in calls)
    assert pages[1].first_line == 53  # right after the result line


def test_split_assistant_message_is_not_cut():
    entries = [user(f"u{i}", f"m{i}") for i in range(49)]
    entries.append(assistant("a1", [{"type": "thinking", "thinking": "t", "signature": "s"}], mid="msg_X"))
    entries.append(assistant("a2", [{"type": "text", "text": "part two"}], mid="msg_X"))
    entries += [user(f"v{i}", f"n{i}") for i in range(3)]
    pages = pages_of(data_of(entries), 50)
    assert len(pages[0].messages) == 50 and pages[0].messages[-1].lines == [50, 51]


def test_hard_cap_of_twice_the_page_size():
    entries = [call(0, "t_never")] + [user(f"u{i}", f"m{i}") for i in range(150)] + [tool_result("r", "t_never", "finally")]
    pages = pages_of(data_of(entries), 20)
    assert len(pages[0].messages) == 40
    assert all(len(p.messages) <= 40 for p in pages)
    # The result arrives on a later page as a message of its own, pointing back to the call's page.
    last = pages[-1].messages[-1]
    assert last.kind == "result" and last.late_call == {"id": "t_never", "name": "Bash", "line": 1, "page": 1}


def _signature(msgs, ctx):
    out = []
    for m in msgs:
        blocks = []
        for t, payload in m.blocks:
            if t == "tool_use":
                r = payload.result
                blocks.append((t, payload.id, payload.name, payload.line, r.line if r else None, payload.sidechain_line))
            elif t == "tool_result":
                blocks.append((t, payload.tool_use_id, payload.line))
            else:
                blocks.append((t, json.dumps(payload, sort_keys=True, default=str)))
        out.append((m.kind, m.line, tuple(m.lines), tuple(blocks), json.dumps(m.late_call, sort_keys=True),
                    json.dumps(m.usage, sort_keys=True), render_message(m, ctx)))
    return out


def _assert_resumes_identically(data: bytes, size: int):
    ctx = RenderContext(root="../../../")
    full = pages_of(data, size)
    assert len(full) > 2
    for k, page in enumerate(full):
        carry = json.loads(json.dumps(page.carry))
        reader = Reader(io.BytesIO(data), offset=page.first_offset, line=page.first_line)
        again = list(paginate(reader, Builder(carry), size, first_no=page.no, first_line=page.first_line,
                              first_offset=page.first_offset))
        assert [(p.no, p.first_line, p.first_offset, p.closed) for p in again] == \
               [(p.no, p.first_line, p.first_offset, p.closed) for p in full[k:]]
        for a, b in zip(again, full[k:]):
            assert _signature(a.messages, ctx) == _signature(b.messages, ctx)
    return full


def test_resuming_from_a_page_start_reproduces_the_same_pages():
    entries = []
    for i in range(30):
        entries.append(user(f"u{i}", f"prompt {i} ü"))
        entries.append(assistant(f"a{i}", [{"type": "thinking", "thinking": f"think {i}", "signature": "s"}],
                                 mid=f"msg_{i}", rid=f"req_{i}", usage={"input_tokens": 1, "output_tokens": 3}))
        entries.append(assistant(f"b{i}", [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"/f{i}"}}],
                                 mid=f"msg_{i}", rid=f"req_{i}", usage={"input_tokens": 1, "output_tokens": 9}))
        if i % 7 == 3:
            entries.append(b"{broken line")
        if i % 5 != 4:  # every fifth call's result comes only after the next prompt
            entries.append(tool_result(f"r{i}", f"t{i}", f"content {i}"))
        else:
            entries.append(user(f"x{i}", f"meanwhile {i}"))
            entries.append(tool_result(f"r{i}", f"t{i}", f"late content {i}"))
        entries.append({"type": "file-history-snapshot", "messageId": f"u{i}", "snapshot": {}})
    full = _assert_resumes_identically(data_of(entries), 7)
    assert all(len(p.messages) <= 14 for p in full)
    # Every page but the last closed with all its calls answered (none of them waited past the cap).
    assert all(c.result is not None for p in full[:-1] for m in p.messages for c in m.calls)


@pytest.mark.parametrize("size", [5, 9])
def test_resuming_the_sample_transcripts(size):
    cat = discover(SAMPLE_HOME)
    mains = [t for s in cat.sessions() for t in s.transcripts if t.kind == "main" and t.size > 20_000]
    assert mains
    for t in mains:
        _assert_resumes_identically(t.path.read_bytes(), size)


def test_appending_never_changes_a_closed_page():
    entries = [user(f"u{i}", f"m{i}") for i in range(23)]
    before = pages_of(data_of(entries), 10)
    after = pages_of(data_of(entries + [user(f"w{i}", f"new {i}") for i in range(15)]), 10)
    ctx = RenderContext(root="")
    for a, b in zip(before, after):
        if a.closed:
            assert _signature(a.messages, ctx) == _signature(b.messages, ctx) and b.closed
