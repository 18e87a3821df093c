"""The source store: every file ccreport reads from the home, kept byte-exact and compressed, so the
archive outlives Claude Code's cleanup (docs/archive.md).

One entry per home file (its path relative to the home): zstandard frames and a manifest
(``Manifest``) of its generations, each a list of frames with the sha256 of the original bytes they
hold. A file that grew gets one frame more (its new bytes only); a file rewritten rather than
appended gets a new generation and keeps the earlier one. The entries of one project share a pack
(source/storepack.py): one append-only data file and one append-only log of manifests. A write
appends the frames first, then the manifest's line: a kill at any moment leaves at most bytes past
the log's last ``end`` and a partial last line, both cut at the next append.

Stores written before packs (``data/<xx>/<hash>.json`` and ``.z``, one pair per entry) are read as
they are; an entry moves into its pack (its compressed frames copied, never compressed again) the
first time its home file changes, and its old files are removed then.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson
import zstandard

from ccreport.fs import atomic_write
from ccreport.source.storeio import Frame, FrameReader, StoreCorrupt, open_frames, read_range
from ccreport.source.storepack import PACKS, Pack, copy_frames, copy_pack, pack_key, pack_name

FORMAT = 1  # of index.json (unchanged by packs: an older store keeps its sessions' records)
MANIFEST = 2  # of a manifest: 2 in a pack's log, 1 in its own file (data/<xx>/<hash>.json)
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
    data: str  # its pack's data file (in packs/), or "data/<xx>/<file>" for an entry written before packs
    generations: list = field(default_factory=list)
    end: int = 0  # bytes of the data file in use when written; anything after is a killed write's leftover
    format: int = MANIFEST

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


def _full(exc: OSError, root: Path) -> None:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        raise StoreFull(exc.errno, f"no space left for the source store in {root}") from None


@dataclass
class _Written:
    """What one copy appended: its frames, and the hashes of the file's ends when the bytes read
    held them (saves reading them again)."""

    frames: list
    head: str | None = None  # sha256 of the first HEAD bytes (when the copy started at 0)
    tail: str | None = None  # sha256 of the last min(TAIL, size) bytes


class Store:
    """One store folder: ``index.json`` (relpath → [size, mtime_ns, inode] of what is kept, plus
    the session records of source.archive) and ``packs/`` (source/storepack.py)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._index: dict | None = None  # loaded on first use: reading an entry back needs only its pack
        self._saved: bytes | None = None
        self.problems: list[str] = []
        # The frame buffer and the compressor, made on the first copy: a Store that only reads (one
        # per session's home files, site.extras) zeroing 4 MiB cost 0.14 s of a 146 MB home's build.
        self._buf: bytearray | None = None
        self._comp: zstandard.ZstdCompressor | None = None
        self._packs: dict[str, Pack] = {}
        self._legacy = (self.root / "data").is_dir()  # entries written before packs
        self._stale: list[Path] = []  # their files, once moved into a pack: removed after the commit
        # The data file being appended to, left open while a sync stays in its pack (one open per
        # project, not per file); unbuffered, so its size on disk is always what was written.
        self._out: tuple[Pack, object] | None = None
        self.batching = False  # the log lines of a sync are appended together (commit)

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

    def _pack(self, relpath: str) -> Pack:
        key = pack_key(pack_name(relpath))
        pack = self._packs.get(key)
        if pack is None:
            pack = self._packs[key] = Pack.load(self.root / PACKS, key)
            self.problems.extend(pack.problems)
        return pack

    def _data(self, m: Manifest) -> Path:
        return self.root / (m.data if "/" in m.data else f"{PACKS}/{m.data}")

    def manifest(self, relpath: str) -> Manifest | None:
        pack = self._pack(relpath)
        m = pack.entries.get(relpath)
        if m is None:
            return self._legacy_manifest(relpath) if self._legacy else None
        if isinstance(m, dict):
            try:
                m = pack.entries[relpath] = Manifest.from_json(m)
            except (KeyError, TypeError) as exc:
                self.problems.append(f"store entry {relpath}: unreadable manifest ({exc}); copied again")
                return None
        return m if m.generations else None

    def _legacy_paths(self, relpath: str) -> tuple[Path, str]:
        h = hashlib.sha256(relpath.encode()).hexdigest()[:40]
        return self.root / "data" / h[:2], h

    def _legacy_manifest(self, relpath: str) -> Manifest | None:
        """An entry of a store written before packs: its own manifest file."""
        folder, h = self._legacy_paths(relpath)
        try:
            m = Manifest.from_json(orjson.loads((folder / f"{h}.json").read_bytes()))
        except FileNotFoundError:
            return None
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            self.problems.append(f"store entry {relpath}: unreadable manifest ({exc}); copied again")
            return None
        if m.relpath != relpath or not m.generations:
            return None
        return replace(m, data=f"data/{h[:2]}/{m.data}")

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
            _full(exc, self.root)
            if isinstance(exc, StoreCorrupt):
                raise
            self.problems.append(f"{src}: not archived: {exc.strerror or exc}")
            return "gone"
        return how

    def _keep_open(self, relpath: str, fh, st) -> str:
        pack = self._pack(relpath)
        self._check_pack(pack)
        m = legacy = self.manifest(relpath)
        if m is not None and m.data != pack.data:
            m = self._adopt(m, pack)
        else:
            legacy = None
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
            m = Manifest(relpath, pack.data)
        got = self._append(pack, fh, start) if how != "same" else _Written([], g.head, g.tail)
        total = start + sum(f[1] for f in got.frames)
        head_len, head, tail = self._new_ends(fh, total, got, g if how != "new" else None)
        gen = Generation(total, st.st_mtime_ns, st.st_ino, head_len, head, tail, time.time(),
                         (g.frames if how != "new" else []) + got.frames)
        if how == "new":
            m.generations.append(gen)
        else:
            m.generations[-1] = gen
        m.data, m.end = pack.data, pack.end
        pack.record(m)
        if legacy is not None and "/" in legacy.data:  # (its own files, written before packs)
            folder, h = self._legacy_paths(relpath)
            self._stale += [self._data(legacy), folder / f"{h}.json"]
        if not self.batching:
            self.commit()
        self.files[relpath] = [total, st.st_mtime_ns, st.st_ino]
        return how

    @staticmethod
    def _new_ends(fh, total: int, got: _Written, g: Generation | None) -> tuple[int, str, str]:
        """The ends' hashes of the new version: from the bytes just copied when they hold them (a
        grown file keeps its head once it is HEAD long), else read again."""
        head = got.head if got.head is not None else (g.head if g is not None and g.head_len == HEAD else None)
        if head is None or got.tail is None:
            return _ends(fh, total)
        return min(HEAD, total), head, got.tail

    def commit(self) -> None:
        """Close the data file written to, then append the manifests' lines, after the frames they name were written: a killed process
        never leaves a line naming frames it did not write. No fsync: a power cut may lose the last
        frames written (an fsync per append cost ~100 ms on a busy disk, and a sync(2) seconds on a
        cold build); a lost frame is found by its size or its hash, and only what is missing is
        copied again from the home (_check_pack)."""
        self._close()
        try:
            for pack in self._packs.values():
                pack.flush()
        except OSError as exc:
            _full(exc, self.root)
            raise
        for path in self._stale:  # entries moved into their pack: the lines naming them are written
            path.unlink(missing_ok=True)
        self._stale.clear()

    def _check_pack(self, pack: Pack) -> None:
        """A data file shorter than its log says (a power cut, a disk error): every entry is cut to
        its frames still whole (each version keeps its intact first frames; what is missing is
        copied again from the home), before anything is appended where the lost frames were."""
        try:
            size = os.stat(pack.data_path).st_size
        except OSError:
            size = 0
        if size >= pack.end:
            return
        cuts, end = [], 0
        for r in pack.live():
            m = self.manifest(r)
            cut = self._cut(m, size) if m is not None else None
            if cut is not m:
                self.files.pop(r, None)  # copied again when the home still has it
            cuts.append((r, cut, cut is not m))
            end = max([end] + [f[2] + f[3] for g in (cut.generations if cut else []) for f in g.frames])
        pack.end = end
        for r, cut, changed in cuts:
            if changed:
                pack.record(replace(cut, end=end) if cut else Manifest(r, pack.data, [], end))

    def _cut(self, m: Manifest, size: int) -> Manifest | None:
        """``m`` itself when its data file (``size`` bytes) holds every frame; else a manifest of
        the frames still whole, None when nothing is left."""
        if all(f[2] + f[3] <= size for g in m.generations for f in g.frames):
            return m
        gens = []
        for g in m.generations:
            frames = list(itertools.takewhile(lambda f: f[2] + f[3] <= size, g.frames))
            if frames and len(frames) < len(g.frames):
                total = frames[-1][0] + frames[-1][1]
                with open_frames(self._data(m), [Frame(*f) for f in frames], m.relpath) as fh:
                    head_len, head, tail = _ends(fh, total)
                g = Generation(total, g.mtime_ns, g.inode, head_len, head, tail, g.seen, frames)
            if frames:
                gens.append(g)
        self.problems.append(f"store entry {m.relpath}: its data file is truncated; what is missing is copied "
                             "again from the home" + (" (earlier versions were lost)" if len(gens) < len(m.generations) - 1
                                                      else ""))
        return replace(m, generations=gens) if gens else None

    def _adopt(self, m: Manifest, pack: Pack) -> Manifest | None:
        """Move an entry written before packs into its pack: its compressed frames are copied as
        they are (read back once, never compressed again); its old files go once the line naming
        the copies is written (_keep_open)."""
        src = self._data(m)
        try:
            size = os.stat(src).st_size
        except OSError:
            size = 0
        m = self._cut(m, size)
        if m is None:
            return None
        with open(src, "rb") as fin:
            m = copy_frames(m, fin, lambda blob: self._write(pack, blob))
        return replace(m, data=pack.data, end=pack.end)

    @staticmethod
    def _same_bytes(g: Generation, fh) -> bool:
        """Same size, other mtime: a touch, or a rewrite of the same length (every frame compared)."""
        for f in g.frames:
            fh.seek(f[0])
            if _sha(fh.read(f[1])) != f[4]:
                return False
        return True

    def _writer(self, pack: Pack):
        """The pack's data file, positioned at its end (a killed write's leftover cut)."""
        if self._out is not None and self._out[0] is pack:
            return self._out[1]
        self._close()
        if pack.end == 0:
            pack.folder.mkdir(parents=True, exist_ok=True)
            out = open(pack.data_path, "wb", buffering=0)
        else:
            out = open(pack.data_path, "r+b", buffering=0)
            out.truncate(pack.end)
            out.seek(pack.end)
        self._out = (pack, out)
        return out

    def _close(self) -> None:
        if self._out is not None:
            self._out[1].close()
            self._out = None

    def _write(self, pack: Pack, blob: bytes) -> int:
        """Append ``blob`` to the pack's data file; the offset it was written at. (On a failure the
        file is closed: the next write starts again from the pack's end, cutting what this one
        left.)"""
        out, at = self._writer(pack), pack.end
        try:
            view = memoryview(blob)
            while view:  # (a raw write may take only part of the bytes)
                view = view[out.write(view):]
        except BaseException:
            self._close()
            raise
        pack.end += len(blob)
        return at

    def _append(self, pack: Pack, fh, start: int) -> _Written:
        """Compress ``fh`` from ``start`` to its end into frames appended to the pack's data file
        (written before the log names them); one pass over the bytes: each buffer is hashed and
        compressed as it is read."""
        got = _Written([])
        if self._buf is None:
            self._buf, self._comp = bytearray(FRAME), zstandard.ZstdCompressor(level=_LEVEL)
        view = memoryview(self._buf)
        fh.seek(start)
        # One buffer for every frame: a new 4 MiB bytes per read was half the copy's system time
        # (page faults), more than compressing it.
        while n := fh.readinto(self._buf):
            chunk = view[:n]
            blob = self._comp.compress(chunk)
            got.frames.append([start, n, self._write(pack, blob), len(blob), _sha(chunk)])
            if start == 0:
                got.head = _sha(chunk[:HEAD])
            got.tail = _sha(chunk[max(0, n - TAIL):]) if n >= TAIL or start == 0 else None
            start += n
        if not self.batching:
            self._close()
        return got

    def open(self, relpath: str, generation: int = -1) -> FrameReader:
        """A buffered binary stream of one kept version (the newest by default), checked frame by
        frame as it is read (StoreCorrupt, an OSError, on a mismatch)."""
        m = self.manifest(relpath)
        if m is None:
            raise FileNotFoundError(errno.ENOENT, f"not in the store: {relpath}")
        return open_frames(self._data(m), [Frame(*f) for f in m.generations[generation].frames], relpath)

    def read_bytes(self, relpath: str, generation: int = -1) -> bytes:
        with self.open(relpath, generation) as fh:
            return fh.read()

    def check(self, relpath: str) -> str | None:
        """Why the entry does not read back as written (None when every frame of every version does)."""
        m = self.manifest(relpath)
        if m is None:
            return "no manifest"
        try:
            for g in m.generations:
                read_range(self._data(m), [Frame(*f) for f in g.frames], relpath)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None

    def drop(self, relpath: str) -> None:
        """Forget an entry (explicit deletes only: ccreport forget, build --prune-missing): its
        frames leave the pack's data file at the next save (storepack: compaction)."""
        pack = self._pack(relpath)
        if relpath in pack.entries:  # (an entry written before packs has only its own files to delete)
            pack.dropped = True
        self._remove(relpath)

    def reset(self, relpath: str) -> None:
        """Start an entry over (a corrupt one): its next copy goes into new frames."""
        self._remove(relpath)
        self.commit()

    def _remove(self, relpath: str) -> None:
        self.files.pop(relpath, None)
        pack = self._pack(relpath)
        if relpath in pack.entries:
            pack.record(Manifest(relpath, pack.data, [], pack.end))
        if self._legacy:
            folder, h = self._legacy_paths(relpath)
            m = self._legacy_manifest(relpath)
            self._stale += ([self._data(m)] if m else []) + [folder / f"{h}.json"]

    def save(self) -> None:
        """Write the pending lines, rewrite the logs that need it (storepack), then the index when
        it changed (last: an older index only costs a look at a manifest next time)."""
        self.commit()
        try:
            for pack in self._packs.values():
                if pack.needs_rewrite():
                    self._rewrite(pack)
            if self._index is None:
                return
            raw = orjson.dumps(self._index)
            if raw != self._saved:
                atomic_write(self.root / "index.json", raw)  # a hint: the manifests are the truth
                self._saved = raw
        except OSError as exc:
            _full(exc, self.root)
            raise

    def _rewrite(self, pack: Pack) -> None:
        """A pack's log with only its newest lines; after drops, a new data file with only the
        frames still named (a forgotten session's bytes go). Durable: the log that replaces the old
        one must not name frames a power cut could lose."""
        self._check_pack(pack)
        live = [m for r in pack.live() if (m := self.manifest(r)) is not None]
        data, old, end = pack.data, pack.data_path, pack.end
        if pack.dropped:
            data = f"{pack.key}.{int(pack.data.split('.')[1]) + 1}.z"
            live, end = copy_pack(live, old, pack.folder / data)
        lines = [orjson.dumps(replace(m, data=data, end=end)) + b"\n" for m in live]
        atomic_write(pack.log, b"".join(lines), durable=True)
        if data != pack.data:
            old.unlink(missing_ok=True)
        pack.entries = {m.relpath: replace(m, data=data, end=end) for m in live}
        pack.sizes = {m.relpath: len(line) for m, line in zip(live, lines)}
        pack.data, pack.end, pack.valid, pack.dropped = data, end, sum(map(len, lines)), False

