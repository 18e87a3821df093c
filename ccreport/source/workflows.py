"""The files of a session's Workflow runs (FORMAT.md §13.1): for each run folder under
``<session>/subagents/workflows/wf_<id>/``, its journal, its summary (``<session>/workflows/wf_<id>.json``)
and its script (``<session>/workflows/scripts/<name>-wf_<id>.js``). Listed, never interpreted here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ccreport.source.home import Session, contained

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


def session_folder(s: Session) -> Path:
    return s.project.path / s.id


def find_runs(s: Session) -> list[RunFiles]:
    """The session's workflow runs, by id; files linked out of the home are left out."""
    sdir = session_folder(s)
    home = s.project.path.parent
    runs: dict[str, RunFiles] = {}
    wdir = sdir / "subagents" / "workflows"
    for name in _names(wdir):
        if RUN_RE.match(name) and (wdir / name).is_dir() and contained(wdir / name, home):
            journal = wdir / name / "journal.jsonl"
            runs[name] = RunFiles(name, wdir / name, journal if _file_ok(journal, home) else None)
    for name in _names(sdir / "workflows"):
        stem = name[:-len(".json")]
        if name.endswith(".json") and RUN_RE.match(stem) and _file_ok(sdir / "workflows" / name, home):
            runs.setdefault(stem, RunFiles(stem, None)).summary = sdir / "workflows" / name
    scripts = sdir / "workflows" / "scripts"
    for name in _names(scripts):
        m = re.search(r"-?(wf_[A-Za-z0-9_-]+)\.js$", name)
        if m and RUN_RE.match(m.group(1)) and _file_ok(scripts / name, home):
            runs.setdefault(m.group(1), RunFiles(m.group(1), None)).script = scripts / name
    return [runs[k] for k in sorted(runs)]


def read_text(path: Path | None) -> tuple[str, bool]:
    """(text, cut): the file's first READ_MAX bytes as text ("" when missing or unreadable)."""
    if path is None:
        return "", False
    try:
        with open(path, "rb") as fh:
            data = fh.read(READ_MAX + 1)
    except OSError:
        return "", False
    return data[:READ_MAX].decode("utf-8", errors="replace"), len(data) > READ_MAX


def _names(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _file_ok(path: Path, home: Path) -> bool:
    return path.is_file() and contained(path, home)
