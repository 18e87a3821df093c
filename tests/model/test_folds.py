"""Runs of lines with nothing to show one by one fold into one counted message (model.folds, issue 29
point 6): empty lines, malformed lines past the first few, bookkeeping past a note's rows."""

from __future__ import annotations

import io

from ccreport.model import folds
from ccreport.model.messages import Builder
from ccreport.model.pages import paginate
from ccreport.source.jsonl import Reader
from util import user

import orjson


def _file(*parts: bytes) -> bytes:
    return b"".join(parts)


def _line(obj) -> bytes:
    return orjson.dumps(obj) + b"\n"


def _pages(data: bytes, page_size: int = 50, **resume):
    return list(paginate(Reader(io.BytesIO(data), resume.get("offset", 0), resume.get("line", 1)),
                         Builder(resume.get("carry")), page_size, resume.get("no", 1), resume.get("line", 1),
                         resume.get("offset", 0)))


def test_a_run_of_empty_lines_is_one_counted_message():
    data = _file(_line(user("u1", "hello")), b"{}\n" * 5000, b"\n  \n", b"{}\n" * 7, _line(user("u2", "again")))
    pages = _pages(data)
    assert len(pages) == 1
    kinds = [m.kind for m in pages[0].messages]
    assert kinds == ["user", "empty", "user"]
    run = pages[0].messages[1].run
    assert (run["count"], run["first"], run["last"]) == (5009, 2, 5010)
    assert run["names"] == {"{}": 5007, "blank": 2}
    assert run["bytes"] == 5007 * 3 + 1 + 3
    b = Builder()
    list(paginate(Reader(io.BytesIO(data)), b))
    assert b.carry["counts"]["(no type)"] == 5007 and b.carry["counts"]["(malformed)"] == 2
    assert b.carry["messages"] == 3


def test_malformed_lines_past_the_first_few_of_a_run_fold_with_their_text():
    shown = folds.MALFORMED_SHOWN
    data = _file(b"not json 1\n", b"[1]\n", b"x\n" * (shown - 2), b"y\n" * 10, b"{}\n", b"z\n",
                 _line(user("u1", "hi")), b"w\n")
    msgs = _pages(data)[0].messages
    assert [m.kind for m in msgs] == ["malformed"] * shown + ["malformed_run", "user", "malformed"]
    assert [m.raw for m in msgs[:3]] == ["not json 1", "[1]", "x"]
    run = msgs[shown].run
    assert (run["count"], run["first"], run["last"], run["raw_lines"]) == (12, shown + 1, shown + 12, 12)
    assert run["raw"] == "\n".join(["y"] * 10 + ["{}", "z"])  # the lines as in the file
    assert run["names"]["{}"] == 1 and sum(run["names"].values()) == 12
    assert all(k.startswith("not JSON") for k in run["names"] if k != "{}")


def test_empty_and_malformed_lines_in_turn_are_one_run():
    data = b"{}\nx\n" * 5000  # (one malformed line between empty ones never starts a message of its own)
    msgs = _pages(data)[0].messages
    assert [m.kind for m in msgs] == ["malformed_run"]
    assert msgs[0].run["count"] == 10_000 and msgs[0].run["names"]["{}"] == 5000


def test_the_raw_text_kept_of_a_malformed_run_is_bounded():
    line = b"z" * 10_000 + b"\n"
    msgs = _pages(line * 200)[0].messages
    run = msgs[-1].run
    assert run["count"] == 200 - folds.MALFORMED_SHOWN
    assert len(run["raw"]) == folds.RAW_KEEP and run["raw_lines"] < run["count"]


def test_a_bookkeeping_note_lists_its_first_rows_and_counts_the_rest():
    n = folds.FOLD_ROWS + 1234
    data = b"".join(_line({"type": "last-prompt", "lastPrompt": f"p{i}"}) for i in range(n))
    msgs = _pages(data)[0].messages
    assert len(msgs) == 1 and msgs[0].kind == "meta"
    assert len(msgs[0].blocks) == len(msgs[0].lines) == folds.FOLD_ROWS
    run = msgs[0].run
    assert run["count"] == 1234 and run["first"] == folds.FOLD_ROWS + 1 and run["last"] == n
    assert run["names"] == {"last-prompt": 1234}


def test_a_fold_counts_as_one_message_for_pages_and_resumes_the_same():
    data = _file(_line(user("u1", "a")), _line(user("u2", "b")), b"{}\n" * 3000,
                 *(_line(user(f"u{i}", f"t{i}")) for i in range(3, 6)), b"\n" * 40)
    pages = _pages(data, page_size=2)
    assert [[m.kind for m in p.messages] for p in pages] == [["user", "user"], ["empty", "user"],
                                                              ["user", "user"], ["empty"]]
    assert pages[1].messages[0].run["count"] == 3000 and pages[3].messages[0].run["count"] == 40
    # Read again from the second page's first byte with its carry: the same pages.
    p = pages[1]
    again = _pages(data, page_size=2, offset=p.first_offset, line=p.first_line, carry=p.carry, no=2)
    assert [[(m.kind, m.line, m.run) for m in q.messages] for q in again] == \
           [[(m.kind, m.line, m.run) for m in q.messages] for q in pages[1:]]
