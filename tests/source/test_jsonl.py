"""The streaming reader: line numbers and byte offsets, resuming, held-back partial lines, bad lines."""

from __future__ import annotations

import io
import json

from ccreport.source.jsonl import MALFORMED_KEEP, Reader, parse_line, read_entries


def _lines(*objs) -> bytes:
    return b"".join((json.dumps(o, ensure_ascii=False).encode() if not isinstance(o, bytes) else o) + b"\n" for o in objs)


def test_offsets_and_line_numbers_match_the_bytes():
    data = _lines({"type": "user", "n": 1}, {"type": "assistant", "text": "Grüße 🎉"}, {"type": "user", "n": 3})
    entries = list(Reader(io.BytesIO(data)))
    assert [e.line for e in entries] == [1, 2, 3]
    starts = [0]
    for chunk in data.split(b"\n")[:-1]:
        starts.append(starts[-1] + len(chunk) + 1)
    assert [e.offset for e in entries] == starts[:3]
    assert [e.end for e in entries] == starts[1:]
    for e in entries:
        assert json.loads(data[e.offset : e.end]) == e.obj
    assert entries[1].obj["text"] == "Grüße 🎉"


def test_resume_from_an_offset_gives_the_same_entries():
    data = _lines(*({"type": "user", "n": i} for i in range(1, 8)))
    full = list(Reader(io.BytesIO(data)))
    third = full[2]
    resumed = list(Reader(io.BytesIO(data), offset=third.offset, line=third.line))
    assert [(e.line, e.offset, e.end, e.obj) for e in resumed] == [(e.line, e.offset, e.end, e.obj) for e in full[2:]]


def test_unfinished_last_line_is_held_back_then_read_on_resume(tmp_path):
    path = tmp_path / "s.jsonl"
    done = _lines({"type": "user", "n": 1}, {"type": "user", "n": 2})
    half = b'{"type":"assistant","n":3,"text":"still wri'
    path.write_bytes(done + half)
    with open(path, "rb") as fh:
        r = Reader(fh)
        got = list(r)
    assert [e.obj["n"] for e in got] == [1, 2]
    assert r.pending == len(half)
    assert r.offset == len(done) and r.line == 3
    # The writer finishes the line and adds another: the next run continues where this one stopped.
    with open(path, "ab") as fh:
        fh.write(b'ting"}\n' + _lines({"type": "user", "n": 4}))
    with open(path, "rb") as fh:
        r2 = Reader(fh, offset=r.offset, line=r.line)
        more = list(r2)
    assert [(e.line, e.obj["n"]) for e in more] == [(3, 3), (4, 4)]
    assert more[0].obj["text"] == "still writing"
    assert r2.pending == 0 and r2.offset == path.stat().st_size


def test_invalid_utf8_is_replaced_not_fatal():
    data = b'{"type":"user","text":"caf\xe9 \xff ok"}\n' + _lines({"type": "user", "n": 2})
    entries = list(Reader(io.BytesIO(data)))
    assert len(entries) == 2
    assert entries[0].obj is not None and entries[0].error is None
    assert entries[0].obj["text"] == "caf\ufffd \ufffd ok"
    assert entries[1].obj == {"type": "user", "n": 2}


def test_lines_that_are_not_objects_are_kept_as_malformed():
    data = _lines({"type": "user", "n": 1}, b"[1, 2, 3]", b"", b'{"type": "assistant", "cut', b"42", {"type": "user", "n": 6})
    entries = list(Reader(io.BytesIO(data)))
    assert [e.line for e in entries] == [1, 2, 3, 4, 5, 6]  # nothing skipped, numbering continues
    arr, blank, cut, num = entries[1:5]
    assert arr.obj is None and arr.raw == "[1, 2, 3]" and "list" in arr.error
    assert blank.obj is None and blank.error == "blank line" and blank.raw == ""
    assert cut.obj is None and cut.raw == '{"type": "assistant", "cut' and cut.error.startswith("not JSON")
    assert num.obj is None and "int" in num.error
    assert entries[5].obj == {"type": "user", "n": 6}


def test_crlf_line_endings_are_accepted():
    data = b'{"type":"user","n":1}\r\n{"type":"user","n":2}\r\n'
    entries = list(Reader(io.BytesIO(data)))
    assert [e.obj["n"] for e in entries] == [1, 2]
    assert entries[1].offset == len(b'{"type":"user","n":1}\r\n')


def test_huge_malformed_line_is_cut_for_display_but_counted_whole():
    junk = b"x" * (MALFORMED_KEEP * 3)
    data = junk + b"\n" + _lines({"type": "user"})
    entries = list(Reader(io.BytesIO(data)))
    assert len(entries[0].raw) == MALFORMED_KEEP
    assert entries[0].size == len(junk) + 1
    assert entries[1].offset == len(junk) + 1


def test_parse_line_and_read_entries(tmp_path):
    assert parse_line(b'{"a": 1}') == ({"a": 1}, None)
    obj, err = parse_line(b'"text"')
    assert obj is None and "str" in err
    p = tmp_path / "f.jsonl"
    p.write_bytes(_lines({"type": "user", "n": 1}, {"type": "user", "n": 2}))
    assert [e.obj["n"] for e in read_entries(p)] == [1, 2]
    second = list(read_entries(p))[1]
    assert [e.obj["n"] for e in read_entries(p, second.offset, 2)] == [2]


def test_empty_file_yields_nothing():
    r = Reader(io.BytesIO(b""))
    assert list(r) == [] and r.offset == 0 and r.pending == 0 and r.line == 1
