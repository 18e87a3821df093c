"""The files of a session's Workflow runs (docs/formats.md F4): for each run folder under
``<session>/subagents/workflows/wf_<id>/``, its journal, its summary (``<session>/workflows/wf_<id>.json``)
and its script (``<session>/workflows/scripts/<name>-wf_<id>.js``), in the home or, when the home lost
them, in the source store. Listed, never interpreted here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ccreport.source.home import Session, contained
from ccreport.source.reading import read_session_file

RUN_RE = re.compile(r"^wf_[A-Za-z0-9_-]{1,80}$")
# What a run page may show of a file: journals and scripts are small; a bigger one is cut.
READ_MAX = 2 * 1024 * 1024


@dataclass
class RunFiles:
    run_id: str  # "wf_<8 hex>-<3 hex>"
    folder: Path | None  # subagents/workflows/<run>/ (None: only the summary or script is left)
    journal: Path | None = None
    summary: Path | None = None
    script: Path | None = None

    def stamp(self) -> list:
        """(name, size, mtime) of each file: a run page is rewritten when one of them changes."""
        out = []
        for p in (self.journal, self.summary, self.script):
            try:
                st = os.stat(p) if p else None
            except OSError:
                st = None
            out.append([p.name if p else None, st.st_size if st else None, st.st_mtime_ns if st else None])
        return out


class _Where:
    """Where a session's files are: the home's copy when it has one, else the store's (Session.kept)."""

    def __init__(self, s: Session):
        self.home = s.project.home
        self.kept = set(s.kept)
        self.projects = s.project.path.parent

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.home).as_posix()

    def names(self, folder: Path) -> list[str]:
        """The names in ``folder`` (files and folders), in the home or in the store."""
        found = set(_names(folder))
        prefix = self._rel(folder) + "/"
        found.update(r[len(prefix):].split("/", 1)[0] for r in self.kept if r.startswith(prefix))
        return sorted(found)

    def dir_ok(self, path: Path) -> bool:
        if os.path.lexists(path):  # the home has it: the home decides (a link out of it is refused)
            return path.is_dir() and contained(path, self.projects)
        prefix = self._rel(path) + "/"
        return any(r.startswith(prefix) for r in self.kept)

    def file_ok(self, path: Path) -> bool:
        if os.path.lexists(path):
            return path.is_file() and contained(path, self.projects)
        return self._rel(path) in self.kept


def find_runs(s: Session) -> list[RunFiles]:
    """The session's workflow runs, by id (from the store when the home lost their files); files
    linked out of the home are left out."""
    sdir = s.folder
    where = _Where(s)
    runs: dict[str, RunFiles] = {}
    wdir = sdir / "subagents" / "workflows"
    for name in where.names(wdir):
        if RUN_RE.match(name) and where.dir_ok(wdir / name):
            journal = wdir / name / "journal.jsonl"
            runs[name] = RunFiles(name, wdir / name, journal if where.file_ok(journal) else None)
    for name in where.names(sdir / "workflows"):
        stem = name[:-len(".json")]
        if name.endswith(".json") and RUN_RE.match(stem) and where.file_ok(sdir / "workflows" / name):
            runs.setdefault(stem, RunFiles(stem, None)).summary = sdir / "workflows" / name
    scripts = sdir / "workflows" / "scripts"
    for name in where.names(scripts):
        m = re.search(r"-?(wf_[A-Za-z0-9_-]+)\.js$", name)
        if m and RUN_RE.match(m.group(1)) and where.file_ok(scripts / name):
            runs.setdefault(m.group(1), RunFiles(m.group(1), None)).script = scripts / name
    return [runs[k] for k in sorted(runs)]


def read_text(s: Session, path: Path | None) -> tuple[str, bool]:
    """(text, cut): the first READ_MAX bytes of a file find_runs listed, as text ("" when missing or
    unreadable); from the store when the home lost it."""
    if path is None:
        return "", False
    try:
        data = read_session_file(s, path, READ_MAX + 1)
    except OSError:
        return "", False
    return data[:READ_MAX].decode("utf-8", errors="replace"), len(data) > READ_MAX


def _names(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []
