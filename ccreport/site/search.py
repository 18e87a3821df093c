"""One session's part of the search index, made while its pages are rendered (in the worker).

Each transcript is a *unit* with a stable key (a hash of project, session and transcript): its
documents are numbered in page order and stored DOCS_PER_CHUNK to a compressed script
(``search/d/``); their postings go back to the main process as a ``UnitDelta``, which
``site.searchindex`` merges into the term shards (a full build: one ``SessionPart`` per session,
already grouped by shard). A grow re-renders from the last page: documents from that page's first
on are replaced, so only the terms of that page and of the new ones change. The unit's record
(page → first document) is kept in its transcript's state. This runs once per document of the
archive, so its loops are C loops (map, deque, Counter, %-format). Why: docs/search.md.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
import zlib
from array import array
from itertools import compress, repeat
from functools import lru_cache
from operator import and_, attrgetter, eq, getitem, itemgetter, or_
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import orjson
from zlib_ng import zlib_ng

from ccreport.fs import WriteError
from ccreport.layout import STATE_DIR, search_docs
from ccreport.site.searchpostings import DOCUMENT, encode as _encode
from ccreport.site.searchtext import KINDS, SHIFT, WBITS, counts, page_docs, page_url, weighed_once
from ccreport.site.write import Writer

DOCS_PER_CHUNK = 32  # (16 made ~4 files per MB of JSONL: each file costs an inode at build time)
# Fixed: a term's shard must not depend on the archive's size (incremental = cold). 256, not the
# 1,024 of before: a complete index of the corpus wrote 978 shard files (a quarter of the build's
# index CPU went to creating files); a query loads ~4x more per shard, measured in docs/search.md.
SHARDS = 256
# Postings a unit holds as numbers (a Python int and a list slot each, ~40 bytes) before they are
# encoded to its hex strings (~6 bytes each): a 1 GB transcript's numbers peaked at ~550 MB.
SEGMENT_POSTINGS = 200_000
# Characters of encoded postings a unit holds in a full build before they are written out as a
# spill run (UnitSpill): a 1 GB transcript's (38 MB of strings, grown a segment at a time) took
# ~200 MB of RSS, and its SessionPart another copy.
SPILL_CHARS = 1 << 20
SPILL_PREFIX = "search-spill-"  # the spill files' names in .ccreport/ (searchindex.Fresh removes them)


def shard_of(term: str) -> int:
    """FNV-1a (32 bits) of the UTF-8 of the term's first three characters, so that every term with
    the same first three characters is in one shard (prefix completion loads one shard); a filter's
    term (tool:…, file:…: never completed) by all of it."""
    return _fnv_shard(term if ":" in term else term[:3])


# Cached by what is hashed (a three-character prefix: tens of thousands at most), not by term: a
# cache of every term held ~1 M strings in a --jobs 1 build of a 300 MB home.
@lru_cache(maxsize=1 << 17)
def _fnv_shard(key: str) -> int:
    h = 0x811C9DC5
    for byte in key.encode("utf-8", "surrogatepass"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % SHARDS


@lru_cache(maxsize=1 << 16)  # (every build asks it of every transcript: the units' metadata, the units gone)
def unit_key(project: str, session_id: str, transcript_id: str) -> str:
    """A transcript's key, the same in every build of any home: 8 hex digits of its session (the
    page groups hits by them) and 6 of the transcript."""
    def h(s: str, n: int) -> str:
        return hashlib.sha1(s.encode("utf-8", "surrogatepass")).hexdigest()[:n]
    return h(f"{project}\0{session_id}", 8) + h(transcript_id, 6)


@dataclass
class UnitDelta:
    """What changed in one unit's postings: documents from ``cut`` on are replaced by those in
    ``postings`` (term → comma-separated hexadecimal postings). ``old_terms``: the terms that had
    documents from ``cut`` on (None: not known, every shard is looked at)."""

    key: str
    cut: int
    old_terms: list | None
    postings: dict = field(default_factory=dict)
    count: int = 0  # documents in the unit now
    same: bool = False  # the documents are those the unit had (a page rendered again): nothing to change
    docs: dict = field(default_factory=dict)  # chunk no → its documents packed (pack_docs), those rewritten
    old_count: int = 0  # documents the unit had (its chunks past ``count``'s go)


@dataclass
class UnitSpill:
    """A unit's postings written out by the worker as they grew (a full build's huge transcript):
    runs in the file at ``path``, run i's shard n being the JSON [term, postings, term, …] from
    ``runs[i][n]`` to ``runs[i][n + 1]``. A run's postings of a term go on from the runs before it
    (their first step is from the term's last document there: _segment), so joined with "," in run
    order they are the unit's postings. The main process takes the file over (searchindex.Fresh)."""

    key: str
    path: str
    runs: list = field(default_factory=list)  # an array("Q") of SHARDS + 1 offsets per run
    docs: list = field(default_factory=list)  # (chunk no, offset, length) of its packed document chunks there


def write_run(f, shard_bytes) -> array:
    """One spill run appended to ``f``: every shard's bytes (``shard_bytes(n)``, b"" for none) in
    shard order. Gives its offsets: shard n's bytes lie from run[n] to run[n + 1]. (A unit's spill
    file here, and searchindex.Fresh's own.)"""
    run = array("Q", [f.seek(0, os.SEEK_END)])
    for n in range(SHARDS):
        f.write(shard_bytes(n))
        run.append(f.tell())
    return run


def run_pieces(f, runs: list, n: int) -> list[bytes]:
    """Shard n's bytes of each of ``runs`` in ``f`` (of those that have some), in run order. Read
    at their offsets (os.pread), never by seek and read: a process forked from this one shares the
    file's offset, and each would move it under the other (site.searchsplit). What ``f`` buffers of
    its writes must have been flushed."""
    if not runs:
        return []
    fd = f.fileno()
    return [os.pread(fd, run[n + 1] - run[n], run[n]) for run in runs if run[n + 1] > run[n]]


@dataclass
class SessionPart:
    """A full build's share of one session in the term shards, made in the worker so that the main
    process only files bytes away (searchindex.Fresh): ``fragments`` are (shard, JSON of [term,
    [unit, postings, unit, postings, …], term, …] for the session's terms in that shard, its units
    in key order); ``counts``: unit → documents. A unit in ``spills`` has "" for postings there:
    they are in its file."""

    fragments: list
    counts: dict
    spills: list = field(default_factory=list)  # UnitSpill
    docs: list = field(default_factory=list)  # (unit, chunk no, packed documents) of every chunk


def pack(deltas: list[UnitDelta], spills: list | None = None) -> SessionPart:
    """The deltas of a session read whole, by shard (every loop in C)."""
    by_term: dict[str, list] = defaultdict(list)
    for d in sorted(deltas, key=attrgetter("key")):
        deque(map(list.extend, map(by_term.__getitem__, d.postings), zip(repeat(d.key), d.postings.values())), 0)
    return SessionPart([(n, orjson.dumps(flat)) for n, flat in _by_shard(by_term).items()],
                       {d.key: d.count for d in deltas}, spills or [],
                       [(d.key, n, packed) for d in deltas for n, packed in d.docs.items()])


def _by_shard(by_term: dict) -> dict[int, list]:
    """shard → [term, value, term, value, …] of its terms. A term's shard is looked up by its first
    three characters in C (_PREFIX_SHARDS); only the terms whose prefix a filter term may have
    (``tool:``, ``file:``, ``is:``: hashed whole) go through shard_of one by one."""
    terms = list(by_term)
    shards = list(map(_PREFIX_SHARDS.__getitem__, map(getitem, terms, repeat(_HEAD))))
    for i in compress(range(len(terms)), map(eq, repeat(-1), shards)):
        shards[i] = shard_of(terms[i])
    by_shard: dict[int, list] = defaultdict(list)
    deque(map(list.extend, map(by_shard.__getitem__, shards), zip(terms, by_term.values())), 0)
    return by_shard


class _PrefixShards(dict):
    """A term's first three characters → its shard (shard_of), filled as they come; -1 for the
    prefixes of the filter terms, whose shard is that of the whole term. (Cleared past 2^17
    prefixes: a bound on what a worker holds.)"""

    def __missing__(self, head: str) -> int:
        if len(self) >= 1 << 17:
            self.clear()
        shard = self[head] = -1 if head in ("too", "fil", "is:") else _fnv_shard(head)
        return shard


_PREFIX_SHARDS = _PrefixShards()
_HEAD = slice(0, 3)


# zlib-ng's deflate at level 2 (its level 1 is a quicker scheme that writes 25 % more): on the
# corpus's 384 chunks, shards and metadata files 1.43 MB against zlib level 1's 1.49 MB, in two
# thirds of the CPU (a 40 MB home's: 4.04 MB against 4.23, 0.115 s against 0.253). Its bytes are the
# same in every process, in any order of calls, with AVX-512 or AVX2 (docs/search.md: ISA-L's were
# not, in 1 process of 10); they differ from zlib's, and may between zlib-ng versions or CPU families.
DEFLATE_LEVEL = 2


def deflated(data, option: int = 0) -> str:
    """JSON deflated and base-64 encoded (a quarter to a third of the JSON on disk; the page
    inflates it with DecompressionStream, which works from file://, and reads any zlib stream):
    document chunks, shards and unit metadata. ``option``: orjson's (OPT_SORT_KEYS: a dict's keys
    in code point order, as sorted() gives them, without a sorted copy of the dict)."""
    return base64.b64encode(zlib_ng.compress(orjson.dumps(data, option=option), DEFLATE_LEVEL)).decode("ascii")


def inflated(packed, kind: type):
    """What ``deflated`` packed, when it is a ``kind`` (else None)."""
    try:
        data = orjson.loads(zlib.decompress(base64.b64decode(packed)))
        return data if isinstance(data, kind) else None
    except (TypeError, ValueError, zlib.error, orjson.JSONDecodeError):
        return None


def pack_docs(docs: list[list]) -> str:
    """A chunk of documents as stored."""
    return deflated(docs)


def unpack_docs(packed) -> list[list] | None:
    return inflated(packed, list)


DOCS_HEAD = b'ccreportSearch.docs('


def doc_file_script(rel: str, chunks: dict) -> bytes:
    """A document file (layout.search_docs): unit → its chunk's packed documents, in key order.
    The page takes the file's chunk number from its name."""
    name = rel.rsplit("/", 1)[1][:-3]
    return DOCS_HEAD + orjson.dumps(name) + b"," + orjson.dumps(chunks, option=orjson.OPT_SORT_KEYS) + b");\n"


def read_doc_file(raw: bytes) -> dict:
    """unit → packed documents of a document file as written ({} when it is not one)."""
    try:
        if raw.startswith(DOCS_HEAD) and raw.endswith(b");\n"):
            data = orjson.loads(b"[" + raw[len(DOCS_HEAD):-3] + b"]")
            if len(data) == 2 and isinstance(data[1], dict):
                return data[1]
    except orjson.JSONDecodeError:
        pass
    return {}


def read_doc_script(raw: bytes) -> list[list]:
    """Every document of a document file, unit after unit (tests and tools that look at them all)."""
    return [d for packed in read_doc_file(raw).values() for d in unpack_docs(packed) or []]


def unit_chunk(out: Path, key: str, chunk: int) -> list | None:
    """One chunk of a unit's documents as written (None: not there)."""
    try:
        raw = (out / search_docs(key, chunk)).read_bytes()
    except OSError:
        return None
    packed = read_doc_file(raw).get(key)
    return None if packed is None else unpack_docs(packed)


@dataclass
class _Unit:
    key: str
    cut: int
    old_terms: list | None
    old_count: int
    firsts: list  # [[page no, first document no]]
    buffer: list  # documents of the chunk being filled
    postings: dict = field(default_factory=lambda: defaultdict(list))  # term → [posting numbers]
    size: int = 0  # postings in ``postings``
    encoded: dict = field(default_factory=dict)  # term → postings of the segments encoded (and not spilled) so far
    chars: int = 0  # characters in ``encoded`` (about)
    spill: UnitSpill | None = None  # the runs written out so far (a full build's huge unit)
    spill_file: BinaryIO | None = None  # its file, open while the unit is read
    last: dict = field(default_factory=dict)  # term → its last posting & DOCUMENT (its document), encoded or spilled
    count: int = 0
    docs: dict = field(default_factory=dict)  # chunk no → packed documents, of the chunks (re)written
    # Digests chained over the pages' documents (each page's: sha1 of the one before and its
    # documents): the last page's and the one before it, so a read resumed at the last page goes on.
    chain: str = ""
    before: str = ""
    old_chain: str = ""  # the unit's whole chain before this read ("": not known)


class SessionIndex:
    """The search part of one session's update (site.session): ``begin`` a transcript's read,
    ``page`` for every page written, ``end`` when its read is done (it gives the unit's record,
    kept in the transcript's state); ``deltas`` go to the main process. ``records``: transcript id
    → its record from the previous build ({"firsts": [[page no, first document no]], "count", "chain"});
    ``packed``: the build is a full one (every session read whole), its deltas go as one SessionPart."""

    def __init__(self, writer: Writer, project: str, session_id: str, records: dict | None = None,
                 packed: bool = False):
        self.writer, self.project, self.session_id = writer, project, session_id
        self.records, self.packed = records or {}, packed
        self.units: dict[str, _Unit] = {}
        self.unit_deltas: list[UnitDelta] = []
        self.spills: list[UnitSpill] = []  # of the units read whole (packed only)

    @property
    def deltas(self) -> list:
        """What goes to the main process: the UnitDeltas, or [their SessionPart] when packed."""
        return [pack(self.unit_deltas, self.spills)] if self.packed else self.unit_deltas

    def begin(self, transcript_id: str, start_no: int, existed: bool = False) -> None:
        """A read of the transcript from page ``start_no`` (1: from the start). ``existed``: the
        unit may hold postings though it keeps no record (a prompts-only session), so which terms
        it had is not known."""
        key = unit_key(self.project, self.session_id, transcript_id)
        old = self.records.get(transcript_id)
        at = dict(old["firsts"]) if old else {}
        # The digests of the documents before the record's last page, and of all of them.
        before, whole = old.get("chain", ["", ""]) if old else ("", "")
        cut, old_terms, firsts, buffer, chain = 0, (None if old is not None or existed else []), [], [], ""
        # Resumed at the last page (page 1 of a one-page transcript too): its documents are replaced.
        if old and start_no in at and start_no == old["firsts"][-1][0]:
            # Those of the chunk before it are kept, and its terms (whose postings change) are
            # read from the documents.
            cut = at[start_no]
            docs = self._docs(key, cut - cut % DOCS_PER_CHUNK, old["count"])
            if docs is not None:  # (None: a chunk is gone or broken: the unit is read again whole)
                firsts = [f for f in old["firsts"] if f[0] < start_no]
                buffer = docs[:cut % DOCS_PER_CHUNK]
                chain = before
                # The terms whose postings change are those of the page as the record knows it: a
                # build killed after rewriting this chunk but before saving its state left other
                # documents there, and a merge would then miss the shards of the terms only the
                # record's page had. Such a chunk does not match the record's digest: every shard
                # is looked at instead (None).
                page = docs[cut % DOCS_PER_CHUNK:]
                old_terms = sorted({t for d in page for t in doc_terms(d)}) if _chained(before, page) == whole else None
            else:
                cut = 0
        self.units[transcript_id] = _Unit(key, cut, old_terms, old["count"] if old else 0, firsts, buffer,
                                          count=cut, chain=chain, before=chain, old_chain=whole)

    def _docs(self, key: str, start: int, stop: int) -> list | None:
        """Documents ``start`` (a chunk's first) to ``stop`` of a unit, as written."""
        docs: list = []
        for chunk in range(start // DOCS_PER_CHUNK, -(-stop // DOCS_PER_CHUNK)):
            got = unit_chunk(self.writer.out, key, chunk)
            if got is None:
                return None
            docs.extend(got)
        return docs if len(docs) == stop - start else None

    def page(self, transcript_id: str, no: int, messages, url: str | None = None) -> None:
        """``url``: where the documents link (from the session folder), when not the transcript's
        page ``no`` (a prompts-only session's overview: site.homepages)."""
        u = self.units.get(transcript_id)
        if u is None:
            return
        docs = page_docs(messages, url or page_url(transcript_id, no))
        u.firsts.append([no, u.count])
        u.before = u.chain
        u.chain = _chained(u.chain, docs)
        of_term = u.postings.__getitem__  # term → its list of postings (made when missing)
        for d in docs:
            base = (u.count << SHIFT) | (KINDS[d[0]] << WBITS)
            terms, levels = weighed_once(d[4])
            # posting = base | weight, appended to each term's list: every loop in C
            # (operator.or_, not base.__or__: a slot wrapper is called with a new tuple each time)
            deque(map(list.append, map(of_term, terms), map(or_, repeat(base), levels)), 0)
            ft = filter_terms(d)
            for term in ft:  # weight 1
                of_term(term).append(base | 1)
            u.size += len(terms) + len(ft)
            if u.size >= SEGMENT_POSTINGS:
                _segment(u)
                of_term = u.postings.__getitem__
                # (an incremental build's delta keeps its units in memory: site.searchdelta)
                if self.packed and u.chars >= SPILL_CHARS:
                    self._spill(u)
            u.buffer.append(d)
            u.count += 1
            if len(u.buffer) == DOCS_PER_CHUNK:
                self._flush(u)

    def _flush(self, u: _Unit) -> None:
        """The chunk being filled is packed; the main process writes it into its shared document
        file (site.searchdocs: files hold several units' chunks, so no worker writes them)."""
        if u.buffer:
            u.docs[(u.count - 1) // DOCS_PER_CHUNK] = pack_docs(u.buffer)
            if u.spill is not None:
                self._spill_docs(u)
        u.buffer = []

    def end(self, transcript_id: str) -> dict | None:
        """The unit's read is done: its delta goes to ``deltas``; gives its record (None: no read)."""
        u = self.units.pop(transcript_id, None)
        if u is None:
            return None
        self._flush(u)
        # The pages read again hold the documents they had (a page deleted by hand, a render cache
        # warmed, a new project title): the index does not change.
        same = bool(u.old_chain) and u.chain == u.old_chain and u.count == u.old_count
        if u.spill is not None:  # the rest goes to the file too; the SessionPart says where
            _segment(u)
            self._spill(u)
            u.spill_file.close()
            self.spills.append(u.spill)
            postings = dict.fromkeys(u.last, "")
        else:
            if u.encoded:
                _segment(u)
            postings = u.encoded or _encode(u.postings)
        self.unit_deltas.append(UnitDelta(u.key, u.cut, u.old_terms, postings, u.count, same, u.docs, u.old_count))
        return {"firsts": u.firsts, "count": u.count, "chain": [u.before, u.chain]}

    def _spill(self, u: _Unit) -> None:
        """The unit's encoded postings go to its spill file as one run, by shard."""
        if u.spill is None:
            folder = self.writer.out / STATE_DIR
            try:
                folder.mkdir(parents=True, exist_ok=True)
                fd, path = tempfile.mkstemp(prefix=SPILL_PREFIX, dir=folder)
            except OSError as exc:
                raise WriteError(exc.errno, exc.strerror, str(folder / SPILL_PREFIX)) from exc
            u.spill, u.spill_file = UnitSpill(u.key, path), os.fdopen(fd, "wb")
        f, by_shard = u.spill_file, _by_shard(u.encoded)
        try:
            run = write_run(f, lambda n: orjson.dumps(by_shard[n]) if n in by_shard else b"")
            f.flush()
        except OSError as exc:
            raise WriteError(exc.errno, exc.strerror, u.spill.path) from exc
        u.spill.runs.append(run)
        u.encoded, u.chars = {}, 0
        self._spill_docs(u)

    def _spill_docs(self, u: _Unit) -> None:
        """A spilled unit's packed document chunks go to its file too (a 1 GB transcript's are
        tens of MB): the SessionPart says where (UnitSpill.docs)."""
        f = u.spill_file
        try:
            for chunk, packed in u.docs.items():
                raw = packed.encode("ascii")
                u.spill.docs.append((chunk, f.seek(0, os.SEEK_END), len(raw)))
                f.write(raw)
            f.flush()
        except OSError as exc:
            raise WriteError(exc.errno, exc.strerror, u.spill.path) from exc
        u.docs = {}


def _chained(before: str, docs: list) -> str:
    """The digest of a page's documents chained to the one before it (a unit's record keeps the last two)."""
    return hashlib.sha1(before.encode() + orjson.dumps(docs)).hexdigest()[:16]


def filter_terms(doc: list) -> list[str]:
    """The filters' terms of a document: a tool call's tool name, file name and is:error when it failed."""
    if doc[0] != "t":
        return []
    name, _, rest = doc[3].partition("\t")
    path, _, flag = rest.partition("\t")
    out = [f"tool:{name.lower()}"]
    if path:
        out.append(f"file:{path.rsplit('/', 1)[-1].lower()}")
    if flag:
        out.append("is:error")
    return out


def doc_terms(doc: list) -> list[str]:
    """Every term a document has postings for."""
    return [*counts(doc[4])[0], *filter_terms(doc)]


def _segment(u: _Unit) -> None:
    """The unit's postings held as numbers are encoded and appended to its encoded ones (each
    term's first step taken from its last document there), so that a unit holds a bounded number
    of them whatever the transcript's size: the strings are what _encode of all of them at once
    gives, a seventh of the memory."""
    enc = _encode(u.postings, u.last)
    u.chars += sum(map(len, enc.values()))
    old = u.encoded
    for term in enc.keys() & old.keys():
        enc[term] = old[term] + "," + enc[term]
    old.update(enc)
    lists = u.postings.values()
    u.last.update(zip(u.postings, map(and_, map(itemgetter(-1), lists), repeat(DOCUMENT))))
    u.postings, u.size = defaultdict(list), 0
