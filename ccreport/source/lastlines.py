"""The last lines of a file, found by reading it backwards one block at a time: memory is one block
plus the lines kept, never the file or a whole long line (a 1 GB line of zero bytes costs a read,
not a gigabyte). Used by ``ccreport tail``; see docs/source.md."""

from __future__ import annotations

from typing import BinaryIO, Iterator

from ccreport.source.jsonl import CHUNK, PREVIEW, Line


class _Backwards:
    """Finds newlines before a given offset, keeping one block of the file."""

    def __init__(self, fh: BinaryIO, size: int):
        self.fh = fh
        self.lo = size  # the block in hand covers [lo, lo + len(buf))
        self.buf = b""

    def newline_before(self, limit: int) -> int:
        """The offset of the last b"\\n" before ``limit`` (-1 when there is none). Limits only ever
        decrease, so the blocks are read from the end of the file towards its start, each once."""
        while True:
            hi = min(limit, self.lo + len(self.buf))
            if hi > self.lo:
                i = self.buf.rfind(b"\n", 0, hi - self.lo)
                if i >= 0:
                    return self.lo + i
            if self.lo == 0:
                return -1
            start = max(0, self.lo - CHUNK)
            self.fh.seek(start)
            self.buf, self.lo = self.fh.read(self.lo - start), start


def spans_backwards(fh: BinaryIO) -> Iterator[tuple[int, int]]:
    """(start, end) of each line, the last first; ``end`` is just past its newline (an unfinished
    last line ends at the end of the file)."""
    end = fh.seek(0, 2)
    back = _Backwards(fh, end)
    while end > 0:
        start = back.newline_before(end - 1) + 1
        yield start, end
        end = start


def after_last_newline(fh: BinaryIO) -> int:
    """The offset just past the file's last newline (0 when it has none)."""
    end = fh.seek(0, 2)
    return _Backwards(fh, end).newline_before(end) + 1


def count_lines(fh: BinaryIO) -> int:
    """Lines in the file, an unfinished last one included (blockwise: no line is ever held)."""
    fh.seek(0)
    n, last = 0, b"\n"
    while block := fh.read(CHUNK):
        n += block.count(b"\n")
        last = block[-1:]
    return n + (last != b"\n")


def read_span(fh: BinaryIO, start: int, end: int, cap: int, keep: int = PREVIEW) -> Line:
    """The line at [start, end): whole when at most ``cap`` bytes, else its first ``keep`` bytes, cut."""
    fh.seek(start)
    size = end - start
    if size <= cap:
        data = fh.read(size)
        return Line(data, size, data.endswith(b"\n"))
    return Line(fh.read(min(keep, size)), size, _ends_with_newline(fh, end), cut=True)


def _ends_with_newline(fh: BinaryIO, end: int) -> bool:
    fh.seek(end - 1)
    return fh.read(1) == b"\n"
