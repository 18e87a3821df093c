"""A transcript's closed turns (model.turns), moved out of its state in blocks of PART: an append-only
file beside the state, ``.ccreport/turns/<project>/<session>/<transcript>.jsonl``, one turn a line.

Closed turns never change, so an append to a session of thousands of prompts neither reads nor
writes them: the state keeps only the turns after the last full block (the open one among them), and
the file grows by a block every PART prompts (the outline's part pages, site.outlineparts, are those
blocks). The state names the turns and bytes of the file it vouches for (``TranscriptState.turns_file``:
``{"count", "bytes", "first": [page, line] of turn 1}``); whatever lies past them (a block appended by
a build that then failed or crashed before its state was saved, a torn last line) is cut off before
the next block goes on, and a file shorter than that makes the transcript render whole (site.plan).
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import BinaryIO, Iterator

import orjson

from ccreport.fs import append_at, atomic_write
from ccreport.layout import turns_state
from ccreport.site.state import TranscriptState

PART = 250  # turns per block: per closed part of the outline


def _path(out: Path, project: str, session_id: str, transcript_id: str) -> Path:
    return out / turns_state(project, session_id, transcript_id)


def spill(out: Path, project: str, session_id: str, transcript_id: str, st: TranscriptState) -> list[list]:
    """Move the full blocks of closed turns out of ``st.turns`` into the file; returns them, oldest
    first (the outline parts that just closed). Without ``st.turns_file`` (a read from line 1, or
    nothing moved yet) the file is written anew, else appended to."""
    kept = st.turns_file
    base = kept["count"] if kept else 0
    # Closed: the turns before the one open at the last page's start (model.turns: they never change).
    closed = ((st.turns_mark or {}).get("count") or 1) - 1
    n = max(0, closed - base) // PART * PART
    if n == 0:
        return []
    data = b"".join(orjson.dumps(t) + b"\n" for t in st.turns[:n])
    path = _path(out, project, session_id, transcript_id)
    if kept:
        length = append_at(path, kept["bytes"], data, durable=True)  # the state vouching for it comes after
    else:
        atomic_write(path, data, durable=True)
        length = len(data)
    first = kept["first"] if kept else [st.turns[0]["page"], st.turns[0]["line"]]
    blocks = [st.turns[i:i + PART] for i in range(0, n, PART)]
    st.turns_file = {"count": base + n, "bytes": length, "first": first}
    st.turns = st.turns[n:]
    return blocks


def blocks(out: Path, project: str, session_id: str, transcript_id: str, st: TranscriptState,
           wanted: set[int]) -> Iterator[tuple[int, list]]:
    """The ``wanted`` blocks of closed turns the state vouches for, as (block number from 1, its
    turns), oldest first, each read when the one before it is done with: the file of a session of
    thousands of prompts is never parsed whole (a 1 GB session: 9,500 turns, ~30 MB as dicts).
    ValueError when the file does not hold them (the session's update fails, and it is rendered
    whole next time): checked before any block is given."""
    kept = st.turns_file
    if not kept or not wanted:
        return
    path = _path(out, project, session_id, transcript_id)
    with open(path, "rb") as fh:
        lines = _vouched_lines(fh, kept["bytes"])
        if lines != kept["count"]:
            raise ValueError(f"{path}: {lines} closed turns where the state counts {kept['count']}")
        fh.seek(0)
        for no in range(1, kept["count"] // PART + 1):
            raw = [fh.readline() for _ in range(PART)]
            if no in wanted:
                yield no, [orjson.loads(line) for line in raw]


def _vouched_lines(fh: BinaryIO, length: int) -> int:
    """The lines of the first ``length`` bytes of ``fh`` (-1 when it is shorter), read in chunks."""
    lines, left = 0, length
    while left:
        chunk = fh.read(min(left, 1 << 20))
        if not chunk:
            return -1
        lines += chunk.count(b"\n")
        left -= len(chunk)
    return lines


def intact(out: Path, project: str, session_id: str, transcript_id: str, st: TranscriptState) -> bool:
    """Whether the file holds at least the bytes the state vouches for (a stat; True without any)."""
    if not st.turns_file:
        return True
    try:
        return _path(out, project, session_id, transcript_id).stat().st_size >= st.turns_file["bytes"]
    except OSError:
        return False


def first(st: TranscriptState) -> list:
    """The first turn (as much of it as says where it is: page and line), or none."""
    if st.turns_file:
        page, line = st.turns_file["first"]
        return [{"page": page, "line": line}]
    return st.turns[:1]


def drop(out: Path, project: str, session_id: str, transcript_id: str) -> None:
    """Delete a transcript's file (a session's go with its state: State.save)."""
    with suppress(OSError):
        _path(out, project, session_id, transcript_id).unlink()
