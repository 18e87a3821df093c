"""``tail`` prints at most its documented cap (``tail.BUDGET``, docs/inspect.md) on a file of many
tiny lines, in either form, and holds a bounded number of entries (issue 29 point 6)."""

from __future__ import annotations

import orjson
import pytest

from ccreport.inspect import tail as tail_mod
from ccreport.inspect.tail import readable, tail
from shapes import SID, tiny_home

N = 200_000


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    tiny_home(root / "home", "empty", N)
    return root / "home"


@pytest.mark.parametrize("as_json", [True, False])
def test_tail_of_every_line_prints_within_its_cap(home, monkeypatch, as_json):
    cap = 1024 * 1024  # lowered: 16 MiB of output would take the test longer than it should
    monkeypatch.setattr(tail_mod, "BUDGET", cap)
    r = tail(home, SID, 0, as_json=as_json)
    out = orjson.dumps(r) if as_json else readable(r).encode()
    assert len(out) <= cap
    assert r["truncated"] and r["totalLines"] == N
    # Each entry counts at least ENTRY_MIN (a `{}` prints less): how many are held is bounded.
    assert len(r["entries"]) == (cap - tail_mod.HEADROOM) // tail_mod.ENTRY_MIN
    assert r["entries"][-1] == {} and r["entries"][-100] == {"malformed": ""}  # the newest: line N - 99 is blank


def test_tail_at_the_real_cap(home):
    r = tail(home, SID, 0, as_json=False)
    assert len(readable(r).encode()) <= tail_mod.BUDGET
    assert len(r["entries"]) == N and not r["truncated"]  # 200,000 × ENTRY_MIN fits in 16 MiB


def test_the_command_streams_what_tail_chose(tmp_path):
    """`ccreport tail` prints the entries as it reads them again (stream_tail): the same bytes as the
    answer tail() gives, never all the entries held at once."""
    from ccreport.inspect.tail import json_chunks, readable, readable_lines, stream_tail, tail

    home = tmp_path / "home"
    sid = "00000000-0000-4000-8000-000000000001"
    lines = [orjson.dumps({"type": "user", "uuid": f"u{i}", "sessionId": sid, "timestamp": "2025-06-01T10:00:00.000Z",
                           "message": {"role": "user", "content": f"hi {i}"}}) for i in range(500)]
    (home / "projects" / "-p").mkdir(parents=True)
    (home / "projects" / "-p" / f"{sid}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    for n in (0, 7):
        for as_json in (True, False):
            whole = tail(home, sid, n, None, as_json)
            head, shown, entries = stream_tail(home, sid, n, None, as_json)
            printed = "".join(json_chunks(head, entries)) if as_json else "\n".join(readable_lines(head, entries, shown))
            assert printed == (orjson.dumps(whole).decode() if as_json else readable(whole))
