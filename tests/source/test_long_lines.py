"""Lines longer than jsonl.LINE_CAP (lowered here): streamed past, never held whole, shown cut with
their size; nothing around them lost (issue 18, point 2)."""

from __future__ import annotations

import io
import json
import tracemalloc

import pytest

from ccreport.source import jsonl
from ccreport.source.home import peek_field
from ccreport.source.jsonl import Reader, lines
from ccreport.source.lastlines import count_lines, read_span, spans_backwards

CAP = 4096


@pytest.fixture(autouse=True)
def small_cap(monkeypatch):
    monkeypatch.setattr(jsonl, "LINE_CAP", CAP)
    monkeypatch.setattr(jsonl, "CHUNK", 1000)  # several chunks per long line, and a chunk edge inside one


def _j(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def test_a_long_line_comes_back_cut_with_its_size_and_nothing_else_is_lost():
    long = b'{"type":"user","message":{"content":"' + b"a" * 10_000 + b'"}}\n'
    data = _j({"n": 1}) + long + _j({"n": 3}) + b"\x00" * 9000 + b"\n" + _j({"n": 5})
    r = Reader(io.BytesIO(data))
    got = list(r)
    assert [e.line for e in got] == [1, 2, 3, 4, 5]
    assert [e.obj for e in (got[0], got[2], got[4])] == [{"n": 1}, {"n": 3}, {"n": 5}]
    for e, size in ((got[1], len(long)), (got[3], 9001)):
        assert e.obj is None and e.size == size
        assert f"line of {size:,} bytes, longer than the {CAP:,}-byte limit" in e.error
        assert len(e.raw) == jsonl.PREVIEW and data[e.offset:e.offset + jsonl.PREVIEW].decode() == e.raw
    assert got[1].raw.startswith('{"type":"user"')
    # offsets still add up: a resumed read starts at the right byte
    assert [e.end for e in got] == [e.offset for e in got[1:]] + [len(data)]
    assert r.offset == len(data) and r.pending == 0


def test_a_line_exactly_at_the_cap_is_read_whole():
    body = b'{"k":"' + b"x" * (CAP - 8) + b'"}'
    assert len(body) == CAP
    (e,) = Reader(io.BytesIO(body + b"\n"))
    assert e.error is None and e.obj == {"k": "x" * (CAP - 8)}
    (e,) = Reader(io.BytesIO(body + b" \n"))  # one byte more
    assert e.obj is None and e.size == CAP + 2 and "longer than" in e.error


def test_an_unfinished_long_last_line_is_held_back_then_shown_cut():
    data = _j({"n": 1}) + b"\x00" * 50_000  # the zero-filled file of the issue, in small
    fh = io.BytesIO(data)
    r = Reader(fh)
    assert [e.obj for e in r] == [{"n": 1}]
    assert r.pending == 50_000 and r.offset == len(data) - 50_000
    e = r.unfinished()
    assert e.line == 2 and e.size == 50_000 and e.obj is None
    assert e.error.startswith("unfinished last line (no newline yet), line of 50,000 bytes")


def test_reading_a_long_line_holds_about_the_cap_not_the_line():
    data = b"\x00" * (4 << 20) + b"\n" + _j({"after": True})  # 4 MiB line, cap 4 KiB
    fh = io.BytesIO(data)
    tracemalloc.start()
    try:
        got = [(ln.size, ln.cut, len(ln.data)) for ln in lines(fh)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == [((4 << 20) + 1, True, jsonl.PREVIEW), (len(_j({"after": True})), False, 16)]
    assert peak < 64 * 1024  # the 4 MiB line never held (a few chunks of 1,000 bytes at most)


def test_lines_keep_is_the_preview_length():
    (ln,) = lines(io.BytesIO(b"y" * 9000 + b"\n"), keep=100)
    assert ln.cut and ln.data == b"y" * 100 and ln.size == 9001 and ln.ended


def test_peek_field_skips_a_long_first_line(tmp_path):
    f = tmp_path / "agent-x.jsonl"
    f.write_bytes(b"\x00" * 20_000 + b"\n" + _j({"sessionId": "s-2"}))
    assert peek_field(f, "sessionId", limit=64 * 1024) == "s-2"
    assert peek_field(f, "sessionId", limit=10_000) is None  # the limit was spent on the long line


def test_the_last_lines_are_found_backwards_without_holding_a_long_one(tmp_path):
    f = tmp_path / "t.jsonl"
    parts = [_j({"n": 0}), b"z" * 30_000 + b"\n", _j({"n": 2}), b'{"half']
    f.write_bytes(b"".join(parts))
    with open(f, "rb") as fh:
        assert count_lines(fh) == 4
        spans = list(spans_backwards(fh))
        starts = [0]
        for p in parts[:-1]:
            starts.append(starts[-1] + len(p))
        assert spans == list(zip(starts, starts[1:] + [f.stat().st_size]))[::-1]
        cut = read_span(fh, *spans[2], cap=CAP)
        assert cut.cut and cut.size == 30_001 and cut.data == b"z" * jsonl.PREVIEW and cut.ended
        last = read_span(fh, *spans[0], cap=CAP)
        assert not last.cut and last.data == b'{"half' and not last.ended


def test_empty_and_newline_only_files(tmp_path):
    for data, n in ((b"", 0), (b"\n", 1), (b"\n\n", 2), (b"x", 1)):
        f = tmp_path / "f.jsonl"
        f.write_bytes(data)
        with open(f, "rb") as fh:
            assert count_lines(fh) == n
            assert len(list(spans_backwards(fh))) == n
