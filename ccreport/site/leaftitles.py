"""Which session each legacy summary line titles, kept between builds (source.summaries reads the
lines). A summary titles the session holding its leaf, most often another file of the project, so
an unchanged session can be retitled by a new file: the build compares each session's summary title
with the one it was rendered with (SessionInfo.summary_title) and renders it again when they differ.

What each file gave is kept in the state's head, with the file's stat, so a build reads only the
files that changed (from where the last read stopped when a file only grew). The uuids each file
holds are looked up only among the project's candidates, the leaves its summary lines name; when
those change (a new file with summary lines, rare: Claude Code wrote them up to 2.1.22), every file
of that project is looked through again for the new set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ccreport.source.home import Catalog, Project, Transcript
from ccreport.source.reading import open_transcript
from ccreport.source.summaries import candidates, held_leaves, summary_lines, title_for


@dataclass
class _FileScan:
    """One file as last read: [inode, size, mtime_ns], its summary lines, the candidates it holds."""

    stamp: list
    lines: list = field(default_factory=list)
    held: list = field(default_factory=list)

    def to_json(self) -> list:
        return [self.stamp, self.lines, self.held]


def _stamp(t: Transcript) -> list:
    return [t.inode, t.size, t.mtime_ns]


def _scan_file(t: Transcript, prev: list | None) -> tuple[_FileScan, int | None]:
    """The file's summary lines, and where its held candidates must be looked for from (None: the
    saved ones hold; 0: the whole file). A file that only grew is read from its old end."""
    stamp = _stamp(t)
    if prev is not None and prev[0] == stamp:
        return _FileScan(stamp, prev[1], prev[2]), None
    if prev is not None and prev[0][0] == stamp[0] and stamp[1] > prev[0][1] and _ends_line(t, prev[0][1]):
        return _FileScan(stamp, prev[1] + summary_lines(t, prev[0][1], t.size), prev[2]), prev[0][1]
    return _FileScan(stamp, summary_lines(t, 0, t.size)), 0


def _ends_line(t: Transcript, size: int) -> bool:
    """The old end of a grown file was the end of a line (else it is read again whole)."""
    try:
        with open_transcript(t) as fh:
            fh.seek(max(0, size - 1))
            return size == 0 or fh.read(1) == b"\n"
    except OSError:
        return False


def _project(p: Project, saved: dict) -> tuple[dict, dict]:
    """(session id → summary title, the project's record for the next build)."""
    files, scans, starts = saved.get("files", {}), {}, {}
    order = [(s.id, t) for _sid, s in sorted(p.sessions.items()) for t in s.transcripts]
    for sid, t in order:
        key = f"{sid}/{t.id}"
        scans[key], starts[key] = _scan_file(t, files.get(key))
    cands = candidates([scans[f"{sid}/{t.id}"].lines for sid, t in order])
    again = list(cands) != saved.get("candidates")
    held: dict[str, list] = {}
    for sid, t in order:
        scan, start = scans[f"{sid}/{t.id}"], starts[f"{sid}/{t.id}"]
        if again or start == 0:
            scan.held = held_leaves(t, set(cands), 0, t.size)
        elif start is not None:
            scan.held = sorted(set(scan.held) | set(held_leaves(t, set(cands), start, t.size)))
        held.setdefault(sid, []).extend(scan.held)
    titles = {sid: title for sid, leaves in held.items() if (title := title_for(leaves, cands))}
    return titles, {"candidates": list(cands), "files": {k: v.to_json() for k, v in scans.items()}}


def resolve(catalog: Catalog, saved: dict) -> tuple[dict, dict]:
    """((project dir, session id) → summary title, the record to save in the head); ``saved``: the
    last build's record ({} on a full build: every file is read)."""
    titles, record = {}, {}
    for p in catalog.projects:
        mine, record[p.dir_name] = _project(p, saved.get(p.dir_name, {}))
        titles.update(((p.dir_name, sid), title) for sid, title in mine.items())
    return titles, record
