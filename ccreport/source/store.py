"""The source store: every file ccreport reads from the home, kept byte-exact and compressed, so the
archive outlives Claude Code's cleanup (docs/archive.md).

One entry per home file (its path relative to the home): an append-only data file of zstandard
frames and a manifest (``Manifest``, JSON) of its generations, each a list of frames with the
sha256 of the original bytes they hold. A file that grew gets one frame more (its new bytes only);
a file rewritten rather than appended gets a new generation and keeps the earlier one. A write
appends the frames first, then replaces the manifest atomically: a kill at any moment leaves at
most unreferenced bytes past the manifest's end, cut at the next append.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import zstandard

from ccreport.fs import atomic_write
from ccreport.source.storeio import Frame, FrameReader, StoreCorrupt, open_frames, read_range

FORMAT = 1
FRAME = 4 << 20  # original bytes per frame at most: a seek decompresses one frame, never a whole file
HEAD, TAIL = 64 * 1024, 4096  # what is compared to tell an appended file from a rewritten one
# Level 3: 0.23 of the JSONL at ~570 MB/s on the corpus (level 9: 0.22 at 140 MB/s); docs/archive.md.
_LEVEL = 3


class StoreFull(OSError):
    """The disk is full (or the quota reached): the entry being written is left as it was."""


@dataclass
class Generation:
    """One version of a home file: its stats when last copied and the frames that hold it."""

    size: int
    mtime_ns: int
    inode: int
    head_len: int
    head: str  # sha256 of the first head_len bytes
    tail: str  # sha256 of the last min(TAIL, size) bytes
    seen: float  # time.time() when the home last had it
    frames: list = field(default_factory=list)  # [start, length, at, size, sha256] (storeio.Frame)


@dataclass
class Manifest:
    relpath: str
    data: str  # the data file's name (a new one when a corrupt entry is copied again)
    generations: list = field(default_factory=list)
    end: int = 0  # bytes of the data file the frames use; anything after is a killed write's leftover
    format: int = FORMAT

    @classmethod
    def from_json(cls, d: dict) -> "Manifest":
        return cls(relpath=d["relpath"], data=d["data"], end=d["end"],
                   generations=[Generation(**g) for g in d["generations"]])

    @property
    def current(self) -> Generation | None:
        return self.generations[-1] if self.generations else None


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _ends(fh, size: int) -> tuple[int, str, str]:
    """(head_len, head hash, tail hash) of the first ``size`` bytes of an open file."""
    head_len = min(HEAD, size)
    fh.seek(0)
    head = _sha(fh.read(head_len))
    fh.seek(size - min(TAIL, size))
    return head_len, head, _sha(fh.read(min(TAIL, size)))


class Store:
    """One store folder: ``index.json`` (relpath → [size, mtime_ns, inode] of what is kept, plus
    the session records of source.archive), ``data/`` (manifests and frames)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._index: dict | None = None  # loaded on first use: reading an entry back needs only its manifest
        self._saved: bytes | None = None
        self.problems: list[str] = []
        self._buf = bytearray(FRAME)
        self._view = memoryview(self._buf)
        self._comp = zstandard.ZstdCompressor(level=_LEVEL)
        self._folders: set[Path] = set()  # data folders known to exist
        # A store with no data yet has no manifest to look for (an open that fails costs ~0.1 ms
        # here: a tenth of a 300 MB home's first copy): only those this object writes.
        self._empty = not (self.root / "data").is_dir()
        self._written: set[str] = set()
        # The manifests naming frames written by this sync, replaced together at its end (commit).
        self._manifests: dict[Path, bytes] = {}
        self.batching = False

    @property
    def index(self) -> dict:
        if self._index is None:
            self._index = {"format": FORMAT, "files": {}, "sessions": {}, "dirs": {}}
            try:
                raw = (self.root / "index.json").read_bytes()
                data = orjson.loads(raw)
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    self._index, self._saved = data, raw
            except (OSError, orjson.JSONDecodeError):
                pass  # a new store, or an index lost: entries are found again through their manifests
        return self._index

    @property
    def files(self) -> dict:
        return self.index["files"]

    def _paths(self, relpath: str) -> tuple[Path, str]:
        h = hashlib.sha256(relpath.encode()).hexdigest()[:40]
        return self.root / "data" / h[:2], h

    def manifest(self, relpath: str) -> Manifest | None:
        if self._empty and relpath not in self._written:
            return None
        folder, h = self._paths(relpath)
        try:
            m = Manifest.from_json(orjson.loads((folder / f"{h}.json").read_bytes()))
        except FileNotFoundError:
            return None
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            self.problems.append(f"store entry {relpath}: unreadable manifest ({exc}); copied again")
            return None
        return m if m.relpath == relpath else None

    def has(self, relpath: str) -> bool:
        return relpath in self.files or self.manifest(relpath) is not None

    def keep(self, relpath: str, src: Path, stat: tuple[int, int, int] | None = None) -> str:
        """Bring the entry of ``relpath`` up to date with the home file ``src``: "same", "grown",
        "new" (a first copy or a new generation) or "gone" (unreadable). ``stat``: (size, mtime_ns,
        inode) already known to the caller; equal to the index's, nothing is opened."""
        if stat is not None and self.files.get(relpath) == list(stat):
            return "same"
        try:
            with open(src, "rb") as fh:
                st = os.fstat(fh.fileno())
                key = [st.st_size, st.st_mtime_ns, st.st_ino]
                if self.files.get(relpath) == key:
                    return "same"
                how = self._keep_open(relpath, fh, st)
        except FileNotFoundError:
            return "gone"
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise StoreFull(exc.errno, f"no space left for the source store in {self.root}") from None
            if isinstance(exc, StoreCorrupt):
                raise
            self.problems.append(f"{src}: not archived: {exc.strerror or exc}")
            return "gone"
        return how

    def _keep_open(self, relpath: str, fh, st) -> str:
        m = self.manifest(relpath)
        folder, h = self._paths(relpath)
        epoch, stale = 0, None
        if m is not None and (cut := self._cut(m, folder)) is not m:
            if cut is None:
                # Nothing left whole: the entry starts again from the home's copy, in a new data file
                # (the manifest naming the old one stays valid until the new one replaces it).
                m, epoch, stale = None, int(m.data.split(".")[1]) + 1, folder / m.data
            else:
                m = cut
        g = m.current if m else None
        size = st.st_size
        if g is not None and size >= g.size and g.size and _ends(fh, g.size)[1:] == (g.head, g.tail):
            if size == g.size and not self._same_bytes(g, fh):
                how, start = "new", 0
            else:
                how, start = ("same" if size == g.size else "grown"), g.size
        else:
            how, start = "new", 0
        if m is None:
            m = Manifest(relpath, f"{h}.{epoch}.z")
        frames, end = self._append(folder / m.data, fh, start, m.end) if how != "same" else ([], m.end)
        total = start + sum(f[1] for f in frames)
        head_len, head, tail = _ends(fh, total)
        gen = Generation(total, st.st_mtime_ns, st.st_ino, head_len, head, tail, time.time(),
                         (g.frames if how != "new" else []) + frames)
        if how == "new":
            m.generations.append(gen)
        else:
            m.generations[-1] = gen
        m.end = end
        self._manifests[folder / f"{h}.json"] = orjson.dumps(m)
        self._written.add(relpath)
        if not self.batching:
            self.commit()
        if stale is not None:
            stale.unlink(missing_ok=True)
        self.files[relpath] = [total, st.st_mtime_ns, st.st_ino]
        return how

    def commit(self) -> None:
        """The frames are written before the manifests that name them, each manifest replaced
        atomically: a killed process never leaves a manifest naming frames it did not write. No
        fsync: a power cut may lose the last frames written (an fsync per append cost ~100 ms on a
        busy disk, and a sync(2) seconds on a cold build); a lost frame is found by its size or its
        hash, and only what is missing is copied again from the home (_cut)."""
        try:
            for path, raw in self._manifests.items():
                atomic_write(path, raw)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise StoreFull(exc.errno, f"no space left for the source store in {self.root}") from None
            raise
        finally:
            self._manifests.clear()

    def _cut(self, m: Manifest, folder: Path) -> Manifest | None:
        """``m`` itself when its data file holds every frame; else a manifest of the frames still
        whole (each version keeps its intact first frames: a crash loses at most the last writes,
        which the home still has), None when nothing is left."""
        try:
            size = os.stat(folder / m.data).st_size
        except OSError:
            size = 0
        if size >= m.end:
            return m
        gens = []
        for g in m.generations:
            frames = list(itertools.takewhile(lambda f: f[2] + f[3] <= size, g.frames))
            if frames and len(frames) < len(g.frames):
                total = frames[-1][0] + frames[-1][1]
                with open_frames(folder / m.data, [Frame(*f) for f in frames], m.relpath) as fh:
                    head_len, head, tail = _ends(fh, total)
                g = Generation(total, g.mtime_ns, g.inode, head_len, head, tail, g.seen, frames)
            if frames:
                gens.append(g)
        self.problems.append(f"store entry {m.relpath}: its data file is truncated; what is missing is copied "
                             "again from the home" + (" (earlier versions were lost)" if len(gens) < len(m.generations) - 1
                                                      else ""))
        if not gens:
            return None
        return Manifest(m.relpath, m.data, gens, max(f[2] + f[3] for g in gens for f in g.frames))

    @staticmethod
    def _same_bytes(g: Generation, fh) -> bool:
        """Same size, other mtime: a touch, or a rewrite of the same length (every frame compared)."""
        for f in g.frames:
            fh.seek(f[0])
            if _sha(fh.read(f[1])) != f[4]:
                return False
        return True

    def _append(self, data: Path, fh, start: int, end: int) -> tuple[list, int]:
        """Compress ``fh`` from ``start`` to its end into frames appended at ``end`` of ``data``
        (written before the manifest names them). Returns the frames and the new end."""
        if data.parent not in self._folders:
            data.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(data.parent)
        frames = []
        with open(data, "r+b" if end else "wb") as out:
            out.truncate(end)  # a killed write's leftover
            out.seek(end)
            fh.seek(start)
            # One buffer for every frame: a new 4 MiB bytes per read was half the copy's system time
            # (page faults), more than compressing it.
            while n := fh.readinto(self._buf):
                chunk = self._view[:n]
                blob = self._comp.compress(chunk)
                out.write(blob)
                frames.append([start, n, end, len(blob), _sha(chunk)])
                start += n
                end += len(blob)
        return frames, end

    def open(self, relpath: str, generation: int = -1) -> FrameReader:
        """A buffered binary stream of one kept version (the newest by default), checked frame by
        frame as it is read (StoreCorrupt, an OSError, on a mismatch)."""
        m = self.manifest(relpath)
        if m is None or not m.generations:
            raise FileNotFoundError(errno.ENOENT, f"not in the store: {relpath}")
        folder, _ = self._paths(relpath)
        return open_frames(folder / m.data, [Frame(*f) for f in m.generations[generation].frames], relpath)

    def read_bytes(self, relpath: str, generation: int = -1) -> bytes:
        with self.open(relpath, generation) as fh:
            return fh.read()

    def check(self, relpath: str) -> str | None:
        """Why the entry does not read back as written (None when every frame of every version does)."""
        m = self.manifest(relpath)
        if m is None:
            return "no manifest"
        folder, _ = self._paths(relpath)
        try:
            for g in m.generations:
                read_range(folder / m.data, [Frame(*f) for f in g.frames], relpath)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None

    def drop(self, relpath: str) -> None:
        """Forget an entry (explicit deletes only: ccreport forget, build --prune-missing)."""
        m = self.manifest(relpath)
        folder, h = self._paths(relpath)
        self.files.pop(relpath, None)
        for name in ([m.data] if m else []) + [f"{h}.json"]:
            try:
                (folder / name).unlink()
            except OSError:
                pass

    def reset(self, relpath: str) -> None:
        """Start an entry over (a corrupt one): a new data file, the old one removed once replaced."""
        m = self.manifest(relpath)
        self.files.pop(relpath, None)
        if m is None:
            return
        folder, h = self._paths(relpath)
        old, epoch = m.data, int(m.data.split(".")[1]) + 1
        atomic_write(folder / f"{h}.json", orjson.dumps(Manifest(relpath, f"{h}.{epoch}.z")), durable=True)
        self._written.add(relpath)
        try:
            (folder / old).unlink()
        except OSError:
            pass

    def save(self) -> None:
        """Write the index when it changed (after the manifests: an older index only costs a look
        at a manifest next time)."""
        self.commit()
        if self._index is None:
            return
        raw = orjson.dumps(self._index)
        if raw != self._saved:
            try:
                atomic_write(self.root / "index.json", raw)  # a hint: the manifests are the truth
            except OSError as exc:
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise StoreFull(exc.errno, f"no space left for the source store in {self.root}") from None
                raise
            self._saved = raw
