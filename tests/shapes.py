"""Homes of one transcript of many tiny lines (issue 29 point 6): the shapes whose output must stay
bounded (site, exports, tail, API). The 2-million-line figures are benchmarks/shapes.py's."""

from __future__ import annotations

from pathlib import Path

import orjson

PROJECT = "-home-u-tiny"
SID = "11111111-2222-4333-8444-555555555555"
# A fixed size per page (or per Markdown part): the page's chrome and at most 2 × 50 messages of it.
PER_PAGE = 64 * 1024


def tiny_line(kind: str, i: int) -> bytes:
    if kind == "empty":
        return b"{}" if i % 100 else b""  # (a blank line now and then: folded with the {} lines)
    if kind == "malformed":
        return b"x"
    if kind == "users":  # real messages, as small as Claude Code writes them
        return orjson.dumps({"type": "user", "uuid": f"u{i}", "sessionId": SID, "timestamp": "2026-01-01T00:00:00Z",
                             "message": {"role": "user", "content": "h"}})
    if kind == "meta":  # the same bookkeeping line, again and again
        return b'{"type":"last-prompt","sessionId":"%s"}' % SID.encode()
    raise ValueError(kind)


def tiny_home(root: Path, kind: str, n: int, head: bytes = b"") -> Path:
    """A home whose one session is ``n`` lines of ``kind`` (after ``head``, whole lines); the file."""
    folder = root / "projects" / PROJECT
    folder.mkdir(parents=True)
    path = folder / f"{SID}.jsonl"
    with open(path, "wb") as fh:
        fh.write(head)
        fh.write(b"".join(tiny_line(kind, i) + b"\n" for i in range(n)))
    return path


def tree_size(root: Path) -> tuple[int, int]:
    """(bytes of every file under root, the number of HTML pages of transcripts among them)."""
    size = pages = 0
    for p in root.rglob("*"):
        if p.is_file():
            size += p.stat().st_size
            pages += p.name.endswith(".html")
    return size, pages
