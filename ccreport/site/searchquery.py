"""The site's search in Python: the query language of the search box, run over a built site's index
files (``search/``) the way assets/search.js runs it, so a program (the MCP server) gets the hits a
reader would see. One query reads only what the page would load: the shards of its terms (with the
pending delta), the blocks of frequent terms, the metadata and document chunks of its hits. How
the files are laid out and ranked: docs/search.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.layout import SEARCH_DELTA, SEARCH_MANIFEST, search_block, search_docs, search_shard, search_units
from ccreport.site.search import read_doc_script, shard_of
from ccreport.site.searchfiles import BIG, block_head, in_blocks, load_script, shard_head
from ccreport.site.searchtext import KINDS, LEVELS, SHIFT, WBITS, idf, terms

PREFIX_TERMS = 24  # completions of the last word (search.js)
PHRASE_CHECKS = 400  # messages whose text a phrase is checked against
HITS_PER_SESSION = 3  # messages the page lists under a session
SNIPPET_BEFORE, SNIPPET_AFTER = 60, 160
KIND_NAMES = {"p": "prompt", "a": "answer", "h": "thinking", "t": "tool"}
# The filters search.js knows; model: and is: are the query language's too, but this index holds
# neither (a clear error rather than a search for the words "is" and "error").
FILTERS = ("tool", "file", "session", "project", "after", "before", "kind")
UNSUPPORTED = ("model", "is")
_TOKEN = re.compile(r'"([^"]*)(?:"|$)|(\S+)')
_FILTER = re.compile(r"^([A-Za-z]+):(.+)$")
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


@dataclass(frozen=True)
class SearchHit:
    session: str  # session id (full uuid)
    project: str  # project title as the site shows it
    title: str  # session title as the site shows it
    url: str  # page URL relative to the site root, with the message anchor
    kind: str  # "prompt" | "answer" | "thinking" | "tool"
    snippet: str  # plain text around the first match (<= 300 chars)
    when: str  # ISO time of the message, "" if unknown


@dataclass
class _Group:
    """One word of the query: its terms (the word, and its completions when it is the last one)."""

    word: str
    prefix: bool = False
    idf: float = 0.0
    units: dict = field(default_factory=dict)  # unit key → {document no: weight}


@dataclass
class _Query:
    text: str
    groups: list = field(default_factory=list)
    phrases: list = field(default_factory=list)
    filters: dict = field(default_factory=lambda: dict.fromkeys(FILTERS, ""))


def parse(q: str) -> _Query:
    """search.js's parse: words, "phrases" (and words with punctuation inside), name:value filters;
    the last word is completed unless the query ends with a space."""
    query, last = _Query(q), None
    for m in _TOKEN.finditer(q):
        if m.group(1) is not None:
            _phrase(query, m.group(1))
            last = None
            continue
        word = m.group(2)
        f = _FILTER.match(word)
        if f and f.group(1).lower() in FILTERS:
            query.filters[f.group(1).lower()] = f.group(2)
            last = None
            continue
        if f and f.group(1).lower() in UNSUPPORTED:
            raise ValueError(f"the filter {f.group(1)}: is not supported by this site's index "
                             f"(it knows {', '.join(x + ':' for x in FILTERS)})")
        ts = terms(word)
        if len(ts) > 1:
            _phrase(query, word)
        elif ts:
            last = _Group(ts[0])
            query.groups.append(last)
    if last is not None and query.groups[-1] is last and not q[-1:].isspace() and len(last.word) >= 3:
        last.prefix = True
    _check(query)
    return query


def _phrase(query: _Query, text: str) -> None:
    ts = terms(text)
    query.groups.extend(_Group(t) for t in ts)
    if len(ts) > 1:
        query.phrases.append(ts)


def _check(query: _Query) -> None:
    f = query.filters
    for k in ("after", "before"):
        if f[k] and not _DATE.match(f[k]):
            raise ValueError(f"{k}:{f[k]} is not a date (YYYY-MM-DD)")
    if f["kind"] and f["kind"][0].lower() not in KINDS:
        raise ValueError(f"kind:{f['kind']} is not one of prompt, answer, thinking, tool")
    if not query.groups:
        raise ValueError(f"the query {query.text!r} has no words to search for (filters alone match nothing)")


class _Index:
    """The index files of one site, each read once (a missing one counts as empty, as in the page)."""

    def __init__(self, site: Path):
        self.site = site
        self.manifest = load_script(site, SEARCH_MANIFEST, b"ccreportSearch.manifest(")
        if not isinstance(self.manifest, dict):
            raise FileNotFoundError(2, f"no search index in {site} (build the site first)", str(site / SEARCH_MANIFEST))
        d = load_script(site, SEARCH_DELTA, b"ccreportSearch.delta(") or {}
        self.cuts, self.delta_terms = d.get("cuts") or {}, d.get("terms") or {}
        self._shards: dict = {}
        self._units: dict = {}
        self._docs: dict = {}

    def shard(self, n: int) -> dict:
        if n not in self._shards:
            self._shards[n] = load_script(self.site, search_shard(n), shard_head(n)) or {}
        return self._shards[n]

    def term(self, term: str) -> list | None:
        """A term's postings [unit, postings, …] as a full build would have written them."""
        e = self.shard(shard_of(term)).get(term)
        if in_blocks(e):
            flat: list = []
            for b in range(1 << e[0]):
                name = f"{e[2]}-{e[0]}-{b}"
                flat += load_script(self.site, search_block(e[2], e[0], b), block_head(name)) or []
            e = flat
        return self.effective(term, e)

    def effective(self, term: str, flat) -> list | None:
        """The shard's postings less those the delta cuts, plus the delta's (search.js effective)."""
        out: list = []
        for key, enc in zip((flat or [])[::2], (flat or [])[1::2]):
            cut = self.cuts.get(key)
            enc = enc if cut is None else _before(enc, cut)
            if enc:
                out += [key, enc]
        out += self.delta_terms.get(term) or []
        return out or None

    def size(self, term: str, e) -> int:
        """How much a term has, to choose among completions (search.js size)."""
        d = self.delta_terms.get(term)
        if in_blocks(e):
            return e[1] + (_written(d) if d else 0)
        flat = self.effective(term, e) or []
        return _written(flat) if _written(flat) > BIG else sum(map(len, flat))

    def unit(self, key: str) -> list | None:
        prefix = key[:2]
        if prefix not in self._units:
            self._units[prefix] = load_script(self.site, search_units(prefix), b"ccreportSearch.units(") or {}
        return self._units[prefix].get(key)

    def doc(self, hit: str) -> list | None:
        key, no = hit.split(":")
        per = int(self.manifest.get("chunk") or 32)
        name = (key, int(no) // per)
        if name not in self._docs:
            try:
                self._docs[name] = read_doc_script((self.site / search_docs(*name)).read_bytes()) or []
            except OSError:
                self._docs[name] = []
        docs = self._docs[name]
        return docs[int(no) % per] if int(no) % per < len(docs) else None

    def project_title(self, d: str) -> str:
        return next((p.get("title", d) for p in self.manifest.get("projects") or [] if p.get("dir") == d), d)


def _before(enc: str, cut: int) -> str:
    """The postings of the documents before ``cut``."""
    doc, items = 0, enc.split(",")
    for j, x in enumerate(items):
        doc += int(x, 16) >> SHIFT
        if doc >= cut:
            return ",".join(items[:j])
    return enc


def _written(flat: list) -> int:
    return 3 * len(flat) + sum(map(len, flat))


def _decode(flat, factor: float, into: dict, restrict=None) -> int:
    """Add postings to {unit: {doc: best weight}}; returns how many there were (the term's df)."""
    df = 0
    for key, enc in zip((flat or [])[::2], (flat or [])[1::2]):
        docs, doc = into.setdefault(key, {}), 0
        for x in enc.split(","):
            v = int(x, 16)
            doc += v >> SHIFT
            df += 1
            if restrict is not None and not restrict(key, doc, (v >> WBITS) & 3):
                continue
            w = (v & LEVELS) * factor
            if docs.get(doc, 0) < w:
                docs[doc] = w
    return df


def _group_postings(ix: _Index, g: _Group, restrict) -> None:
    """A group's postings and idf; a completed word takes the most frequent terms starting with it
    (the word itself at full weight, the others at 0.9)."""
    names = [g.word]
    if g.prefix:
        shard = ix.shard(shard_of(g.word))
        seen: dict[str, int] = {}
        for t in list(shard) + list(ix.delta_terms):
            if t not in seen and t != g.word and t.startswith(g.word) and ":" not in t:
                seen[t] = ix.size(t, shard.get(t))
        names += sorted((t for t, n in seen.items() if n > 0), key=lambda t: (-seen[t], t))[:PREFIX_TERMS]
    df = 0
    for i, name in enumerate(names):
        flat = ix.term(name)
        if flat:
            df = max(df, _decode(flat, 1 if i == 0 else 0.9, g.units, restrict))
    g.idf = idf(max(df, 1))


def _restriction(ix: _Index, f: dict):
    """The kind, tool and file filters, on postings: (unit, doc, kind) → kept."""
    allows = []
    for k in ("tool", "file"):
        v = f[k].split("/")[-1] if k == "file" else f[k]
        if v:
            allow: dict = {}
            _decode(ix.term(f"{k}:{v.lower()}"), 1, allow)
            allows.append(allow)
    code = KINDS.get(f["kind"][:1].lower()) if f["kind"] else None

    def restrict(key: str, doc: int, kind: int) -> bool:
        if (code is not None and kind != code) or ((f["tool"] or f["file"]) and kind != 3):
            return False
        return all(doc in a.get(key, {}) for a in allows)
    return restrict


@dataclass
class _Ranked:
    key: str  # session hash: the first 8 hex digits of its units' keys
    score: float
    top: float
    hits: list  # "unit:doc", best first


def _rank(groups: list[_Group]) -> list[_Ranked]:
    """Sessions where every group occurs, scored Σ idf × best weight (search.js rank)."""
    groups = sorted(groups, key=lambda g: len(g.units))
    by_session = []
    for g in groups:
        bs: dict[str, list] = {}
        for key in g.units:
            bs.setdefault(key[:8], []).append(key)
        by_session.append(bs)
    out = []
    for sk in by_session[0]:
        score, docs, ok = 0.0, {}, True
        for g, bs in zip(groups, by_session):
            best = 0.0
            for key in bs.get(sk, ()):
                for d, w in g.units[key].items():
                    docs[f"{key}:{d}"] = docs.get(f"{key}:{d}", 0) + w * g.idf
                    best = max(best, w)
            if not best:
                ok = False
                break
            score += best * g.idf
        if ok:
            hits = sorted(docs, key=lambda h: (-docs[h], h))
            out.append(_Ranked(sk, score, docs[hits[0]], hits))
    out.sort(key=lambda s: (-s.score, -s.top, s.key))
    return out


def _session_filters(ix: _Index, f: dict, sessions: list[_Ranked]) -> list[_Ranked]:
    """Project, session and date filters, on the metadata of each session's best unit."""
    if not (f["project"] or f["session"] or f["after"] or f["before"]):
        return sessions
    kept = []
    for s in sessions:
        u = ix.unit(s.hits[0].split(":")[0])
        if not u or (f["project"] and u[2] != f["project"] and f["project"].lower() not in u[2].lower()):
            continue
        if (f["session"] and not u[3].startswith(f["session"])) or (f["after"] and (u[6] or "")[:10] < f["after"]):
            continue
        if f["before"] and (u[5] or "")[:10] > f["before"]:
            continue
        kept.append(s)
    return kept


def _has_phrase(text: str, phrase: list[str]) -> bool:
    ts, n = terms(text), len(phrase)
    return any(ts[i:i + n] == phrase for i in range(len(ts) - n + 1))


def _phrase_filter(ix: _Index, query: _Query, sessions: list[_Ranked]) -> list[_Ranked]:
    """A phrase must occur in one message: the best candidates (every phrase word in the message)
    are checked against their text, up to PHRASE_CHECKS of them."""
    if not query.phrases:
        return sessions
    by_term = {g.word: g for g in query.groups}

    def holds(hit: str) -> bool:
        key, doc = hit.split(":")
        return all(by_term[t].units.get(key, {}).get(int(doc), 0) > 0 for p in query.phrases for t in p)
    checks = [(s, h) for s in sessions for h in s.hits if holds(h)][:PHRASE_CHECKS]
    good: dict[str, list] = {}
    for s, h in checks:
        d = ix.doc(h)
        if d and all(_has_phrase(d[4], p) for p in query.phrases):
            good.setdefault(s.key, []).append(h)
    out = [s for s in sessions if s.key in good]
    for s in out:
        s.hits = good[s.key]
    return out


def _snippet(text: str, marks: list[str]) -> str:
    lower = text.lower()
    found = [i for i in (lower.find(m) for m in marks) if i >= 0]
    at = min(found) if found else -1
    start, end = max(0, at - SNIPPET_BEFORE), min(len(text), max(at, 0) + SNIPPET_AFTER)
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def _hit(ix: _Index, h: str, marks: list[str]) -> SearchHit | None:
    key = h.split(":")[0]
    d, u = ix.doc(h), ix.unit(key)
    if not d or not u:
        return None
    url = u[0] + d[1]
    return SearchHit(session=u[3], project=ix.project_title(u[2]), title=u[1], url=url,
                     kind=KIND_NAMES.get(d[0], d[0]), snippet=_snippet(d[4], marks), when=d[2] or "")


def search_site(site: Path, query: str, limit: int = 20) -> list[SearchHit]:
    """The query language of the site's search box (words, "phrases", and filters file: tool:
    project: session: after: before: kind:), run over the built site's index files in
    ``site/search/``; hits ordered as the page orders them (sessions best first, up to three
    messages of each, best first), at most ``limit``. Raises ValueError with a clear message for a
    query it cannot parse (model: and is: are refused: this index cannot answer them), and
    FileNotFoundError when the site has no search index."""
    q = parse(query)
    ix = _Index(Path(site))
    restrict = _restriction(ix, q.filters)
    for g in q.groups:
        _group_postings(ix, g, restrict)
    sessions = _phrase_filter(ix, q, _session_filters(ix, q.filters, _rank(q.groups)))
    marks = list(dict.fromkeys(g.word for g in q.groups))
    hits: list[SearchHit] = []
    for s in sessions:
        for h in s.hits[:HITS_PER_SESSION]:
            if len(hits) >= limit:
                return hits
            hit = _hit(ix, h, marks)
            if hit is not None:
                hits.append(hit)
    return hits
