"""What an incremental build checks of a session besides its transcripts: the other files its pages
show — its Workflow run files (source.workflows), its custom-title.json and its team's files at the
home root (source.teams) — as [path under the home, size, mtime_ns] rows. Stats and folder listings
only; a row that changes (or a file that comes or goes) means the session is rendered again."""

from __future__ import annotations

import os
from pathlib import Path

from ccreport.source.home import Session, valid_id
from ccreport.source.workflows import find_runs


def _row(path: Path, home: Path) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [path.relative_to(home).as_posix(), st.st_size, st.st_mtime_ns]


def _listed(folder: Path) -> list[Path]:
    try:
        return [folder / n for n in sorted(os.listdir(folder))]
    except OSError:
        return []


def session_stamp(s: Session) -> list:
    """Its custom-title.json and the files of its Workflow runs (read before the transcripts)."""
    home = s.project.home
    paths = [s.folder / "custom-title.json"]
    for r in find_runs(s):
        paths.extend(p for p in (r.journal, r.summary, r.script) if p is not None)
    return [row for p in paths if (row := _row(p, home)) is not None]


def team_stamp(home: Path, teams: list) -> list:
    """The files of the named teams: ``teams/<team>/config.json``, its inboxes and ``tasks/<team>/``."""
    paths: list[Path] = []
    for team in teams:
        if isinstance(team, str) and valid_id(team):
            paths.append(home / "teams" / team / "config.json")
            paths.extend(_listed(home / "teams" / team / "inboxes"))
            paths.extend(_listed(home / "tasks" / team))
    return [row for p in paths if (row := _row(p, home)) is not None]
