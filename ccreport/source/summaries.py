"""Legacy ``summary`` lines (``{"type":"summary","summary","leafUuid"}``, files of Claude Code up to
2.1.22) and the sessions they name. A summary line titles the session that holds the message its
``leafUuid`` names, which is most often another file of the same project (docs/formats.md), so the
project's files are read together: first every file for its summary lines (the candidates), then,
when the project has any, every file for the candidates' uuids on its lines.

Both reads go over the bytes in blocks and parse only the lines that can match (those that contain
``"summary"`` or a candidate's uuid): a file without summary lines costs one pass of ``bytes.find``.
"""

from __future__ import annotations

import re
from typing import BinaryIO, Iterator

import orjson

from ccreport.source.home import Project, Transcript
from ccreport.source.reading import open_transcript

BLOCK = 4 * 1024 * 1024
# The longest line looked into. Summary lines are short; a leaf's line longer than this (a huge tool
# result) is not found, and its session keeps its other title: memory stays bounded (a 100 MB line
# held whole, twice while joined, was the build's biggest peak).
LONG = 1024 * 1024
MAX_LINES = 256  # summary lines kept per file (a file of thousands would only repeat itself)
TEXT_MAX = 300
_UUID = re.compile(rb'"uuid"\s*:\s*"([^"\\]{1,128})"')


def _lines_with(fh: BinaryIO, start: int, stop: int | None, hit) -> Iterator[bytes]:
    """The complete lines between bytes ``start`` (a line start) and ``stop`` (None: the end) for
    which ``hit(block, end of its complete lines)`` finds something; lines over LONG are skipped
    (the tail of one is a part line that parses as nothing).
    ``stop`` is the size the file had when listed: what was read matches the stat kept with it."""
    fh.seek(start)
    rest, left = b"", (stop - start if stop is not None else -1)
    while left:
        block = fh.read(BLOCK if left < 0 else min(BLOCK, left))
        if not block:
            return
        left = left - len(block) if left > 0 else left
        data = rest + block if rest else block
        end = data.rfind(b"\n") + 1
        yield from _matching(data, end, hit)
        rest = data[end:] if len(data) - end <= LONG else b""


def _matching(data: bytes, end: int, hit) -> Iterator[bytes]:
    for pos in hit(data, end):
        a = data.rfind(b"\n", 0, pos) + 1
        b = data.find(b"\n", pos, end)
        yield data[a:b if b >= 0 else end]


def _summary_hits(data: bytes, end: int) -> Iterator[int]:
    pos = data.find(b'"summary"', 0, end)
    while pos >= 0:
        yield pos
        nl = data.find(b"\n", pos, end)
        if nl < 0:
            return
        pos = data.find(b'"summary"', nl, end)


def _obj(line: bytes) -> dict | None:
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def summary_lines(t: Transcript, start: int = 0, stop: int | None = None) -> list[list[str]]:
    """[leafUuid, text] of each summary line of the transcript from byte ``start`` (a line start)
    to ``stop``."""
    found = []
    try:
        with open_transcript(t) as fh:
            for line in _lines_with(fh, start, stop, _summary_hits):
                obj = _obj(line)
                if obj is None or obj.get("type") != "summary":
                    continue
                leaf, text = obj.get("leafUuid"), obj.get("summary")
                if isinstance(leaf, str) and leaf and isinstance(text, str) and text.strip() and len(found) < MAX_LINES:
                    found.append([leaf, " ".join(text.split())[:TEXT_MAX]])
    except OSError:
        pass
    return found


# Up to this many candidate uuids (real ones: 16 bytes or more), each is looked for as a quoted
# string with bytes.find (a C scan per uuid) rather than by the regex matching every "uuid" field of
# every line (several times slower, and most projects have a few summary lines).
FIND_MAX = 8
FIND_MIN_LEN = 16


def _finder(wanted: set[bytes]):
    """The first position of a wanted uuid, as a quoted string, on each line of the block that has
    one: a superset of _uuid_hits's lines (the line's own uuid is checked once it is parsed)."""
    quoted = [b'"' + leaf + b'"' for leaf in wanted]

    def hit(data: bytes, end: int) -> Iterator[int]:
        found = []
        for q in quoted:
            pos = data.find(q, 0, end)
            while pos >= 0:
                found.append(pos)
                pos = data.find(q, pos + len(q), end)
        line_end = -1
        for pos in sorted(found):
            if pos >= line_end:  # one hit per line: a line is parsed once
                yield pos
                nl = data.find(b"\n", pos, end)
                line_end = nl if nl >= 0 else end
    return hit


def _uuid_hits(wanted: set[bytes]):
    def hit(data: bytes, end: int) -> Iterator[int]:
        return (m.start() for m in _UUID.finditer(data, 0, end) if m.group(1) in wanted)
    return hit


def held_leaves(t: Transcript, leaves: set[str], start: int = 0, stop: int | None = None) -> list[str]:
    """The uuids of ``leaves`` that a line of the transcript (bytes ``start`` to ``stop``) has as its own."""
    if not leaves:
        return []
    wanted = {x.encode() for x in leaves}
    few = len(wanted) <= FIND_MAX and min(map(len, wanted)) >= FIND_MIN_LEN
    hit = _finder(wanted) if few else _uuid_hits(wanted)

    held = set()
    try:
        with open_transcript(t) as fh:
            for line in _lines_with(fh, start, stop, hit):
                obj = _obj(line)  # the line's own uuid, not one quoted in a copied message inside it
                own = obj.get("uuid") if obj is not None else None
                if isinstance(own, str) and own in leaves:
                    held.add(own)
    except OSError:
        pass
    return sorted(held)


def candidates(lines_by_file: list[list[list[str]]]) -> dict[str, str]:
    """leafUuid → the text of its summary line, the last one read winning (files in the order
    given, lines in file order)."""
    out: dict[str, str] = {}
    for lines in lines_by_file:
        for leaf, text in lines:
            out[leaf] = text
    return out


def title_for(held: list[str], cands: dict[str, str]) -> str | None:
    """A session's summary title: the text of the candidate its files hold that comes last in the
    project's order of summary lines (the latest summary written)."""
    order = {leaf: i for i, leaf in enumerate(cands)}
    mine = [leaf for leaf in held if leaf in cands]
    return cands[max(mine, key=order.__getitem__)] if mine else None


def project_titles(p: Project) -> dict[str, str]:
    """Session id → its summary title, reading the project's files (no cache: list, export, API)."""
    transcripts = [(sid, t) for sid, s in sorted(p.sessions.items()) for t in s.transcripts]  # as site.leaftitles
    cands = candidates([summary_lines(t) for _sid, t in transcripts])
    if not cands:
        return {}
    held: dict[str, list[str]] = {}
    for sid, t in transcripts:
        held.setdefault(sid, []).extend(held_leaves(t, set(cands)))
    return {sid: title for sid, leaves in held.items() if (title := title_for(leaves, cands))}
