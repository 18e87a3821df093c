"""One session's part of the search index, made while its pages are rendered (in the worker).

Each transcript is a *unit* with a stable key (a hash of project, session and transcript): its
documents are numbered in page order and stored 16 to a compressed script (``search/d/``); their
postings go back to the main process as a ``UnitDelta``, which ``site.searchindex`` merges into the
term shards. A grow re-renders from the last page: documents from that page's first on are
replaced, so only the terms of that page and of the new ones change. Why: docs/search.md.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.layout import search_docs, search_unit_state
from ccreport.site.searchtext import KINDS, SHIFT, WBITS, impacts, page_docs, page_url
from ccreport.site.write import Writer, remove

DOCS_PER_CHUNK = 32  # (16 made ~4 files per MB of JSONL: each file costs an inode at build time)


def unit_key(project: str, session_id: str, transcript_id: str) -> str:
    """A transcript's key, the same in every build of any home: 8 hex digits of its session (the
    page groups hits by them) and 6 of the transcript."""
    def h(s: str, n: int) -> str:
        return hashlib.sha1(s.encode("utf-8", "surrogatepass")).hexdigest()[:n]
    return h(f"{project}\0{session_id}", 8) + h(transcript_id, 6)


_HEX = "{:x}".format


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


def doc_script(key: str, chunk: int, docs: list[list]) -> bytes:
    """A chunk of documents, deflated and base-64 encoded (a third of the JSON on disk; the page
    inflates it with DecompressionStream, which works from file://)."""
    packed = base64.b64encode(zlib.compress(orjson.dumps(docs), 1)).decode("ascii")
    return b'ccreportSearch.docs("' + key.encode() + b'",' + str(chunk).encode() + b',"' + packed.encode() + b'");\n'


def read_doc_script(raw: bytes) -> list[list] | None:
    try:
        packed = raw.rsplit(b',"', 1)[1].split(b'"', 1)[0]
        return orjson.loads(zlib.decompress(base64.b64decode(packed)))
    except (IndexError, ValueError, zlib.error, orjson.JSONDecodeError):
        return None


@dataclass
class _Unit:
    key: str
    cut: int
    old_terms: list | None
    old_count: int
    firsts: list  # [[page no, first document no]]
    buffer: list  # documents of the chunk being filled
    postings: dict = field(default_factory=lambda: defaultdict(list))  # term → [posting numbers]
    count: int = 0
    open_terms: set = field(default_factory=set)  # of the last page


class SessionIndex:
    """The search part of one session's update (site.session): ``begin`` a transcript's read,
    ``page`` for every page written, ``end`` when its read is done; ``deltas`` go to the main
    process."""

    def __init__(self, writer: Writer, project: str, session_id: str):
        self.writer, self.project, self.session_id = writer, project, session_id
        self.units: dict[str, _Unit] = {}
        self.deltas: list[UnitDelta] = []

    def _state(self, key: str) -> dict | None:
        try:
            return orjson.loads((self.writer.out / search_unit_state(key)).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None

    def begin(self, transcript_id: str, start_no: int) -> None:
        """A read of the transcript from page ``start_no`` (1: from the start)."""
        key = unit_key(self.project, self.session_id, transcript_id)
        old = self._state(key)
        firsts = [f for f in (old or {}).get("firsts", []) if f[0] < start_no]
        at = {f[0]: f[1] for f in (old or {}).get("firsts", [])}
        if old is not None and start_no > 1 and start_no in at and start_no == old["firsts"][-1][0]:
            cut, old_terms = at[start_no], list(old.get("open", []))
        else:  # from the start: what the unit held before is not known here, unless it is new
            cut, old_terms, firsts = 0, (None if old is not None else []), []
        buffer: list = []
        if cut % DOCS_PER_CHUNK:
            try:
                raw = (self.writer.out / search_docs(key, cut // DOCS_PER_CHUNK)).read_bytes()
            except OSError:
                raw = b""
            buffer = (read_doc_script(raw) or [])[:cut % DOCS_PER_CHUNK]
            if len(buffer) != cut % DOCS_PER_CHUNK:  # the chunk is gone: read it all again
                cut, old_terms, firsts, buffer = 0, None, [], []
        self.units[transcript_id] = _Unit(key, cut, old_terms, (old or {}).get("count", 0), firsts, buffer,
                                          count=cut)

    def page(self, transcript_id: str, no: int, messages, url: str | None = None) -> None:
        """``url``: where the documents link (from the session folder), when not the transcript's
        page ``no`` (a prompts-only session's overview: site.homepages)."""
        u = self.units.get(transcript_id)
        if u is None:
            return
        docs = page_docs(messages, url or page_url(transcript_id, no))
        u.firsts.append([no, u.count])
        u.open_terms = set()
        postings = u.postings
        for d in docs:
            base = (u.count << SHIFT) | (KINDS[d[0]] << WBITS)
            imp = impacts(d[4])
            if d[0] == "t":  # the filters' terms: tool name and file name
                name, _, path = d[3].partition("\t")
                imp[f"tool:{name.lower()}".encode("utf-8", "surrogatepass")] = 1
                if path:
                    imp[f"file:{path.rsplit('/', 1)[-1].lower()}".encode("utf-8", "surrogatepass")] = 1
            for term, w in imp.items():
                postings[term].append(base | w)
            u.open_terms.update(imp)
            u.buffer.append(d)
            u.count += 1
            if len(u.buffer) == DOCS_PER_CHUNK:
                self._flush(u)

    def _flush(self, u: _Unit) -> None:
        if u.buffer:
            self.writer.write(search_docs(u.key, (u.count - 1) // DOCS_PER_CHUNK), doc_script(u.key, (u.count - 1)
                                                                                            // DOCS_PER_CHUNK, u.buffer))
        u.buffer = []

    def end(self, transcript_id: str) -> None:
        u = self.units.pop(transcript_id, None)
        if u is None:
            return
        self._flush(u)
        chunks = -(-u.count // DOCS_PER_CHUNK)
        for c in range(chunks, -(-max(u.old_count, u.count) // DOCS_PER_CHUNK)):
            remove(self.writer.out / search_docs(u.key, c), [])
        state = {"firsts": u.firsts, "count": u.count, "open": sorted(_str(t) for t in u.open_terms)}
        self.writer.write(search_unit_state(u.key), orjson.dumps(state))
        enc = {_str(t): _steps(ps) for t, ps in u.postings.items()}
        self.deltas.append(UnitDelta(u.key, u.cut, u.old_terms, enc, u.count))


def _str(term: bytes) -> str:
    return term.decode("utf-8", "surrogatepass")


_HIGH = ~((1 << SHIFT) - 1)


def _steps(ps: list[int]) -> str:
    """Postings as written: each document a step from the one before (the first from 0)."""
    if len(ps) == 1:
        return _HEX(ps[0])
    return ",".join(map(_HEX, [ps[0]] + [v - (p & _HIGH) for p, v in zip(ps, ps[1:])]))


def unit_doc_files(out: Path, key: str) -> list[Path]:
    """The document scripts of a unit (to delete it)."""
    folder = out / search_docs(key, 0)
    return sorted(folder.parent.glob(f"{key}-*.js"))
