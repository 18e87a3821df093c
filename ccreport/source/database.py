"""The one SQLite database a site keeps what it remembers in (docs/archive.md): the source store, the
per-session and per-transcript state and the closed turns, each part in tables of its own.

One connection per database file and process: ``connect`` hands out the same connection to every
caller of the process and opens a new one in a forked child (a connection must never cross a fork:
the child would share the parent's file locks and page cache). Settings, for every connection:

- WAL: readers (``serve``, ``tail``) never wait for the writer, nor the writer for them;
- ``synchronous=NORMAL``: a commit survives a killed process; only a power cut may lose the last
  commits, never corrupt the database (WAL's guarantee);
- ``secure_delete=ON``: what ``forget`` deletes is overwritten, not left in free pages;
- a busy timeout: a second writer waits for the first instead of failing at once;
- autocommit mode: every write is in an explicit ``transaction`` (BEGIN IMMEDIATE), so a writer
  takes the write lock before it reads what it will change.

Each part records its schema's version in the ``schema`` table (``schema_version`` /
``set_schema_version``); what to do with an older version is the part's own decision (the state is
rebuilt, the store is never thrown away).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

NAME = "ccreport.sqlite"  # the database's file name in its folder (the site's .ccreport/, or --store)
BUSY_TIMEOUT_S = 60.0  # how long a writer waits for another one before giving up

_connections: dict[str, sqlite3.Connection] = {}
_pid = os.getpid()
# Connections inherited through a fork: never used and never closed in the child (closing one
# could roll back or checkpoint the parent's database under it), only kept from the collector.
_inherited: list[sqlite3.Connection] = []
_prepared: dict[tuple[str, str], sqlite3.Connection] = {}  # (path, part) → the connection ``prepared`` set up
# The threads of a process share its connection, and a connection has one transaction at a time: the
# build's copy into the source store (a thread) and the state's writes take turns.
_writer = threading.RLock()


class DatabaseFull(OSError):
    """The disk (or quota) is full: the transaction that hit it was rolled back whole."""

    def __init__(self, path: Path):
        super().__init__(errno.ENOSPC, "no space left for the database", str(path))


def _after_fork() -> None:
    global _pid, _writer
    _writer = threading.RLock()  # (a thread of the parent may have held it: it does not exist here)
    _inherited.extend(_connections.values())
    _connections.clear()
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def connect(path: Path) -> sqlite3.Connection:
    """This process's connection to the database at ``path`` (made, with its folder, when missing)."""
    key = os.path.abspath(path)
    if _pid != os.getpid():  # a fork the hook did not see (no register_at_fork)
        _after_fork()
    if key in _connections and not os.path.exists(key):  # deleted (or moved) under it: not that one
        close(path)
    conn = _connections.get(key)
    if conn is None:
        Path(key).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(key, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("CREATE TABLE IF NOT EXISTS schema (part TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        _connections[key] = conn
    return conn


def prepared(path: Path, part: str, setup: Callable[[sqlite3.Connection], None]) -> sqlite3.Connection:
    """``connect(path)``, with ``setup`` (a part's pragmas and tables) run once per connection: again
    for a new one (after ``close``, a fork, or the file deleted under the old one)."""
    conn = connect(path)
    key = (os.path.abspath(path), part)
    if _prepared.get(key) is not conn:
        setup(conn)
        _prepared[key] = conn
    return conn


def close(path: Path) -> None:
    """Close this process's connection to ``path`` (tests, and ``forget`` before it vacuums)."""
    conn = _connections.pop(os.path.abspath(path), None)
    if conn is not None:
        conn.close()


def schema_version(conn: sqlite3.Connection, part: str) -> int | None:
    row = conn.execute("SELECT version FROM schema WHERE part = ?", (part,)).fetchone()
    return row[0] if row else None


def set_schema_version(conn: sqlite3.Connection, part: str, version: int) -> None:
    conn.execute("INSERT OR REPLACE INTO schema (part, version) VALUES (?, ?)", (part, version))


def _is_full(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path | None = None):
    """One write transaction, taken at its start (BEGIN IMMEDIATE), committed at the end of the block
    or rolled back whole on any exception; a full disk is raised as ``DatabaseFull``. The threads of
    a process write one at a time (``_writer``)."""
    with _writer:
        with _transaction(conn, path):
            yield conn


@contextmanager
def _transaction(conn: sqlite3.Connection, path: Path | None):
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:  # (in the block, or the commit itself: a full disk may show at either)
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error) and _is_full(exc):
            raise DatabaseFull(path or Path("?")) from exc
        raise


def checkpoint(conn: sqlite3.Connection) -> None:
    """Fold the write-ahead log into the database and empty it (the end of a build: a built site
    keeps no log of its last writes beside the database)."""
    with _writer:  # (not in the middle of another thread's transaction on this connection)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def vacuum(conn: sqlite3.Connection) -> None:
    """Rewrite the database without its free pages and fold the WAL into it, so that no byte of
    deleted rows is left anywhere in the folder (``forget``, ``--prune-missing``)."""
    with _writer:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
