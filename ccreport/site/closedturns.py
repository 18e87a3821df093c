"""A transcript's closed turns (model.turns), moved out of its state in blocks of PART: rows of the
``turns`` table of the site's database (site.statedb), a block a row, numbered from 1.

Closed turns never change, so an append to a session of thousands of prompts neither reads nor
writes them: the state keeps only the turns after the last full block (the open one among them), and
a row is added every PART prompts (the outline's part pages, site.outlineparts, are those blocks).
The state names the turns it vouches for (the turns slice's ``closed_turns``: ``{"count", "first":
[page, line] of turn 1}``); a row past them (a block added by a build that then failed or was killed
before its state was saved) is written over by the next block, and a missing row makes the
transcript render whole (site.plan). ``st`` below: a transcript's turns slice (site.features.TurnsSlice).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import orjson

from ccreport.site import statedb
from ccreport.source import database

PART = 250  # turns per block: per closed part of the outline
_WHERE = "project = ? AND session = ? AND transcript = ?"


def spill(out: Path, project: str, session_id: str, transcript_id: str, st) -> list[list]:
    """Move the full blocks of closed turns out of ``st.turns`` into rows; returns them, oldest
    first (the outline parts that just closed). Without ``st.closed_turns`` (a read from line 1, or
    nothing moved yet) the transcript's rows are written anew."""
    kept = st.closed_turns
    base = kept["count"] if kept else 0
    # Closed: the turns before the one open at the last page's start (model.turns: they never change).
    closed = ((st.turns_mark or {}).get("count") or 1) - 1
    n = max(0, closed - base) // PART * PART
    if n == 0:
        return []
    blocks = [st.turns[i:i + PART] for i in range(0, n, PART)]
    key = (project, session_id, transcript_id)
    conn = statedb.connect(out)
    with database.transaction(conn, statedb.db_path(out)):  # the state vouching for them comes after
        if not kept:
            conn.execute(f"DELETE FROM turns WHERE {_WHERE}", key)
        conn.executemany("INSERT OR REPLACE INTO turns VALUES (?, ?, ?, ?, ?)",
                         [(*key, base // PART + i + 1, orjson.dumps(b)) for i, b in enumerate(blocks)])
    first = kept["first"] if kept else [st.turns[0]["page"], st.turns[0]["line"]]
    st.closed_turns = {"count": base + n, "first": first}
    st.turns = st.turns[n:]
    return blocks


def blocks(out: Path, project: str, session_id: str, transcript_id: str, st,
           wanted: set[int]) -> Iterator[tuple[int, list]]:
    """The ``wanted`` blocks of closed turns the state vouches for, as (block number from 1, its
    turns), oldest first, each read when the one before it is done with: the turns of a session of
    thousands of prompts are never parsed whole (a 1 GB session: 9,500 turns, ~30 MB as dicts).
    ValueError when the rows do not hold them (the session's update fails, and it is rendered whole
    next time): checked before any block is given."""
    kept = st.closed_turns
    if not kept or not wanted:
        return
    if not intact(out, project, session_id, transcript_id, st):
        raise ValueError(f"{project}/{session_id}/{transcript_id}: fewer closed turns than the state counts")
    conn = statedb.connect(out)
    for no in sorted(n for n in wanted if 1 <= n <= full_blocks(st)):
        row = conn.execute(f"SELECT raw FROM turns WHERE {_WHERE} AND block = ?",
                           (project, session_id, transcript_id, no)).fetchone()
        yield no, orjson.loads(row[0])


def intact(out: Path, project: str, session_id: str, transcript_id: str, st) -> bool:
    """Whether the rows hold every block the state vouches for (True without any)."""
    if not st.closed_turns:
        return True
    n = full_blocks(st)
    got = statedb.connect(out).execute(f"SELECT COUNT(*) FROM turns WHERE {_WHERE} AND block <= ?",
                                       (project, session_id, transcript_id, n)).fetchone()[0]
    return got == n


def count(st) -> int:
    """How many closed turns the rows hold for the slice (none: 0)."""
    return st.closed_turns["count"] if st.closed_turns else 0


def full_blocks(st) -> int:
    """How many full blocks of closed turns the state vouches for: the outline's closed parts."""
    return count(st) // PART


def first(st) -> list:
    """The first turn (as much of it as says where it is: page and line), or none."""
    if st.closed_turns:
        page, line = st.closed_turns["first"]
        return [{"page": page, "line": line}]
    return st.turns[:1]


def drop(out: Path, project: str, session_id: str, transcript_id: str) -> None:
    """Delete a transcript's rows (a session's go with its state: State.save)."""
    conn = statedb.connect(out)
    with database.transaction(conn, statedb.db_path(out)):
        conn.execute(f"DELETE FROM turns WHERE {_WHERE}", (project, session_id, transcript_id))
