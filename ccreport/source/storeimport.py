"""Stores written before the database (docs/archive.md), imported into it on the first run that
writes the store: ``index.json`` (the sessions' records and the folders' listings), ``packs/`` (per
project one data file of zstandard frames and one log of manifests, one JSON line per change, the
newest line of an entry winning) and, older still, ``data/<xx>/<hash>.json`` + ``.z`` (one
manifest and one data file per entry). The frames are copied as they are (never decompressed or
compressed again), in one transaction; the old files are removed only once it is committed.

An old store that cannot be read whole (a log line cut or unreadable, a data file shorter than its
manifests say) is not imported: its files stay as they are and the build says why; the next run
tries again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from ccreport.source import database
from ccreport.source.store import Store

OLD = ("index.json", "packs", "data")  # what the stores before the database wrote in their folder
# A schema part per place (the folder itself, its store/): that place's import was committed (its old
# files may be left over). One mark for both let the second place's files be removed unread.
DONE = "store.imported"


class OldStoreError(ValueError):
    """The old store cannot be read whole: it is left as it is."""


def old_folders(root: Path) -> list[Path]:
    """The old stores of a store folder: in it (``--store DIR``) or in ``store/`` (the site's
    ``.ccreport/store``, the default before the database)."""
    return [d for d in (root, root / "store") if any((d / name).exists() for name in OLD)]


def upgrade(store: Store) -> None:
    """Import the old stores of ``store``'s folder, then remove their files; problems go to
    ``store.problems`` (and the old files stay)."""
    for old in old_folders(store.root):
        done = DONE if old == store.root else f"{DONE}/{old.name}"
        if database.schema_version(store.db, done) is None:
            try:
                _import(store, old, done)
            except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
                store.problems.append(f"the archive in {old} (written by an earlier ccreport) was not imported: "
                                      f"{exc}; its files are left as they are, and the sessions only it kept are "
                                      "not shown until it can be read")
                continue
        _remove(old)


def _import(store: Store, old: Path, done: str) -> None:
    index = _index(old)
    entries = {**_manifests(old), **_packs(old)}  # (an entry in its pack moved there: the pack's is newer)
    db = store.db
    with database.transaction(db, store.path):
        for relpath, (data, gens) in sorted(entries.items()):
            if gens and db.execute("SELECT 1 FROM store_files WHERE relpath = ?", (relpath,)).fetchone() is None:
                _copy(db, relpath, data, gens)
        for table, part in (("store_sessions", "sessions"), ("store_dirs", "dirs")):
            for key, rec in index.get(part, {}).items():
                db.execute(f"INSERT OR IGNORE INTO {table} VALUES (?, ?)", (key, orjson.dumps(rec)))  # noqa: S608
        database.set_schema_version(db, done, 1)
    store.reread()


def _copy(db, relpath: str, data: Path, gens: list) -> None:
    g = gens[-1]
    fid = db.execute("INSERT INTO store_files (relpath, size, mtime_ns, inode) VALUES (?, ?, ?, ?)",
                     (relpath, g["size"], g["mtime_ns"], g["inode"])).lastrowid
    with open(data, "rb") as fin:
        for n, g in enumerate(gens):
            db.execute("INSERT INTO store_generations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (fid, n, g["size"], g["mtime_ns"], g["inode"], g["head_len"], bytes.fromhex(g["head"]),
                        bytes.fromhex(g["tail"]), g["seen"]))
            for start, length, at, size, sha in g["frames"]:
                fin.seek(at)
                blob = fin.read(size)
                if len(blob) != size:
                    raise OldStoreError(f"{data.name} is truncated (the frame of {relpath} at {at})")
                db.execute("INSERT INTO store_frames VALUES (?, ?, ?, ?, ?, ?)",
                           (fid, n, start, length, bytes.fromhex(sha), blob))


def _index(old: Path) -> dict:
    try:
        index = orjson.loads((old / "index.json").read_bytes())
    except FileNotFoundError:
        return {}  # (lost: the manifests are the truth; the sessions' records are made again by the build)
    except orjson.JSONDecodeError as exc:
        raise OldStoreError(f"index.json is not JSON ({exc})") from None
    if not isinstance(index, dict) or index.get("format") != 1:
        raise OldStoreError("index.json is of an unknown format")
    return index


def _manifests(old: Path) -> dict:
    """relpath → (data file, generations) of the stores before packs: one manifest file per entry."""
    found = {}
    for path in sorted((old / "data").glob("*/*.json")):
        try:
            m = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise OldStoreError(f"{path.name} is not JSON ({exc})") from None
        found[m["relpath"]] = (path.parent / m["data"], m["generations"])
    return found


def _packs(old: Path) -> dict:
    """relpath → (data file, generations) of every pack's newest lines."""
    found = {}
    for log in sorted((old / "packs").glob("*.log")):
        raw = log.read_bytes()
        for no, line in enumerate(raw[: raw.rfind(b"\n") + 1].splitlines(), 1):  # (a line cut by a kill: ignored)
            try:
                m = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise OldStoreError(f"line {no} of {log.name} is not JSON ({exc})") from None
            found[m["relpath"]] = (old / "packs" / m["data"], m["generations"])
    return found


def _remove(old: Path) -> None:
    """The old store's files, once imported (the lock of a --store folder stays)."""
    for name in OLD:
        path = old / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    for tmp in old.glob(".index.json.*.tmp"):  # (a killed write's leftover)
        tmp.unlink(missing_ok=True)
    if old.name == "store":
        try:
            old.rmdir()
        except OSError:
            pass  # (something else in it: left alone)
