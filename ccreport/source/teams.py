"""An agent team's files in the Claude home (FORMAT.md §13.2): ``teams/<team>/config.json``, its
``inboxes/<agent>.json`` and the board ``tasks/<team>/<N>.json``. Claude Code erases them with
TeamDelete, so most sessions have none; read only through ``read_team`` so the source can later be
an archive of them instead of the live home.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.source.home import contained, valid_id

FILE_MAX = 4 * 1024 * 1024


@dataclass
class TeamFiles:
    name: str
    config: dict | None = None  # config.json as written ({leadSessionId, members: […]})
    inboxes: dict = field(default_factory=dict)  # agent name → list of messages
    tasks: list = field(default_factory=list)  # task objects, by file name (1.json, 2.json, …)

    @property
    def found(self) -> bool:
        return self.config is not None or bool(self.inboxes) or bool(self.tasks)


def read_team(home: Path, team: str) -> TeamFiles:
    """What the home still holds of ``team`` (nothing when the name cannot be a folder name)."""
    out = TeamFiles(team)
    if not valid_id(team):
        return out
    tdir = home / "teams" / team
    out.config = _json(tdir / "config.json", home, dict)
    for name in _names(tdir / "inboxes"):
        if name.endswith(".json"):
            box = _json(tdir / "inboxes" / name, home, list)
            if box is not None:
                out.inboxes[name[:-len(".json")]] = box
    tasks = []
    for name in _names(home / "tasks" / team):
        if name.endswith(".json"):
            task = _json(home / "tasks" / team / name, home, dict)
            if task is not None:
                stem = name[:-len(".json")]
                tasks.append((int(stem) if stem.isdigit() else 10**9, stem, dict({"id": stem}, **task)))
    out.tasks = [t for _, _, t in sorted(tasks, key=lambda x: (x[0], x[1]))]
    return out


def _names(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _json(path: Path, home: Path, kind: type):
    try:
        if not path.is_file() or not contained(path, home) or path.stat().st_size > FILE_MAX:
            return None
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, kind) else None
