"""The incremental side of the search index: an append's postings go into one small pending delta
(``search/delta.js``) instead of being spliced into the term shards, and the delta is merged into
the shards when what earlier builds left there passes DELTA_MAX bytes (or when a unit is taken out). An append then writes one
file of bounded size, whatever the archive's size; the page applies the delta to every term it
reads (assets/search.js, docs/search.md).

The delta holds, per unit it changed, a *cut* (the first document replaced: the page drops the
shards' postings of that unit from there on) and, per term, the unit's postings from the cut on
(first step from document 0, like a UnitDelta's). ``shards`` names the shards whose postings of a
cut unit a merge must take out (the terms the replaced documents had); null when not known (a
transcript read again from line 1): the merge then looks at every shard.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.layout import SEARCH_DELTA, SEARCH_DIR, search_block, search_shard
from ccreport.site.search import UnitDelta, shard_of
from ccreport.site.searchfiles import EMPTY_DELTA, IndexOut, block_head, entry, in_blocks, load_script, names
from ccreport.site.searchfiles import read_shard, shard_script
from ccreport.site.searchtext import SHIFT
from ccreport.site.write import Writer

DELTA_MAX = 256 * 1024  # bytes of delta.js above which it is merged into the shards (a query loads it whole)
HEAD = b"ccreportSearch.delta("


@dataclass
class Pending:
    """The delta as read from (and written to) search/delta.js."""

    cuts: dict = field(default_factory=dict)  # unit → first document replaced
    terms: dict = field(default_factory=dict)  # term → {unit: postings from the unit's cut on}
    shards: set | None = field(default_factory=set)  # shards a merge must open for the cuts (None: all)
    by_unit: dict = field(default_factory=dict)  # unit → terms holding its postings here

    @classmethod
    def read(cls, out: Path) -> Pending:
        data = load_script(out, SEARCH_DELTA, HEAD)
        if not isinstance(data, dict):
            return cls()
        p = cls(dict(data.get("cuts") or {}), {}, None if data.get("shards") is None else set(data["shards"]))
        for term, flat in (data.get("terms") or {}).items():
            p.terms[term] = dict(zip(flat[::2], flat[1::2]))
            for unit in flat[::2]:
                p.by_unit.setdefault(unit, set()).add(term)
        return p

    def add(self, d: UnitDelta) -> None:
        """Documents of ``d.key`` from ``d.cut`` on are replaced by ``d.postings``: the unit's
        postings here before the cut stay, the base's from the cut on no longer count."""
        old_cut = self.cuts.get(d.key)
        self.cuts[d.key] = d.cut if old_cut is None else min(old_cut, d.cut)
        if d.old_terms is None:
            self.shards = None
        elif self.shards is not None:
            self.shards.update(shard_of(t) for t in d.old_terms)
        mine = self.by_unit.setdefault(d.key, set())
        for term in mine | set(d.postings):
            units = self.terms.setdefault(term, {})
            enc = splice(units.get(d.key, ""), d.cut, d.postings.get(term, ""))
            if enc:
                units[d.key] = enc
                mine.add(term)
            else:
                units.pop(d.key, None)
                mine.discard(term)
                if not units:
                    del self.terms[term]

    def script(self) -> bytes:
        body = {"cuts": {u: self.cuts[u] for u in sorted(self.cuts)},
                "terms": {t: [x for u in sorted(us) for x in (u, us[u])] for t, us in sorted(self.terms.items())},
                "shards": None if self.shards is None else sorted(self.shards)}
        return HEAD + orjson.dumps(body) + b");\n"


def splice(enc: str, cut: int, new: str) -> str:
    """A unit's postings of one term: those of documents before ``cut``, then ``new`` (which starts
    from document 0: its first step is re-based on the last document kept). Each posting's
    document is a step from the one before (docs/search.md)."""
    doc, keep = 0, 0
    parts = enc.split(",") if enc and cut > 0 else ()
    for p in parts:
        step = int(p, 16) >> SHIFT
        if doc + step >= cut:
            break
        doc += step
        keep += 1
    out = ",".join(parts[:keep]) if keep < len(parts) else enc if parts else ""
    if new:
        first, _, rest = new.partition(",")
        v = int(first, 16)
        head = format((((v >> SHIFT) - doc) << SHIFT) | (v & ((1 << SHIFT) - 1)), "x")
        out = ",".join(x for x in (out, head, rest) if x)
    return out


# Per process: the delta this process last wrote, with the file's stat then (a follower's next append
# takes it instead of reading and decoding the file again; a file written since is read).
_HELD: dict[Path, tuple] = {}


def _stat(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _pending(out: Path) -> Pending:
    path = out / SEARCH_DELTA
    held = _HELD.pop(path, None)  # (taken: an update that fails after changing it leaves nothing held)
    if held is not None and held[0] == _stat(path):
        return held[1]
    return Pending.read(out)


def update(out: Path, writer: Writer, deltas: list[UnitDelta], purge: set, deleted: list) -> None:
    """An incremental build's changes to the term index: into the delta, merged into the shards
    when it passes DELTA_MAX or when units are taken out (``purge``: gone sessions, rare). Units
    whose documents are the same as before (``same``: a page rendered again) change nothing, so
    a build with no change writes no index file."""
    deltas = [d for d in deltas if not d.same]
    if not deltas and not purge:
        return
    pending = _pending(out)
    for d in deltas:
        pending.add(d)
    script = pending.script()
    # What this build adds does not count: a session whose last page carries megabytes of tool
    # output re-reads that page on every append, and its postings alone passed the bound, so every
    # append merged (17 index files on the 300 MB home's largest session). The delta is merged when
    # what earlier builds left there passes the bound; a query loads at most that plus one update.
    if len(script) - _own(deltas) > DELTA_MAX or purge:
        merge(IndexOut(out, writer, deleted), pending, purge)
        script = EMPTY_DELTA
    writer.write(SEARCH_DELTA, script)
    if script is not EMPTY_DELTA:
        _HELD.clear()
        _HELD[out / SEARCH_DELTA] = (_stat(out / SEARCH_DELTA), pending)


def _own(deltas: list[UnitDelta]) -> int:
    """The bytes the deltas alone would take in delta.js (their postings, cuts and shards)."""
    alone = Pending()
    for d in deltas:
        alone.add(d)
    return len(alone.script()) - len(EMPTY_DELTA)


def merge(o: IndexOut, pending: Pending, purge: set) -> None:
    """Splice the delta into the term shards (and the blocks of frequent terms): every shard
    holding a term of the delta, or a base posting of a unit at or after its cut, is rewritten."""
    cuts = dict(pending.cuts)
    for unit in purge:
        cuts[unit] = 0
        for term in pending.by_unit.get(unit, ()):
            pending.terms[term].pop(unit, None)
    by_shard: dict[int, list] = {}
    for term in pending.terms:
        by_shard.setdefault(shard_of(term), []).append(term)
    if pending.shards is None or purge:
        visit = {int(name[:-3], 16) for name in names(o.out / SEARCH_DIR / "t") if name.endswith(".js")}
    else:
        visit = set(pending.shards)
    for n in sorted(visit | set(by_shard)):
        sh = _Shard(n, read_shard(o.out, n) or {})
        cut_terms = [t for t in sh.entries if sh.holds(o.out, t, cuts)]
        for term in dict.fromkeys(cut_terms + by_shard.get(n, [])):
            units = sh.units(o.out, term)
            changes = pending.terms.get(term, {})
            for unit in (cuts.keys() & units.keys()) | changes.keys():
                units[unit] = splice(units.get(unit, ""), cuts[unit], changes.get(unit, ""))
        _write_shard(o, sh)


@dataclass
class _Shard:
    """One shard being merged: the entries as read, and the terms opened (unit → postings)."""

    n: int
    entries: dict
    open: dict = field(default_factory=dict)

    def units(self, out: Path, term: str) -> dict:
        """The term's postings by unit (its blocks read when it has some)."""
        if term not in self.open:
            e = self.entries.get(term)
            flat: list = []
            if in_blocks(e):
                for b in range(1 << e[0]):
                    flat.extend(_block(out, e, b))
            elif isinstance(e, list):
                flat = e
            self.open[term] = dict(zip(flat[::2], flat[1::2]))
        return self.open[term]

    def holds(self, out: Path, term: str, cuts: dict) -> bool:
        """Whether the term's base postings include a unit the delta cuts (for a frequent term,
        only the blocks those units fall in are read)."""
        e = self.entries[term]
        if not in_blocks(e):
            return any(unit in cuts for unit in e[::2])
        blocks = {int(unit[:8], 16) >> (32 - e[0]) for unit in cuts}
        return any(unit in cuts for b in blocks for unit in _block(out, e, b)[::2])


def _block(out: Path, e: list, b: int) -> list:
    rel = search_block(e[2], e[0], b)
    return load_script(out, rel, block_head(rel.rsplit("/", 1)[1][:-3])) or []


def _write_shard(o: IndexOut, sh: _Shard) -> None:
    for term in sorted(sh.open):
        units = sh.open[term]
        e = entry(o, term, [x for u in sorted(units) if units[u] for x in (u, units[u])], sh.entries.get(term))
        if e is None:
            sh.entries.pop(term, None)
        else:
            sh.entries[term] = e
    rel = search_shard(sh.n)
    if sh.entries:
        o.write(rel, shard_script(sh.n, sh.entries))
    else:
        o.remove(rel)
