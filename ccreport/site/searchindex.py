"""The search index's shared files, merged in the main process from the sessions' UnitDeltas:
term shards (``search/t/``: term → postings per unit), blocks of frequent terms (``search/b/``),
unit metadata (``search/u/``) and the manifest. A shard is rewritten only when one of its terms
changed, a block only when its units' postings did. Why this shape: docs/search.md.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from array import array
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.layout import SEARCH_DIR, SEARCH_MANIFEST, search_block, search_shard, search_units
from ccreport.layout import session_url
from ccreport.site.search import DOCS_PER_CHUNK, SHARDS, SessionPart, UnitDelta, shard_of, unit_doc_files, unit_key
from ccreport.site.searchtext import SHIFT
from ccreport.site.write import Writer, remove

FORMAT = 2
BIG = 16_384  # characters of a term's postings above which they go into blocks (see _entry)
# A full build's postings held in the main process before a spill (Fresh). On a 1 GB home the main
# process peaked at 170 MB while sessions rendered (32 MB: 209 MB; without the index: 160 MB).
SPILL_BYTES = 4 << 20


def _load(out: Path, rel: str, head: bytes) -> object:
    try:
        raw = (out / rel).read_bytes()
        if raw.startswith(head) and raw.endswith(b");\n"):
            return orjson.loads(raw[len(head):-3])
    except (OSError, orjson.JSONDecodeError):
        pass
    return None


def _shard_head(n: int) -> bytes:
    return b"ccreportSearch.shard(" + str(n).encode() + b","


def _block_head(name: str) -> bytes:
    return b'ccreportSearch.block("' + name.encode() + b'",'


def _term_hash(term: str) -> str:
    return hashlib.sha1(term.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass
class _Out:
    """Where the update writes: the site, its writer, the deleted files' list and every index file
    this update produced (written or already identical)."""

    out: Path
    writer: Writer
    deleted: list
    keep: set = field(default_factory=set)

    def write(self, rel: str, data: bytes) -> None:
        self.keep.add(rel)
        self.writer.write(rel, data)

    def remove(self, rel: str) -> None:
        remove(self.out / rel, self.deleted)


@dataclass
class _Shard:
    """One shard being updated: the entries as read, and the terms opened (unit → postings)."""

    n: int
    entries: dict
    open: dict = field(default_factory=dict)

    def units(self, out: Path, term: str) -> dict:
        """The term's postings by unit (its blocks read when it has some)."""
        if term not in self.open:
            e = self.entries.get(term)
            flat: list = []
            if isinstance(e, list) and e and isinstance(e[0], int):  # [k, size, hash]: in blocks
                for b in range(1 << e[0]):
                    rel = search_block(e[2], e[0], b)
                    flat.extend(_load(out, rel, _block_head(rel.rsplit("/", 1)[1][:-3])) or [])
            elif isinstance(e, list):
                flat = e
            self.open[term] = dict(zip(flat[::2], flat[1::2]))
        return self.open[term]


def _splice(enc: str, cut: int, new: str) -> str:
    """A unit's postings of one term: those of documents before ``cut``, then ``new`` (which starts
    from document 0: its first step is re-based on the last document kept). Each posting's
    document is a step from the one before (docs/search.md)."""
    doc, keep = 0, []
    for p in (enc.split(",") if enc and cut > 0 else ()):
        step = int(p, 16) >> SHIFT
        if doc + step >= cut:
            break
        doc += step
        keep.append(p)
    if new:
        first, _, rest = new.partition(",")
        v = int(first, 16)
        keep.append(format((((v >> SHIFT) - doc) << SHIFT) | (v & ((1 << SHIFT) - 1)), "x"))
        if rest:
            keep.append(rest)
    return ",".join(keep)


def _entry(o: _Out, term: str, flat: list, old):
    """The shard entry of a term: its postings inline ([unit, postings, ...]), or when they are
    long, [k, size, hash] with the postings in 2^k blocks by the top k bits of the units' session (so an append
    rewrites one block, and a query on a frequent term loads blocks of ≤ ~BIG characters)."""
    size = sum(map(len, flat)) + 3 * len(flat)
    old_blocks = set()
    if isinstance(old, list) and old and isinstance(old[0], int):
        old_blocks = {search_block(old[2], old[0], b) for b in range(1 << old[0])}
    if size <= BIG:
        for rel in old_blocks:
            o.remove(rel)
        return flat or None
    k = min(8, (size // BIG).bit_length())
    h = _term_hash(term)
    groups: dict[int, list] = {}
    for i in range(0, len(flat), 2):
        groups.setdefault(int(flat[i][:8], 16) >> (32 - k), []).extend(flat[i:i + 2])
    new_blocks = set()
    for b in range(1 << k):
        rel = search_block(h, k, b)
        new_blocks.add(rel)
        o.write(rel, _block_head(f"{h}-{k}-{b}") + orjson.dumps(groups.get(b, [])) + b");\n")
    for rel in old_blocks - new_blocks:
        o.remove(rel)
    return [k, size, h]


def _touched(deltas: list[UnitDelta]) -> dict[int, list[tuple[UnitDelta, str]]]:
    by_shard: dict[int, list] = {}
    for d in deltas:
        for term in set(d.old_terms or ()) | set(d.postings):
            by_shard.setdefault(shard_of(term), []).append((d, term))
    return by_shard


def _update_shard(o: _Out, sh: _Shard, work: list, purge: set) -> None:
    if purge:
        for term in list(sh.entries):
            units = sh.units(o.out, term)
            for key in purge & set(units):
                del units[key]
    for d, term in work:
        units = sh.units(o.out, term)
        units[d.key] = _splice(units.get(d.key, ""), d.cut, d.postings.get(term, ""))
    for term in sorted(sh.open):
        units = sh.open[term]
        e = _entry(o, term, [x for u in sorted(units) if units[u] for x in (u, units[u])], sh.entries.get(term))
        if e is None:
            sh.entries.pop(term, None)
        else:
            sh.entries[term] = e
    rel = search_shard(sh.n)
    if sh.entries:
        body = orjson.dumps({t: sh.entries[t] for t in sorted(sh.entries)})
        o.write(rel, _shard_head(sh.n) + body + b");\n")
    else:
        o.remove(rel)


def update_terms(out: Path, writer: Writer, deltas: list[UnitDelta], purge: set, fresh: Fresh | None,
                 deleted: list) -> None:
    """Merge the deltas into the shards (``fresh``: a full build's, gathered already: none is read,
    every one is written anew; the units in ``purge`` and those of deltas whose old terms are
    unknown are taken out of all)."""
    o = _Out(out, writer, deleted)
    if fresh:
        fresh.write(o)
    purge = set(purge) | {d.key for d in deltas if d.old_terms is None}
    by_shard = {} if fresh else _touched(deltas)
    visit = set(by_shard)
    if purge and not fresh:
        visit |= {int(name[:-3], 16) for name in _names(out / SEARCH_DIR / "t") if name.endswith(".js")}
    for n in sorted(visit):
        entries = {} if fresh else (_load(out, search_shard(n), _shard_head(n)) or {})
        _update_shard(o, _Shard(n, entries), by_shard.get(n, []), set() if fresh else purge)
    if fresh:  # shards and blocks from an earlier build that this one did not produce
        for sub in ("t", "b"):
            for name in _names(out / SEARCH_DIR / sub):
                if f"{SEARCH_DIR}/{sub}/{name}" not in o.keep:
                    o.remove(f"{SEARCH_DIR}/{sub}/{name}")


class Fresh:
    """A full build's shards, gathered as each session's SessionPart arrives (while the workers
    still render others) and written at the end: no shard is read. Parts are kept as the bytes the
    workers made, by shard; past ``budget`` bytes they go to a spill file (one run: every shard's
    bytes in shard order), so that the main process never holds a big home's postings."""

    def __init__(self, spill_dir: Path, budget: int | None = None) -> None:
        self.spill_dir, self.budget = spill_dir, SPILL_BYTES if budget is None else budget
        self.pending: list[list[bytes]] = [[] for _ in range(SHARDS)]  # shard → fragments not spilled
        self.size = 0  # bytes in pending
        self.runs: list[array] = []  # spilled runs: shard n's bytes from runs[i][n] to runs[i][n + 1]
        self.spill = None  # the spill file (anonymous: gone when closed, or when the process ends)
        self.counts: dict[str, int] = {}  # unit → documents (prune_docs)

    def add(self, part: SessionPart) -> None:
        self.counts.update(part.counts)
        for n, fragment in part.fragments:
            self.pending[n].append(fragment)
            self.size += len(fragment)
        if self.size > self.budget:
            self._spill()

    def _spill(self) -> None:
        if self.spill is None:
            self.spill_dir.mkdir(parents=True, exist_ok=True)
            self.spill = tempfile.TemporaryFile(dir=self.spill_dir)
        run = array("Q", [self.spill.seek(0, os.SEEK_END)])
        for n in range(SHARDS):
            self.spill.write(b",".join(self.pending[n]))
            run.append(self.spill.tell())
        self.runs.append(run)
        self.pending, self.size = [[] for _ in range(SHARDS)], 0

    def _sessions(self, n: int) -> list:
        """Shard n's fragments: [[term, [unit, postings, …], …] of each session]."""
        pieces = []
        for run in self.runs:
            if run[n + 1] > run[n]:
                self.spill.seek(run[n])
                pieces.append(self.spill.read(run[n + 1] - run[n]))
        pieces.extend(self.pending[n])
        return orjson.loads(b"[" + b",".join(pieces) + b"]") if pieces else []

    def write(self, o: _Out) -> None:
        if self.spill is not None:
            self.spill.flush()
        try:
            for n in range(SHARDS):
                sessions = self._sessions(n)
                self.pending[n] = []
                if sessions:
                    entries = _merged(sessions)
                    for term, flat in entries.items():
                        if sum(map(len, flat)) + 3 * len(flat) > BIG:
                            entries[term] = _entry(o, term, flat, None)
                    o.write(search_shard(n), _shard_head(n) + orjson.dumps({t: entries[t] for t in sorted(entries)}) + b");\n")
        finally:
            if self.spill is not None:
                self.spill.close()


def _merged(sessions: list) -> dict[str, list]:
    """term → [unit, postings, …] in unit order, from the sessions' fragments of one shard. A
    session's units share its key's first 8 digits: sessions in that order give units in order
    (two sessions with the same 8, a 1-in-4-billion chance per pair, are sorted unit by unit)."""
    sessions.sort(key=_first_unit)
    merged: dict[str, list] = defaultdict(list)
    for flat in sessions:
        deque(map(list.extend, map(merged.__getitem__, flat[::2]), flat[1::2]), 0)
    prefixes = [s[1][0][:8] for s in sessions]
    if len(set(prefixes)) < len(prefixes):
        for term, flat in merged.items():
            merged[term] = [x for pair in sorted(zip(flat[::2], flat[1::2])) for x in pair]
    return merged


def _first_unit(fragment: list) -> str:
    return fragment[1][0]


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def drop_units(out: Path, keys: set, deleted: list) -> None:
    """The document scripts of units that are gone (their postings: update_terms)."""
    for key in keys:
        for p in unit_doc_files(out, key):
            remove(p, deleted)


def prune_docs(out: Path, fresh: Fresh, deleted: list) -> None:
    """After a full build: document scripts no unit of this build has (an earlier site's)."""
    for name in _names(out / SEARCH_DIR):  # an earlier layout's scripts and folders
        if name not in ("manifest.js", "t", "b", "d", "u"):
            path = out / SEARCH_DIR / name
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else remove(path, deleted)
    chunks = {key: -(-n // DOCS_PER_CHUNK) for key, n in fresh.counts.items()}
    folder = out / SEARCH_DIR / "d"
    for name in _names(folder):
        key, _, rest = name.partition("-")
        if not (rest[:-3].isdigit() and int(rest[:-3]) < chunks.get(key, 0)):
            remove(folder / name, deleted)


def unit_keys(sessions: dict) -> dict[str, tuple]:
    """{unit key: (project, session id, transcript id)} of the sessions' transcripts."""
    return {unit_key(p, sid, tid): (p, sid, tid) for (p, sid), st in sessions.items() for tid in st.transcripts}


def write_meta(writer: Writer, sessions: dict, catalog_projects: list, titles: dict, deleted: list) -> None:
    """Unit metadata by key prefix, and the manifest (the projects: changes only when they do)."""
    groups: dict[str, dict] = {}
    for (p, sid), st in sessions.items():
        url = session_url(p, sid) + "/"
        for tid, t in st.transcripts.items():
            label = "" if tid == "main" else (t.summary.description or t.summary.agent_type or t.summary.label or tid)
            key = unit_key(p, sid, tid)
            groups.setdefault(key[:2], {})[key] = [url, st.info.title or sid, p, sid, label,
                                                   st.info.first_ts or "", st.info.last_ts or ""]
    for prefix in (f"{i:02x}" for i in range(256)):
        rel = search_units(prefix)
        if prefix in groups:
            g = groups[prefix]
            writer.write(rel, b"ccreportSearch.units(" + orjson.dumps({k: g[k] for k in sorted(g)}) + b");\n")
        elif (writer.out / rel).exists():
            remove(writer.out / rel, deleted)
    projects = [{"dir": p, "title": titles.get(p, p)} for p in catalog_projects]
    manifest = {"format": FORMAT, "shards": SHARDS, "chunk": DOCS_PER_CHUNK, "projects": projects}
    writer.write(SEARCH_MANIFEST, b"ccreportSearch.manifest(" + orjson.dumps(manifest) + b");\n")
