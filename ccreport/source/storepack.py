"""The packs of the source store (docs/archive.md): every entry of one project (and of one top folder
of the home: history.jsonl, plans/, todos/, file-history/ …) shares one append-only data file of
zstandard frames and one append-only log of manifests.

A store with one data file and one manifest per home file created two files per home file, and on
the busy benchmark disk creating them cost more than compressing the bytes (a cold copy of a 146 MB
home: ~1,400 files). A pack creates two files per project.

``<key>.log`` holds one JSON line per change of an entry: its whole manifest (store.Manifest), and
``end``, the bytes of the data file in use after that change. The newest line of a relpath wins; a
manifest with no generations is a removed entry. A line is appended only after the frames it names
were written, so a kill leaves at most a partial last line (ignored, cut at the next append) and
bytes past the last ``end`` (cut at the next append). The log is rewritten whole (atomically) only
when it has grown to several times what its newest lines need, or when entries were dropped
(``compact``: the data file is copied without their frames, so a forgotten session's bytes go).
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson

from ccreport.fs import append_at

PACKS = "packs"
# The log is rewritten when it holds this many times the bytes its newest lines need, plus a floor:
# an entry appended to under `watch` adds a whole manifest per change (14 KB for a 500 MB session),
# and a rewrite is fsynced (~100 ms on a busy disk), so it comes once every ~70 such appends.
_LOG_SLACK, _LOG_FLOOR = 4, 1 << 20


def pack_name(relpath: str) -> str:
    """The pack an entry belongs to: ``projects/<folder>`` for a project's files, else the first
    part of the path (one pack for history.jsonl, one for plans/, …)."""
    parts = relpath.split("/", 2)
    return "/".join(parts[:2]) if parts[0] == "projects" and len(parts) > 2 else parts[0]


@functools.lru_cache(maxsize=4096)  # (asked once per file kept)
def pack_key(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:24]


@dataclass
class Pack:
    """One pack as its log last said, plus the lines not yet appended (``pending``)."""

    folder: Path  # STORE/packs
    key: str
    # relpath → its newest manifest: the dict of its line (parsed into a store.Manifest when used)
    entries: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)  # relpath → bytes of its newest line
    data: str = ""  # the data file in use (its name in ``folder``)
    end: int = 0  # bytes of it the lines name; anything after is a killed write's leftover
    valid: int = 0  # bytes of the log that are whole lines
    pending: list = field(default_factory=list)  # lines of changes made since the last flush
    dropped: bool = False  # entries were removed: their frames go at the next compaction
    problems: list = field(default_factory=list)

    @property
    def log(self) -> Path:
        return self.folder / f"{self.key}.log"

    @property
    def data_path(self) -> Path:
        return self.folder / self.data

    @classmethod
    def load(cls, folder: Path, key: str) -> "Pack":
        pack = cls(folder, key, data=f"{key}.0.z")
        try:
            raw = (folder / f"{key}.log").read_bytes()
        except FileNotFoundError:
            return pack
        pack.valid = raw.rfind(b"\n") + 1  # a line cut by a kill has no newline: ignored
        at = 0
        while at < pack.valid:
            nl = raw.index(b"\n", at)
            try:
                d = orjson.loads(raw[at:nl])
                relpath, data, end = d["relpath"], d["data"], d["end"]
            except (orjson.JSONDecodeError, KeyError, TypeError):
                pack.problems.append(f"store pack {key}.log: line at byte {at} unreadable; skipped")
            else:
                pack.entries[relpath], pack.sizes[relpath] = d, nl + 1 - at
                pack.data, pack.end = data, end
            at = nl + 1
        return pack

    def record(self, manifest) -> None:
        """A change of one entry (a store.Manifest), appended at the next ``flush``."""
        line = orjson.dumps(manifest) + b"\n"
        self.entries[manifest.relpath] = manifest
        self.sizes[manifest.relpath] = len(line)
        self.pending.append(line)

    def flush(self) -> None:
        """Append the pending lines (after the frames they name were written)."""
        if not self.pending:
            return
        raw = b"".join(self.pending)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.valid = append_at(self.log, self.valid, raw)  # (a killed append's partial line cut off)
        self.pending.clear()

    def needs_rewrite(self) -> bool:
        return self.dropped or self.valid > _LOG_SLACK * sum(self.sizes.values()) + _LOG_FLOOR

    def live(self) -> list[str]:
        """The relpaths of the entries not removed."""
        return [r for r, m in self.entries.items() if (m["generations"] if isinstance(m, dict) else m.generations)]


def copy_frames(m, fin, write):
    """``m`` (a store.Manifest) naming copies of its frames, read from ``fin`` and written as they are by ``write``
    (which returns where each went): no decompression, no compression."""
    gens = []
    for g in m.generations:
        frames = []
        for f in g.frames:
            fin.seek(f[2])
            frames.append([f[0], f[1], write(fin.read(f[3])), f[3], f[4]])
        gens.append(replace(g, frames=frames))
    return replace(m, generations=gens)


def copy_pack(live: list, src: Path, dest: Path) -> tuple[list, int]:
    """The frames of ``live`` copied into a new data file, fsynced before a log names it."""
    moved = []
    try:
        with open(dest, "wb") as out:
            if live:
                with open(src, "rb") as fin:
                    moved = [copy_frames(m, fin, lambda blob: _put(out, blob)) for m in live]
            out.flush()
            os.fsync(out.fileno())
            end = out.tell()
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return moved, end


def _put(out, blob: bytes) -> int:
    at = out.tell()
    out.write(blob)
    return at
