"""Writing a session's files back from the source store (``ccreport restore``), forgetting one
(``ccreport forget``), checking every entry (``build --verify-store``), and what Claude Code's
cleanup will delete soon (``cleanupPeriodDays`` in the home's settings.json)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.fs import atomic_file
from ccreport.source.archive import drop_session
from ccreport.source.home import Catalog, contained, valid_id
from ccreport.source.store import Store

DEFAULT_CLEANUP_DAYS = 30


class RestoreError(Exception):
    """Nothing to restore, an ambiguous id, or a different file in the way."""


def session_keys(store: Store, sid: str) -> list[str]:
    """The store's "project/session" keys of a session id (a full id, or a unique prefix)."""
    if not valid_id(sid):
        raise RestoreError(f"not a session id: {sid!r}")
    keys = [k for k in store.index["sessions"] if k.split("/", 1)[1] == sid]
    keys = keys or [k for k in store.index["sessions"] if k.split("/", 1)[1].startswith(sid)]
    if not keys:
        raise RestoreError(f"no session {sid} in the store {store.root}")
    if len({k.split("/", 1)[1] for k in keys}) > 1:
        raise RestoreError(f"{sid} names several sessions: " + ", ".join(sorted(k.split("/", 1)[1] for k in keys)))
    return keys


def _same(path: Path, store: Store, r: str, generation: int = -1) -> bool:
    """Whether the existing ``path`` holds exactly the kept bytes (streamed, hashed)."""
    with open(path, "rb") as a, store.open(r, generation) as b:
        while True:
            x, y = a.read(1 << 20), b.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


@dataclass
class Restored:
    written: list = field(default_factory=list)
    same: list = field(default_factory=list)  # already there, identical


@dataclass
class KeptFile:
    """One archived file of a session and its generations, oldest first: (size, when last seen)."""

    relpath: str
    generations: list[tuple[int, float]]


def generations(store: Store, sid: str) -> list[KeptFile]:
    """Every archived file of the session with the versions the store keeps of it (a file Claude
    Code rewrote rather than appended to has several)."""
    files = sorted({r for k in session_keys(store, sid) for r in store.index["sessions"][k]["files"]})
    return [KeptFile(r, [(g.size, g.seen) for g in gens]) for r in files if (gens := store.generations(r))]


def _generation_of(store: Store, r: str, generation: int | None) -> int:
    """The store's index of version ``generation`` (1 = oldest) of ``r``; its newest when it has fewer."""
    if generation is None:
        return -1
    return min(generation, len(store.generations(r)) or 1) - 1


def restore(store: Store, sid: str, home: Path, generation: int | None = None) -> Restored:
    """Write every kept file of the session back under ``home`` (byte-exact; the newest version, or
    version ``generation`` — 1 is the oldest — of each file that has that many). Refuses, before
    writing anything, when a different file is in the way."""
    if generation is not None and generation < 1:
        raise RestoreError(f"not a generation: {generation} (they count from 1, the oldest)")
    files = sorted({r for k in session_keys(store, sid) for r in store.index["sessions"][k]["files"]})
    res, todo = Restored(), []
    for r in files:
        dest = home / r
        gen = _generation_of(store, r, generation)
        if not contained(dest, home) or ".." in Path(r).parts:
            raise RestoreError(f"refusing a path outside the home: {r}")
        if dest.exists() or dest.is_symlink():
            if not dest.is_file() or not _same(dest, store, r, gen):
                raise RestoreError(f"{dest} exists and differs from the archived copy; nothing was written "
                                   "(move it away to restore)")
            res.same.append(str(dest))
        else:
            todo.append((r, dest, gen))
    for r, dest, gen in todo:
        with store.open(r, gen) as src, atomic_file(dest) as fh:
            while chunk := src.read(1 << 20):
                fh.write(chunk)
        res.written.append(str(dest))
    return res


def forget(store: Store, sid: str, catalog: Catalog) -> list[tuple[str, str]]:
    """Drop a session from the store; refused while the home still has it (the next build would
    archive it again). Returns its (project dir, session id) keys."""
    keys = session_keys(store, sid)
    here = {f"{s.project.dir_name}/{s.id}" for s in catalog.sessions()}
    if any(k in here for k in keys):
        raise RestoreError(f"{sid} is still in the home: delete its files first, or the next build keeps it again")
    for k in keys:
        drop_session(store, k)
    store.save()
    return [tuple(k.split("/", 1)) for k in keys]


def verify(store: Store, home: Path) -> list[str]:
    """Check every entry frame by frame; a bad one is copied again from the home when the home still
    has the file. Returns what was found (one line each)."""
    found = []
    for r in sorted(store.files):
        why = store.check(r)
        if why is None:
            continue
        store.reset(r)
        src = home / r
        again = src.is_file() and store.keep(r, src) != "gone"
        found.append(f"store entry {r}: {why}; " + ("copied again from the home" if again
                                                    else "the home no longer has it: that copy is lost"))
    store.save()
    return found


def cleanup_days(home: Path) -> int | None:
    """``cleanupPeriodDays`` of the home's settings.json (30 when unset), None when it is not a
    positive number (then no cleanup is forecast)."""
    try:
        data = orjson.loads((home / "settings.json").read_bytes())
    except FileNotFoundError:
        data = {}
    except (OSError, orjson.JSONDecodeError):
        return DEFAULT_CLEANUP_DAYS
    days = data.get("cleanupPeriodDays", DEFAULT_CLEANUP_DAYS) if isinstance(data, dict) else DEFAULT_CLEANUP_DAYS
    return days if isinstance(days, (int, float)) and not isinstance(days, bool) and days > 0 else None


def due_for_cleanup(catalog: Catalog, within_days: float = 7, now: float | None = None) -> tuple[int, int | None]:
    """(sessions Claude Code deletes within ``within_days``, the period in days): a session goes when
    its newest file is older than the period."""
    days = cleanup_days(catalog.home)
    if days is None:
        return 0, None
    limit = (now or time.time()) + within_days * 86400 - days * 86400
    n = sum(1 for s in catalog.sessions() if s.gone is None and s.transcripts
            and all(t.store is None for t in s.transcripts) and s.mtime_ns / 1e9 < limit)
    return n, days
