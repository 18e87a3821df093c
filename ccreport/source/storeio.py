"""Reading kept files back from the source store: a seekable buffered stream over a list of
zstandard frames, each checked against its sha256 as it is decompressed (one frame in memory at a
time, never a whole file)."""

from __future__ import annotations

import bisect
import errno
import hashlib
import io
from pathlib import Path
from typing import NamedTuple

import zstandard


class Frame(NamedTuple):
    start: int  # offset of its first byte in the original file
    length: int  # original bytes
    at: int  # offset in the data file
    size: int  # compressed bytes
    sha256: str  # of the original bytes


class StoreCorrupt(OSError):
    """A kept entry does not read back as it was written (truncated data, wrong hash)."""

    def __init__(self, relpath: str, why: str):
        super().__init__(errno.EIO, f"corrupt store entry {relpath}: {why}")


def _decode(fh, f: Frame, relpath: str) -> bytes:
    fh.seek(f.at)
    blob = fh.read(f.size)
    if len(blob) != f.size:
        raise StoreCorrupt(relpath, f"frame at {f.at} truncated")
    try:
        data = zstandard.ZstdDecompressor().decompress(blob, max_output_size=f.length)
    except zstandard.ZstdError as exc:
        raise StoreCorrupt(relpath, f"frame at {f.at} does not decompress ({exc})") from None
    if len(data) != f.length or hashlib.sha256(data).hexdigest() != f.sha256:
        raise StoreCorrupt(relpath, f"frame at {f.at} has the wrong hash")
    return data


class FrameReader(io.RawIOBase):
    """The original bytes of one kept version; wrap in io.BufferedReader for readline."""

    def __init__(self, data: Path, frames: list[Frame], relpath: str):
        self.fh = open(data, "rb")
        self.frames, self.relpath = frames, relpath
        self.starts = [f.start for f in frames]
        self.size = frames[-1].start + frames[-1].length if frames else 0
        self.pos = 0
        self._cur: tuple[int, bytes] | None = None  # (frame index, its bytes)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def readinto(self, buf) -> int:
        if self.pos >= self.size:
            return 0
        i = bisect.bisect_right(self.starts, self.pos) - 1
        if self._cur is None or self._cur[0] != i:
            self._cur = (i, _decode(self.fh, self.frames[i], self.relpath))
        f, data = self.frames[i], self._cur[1]
        piece = data[self.pos - f.start: self.pos - f.start + len(buf)]
        buf[: len(piece)] = piece
        self.pos += len(piece)
        return len(piece)

    def close(self) -> None:
        self.fh.close()
        super().close()


def open_frames(data: Path, frames: list[Frame], relpath: str) -> io.BufferedReader:
    return io.BufferedReader(FrameReader(data, frames, relpath), buffer_size=1 << 20)


def read_range(data: Path, frames: list[Frame], relpath: str) -> None:
    """Decode and check every frame (StoreCorrupt on the first bad one)."""
    with open(data, "rb") as fh:
        for f in frames:
            _decode(fh, f, relpath)
