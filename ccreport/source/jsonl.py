"""Stream the lines of one transcript file as entries: complete lines only (a last line without its
newline is held back), none dropped (non-JSON comes back as a malformed entry). See docs/source.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Iterator

import orjson

# A malformed line is kept for display, but a multi-megabyte blob of non-JSON is cut here: the
# page states the full size.
MALFORMED_KEEP = 64 * 1024


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
        for data in iter(self.fh.readline, b""):
            if not data.endswith(b"\n"):
                # Unfinished last line: the writer is mid-write. Leave it for the next run.
                self.pending = len(data)
                return
            start = self.offset
            self.offset = start + len(data)
            # A view, not a slice: a slice would copy a 100 MB line once more.
            body = memoryview(data)[: -2 if data.endswith(b"\r\n") else -1]
            obj, err = parse_line(body)
            raw = bytes(body[:MALFORMED_KEEP]).decode("utf-8", errors="replace") if err is not None else None
            entry = Entry(self.line, start, self.offset, obj, raw, err)
            self.line += 1
            body.release()
            del data, body
            yield entry


def read_entries(path, offset: int = 0, line: int = 1) -> Iterator[Entry]:
    with open(path, "rb") as fh:
        yield from Reader(fh, offset, line)
