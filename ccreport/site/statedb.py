"""The incremental state's tables in the site's database (source.database): the head, the parts of
each session's state (site.state.encode_parts) and the closed turns (site.closedturns).

Their layout has a version of its own in the ``schema`` table ("state", "turns"): tables of another
layout are dropped and made again, which costs a rebuild, as another FORMAT does. A build reads the
rows once (``read``) and writes those that changed in one transaction (``write``): a build killed at
any point leaves the state of the build before it, or of this one, never a mix.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ccreport.layout import STATE_DIR
from ccreport.source import database

STATE_SCHEMA = 1  # the tables below; their content's version is site.state.FORMAT and each feature's VERSION
TURNS_SCHEMA = 1
_TABLES = {
    "state": ("state_head", "state_parts"),
    "turns": ("turns",),
}
_CREATE = {
    "state": (
        "CREATE TABLE state_head (id INTEGER PRIMARY KEY CHECK (id = 0), raw BLOB NOT NULL)",
        # transcript "" and feature "": the session's own part; feature "": a transcript's core
        "CREATE TABLE state_parts (project TEXT NOT NULL, session TEXT NOT NULL, transcript TEXT NOT NULL,"
        " feature TEXT NOT NULL, version INTEGER NOT NULL, raw BLOB NOT NULL,"
        " PRIMARY KEY (project, session, transcript, feature))",
    ),
    # a block of PART closed turns a row, numbered from 1 (site.closedturns)
    "turns": ("CREATE TABLE turns (project TEXT NOT NULL, session TEXT NOT NULL, transcript TEXT NOT NULL,"
              " block INTEGER NOT NULL, raw BLOB NOT NULL, PRIMARY KEY (project, session, transcript, block))",),
}
_VERSIONS = {"state": STATE_SCHEMA, "turns": TURNS_SCHEMA}


def db_path(out: Path) -> Path:
    return out / STATE_DIR / database.NAME


def connect(out: Path) -> sqlite3.Connection:
    """This process's connection to the site's database, its state's tables made (or made again,
    empty, when of another layout)."""
    path = db_path(out)
    return database.prepared(path, "state", lambda conn: _setup(conn, path))


def _setup(conn: sqlite3.Connection, path: Path) -> None:
    if all(database.schema_version(conn, part) == v for part, v in _VERSIONS.items()):
        return
    with database.transaction(conn, path):
        for part, version in _VERSIONS.items():
            if database.schema_version(conn, part) != version:
                for table in _TABLES[part]:
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                for sql in _CREATE[part]:
                    conn.execute(sql)
                database.set_schema_version(conn, part, version)


def read(conn: sqlite3.Connection, versions: dict[str, int]) -> tuple[bytes | None, dict]:
    """The saved head and every session's parts ((project, session) → {(transcript, feature): raw});
    a slice whose version is not in ``versions`` (feature → version) is left out
    (site.state.decode_parts)."""
    row = conn.execute("SELECT raw FROM state_head WHERE id = 0").fetchone()
    sessions: dict[tuple[str, str], dict] = {}
    for project, session, tid, feature, version, raw in conn.execute(
            "SELECT project, session, transcript, feature, version, raw FROM state_parts"):
        if feature and versions.get(feature) != version:
            continue
        sessions.setdefault((project, session), {})[(tid, feature)] = bytes(raw)
    return (bytes(row[0]) if row else None), sessions


def write(conn: sqlite3.Connection, path: Path, head: bytes | None, changed: list, removed: list,
          gone: list) -> None:
    """One transaction: ``changed`` parts as (project, session, transcript, feature, version, raw),
    ``removed`` parts as
    (project, session, transcript, feature), the rows and closed turns of ``gone`` sessions, then the head (None:
    unchanged). DatabaseFull when the disk is full: nothing of it was written."""
    with database.transaction(conn, path):
        conn.executemany("INSERT OR REPLACE INTO state_parts VALUES (?, ?, ?, ?, ?, ?)", changed)
        conn.executemany("DELETE FROM state_parts WHERE project = ? AND session = ? AND transcript = ? AND feature = ?",
                         removed)
        for table in ("state_parts", "turns"):
            conn.executemany(f"DELETE FROM {table} WHERE project = ? AND session = ?", gone)
        if head is not None:
            conn.execute("INSERT OR REPLACE INTO state_head VALUES (0, ?)", (head,))


def clear(conn: sqlite3.Connection, path: Path) -> None:
    """Forget every state row (the import of a state of another FORMAT: everything is rebuilt)."""
    with database.transaction(conn, path):
        for tables in _TABLES.values():
            for table in tables:
                conn.execute(f"DELETE FROM {table}")
