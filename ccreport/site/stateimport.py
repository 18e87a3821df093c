"""The state files of the code before the database, imported into it on the first load: the head
(``state.json``), the sessions (the pack ``sessions.json``, overridden by ``sessions/<project>/<id>.json``)
and the closed turns (``turns/<project>/<session>/<transcript>.jsonl``, one turn a line, as far as the
state vouches for: ``turns_file`` {"count", "bytes", "first"}).

A state of that code's last format (OLD_FORMAT) goes into the database's rows as a build would have
saved it; of any other format (or unreadable) it is not imported, and the site is rebuilt, as a
FORMAT change does. A session whose files are unreadable, or whose turn file is shorter than its state
says, is left out (rendered anew). Either way the old files go afterwards; an import that fails (the
database cannot be written) keeps them and says why, and the build goes on without a state.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import suppress
from pathlib import Path

import orjson

from ccreport.layout import STATE_DIR, site_name
from ccreport.site import statedb
from ccreport.site.closedturns import PART
from ccreport.site.features import SLICE_TYPES, Usage
from ccreport.source import database

OLD_FORMAT = 12
HEAD, PACK, SESSIONS, TURNS = "state.json", "sessions.json", "sessions", "turns"


def run(out: Path, conn: sqlite3.Connection, fmt: int, versions: dict, encode) -> list[str]:
    """Import the old state files of ``out`` if there are any; the problems met (none: done).
    ``fmt``: site.state.FORMAT; ``versions``: feature → its slice's version; ``encode``: a session's
    state as plain data → its parts (site.state.encode_parts)."""
    folder = out / STATE_DIR
    old = [folder / name for name in (HEAD, PACK, SESSIONS, TURNS) if (folder / name).exists()]
    if not old:
        return []
    try:
        head = orjson.loads((folder / HEAD).read_bytes()) if (folder / HEAD).exists() else None
    except (OSError, orjson.JSONDecodeError):
        head = None  # unreadable: rebuilt, as before
    try:
        if isinstance(head, dict) and head.get("format") == OLD_FORMAT:
            _import(folder, conn, dict(head, format=fmt), versions, encode)
    except (OSError, sqlite3.Error) as exc:
        return [f"cannot import the state of an earlier ccreport from {folder} (its files are kept, "
                f"and everything is rendered again): {exc}"]
    for path in old:  # the head first: files left by a crash in between are not imported again
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with suppress(OSError):
                path.unlink()
    return []


def _import(folder: Path, conn: sqlite3.Connection, head: dict, versions: dict, encode) -> None:
    sessions: dict[tuple[str, str], dict] = {}
    for data in _read(folder / PACK) or []:
        _take(sessions, data)
    for path in sorted((folder / SESSIONS).glob("*/*.json")):
        _take(sessions, _read(path))
    path = statedb.db_path(folder.parent)
    statedb.clear(conn, path)
    parts, turns = [], []
    for (project, sid), data in sessions.items():
        got = _session(folder, project, sid, data, encode)
        if got is not None:
            parts += [(project, sid, tid, f, versions[f] if f else 0, raw) for (tid, f), raw in got[0].items()]
            turns += got[1]
    with database.transaction(conn, path):  # the rows the state vouches for first
        conn.executemany("INSERT INTO turns VALUES (?, ?, ?, ?, ?)", turns)
    head_raw = orjson.dumps(head, option=orjson.OPT_SORT_KEYS)
    statedb.write(conn, path, head_raw, parts, [], [])


def _read(path: Path):
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None  # that session is rendered anew


def _take(sessions: dict, data) -> None:
    if isinstance(data, dict) and data.get("format") == OLD_FORMAT and isinstance(data.get("project"), str) \
            and isinstance(data.get("id"), str):
        sessions[(data["project"], data["id"])] = data


def _session(folder: Path, project: str, sid: str, data: dict, encode) -> tuple[dict, list] | None:
    """The session's state's parts and its closed turns' rows; None when its files do not hold it."""
    rows = []
    try:
        ledgers = data.pop("ledgers", None) or {}
        for tid, t in data["transcripts"].items():
            kept = t.pop("turns_file", None)
            if kept:
                turns = _turn_lines(folder / TURNS / site_name(project) / site_name(sid) / f"{site_name(tid)}.jsonl", kept)
                rows += [(project, sid, tid, i // PART + 1, orjson.dumps(turns[i:i + PART]))
                         for i in range(0, len(turns), PART)]
                t["closed_turns"] = {"count": kept["count"], "first": kept["first"]}
            # its features' fields were its own, its usage ledger the session's
            t["slices"] = dict(dict.fromkeys(SLICE_TYPES, t), **{Usage.NAME: ledgers.get(tid)})
        return encode(data), rows
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _turn_lines(path: Path, kept: dict) -> list:
    with open(path, "rb") as fh:
        raw = fh.read(kept["bytes"])
    lines = raw.splitlines()
    if len(raw) != kept["bytes"] or len(lines) != kept["count"] or kept["count"] % PART:
        raise ValueError(f"{path}: not the closed turns its state counts")
    return [orjson.loads(line) for line in lines]
