"""Stream the lines of one transcript file as entries: complete lines only (a last line without its
newline is held back), none dropped (non-JSON comes back as a malformed entry), none held whole past
``LINE_CAP`` (a longer line is streamed past and comes back cut). See docs/source.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Iterator

import orjson

# A malformed line is kept for display, but a multi-megabyte blob of non-JSON is cut here: the
# page states the full size.
MALFORMED_KEEP = 64 * 1024
# The longest line read whole. Anything longer (a 1 GB file of zero bytes, a pasted disk image) is
# streamed past in CHUNK steps and comes back as a malformed entry with its size and first
# PREVIEW bytes: memory stays bounded by this, whatever the file. Looked up at each read, so tests
# can lower it.
LINE_CAP = 64 * 1024 * 1024
PREVIEW = 1024
CHUNK = 1024 * 1024
# The read buffer of a transcript opened for reading whole: io's default 8 KiB took a read() call
# per 3 KB line on average and split every longer line over several.
READ_BUFFER = 256 * 1024


@dataclass(slots=True)
class Line:
    """One line as read: ``data`` is the whole line (with its newline), or only its first bytes when
    ``cut``; ``size`` counts every byte of it; ``ended`` says whether its newline was there."""

    data: bytes | bytearray
    size: int
    ended: bool
    cut: bool = False


def lines(fh: BinaryIO, cap: int | None = None, keep: int = PREVIEW) -> Iterator[Line]:
    """The lines of ``fh`` from where it stands, none longer than ``cap`` bytes held (``keep`` kept
    of a longer one). The one bounded way to read lines: every reader of transcripts goes through it."""
    cap = LINE_CAP if cap is None else cap
    lim, readline = min(CHUNK, cap + 1), fh.readline
    while True:
        first = readline(lim)
        if first[-1:] == b"\n":  # the usual case: a line that fits in one read
            yield Line(first, len(first), True)
            continue
        if len(first) < lim:  # the end of the file, or a last line without its newline
            if first:
                yield Line(first, len(first), False)
            return
        buf = bytearray(first)  # grown in place (chunks joined at the end would peak at twice the line)
        ended = False
        while not ended and len(buf) <= cap:
            block, ended = _block(fh, cap + 1 - len(buf))
            if not block:
                break
            buf += block
        if len(buf) > cap and not (ended and len(buf) == cap + 1):
            yield _skip_rest(fh, bytes(buf[:keep]), len(buf), ended)
        else:
            yield Line(buf, len(buf), ended)


def _block(fh: BinaryIO, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes (at most CHUNK) up to and including the next newline; whether it came.
    A block read and searched, the file put back after the newline: ``readline(n)`` of a
    BufferedReader goes 8 KiB at a time and took 15x longer over a 1 GB line."""
    block = fh.read(min(CHUNK, limit))
    i = block.find(b"\n")
    if i < 0:
        return block, False
    fh.seek(i + 1 - len(block), 1)
    return block[: i + 1], True


def _skip_rest(fh: BinaryIO, head: bytes, size: int, ended: bool) -> Line:
    """Stream past the rest of an over-long line, counting its bytes."""
    while not ended:
        block, ended = _block(fh, CHUNK)
        if not block:
            break
        size += len(block)
    return Line(head, size, ended, cut=True)


def cut_reason(size: int) -> str:
    return f"line of {size:,} bytes, longer than the {LINE_CAP:,}-byte limit: not read (only its start is shown)"


@dataclass(slots=True)
class Entry:
    line: int  # 1-based line number in the file
    offset: int  # byte offset of the line's first byte
    end: int  # byte offset just past its newline
    obj: dict | None  # the parsed object, or None when malformed
    raw: str | None = None  # the (possibly cut) text of a malformed line
    error: str | None = None  # why the line is malformed

    @property
    def size(self) -> int:
        return self.end - self.offset


def parse_line(data: bytes | memoryview) -> tuple[dict | None, str | None]:
    """Parse one line (without its newline) → (object, None) or (None, reason)."""
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        reason = str(exc.args[0]) if exc.args else str(exc)
        if not bytes(data[:4096]).strip() and not bytes(data).strip():
            return None, "blank line"
        if "UTF-8" not in reason:
            # Not an encoding problem: retrying would only copy a (possibly huge) line twice more.
            return None, f"not JSON: {reason}"
        # orjson refuses invalid UTF-8 outright; the same text with replacement characters may
        # still be perfectly good JSON.
        try:
            obj = orjson.loads(bytes(data).decode("utf-8", errors="replace"))
        except orjson.JSONDecodeError:
            return None, f"not JSON: {reason}"
    if not isinstance(obj, dict):
        return None, f"JSON {type(obj).__name__}, not an object"
    return obj, None


class Reader:
    """Iterate the complete lines of ``fh`` from ``offset`` (which must start a line).

    After iteration ``offset``/``line`` point just past the last complete line: the place to
    resume from. ``pending`` is the byte count of a held-back unfinished last line.
    """

    def __init__(self, fh: BinaryIO, offset: int = 0, line: int = 1):
        self.fh = fh
        self.offset = offset
        self.line = line  # number the next line will get
        self.pending = 0

    def __iter__(self) -> Iterator[Entry]:
        self.fh.seek(self.offset)
        for ln in lines(self.fh):
            if not ln.ended:
                # Unfinished last line: the writer is mid-write. Leave it for the next run.
                self.pending = ln.size
                return
            start = self.offset
            self.offset = start + ln.size
            entry = _entry(self.line, start, ln)
            self.line += 1
            del ln
            yield entry

    def unfinished(self) -> Entry | None:
        """The held-back last line as it stands now (read again, bounded like any other), or None."""
        if not self.pending:
            return None
        self.fh.seek(self.offset)
        ln = next(lines(self.fh), None)
        if ln is None:  # (the file shrank meanwhile)
            return None
        e = _entry(self.line, self.offset, ln)
        if e.error is not None:
            e.error = f"unfinished last line (no newline yet), {e.error}"
        return e


def _entry(no: int, start: int, ln: Line) -> Entry:
    if ln.cut:
        return Entry(no, start, start + ln.size, None, bytes(ln.data).decode("utf-8", errors="replace"),
                     cut_reason(ln.size))
    data = ln.data
    if ln.ended and data.__class__ is bytes:
        # The usual line, read in one piece: orjson takes it with its newline (and a "\r" before it)
        # as JSON's own trailing whitespace, so no view of it is made. A line it refuses, or that is
        # not an object, is read below as before (the reason, the text kept).
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            obj = None
        if obj.__class__ is dict:
            return Entry(no, start, start + ln.size, obj)
    # A view, not a slice: a slice would copy a 60 MB line once more.
    n = len(data) - data.endswith(b"\n")
    body = memoryview(data)[: n - (n > 0 and data[n - 1] == 13)]  # and a "\r" before it (or unfinished)
    obj, err = parse_line(body)
    raw = bytes(body[:MALFORMED_KEEP]).decode("utf-8", errors="replace") if err is not None else None
    body.release()
    return Entry(no, start, start + ln.size, obj, raw, err)


def read_entries(path, offset: int = 0, line: int = 1) -> Iterator[Entry]:
    with open(path, "rb", buffering=READ_BUFFER) as fh:
        yield from Reader(fh, offset, line)
