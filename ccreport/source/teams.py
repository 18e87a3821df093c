"""An agent team's files in the Claude home (docs/formats.md F5): ``teams/<team>/config.json``, its
``inboxes/<agent>.json`` and the board ``tasks/<team>/<N>.json``. Claude Code erases them with
TeamDelete, so most sessions have none; read only through ``read_team``, from the home or, when the
home lost them, from the source store that kept them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.source.home import contained, valid_id
from ccreport.source.reading import kept_home_files, read_home_file

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


def read_team(home: Path, team: str, store: Path | str | None = None) -> TeamFiles:
    """What the home still holds of ``team`` (nothing when the name cannot be a folder name); a file
    the home lost is read from the source store ``store`` when there is one."""
    out = TeamFiles(team)
    if not valid_id(team):
        return out
    store = Path(store) if store is not None else None
    out.config = _json(home, store, f"teams/{team}/config.json", dict)
    for r in _names(home, store, f"teams/{team}/inboxes/"):
        box = _json(home, store, r, list)
        if box is not None:
            out.inboxes[r.rsplit("/", 1)[1][:-len(".json")]] = box
    tasks = []
    for r in _names(home, store, f"tasks/{team}/"):
        task = _json(home, store, r, dict)
        if task is not None:
            stem = r.rsplit("/", 1)[1][:-len(".json")]
            tasks.append((int(stem) if stem.isdigit() else 10**9, stem, dict({"id": stem}, **task)))
    out.tasks = [t for _, _, t in sorted(tasks, key=lambda x: (x[0], x[1]))]
    return out


def _names(home: Path, store: Path | None, prefix: str) -> list[str]:
    """The ``*.json`` files right in the folder ``prefix`` (in the home or in the store)."""
    return [r for r in kept_home_files(home, store, prefix) if r.endswith(".json") and "/" not in r[len(prefix):]]


def _json(home: Path, store: Path | None, relpath: str, kind: type):
    path = home / relpath
    try:
        if os.path.lexists(path) and (not path.is_file() or not contained(path, home)
                                      or path.stat().st_size > FILE_MAX):
            return None  # the home's copy decides: a folder, a link out of the home, a huge file
        raw = read_home_file(home, store, relpath)
        data = orjson.loads(raw) if len(raw) <= FILE_MAX else None
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, kind) else None
