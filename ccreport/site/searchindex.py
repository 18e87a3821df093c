"""The search index's shared files, made in the main process from the sessions' UnitDeltas:
term shards (``search/t/``: term → postings per unit), blocks of frequent terms (``search/b/``),
unit metadata (``search/u/``) and the manifest. A full build writes the shards here (Fresh); an
incremental build puts its changes in the pending delta and merges them now and then
(site.searchdelta); both write the shard and block scripts through site.searchfiles. Why this
shape: docs/search.md.
"""

from __future__ import annotations

import shutil
import tempfile
from array import array
from collections import defaultdict, deque
from itertools import compress, repeat
from operator import add, getitem, itemgetter, lt, mul, sub
from pathlib import Path

import orjson

from ccreport.layout import SEARCH_DELTA, SEARCH_DIR, SEARCH_MANIFEST, search_shard, search_units
from ccreport.layout import session_url
from ccreport.site.search import DOCS_PER_CHUNK, SHARDS, SPILL_PREFIX, SessionPart, UnitSpill, run_pieces
from ccreport.site.search import deflated, inflated, unit_key, write_run
from ccreport.site.searchdocs import DocFiles
from ccreport.site import searchfiles
from ccreport.site.searchfiles import EMPTY_DELTA, IndexOut, entry, names, shard_script
from ccreport.site.write import Writer, remove

# 3: the pending delta (search/delta.js); 4: whole texts, is:error, models in unit metadata; 5: document
# files shared by units (layout.search_docs)
FORMAT = 5
# A full build's postings held in the main process before a spill (Fresh). On a 1 GB home the main
# process peaked at 170 MB while sessions rendered (32 MB: 209 MB; without the index: 160 MB).
SPILL_BYTES = 4 << 20


def write_fresh(out: Path, writer: Writer, fresh: Fresh, deleted: list) -> None:
    """A full build's term index: every shard written anew (none is read), an empty delta
    (site.searchdelta), and the shards and blocks of an earlier build that this one did not
    produce removed."""
    o = IndexOut(out, writer, deleted)
    fresh.docs.write(out, writer, deleted, fresh=True)
    try:
        fresh.write(o)
    finally:
        fresh.close()
    end_fresh(o)


def end_fresh(o: IndexOut) -> None:
    """Once every shard is written (by this process or two: site.searchsplit): the empty delta,
    and the shards and blocks of an earlier build that this one did not produce removed."""
    out = o.out
    o.write(SEARCH_DELTA, EMPTY_DELTA)
    for folder in ("t", "b"):
        for name in names(out / SEARCH_DIR / folder):
            if f"{SEARCH_DIR}/{folder}/{name}" not in o.keep:
                o.remove(f"{SEARCH_DIR}/{folder}/{name}")


class Fresh:
    """A full build's shards, gathered as each session's SessionPart arrives (while the workers
    still render others) and written at the end: no shard is read. Parts are kept as the bytes the
    workers made, by shard; past ``budget`` bytes they go to a spill file (one run: every shard's
    bytes in shard order), so that the main process never holds a big home's postings. A huge
    unit's postings come as the worker's spill file (UnitSpill), taken over here: read shard by
    shard when written, removed then (``close``: also those of sessions that failed)."""

    def __init__(self, spill_dir: Path, budget: int | None = None) -> None:
        self.spill_dir, self.budget = spill_dir, SPILL_BYTES if budget is None else budget
        self.pending: list[list[bytes]] = [[] for _ in range(SHARDS)]  # shard → fragments not spilled
        self.size = 0  # bytes in pending
        self.runs: list[array] = []  # spilled runs: shard n's bytes from runs[i][n] to runs[i][n + 1]
        self.spill = None  # the spill file (anonymous: gone when closed, or when the process ends)
        self.counts: dict[str, int] = {}  # unit → documents (prune_docs)
        self.unit_spills: list[UnitSpill] = []  # the huge units' files, taken over from the workers
        self.docs = DocFiles(spill_dir)  # every unit's packed document chunks (in a spill file)
        self.close()  # the spill files a killed build left

    def add(self, part: SessionPart) -> None:
        self.counts.update(part.counts)
        self.unit_spills.extend(part.spills)
        for spill in part.spills:
            for chunk, offset, length in spill.docs:
                self.docs.add(spill.key, chunk, (spill.path, offset, length))
        for key, chunk, packed in part.docs:
            self.docs.add(key, chunk, packed)
        for n, fragment in part.fragments:
            # A copy of the fragment's bytes: orjson.dumps returns bytes that keep a ~4 KB buffer
            # whatever their length, and a --jobs 1 build (no pickling in between) held tens of
            # thousands of them: 300 MB of RSS for a 40 MB home.
            self.pending[n].append(bytes(memoryview(fragment)))
            self.size += len(fragment)
        if self.size > self.budget:
            self._spill()

    def _spill(self) -> None:
        if self.spill is None:
            self.spill_dir.mkdir(parents=True, exist_ok=True)
            self.spill = tempfile.TemporaryFile(dir=self.spill_dir)
        self.runs.append(write_run(self.spill, lambda n: b",".join(self.pending[n])))
        self.pending, self.size = [[] for _ in range(SHARDS)], 0

    def _sessions(self, n: int) -> list:
        """Shard n's fragments: [[term, [unit, postings, …], …] of each session]."""
        pieces = run_pieces(self.spill, self.runs, n) + self.pending[n]
        return orjson.loads(b"[" + b",".join(pieces) + b"]") if pieces else []

    def shard_bytes(self) -> list[int]:
        """Each shard's bytes gathered: in memory, spilled, and in the huge units' own files."""
        sizes = [sum(map(len, pieces)) for pieces in self.pending]
        for run in self.runs + [run for spill in self.unit_spills for run in spill.runs]:
            sizes = list(map(add, sizes, map(sub, run[1:], run[:-1])))
        return sizes

    def flush(self) -> None:
        """What is buffered of the spill files, into them (before a fork: site.searchsplit)."""
        for f in (self.spill, self.docs.spill):
            if f is not None:
                f.flush()

    def write(self, o: IndexOut, shards=range(SHARDS)) -> None:
        """The ``shards`` (numbers; their order is free) written. The spill files stay (close):
        a forked process may write the others (site.searchsplit)."""
        self.flush()
        units = []
        try:
            for spill in self.unit_spills:
                units.append((spill, open(spill.path, "rb")))
            for n in shards:
                sessions = self._sessions(n)
                self.pending[n] = []
                if sessions:
                    entries = _merged(sessions)
                    for spill, f in units:
                        _fill(entries, spill, n, f)
                    for term in _big(entries):
                        entries[term] = entry(o, term, entries[term], None)
                    o.write(search_shard(n), shard_script(n, entries))
        finally:
            for _, f in units:
                f.close()

    def close(self) -> None:
        """The spill files go: this process's and the workers' (every one in the folder: a build
        holds the site's lock, so they are this build's, or a killed one's)."""
        if self.spill is not None:
            self.spill.close()
        for name in names(self.spill_dir):
            if name.startswith(SPILL_PREFIX):
                remove(self.spill_dir / name, [])
        self.unit_spills = []


def _fill(entries: dict[str, list], spill: UnitSpill, n: int, f) -> None:
    """A spilled unit's postings in shard n, put in its places in ``entries`` (its session's
    fragment holds "" there): each term's runs joined in run order."""
    runs: dict[str, list] = defaultdict(list)
    for flat in orjson.loads(b"[" + b",".join(run_pieces(f, spill.runs, n)) + b"]"):
        deque(map(list.append, map(runs.__getitem__, flat[::2]), flat[1::2]), 0)
    for term, postings in runs.items():
        flat = entries[term]
        i = flat.index(spill.key)
        while i % 2:  # (a postings string equal to the unit's key)
            i = flat.index(spill.key, i + 1)
        flat[i + 1] = ",".join(postings)


def _merged(sessions: list) -> dict[str, list]:
    """term → [unit, postings, …] in unit order, from the sessions' fragments of one shard. A
    session's units share its key's first 8 digits: sessions in that order give units in order
    (two sessions with the same 8, a 1-in-4-billion chance per pair, are sorted unit by unit)."""
    # (by their first term's [unit, postings, …]: no two sessions share a unit, so their first
    # units decide, compared in C)
    sessions.sort(key=itemgetter(1))
    merged: dict[str, list] = defaultdict(list)
    for flat in sessions:
        deque(map(list.extend, map(merged.__getitem__, flat[::2]), flat[1::2]), 0)
    firsts = map(itemgetter(0), map(itemgetter(1), sessions))
    if len(set(map(getitem, firsts, repeat(slice(0, 8))))) < len(sessions):
        for term, flat in merged.items():
            merged[term] = [x for pair in sorted(zip(flat[::2], flat[1::2])) for x in pair]
    return merged


def _big(entries: dict[str, list]) -> list[str]:
    """The terms whose postings go to blocks (entry's own test, made here in C: the many small
    terms cost no call): characters of [unit, postings, …] + 3 each past searchfiles.BIG."""
    flats = entries.values()
    sizes = map(add, map(sum, map(map, repeat(len), flats)), map(mul, map(len, flats), repeat(3)))
    return list(compress(entries, map(lt, repeat(searchfiles.BIG), sizes)))


def write_docs(out: Path, writer: Writer, deltas: list, gone: set, deleted: list) -> None:
    """An incremental build's document chunks (its units', and those of units that are gone
    taken out) written into their shared files."""
    docs = DocFiles()
    for key in sorted(gone):
        docs.drop(out, key)
    for d in deltas:
        docs.add_unit(d)
    docs.write(out, writer, deleted)


def prune_docs(out: Path, deleted: list) -> None:
    """After a full build: an earlier layout's scripts and folders in search/ (the document files
    no unit has any more: DocFiles.write)."""
    for name in names(out / SEARCH_DIR):
        if name not in ("manifest.js", "delta.js", "t", "b", "d", "u"):
            path = out / SEARCH_DIR / name
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else remove(path, deleted)


def unit_keys(sessions: dict) -> dict[str, tuple]:
    """{unit key: (project, session id, transcript id)} of the sessions' transcripts."""
    return {unit_key(p, sid, tid): (p, sid, tid) for (p, sid), st in sessions.items() for tid in st.transcripts}


# Unit metadata goes to 16 files by the first hex digit of the key (256 before: a filter alone reads
# them all, and each file costs the build a create; 16 of a 300 MB home's are ~30 KB each).
UNIT_FILES = tuple(f"{i:x}" for i in range(16))


def units_script(prefix: str, units: dict) -> bytes:
    """A metadata file: its units' metadata in key order, deflated (a quarter of the bytes a query loads)."""
    return b'ccreportSearch.units("' + prefix.encode() + b'","' + deflated(units, orjson.OPT_SORT_KEYS).encode("ascii") + b'");\n'


def read_units(out: Path, prefix: str) -> dict:
    """The units of a metadata file as written ({}: none)."""
    try:
        raw = (out / search_units(prefix)).read_bytes()
    except OSError:
        return {}
    head = b'ccreportSearch.units("' + prefix.encode() + b'","'
    return (inflated(raw[len(head):-4], dict) if raw.startswith(head) and raw.endswith(b'");\n') else None) or {}


def units_file(key: str) -> str:
    """The metadata file (search/u/<x>.js) of a unit key."""
    return key[:1]


def _models(info) -> list[str]:
    """The models a session's answers came from (the model: filter)."""
    return sorted(m for m in ((info.usage_report or {}).get("by_model") or {}) if not m.startswith("("))


def write_meta(writer: Writer, sessions: dict, catalog_projects: list, titles: dict, deleted: list,
               only: set | None = None) -> None:
    """Unit metadata by key prefix (``only``: the prefixes whose units changed; None: all), and the
    manifest (the projects: changes only when they do)."""
    groups: dict[str, dict] = {}
    for (p, sid), st in sessions.items():
        url = None  # (made for a session with a unit to write only: an append writes one file of 16)
        for tid, t in st.transcripts.items():
            key = unit_key(p, sid, tid)
            if only is not None and units_file(key) not in only:
                continue
            url = url or session_url(p, sid) + "/"
            label = "" if tid == "main" else (t.summary.description or t.summary.agent_type or t.summary.label or tid)
            groups.setdefault(units_file(key), {})[key] = [url, st.info.title or sid, p, sid, label,
                                                   st.info.first_ts or "", st.info.last_ts or "", _models(st.info)]
    for prefix in UNIT_FILES:
        rel = search_units(prefix)
        if only is not None and prefix not in only:
            continue
        if prefix in groups:
            writer.write(rel, units_script(prefix, groups[prefix]))
        else:
            remove(writer.out / rel, deleted)
    projects = [{"dir": p, "title": titles.get(p, p)} for p in catalog_projects]
    manifest = {"format": FORMAT, "shards": SHARDS, "chunk": DOCS_PER_CHUNK, "projects": projects}
    writer.write(SEARCH_MANIFEST, b"ccreportSearch.manifest(" + orjson.dumps(manifest) + b");\n")
