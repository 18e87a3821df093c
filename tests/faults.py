"""Helpers for the fault and fuzz tests: count the input lines a page accounts for."""

from __future__ import annotations

import re
from pathlib import Path

ANCHOR = re.compile(r'\bid="L(\d+)"')


def input_lines(path: Path) -> int:
    """Lines of a transcript file as the reader numbers them (a last line without newline counts)."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def anchored_lines(folder: Path) -> set[int]:
    """Line numbers with an id="L<n>" anchor on the pages of one transcript folder."""
    found: set[int] = set()
    for page in sorted(folder.glob("page-*.html")):
        found.update(int(n) for n in ANCHOR.findall(page.read_text(encoding="utf-8")))
    return found


def assert_all_lines_shown(transcript: Path, folder: Path) -> None:
    n = input_lines(transcript)
    got = anchored_lines(folder)
    missing = sorted(set(range(1, n + 1)) - got)
    extra = sorted(got - set(range(1, n + 1)))
    assert not missing, f"{transcript.name}: lines without an anchor in {folder}: {missing[:20]} (of {n})"
    assert not extra, f"{transcript.name}: anchors for lines the file does not have: {extra[:20]}"
