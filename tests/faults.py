"""Helpers for the fault and fuzz tests: count the input lines a page accounts for; a full disk."""

from __future__ import annotations

import builtins
import errno
import os
import re
from pathlib import Path

ANCHOR = re.compile(r'\bid="L(\d+)"')
# A fold (model.folds) stands for its lines, first to last, under its first line's anchor.
FOLD = re.compile(r'\bdata-fold="(\d+)-(\d+)"')


def shown_lines(html: str) -> set[int]:
    """Lines a page accounts for: each anchor, and every line of each fold."""
    found = {int(n) for n in ANCHOR.findall(html)}
    for first, last in FOLD.findall(html):
        found.update(range(int(first), int(last) + 1))
    return found


def input_lines(path: Path) -> int:
    """Lines of a transcript file as the reader numbers them (a last line without newline counts)."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def anchored_lines(folder: Path) -> set[int]:
    """Line numbers with an id="L<n>" anchor on the pages of one transcript folder."""
    found: set[int] = set()
    for page in sorted(folder.glob("page-*.html")):
        found.update(shown_lines(page.read_text(encoding="utf-8")))
    return found


def assert_all_lines_shown(transcript: Path, folder: Path) -> None:
    n = input_lines(transcript)
    got = anchored_lines(folder)
    missing = sorted(set(range(1, n + 1)) - got)
    extra = sorted(got - set(range(1, n + 1)))
    assert not missing, f"{transcript.name}: lines without an anchor in {folder}: {missing[:20]} (of {n})"
    assert not extra, f"{transcript.name}: anchors for lines the file does not have: {extra[:20]}"


class FullDisk:
    """A disk with ``left`` bytes free, for ``monkeypatch.setattr(ccreport.fs, "open", disk.open,
    raising=False)``: every file the one atomic write (fs.py) opens fails with ENOSPC once the
    bytes run out, as a full disk does (the file itself, empty, is created)."""

    def __init__(self, left: int, only: str = ""):
        self.left = left
        self.only = only  # full for the files whose name holds this only ("page-": the pages)
        self.failures = 0

    def open(self, path, mode="r", *args, **kw):
        fh = builtins.open(path, mode, *args, **kw)
        return _Limited(fh, self) if self.only in Path(path).name else fh


class _Limited:
    def __init__(self, fh, disk: FullDisk):
        self._fh, self._disk = fh, disk

    def write(self, data) -> int:
        if len(data) > self._disk.left:
            self._disk.left = 0
            self._disk.failures += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk.left -= len(data)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


def temporary_files(folder: Path) -> list[str]:
    """Files an interrupted write left behind (fs.py names its temporary files '.<name>…tmp')."""
    return sorted(str(p) for p in folder.rglob("*") if p.name.endswith(".tmp"))
