"""The source store: every file ccreport reads from the home, kept byte-exact and compressed in the
site's database (source/database.py), so the archive outlives Claude Code's cleanup (docs/archive.md).

One entry per home file (its path relative to the home, ``store_files``), with its generations
(``store_generations``: the stats and the hashes of the ends of each version) and their frames
(``store_frames``: at most FRAME original bytes each, compressed on its own with zstandard, with the
sha256 of the original bytes). A file that grew gets frames of its new bytes only; a file rewritten
rather than appended gets a new generation and keeps the earlier ones. Each change of an entry is
one transaction: a killed process or a full disk leaves the entry as it was before.

What source.archive keeps beside the files — the sessions' records and the folders' listings —
are JSON rows (``store_sessions``, ``store_dirs``), read once per Store and written by ``save``.
Stores written before the database (packs, per-file manifests) are imported by source.storeimport.
"""

from __future__ import annotations

import bisect
import errno
import hashlib
import io
import os
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import zstandard

from ccreport.source import database

FRAME = 4 << 20  # original bytes per frame at most: a seek decompresses one frame, never a whole file
HEAD, TAIL = 64 * 1024, 4096  # what is compared to tell an appended file from a rewritten one
# Level 3: 0.23 of the JSONL at ~570 MB/s on the corpus (level 9: 0.22 at 140 MB/s); docs/archive.md.
_LEVEL = 3
SCHEMA = 1  # of the store's tables (database part "store")
_TABLES = """
CREATE TABLE IF NOT EXISTS store_files (id INTEGER PRIMARY KEY, relpath TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS store_generations (file INTEGER NOT NULL, n INTEGER NOT NULL,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, head_len INTEGER NOT NULL,
    head BLOB NOT NULL, tail BLOB NOT NULL, seen REAL NOT NULL, PRIMARY KEY (file, n)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_frames (file INTEGER NOT NULL, n INTEGER NOT NULL, start INTEGER NOT NULL,
    length INTEGER NOT NULL, sha256 BLOB NOT NULL, data BLOB NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS store_frames_at ON store_frames (file, n, start);
CREATE TABLE IF NOT EXISTS store_sessions (key TEXT PRIMARY KEY, record BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_dirs (folder TEXT PRIMARY KEY, record BLOB NOT NULL) WITHOUT ROWID;
"""
WAL_LIMIT = 64 << 20  # bytes the WAL file is cut back to after a checkpoint


class StoreFull(OSError):
    """The disk is full (or the quota reached): the entry being written is left as it was."""


class StoreCorrupt(OSError):
    """A kept entry does not read back as it was written (a wrong hash, a frame that does not decompress)."""

    def __init__(self, relpath: str, why: str):
        super().__init__(errno.EIO, f"corrupt store entry {relpath}: {why}")


@dataclass
class Generation:
    """One version of a home file: its stats when last copied and when the home last had it."""

    size: int
    mtime_ns: int
    inode: int
    seen: float  # time.time() when the home last had it


def _sha(data) -> bytes:
    return hashlib.sha256(data).digest()


def _ends(fh, size: int) -> tuple[int, bytes, bytes]:
    """(head_len, head hash, tail hash) of the first ``size`` bytes of an open file."""
    head_len = min(HEAD, size)
    fh.seek(0)
    head = _sha(fh.read(head_len))
    fh.seek(size - min(TAIL, size))
    return head_len, head, _sha(fh.read(min(TAIL, size)))


def connect(root: Path):
    """This process's connection to the database of the store folder ``root``, its tables made."""
    path = Path(root) / database.NAME
    return database.prepared(path, "store", lambda conn: _setup(conn, path))


def _setup(conn, path: Path) -> None:
    # A big file is copied in one transaction, which the WAL holds whole until a checkpoint: without
    # a limit the -wal file would stay that large (~115 MB for a 500 MB session) while the
    # connection lives (serve --watch).
    conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
    if database.schema_version(conn, "store") is None:
        with database.transaction(conn, path):
            for statement in _TABLES.split(";")[:-1]:  # (executescript would commit first)
                conn.execute(statement)
            database.set_schema_version(conn, "store", SCHEMA)


def exists(root: Path) -> bool:
    return (Path(root) / database.NAME).is_file()


class Store:
    """The source store of one folder (its database ``database.NAME``)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.path = self.root / database.NAME
        self.db = connect(self.root)
        self.problems: list[str] = []
        self._files: dict | None = None  # relpath → [size, mtime_ns, inode], loaded on first use
        self._index: dict | None = None  # {"sessions": …, "dirs": …}, loaded on first use
        self._saved: dict = {}  # (table, key) → the JSON last read or written
        self._dropped = False  # entries were removed: their bytes go at the next save (vacuum)
        self._comp: zstandard.ZstdCompressor | None = None

    @property
    def files(self) -> dict:
        if self._files is None:
            rows = self.db.execute("SELECT relpath, size, mtime_ns, inode FROM store_files").fetchall()
            self._files = {r: [size, mtime, inode] for r, size, mtime, inode in rows}
        return self._files

    @property
    def index(self) -> dict:
        """The sessions' records and the folders' listings (source.archive), as one dict."""
        if self._index is None:
            self._index = {"files": self.files}
            for part, table in (("sessions", "store_sessions"), ("dirs", "store_dirs")):
                rows = self.db.execute(f"SELECT * FROM {table}").fetchall()  # noqa: S608 (a constant)
                self._saved.update({(table, k): raw for k, raw in rows})
                self._index[part] = {k: orjson.loads(raw) for k, raw in rows}
        return self._index

    def reread(self) -> None:
        """Forget the files and records loaded so far: rows were written beside this Store (an
        import of an older archive, source.storeimport), and the next use reads them again."""
        self._files = self._index = None

    def names(self, prefix: str) -> list[str]:
        """The kept relpaths that start with ``prefix`` (a query: no listing is loaded)."""
        rows = self.db.execute("SELECT relpath FROM store_files WHERE relpath >= ? AND relpath < ?",
                               (prefix, prefix + "\U0010ffff")).fetchall()
        return [r for (r,) in rows]

    def _entry(self, relpath: str) -> tuple | None:
        """(file id, newest generation) of an entry, or None."""
        return self.db.execute("SELECT f.id, max(g.n) FROM store_files f JOIN store_generations g ON g.file = f.id "
                               "WHERE f.relpath = ? GROUP BY f.id", (relpath,)).fetchone()

    def has(self, relpath: str) -> bool:
        return self._entry(relpath) is not None

    def generations(self, relpath: str) -> list[Generation]:
        """The versions kept of an entry, oldest first (none when it is not kept)."""
        rows = self.db.execute("SELECT g.size, g.mtime_ns, g.inode, g.seen FROM store_files f JOIN store_generations g "
                               "ON g.file = f.id WHERE f.relpath = ? ORDER BY g.n", (relpath,)).fetchall()
        return [Generation(*row) for row in rows]

    def _writing(self):
        return database.transaction(self.db, self.path)

    def keep(self, relpath: str, src: Path, stat: tuple[int, int, int] | None = None) -> str:
        """Bring the entry of ``relpath`` up to date with the home file ``src``: "same", "grown",
        "new" (a first copy or a new generation) or "gone" (unreadable). ``stat``: (size, mtime_ns,
        inode) already known to the caller; equal to the kept one, nothing is opened."""
        if stat is not None and self.files.get(relpath) == list(stat):
            return "same"
        try:
            with open(src, "rb") as fh:
                st = os.fstat(fh.fileno())
                if self.files.get(relpath) == [st.st_size, st.st_mtime_ns, st.st_ino]:
                    return "same"
                with self._writing():
                    how, total = self._keep_open(relpath, fh, st)
        except FileNotFoundError:
            return "gone"
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise self._full(exc.errno) from None
            if isinstance(exc, StoreCorrupt):
                raise
            self.problems.append(f"{src}: not archived: {exc.strerror or exc}")
            return "gone"
        self.files[relpath] = [total, st.st_mtime_ns, st.st_ino]
        return how

    def _full(self, code: int) -> StoreFull:
        """What a full disk (or quota) raises, whichever write hit it."""
        return StoreFull(code, f"no space left for the source store in {self.root}")

    def _keep_open(self, relpath: str, fh, st) -> tuple[str, int]:
        db = self.db
        row = db.execute("SELECT f.id, g.n, g.size, g.head_len, g.head, g.tail FROM store_files f "
                         "JOIN store_generations g ON g.file = f.id WHERE f.relpath = ? ORDER BY g.n DESC LIMIT 1",
                         (relpath,)).fetchone()
        how, start = "new", 0
        if row is None:
            fid = db.execute("INSERT OR REPLACE INTO store_files (relpath, size, mtime_ns, inode) VALUES (?, 0, 0, 0)",
                             (relpath,)).lastrowid
            n, ends = 0, None
        else:
            fid, n, size, *ends = row
            if st.st_size >= size and size and _ends(fh, size) == tuple(ends):
                if st.st_size > size or self._same_bytes(fid, n, fh):
                    how, start = ("same" if st.st_size == size else "grown"), size
            if how == "new":
                n, ends = n + 1, None
        total, ends = self._append(fid, n, fh, start, ends)
        db.execute("INSERT OR REPLACE INTO store_generations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (fid, n, total, st.st_mtime_ns, st.st_ino, *ends, time.time()))
        db.execute("UPDATE store_files SET size = ?, mtime_ns = ?, inode = ? WHERE id = ?",
                   (total, st.st_mtime_ns, st.st_ino, fid))
        return how, total

    def _same_bytes(self, fid: int, n: int, fh) -> bool:
        """Same size, other mtime: a touch, or a rewrite of the same length (every frame compared)."""
        for start, length, sha in self.db.execute("SELECT start, length, sha256 FROM store_frames WHERE file = ? "
                                                  "AND n = ? ORDER BY start", (fid, n)).fetchall():
            fh.seek(start)
            if _sha(fh.read(length)) != sha:
                return False
        return True

    def _append(self, fid: int, n: int, fh, start: int, ends: list | None) -> tuple[int, tuple]:
        """Compress ``fh`` from ``start`` to its end into frames of generation ``n``; one pass over the
        bytes, each buffer hashed and compressed as it is read. Returns the version's size and the
        hashes of its ends (from the bytes just read when they hold them, else read again)."""
        if self._comp is None:
            self._comp = zstandard.ZstdCompressor(level=_LEVEL)
        fh.seek(start)
        head = ends[1] if ends is not None and ends[0] == HEAD else None
        tail = ends[2] if ends is not None else None
        while chunk := fh.read(FRAME):
            self.db.execute("INSERT INTO store_frames VALUES (?, ?, ?, ?, ?, ?)",
                            (fid, n, start, len(chunk), _sha(chunk), self._comp.compress(chunk)))
            if start == 0:
                head = _sha(chunk[:HEAD])
            tail = _sha(chunk[-TAIL:]) if len(chunk) >= TAIL or start == 0 else None
            start += len(chunk)
        if head is None or tail is None:
            return start, _ends(fh, start)
        return start, (min(HEAD, start), head, tail)

    def _version(self, relpath: str, generation: int) -> tuple[int, int, list]:
        """(file id, generation number, [(start, length)] of its frames) of one kept version."""
        entry = self._entry(relpath)
        if entry is None:
            raise FileNotFoundError(errno.ENOENT, f"not in the store: {relpath}")
        fid, newest = entry
        n = newest + 1 + generation if generation < 0 else generation
        if not 0 <= n <= newest:
            raise FileNotFoundError(errno.ENOENT, f"no generation {generation} of {relpath} in the store")
        frames = self.db.execute("SELECT start, length FROM store_frames WHERE file = ? AND n = ? ORDER BY start",
                                 (fid, n)).fetchall()
        return fid, n, frames

    def open(self, relpath: str, generation: int = -1) -> io.BufferedReader:
        """A buffered, seekable binary stream of one kept version (the newest by default; 0 is the
        oldest), decompressed and checked one frame at a time (StoreCorrupt on a mismatch)."""
        return io.BufferedReader(FrameReader(self.db, relpath, *self._version(relpath, generation)),
                                 buffer_size=1 << 20)

    def read_bytes(self, relpath: str, generation: int = -1) -> bytes:
        with self.open(relpath, generation) as fh:
            return fh.read()

    def check(self, relpath: str) -> str | None:
        """Why the entry does not read back as written (None when every frame of every version does)."""
        try:
            for g in range(len(self.generations(relpath)) or 1):
                reader = FrameReader(self.db, relpath, *self._version(relpath, g))
                for start, _ in reader.frames:
                    reader.frame(start)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None

    def drop(self, relpath: str) -> None:
        """Forget an entry (explicit deletes only: ccreport forget, build --prune-missing, a corrupt
        entry copied again); its bytes leave the database's file at the next ``save`` (vacuum)."""
        self.files.pop(relpath, None)
        with self._writing() as db:
            row = db.execute("SELECT id FROM store_files WHERE relpath = ?", (relpath,)).fetchone()
            if row is not None:
                for table in ("store_frames", "store_generations"):
                    db.execute(f"DELETE FROM {table} WHERE file = ?", row)  # noqa: S608 (constants)
                db.execute("DELETE FROM store_files WHERE id = ?", row)
                self._dropped = True

    reset = drop  # start a corrupt entry over: its next copy goes into new frames

    def save(self) -> None:
        """Write the sessions' records and folders' listings that changed; after drops, vacuum, so
        that no byte of a forgotten entry is left in the folder."""
        if self._index is not None:
            try:
                with self._writing() as db:
                    self._save_rows(db, "store_sessions", self._index["sessions"])
                    self._save_rows(db, "store_dirs", self._index["dirs"])
            except database.DatabaseFull as exc:  # (an OSError with ENOSPC: keep's rule, in its words)
                raise self._full(exc.errno) from None
        if self._dropped:
            database.vacuum(self.db)
            self._dropped = False

    def _save_rows(self, db, table: str, rows: dict) -> None:
        for key, rec in rows.items():
            raw = orjson.dumps(rec)
            if self._saved.get((table, key)) != raw:
                db.execute(f"INSERT OR REPLACE INTO {table} VALUES (?, ?)", (key, raw))  # noqa: S608
                self._saved[(table, key)] = raw
        for gone in [k for t, k in self._saved if t == table and k not in rows]:
            db.execute(f"DELETE FROM {table} WHERE {'key' if table == 'store_sessions' else 'folder'} = ?", (gone,))
            del self._saved[(table, gone)]


class FrameReader(io.RawIOBase):
    """The original bytes of one kept version, one frame decompressed at a time (a query each);
    wrap in io.BufferedReader for readline (Store.open)."""

    def __init__(self, db, relpath: str, fid: int, n: int, frames: list):
        self.db, self.relpath, self.fid, self.n = db, relpath, fid, n
        self.frames, self.starts = frames, [f[0] for f in frames]
        self.size = frames[-1][0] + frames[-1][1] if frames else 0
        self.pos = 0
        self._cur: tuple[int, int, bytes] | None = None  # (start, length, bytes) of the frame in memory

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def frame(self, start: int) -> bytes:
        row = self.db.execute("SELECT length, sha256, data FROM store_frames WHERE file = ? AND n = ? AND start = ?",
                              (self.fid, self.n, start)).fetchone()
        if row is None:
            raise StoreCorrupt(self.relpath, f"frame at {start} missing")
        length, sha, blob = row
        try:
            data = zstandard.ZstdDecompressor().decompress(blob, max_output_size=length)
        except zstandard.ZstdError as exc:
            raise StoreCorrupt(self.relpath, f"frame at {start} does not decompress ({exc})") from None
        if len(data) != length or _sha(data) != sha:
            raise StoreCorrupt(self.relpath, f"frame at {start} has the wrong hash")
        return data

    def readinto(self, buf) -> int:
        if self.pos >= self.size:
            return 0
        if self._cur is None or not self._cur[0] <= self.pos < self._cur[0] + self._cur[1]:
            start, length = self.frames[bisect.bisect_right(self.starts, self.pos) - 1]
            self._cur = (start, length, self.frame(start))
        start, _, data = self._cur
        piece = data[self.pos - start: self.pos - start + len(buf)]
        buf[: len(piece)] = piece
        self.pos += len(piece)
        return len(piece)
