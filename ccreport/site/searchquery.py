"""The site's search in Python: the query language of the search box (assets/search.js), run over a
built site's index files (``search/``) by the same steps and the same arithmetic, so that a hit
here is a hit in the page (the MCP server and the tests use it). docs/search.md describes both.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.layout import SEARCH_DELTA, SEARCH_MANIFEST
from ccreport.site.search import shard_of, unit_chunk
from ccreport.site.searchfiles import block_head, in_blocks, load_script, read_shard
from ccreport.site.searchindex import UNIT_FILES, read_units, units_file
from ccreport.site.searchtext import terms

KIND_NAMES = {"p": "prompt", "a": "answer", "h": "thinking", "t": "tool"}
KIND_CODES = {"p": 0, "a": 1, "h": 2, "t": 3}
# A match in a prompt or an answer outranks the same match in thinking or tool output.
KIND_FACTOR = (1.0, 1.0, 0.6, 0.4)
HITS_PER_SESSION = 3
PREFIX_TERMS = 24
PHRASE_CHECKS = 400  # candidate messages whose text is read to check a phrase (best first)
BIG = 65_536  # (site.searchfiles.BIG)
SNIPPET = 300
POSTING_FILTERS = ("tool", "file", "is")
META_FILTERS = ("project", "session", "model", "after", "before")
_FILTER = re.compile(r"^(tool|file|session|project|after|before|kind|model|is):(.+)$", re.I)
_TOKEN = re.compile(r'"([^"]*)("|$)|(\S+)')
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
class Group:
    """One word of the query (the last one may be completed): its postings {unit: {doc: weight}}."""

    word: str
    prefix: bool = False
    idf: float = 0.0
    units: dict = field(default_factory=dict)


@dataclass
class Query:
    text: str
    groups: list = field(default_factory=list)
    phrases: list = field(default_factory=list)
    filters: dict = field(default_factory=dict)


@dataclass
class Found:
    """A session that matches: its key (8 hex digits), score and hits ("unit:doc", best first)."""

    key: str
    score: float
    top: float
    hits: list


def parse(q: str, strict: bool = True) -> Query:
    """The query as search.js's parse reads it. ``strict``: a filter it does not know (is:foo, a
    date that is not YYYY-MM-DD) raises ValueError (the page ignores it)."""
    query = Query(q, filters={k: "" for k in (*POSTING_FILTERS, *META_FILTERS, "kind")})
    last = None
    for m in _TOKEN.finditer(q):
        if m.group(1) is not None and m.group(0)[0] == '"':
            _phrase(query, m.group(1))
            last = None
            continue
        word = m.group(3)
        f = _FILTER.match(word)
        if f:
            name, value = f.group(1).lower(), f.group(2)
            if strict and ((name == "is" and value.lower() != "error") or (name in ("after", "before")
                                                                         and not _DATE.match(value))):
                raise ValueError(f"cannot read the filter {word!r}: is:error, after:YYYY-MM-DD, before:YYYY-MM-DD")
            query.filters[name] = value
            last = None
            continue
        ts = terms(word)
        if len(ts) > 1:
            _phrase(query, word)
        elif len(ts) == 1:
            last = Group(ts[0])
            query.groups.append(last)
    if last is not None and last is query.groups[-1] and not q[-1:].isspace() and len(last.word) >= 3:
        last.prefix = True
    return query


def _phrase(query: Query, text: str) -> None:
    ts = terms(text)
    query.groups.extend(Group(t) for t in ts)
    if len(ts) > 1:
        query.phrases.append(ts)


def idf(df: int) -> float:
    n = 1e6
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


class SiteIndex:
    """A built site's index files, each read once when a query first needs it."""

    def __init__(self, site: Path):
        self.site = Path(site)
        self.manifest = load_script(self.site, SEARCH_MANIFEST, b"ccreportSearch.manifest(")
        if not isinstance(self.manifest, dict):
            raise FileNotFoundError(f"no search index in {self.site} (search/manifest.js): build the site")
        d = load_script(self.site, SEARCH_DELTA, b"ccreportSearch.delta(") or {}
        self.cuts, self.delta_terms = d.get("cuts") or {}, d.get("terms") or {}
        self.shards: dict[int, dict] = {}
        self.units: dict[str, list] = {}
        self.unit_files: set[str] = set()
        self.chunks: dict[str, list] = {}

    def shard(self, n: int) -> dict:
        if n not in self.shards:
            self.shards[n] = read_shard(self.site, n) or {}
        return self.shards[n]

    def term_units(self, term: str) -> list | None:
        """A term's [unit, postings, …] as a full build would have written them (search.js termUnits)."""
        e = self.shard(shard_of(term)).get(term)
        if in_blocks(e):
            flat: list = []
            for b in range(1 << e[0]):
                name = f"{e[2]}-{e[0]}-{b}"
                flat += load_script(self.site, f"search/b/{name}.js", block_head(name)) or []
            e = flat
        return self.effective(term, e)

    def effective(self, term: str, flat) -> list | None:
        out: list = []
        for i in range(0, len(flat or ()), 2):
            cut = self.cuts.get(flat[i])
            enc = flat[i + 1] if cut is None else _before(flat[i + 1], cut)
            if enc:
                out += [flat[i], enc]
        out += self.delta_terms.get(term) or []
        return out or None

    def size(self, term: str, e) -> int:
        """How much a term has, to choose among completions (search.js size)."""
        d = self.delta_terms.get(term)
        if in_blocks(e):
            return e[1] + (_written(d) if d else 0)
        flat = self.effective(term, e) or []
        return _written(flat) if _written(flat) > BIG else len("".join(flat))

    def need_units(self, prefixes) -> None:
        for p in set(prefixes) - self.unit_files:
            self.unit_files.add(p)
            self.units.update(read_units(self.site, p))

    def doc(self, hit: str) -> list | None:
        key, no = hit.split(":")
        per = self.manifest["chunk"]
        name = f"{key}-{int(no) // per}"
        if name not in self.chunks:
            self.chunks[name] = unit_chunk(self.site, key, int(no) // per) or []
        docs = self.chunks[name]
        return docs[int(no) % per] if int(no) % per < len(docs) else None

    def project_title(self, pdir: str) -> str:
        return next((p["title"] for p in self.manifest.get("projects", []) if p["dir"] == pdir), pdir)


def _before(enc: str, cut: int) -> str:
    """The postings of documents before ``cut``."""
    parts, doc = enc.split(","), 0
    for j, v in enumerate(parts):
        doc += int(v, 16) // 256
        if doc >= cut:
            return ",".join(parts[:j])
    return enc


def _written(flat: list) -> int:
    return 3 * len(flat) + sum(map(len, flat))


def decode(flat: list, factor: float, into: dict, restrict=None) -> int:
    """Postings into {unit: {doc: weight}} (the best weight of a document), each weighted by its
    kind; gives the number of postings read (the term's df)."""
    df = 0
    for key, enc in zip(flat[::2], flat[1::2]):
        docs, doc = into.setdefault(key, {}), 0
        for v in map(lambda x: int(x, 16), enc.split(",")):
            kind = (v >> 6) & 3
            w = (v & 63) * factor * KIND_FACTOR[kind]
            doc += v // 256
            df += 1
            if restrict is not None and not restrict(key, doc, kind):
                continue
            if docs.get(doc, 0) < w:
                docs[doc] = w
    return df


def _group_postings(ix: SiteIndex, g: Group, restrict) -> None:
    """A group's postings and idf; a completed word takes the most frequent terms that start with
    it (the word itself at full weight, the others at 0.9)."""
    names = [g.word]
    if g.prefix:
        shard = ix.shard(shard_of(g.word))
        seen: dict[str, int] = {}
        for t in [*shard, *ix.delta_terms]:
            if t in seen or t == g.word or not t.startswith(g.word) or ":" in t:
                continue
            seen[t] = ix.size(t, shard.get(t))
        ranked = sorted((t for t in seen if seen[t] > 0), key=lambda t: (-seen[t], t))
        names += ranked[:PREFIX_TERMS]
    into: dict = {}
    df = 0
    for i, name in enumerate(names):
        flat = ix.term_units(name)
        if flat:
            df = max(df, decode(flat, 1 if i == 0 else 0.9, into, restrict))
    g.idf, g.units = idf(max(df, 1)), into


def _allowed(ix: SiteIndex, f: dict) -> list[dict] | None:
    """The posting filters' documents ({unit: {doc: 1}} each), None when there is none."""
    allows = []
    for name in POSTING_FILTERS:
        v = f[name].split("/")[-1] if name == "file" else f[name]
        if v:
            allow: dict = {}
            decode(ix.term_units(f"{name}:{v.lower()}") or [], 1, allow)
            allows.append(allow)
    return allows if allows else None


def _restrict(f: dict, allows: list | None):
    kind = KIND_CODES.get(f["kind"][:1]) if f["kind"] else None

    def ok(key: str, doc: int, k: int) -> bool:
        if kind is not None and k != kind:
            return False
        if allows is not None and k != 3:
            return False
        return all(doc in a.get(key, ()) for a in allows or ())
    return ok


def rank(groups: list[Group]) -> list[Found]:
    """Sessions where every group occurs, by Σ idf × best weight; hits by their summed scores."""
    groups = sorted(groups, key=lambda g: len(g.units))
    by_session = []
    for g in groups:
        s: dict[str, list] = {}
        for key in g.units:
            s.setdefault(key[:8], []).append(key)
        by_session.append(s)
    out = []
    for sk in by_session[0]:
        score, docs, ok = 0.0, {}, True
        for g, s in zip(groups, by_session):
            best = 0.0
            for key in s.get(sk, ()):
                for d, w in g.units[key].items():
                    hid = f"{key}:{d}"
                    docs[hid] = docs.get(hid, 0) + w * g.idf
                    best = max(best, w)
            if best <= 0:
                ok = False
                break
            score += best * g.idf
        if ok:
            hits = sorted(docs, key=lambda h: (-docs[h], h))  # (ties: "unit:doc" as strings, as search.js)
            out.append(Found(sk, score, docs[hits[0]], hits))
    out.sort(key=lambda s: (-s.score, -s.top, s.key))
    return out


def _meta_ok(f: dict, u: list | None) -> bool:
    if not u:
        return False
    if f["project"] and u[2] != f["project"] and f["project"].lower() not in u[2].lower():
        return False
    if f["session"] and not u[3].startswith(f["session"]):
        return False
    if f["model"] and not any(f["model"].lower() in m.lower() for m in (u[7] if len(u) > 7 else [])):
        return False
    if f["after"] and (u[6] or "")[:10] < f["after"]:
        return False
    return not (f["before"] and (u[5] or "")[:10] > f["before"])


def _meta_filter(ix: SiteIndex, f: dict, found: list[Found]) -> list[Found]:
    if not any(f[k] for k in META_FILTERS):
        return found
    ix.need_units(units_file(s.hits[0]) for s in found)
    return [s for s in found if _meta_ok(f, ix.units.get(s.hits[0].split(":")[0]))]


def has_phrase(text: str, phrase: list[str]) -> bool:
    ts, n = terms(text), len(phrase)
    return any(ts[i:i + n] == phrase for i in range(len(ts) - n + 1))


def _phrase_filter(ix: SiteIndex, query: Query, found: list[Found], checks: int | None) -> list[Found]:
    """A phrase must occur in one message: the candidates holding every phrase word, best session
    first, are read and checked, up to ``checks`` of them (None: all)."""
    if not query.phrases:
        return found
    by_term = {g.word: g for g in query.groups}

    def holds(hit: str) -> bool:
        key, doc = hit.split(":")
        return all(by_term[t].units.get(key, {}).get(int(doc), 0) > 0 for p in query.phrases for t in p)
    good: dict[str, list] = {}
    n = 0
    for s in found:
        for hit in s.hits:
            if checks is not None and n >= checks:
                break
            if holds(hit):
                n += 1
                d = ix.doc(hit)
                if d and all(has_phrase(d[4], p) for p in query.phrases):
                    good.setdefault(s.key, []).append(hit)
    out = [s for s in found if s.key in good]
    for s in out:
        s.hits = good[s.key]
    return out


def _listing(ix: SiteIndex, f: dict, allows: list | None) -> list[Found]:
    """A query of filters alone: the sessions (newest first) and the messages they select (each
    unit's latest first; with no posting filter, each unit's first message)."""
    units: dict[str, list] = {}
    if allows is None:
        if not any(f[k] for k in META_FILTERS):
            return []
        ix.need_units(UNIT_FILES)
        units = {key: [0] for key in ix.units}
    elif not f["kind"] or f["kind"][:1].lower() == "t":
        for key, docs in allows[0].items():
            kept = sorted((d for d in docs if all(d in a.get(key, ()) for a in allows[1:])), reverse=True)
            if kept:
                units[key] = kept
    ix.need_units(units_file(key) for key in units)
    sessions: dict[str, list] = {}
    for key in sorted(units):
        if _meta_ok(f, ix.units.get(key)):
            sessions.setdefault(key[:8], []).extend(f"{key}:{d}" for d in units[key])
    latest = {sk: max((_when(ix.units[h.split(":")[0]]) for h in hits)) for sk, hits in sessions.items()}
    order = sorted(sessions, key=lambda sk: (latest[sk], sk), reverse=True)
    return [Found(sk, 0.0, 0.0, sessions[sk]) for sk in order]


def _when(u: list) -> str:
    return u[6] or u[5] or ""


def run_query(ix: SiteIndex, query: Query, checks: int | None = PHRASE_CHECKS) -> list[Found]:
    """The matching sessions, best first (search.js search)."""
    f = query.filters
    allows = _allowed(ix, f)
    if not query.groups:
        return _listing(ix, f, allows)
    restrict = _restrict(f, allows)
    for g in query.groups:
        _group_postings(ix, g, restrict)
    found = _meta_filter(ix, f, rank(query.groups))
    return _phrase_filter(ix, query, found, checks)


def page_order(found: list[Found]) -> list[str]:
    """Hits as the page lists them: each session's best HITS_PER_SESSION in session order, then
    the rest ("and N more in this session")."""
    first = [h for s in found for h in s.hits[:HITS_PER_SESSION]]
    return first + [h for s in found for h in s.hits[HITS_PER_SESSION:]]


def marks(query: Query) -> list[tuple[str, bool]]:
    """The words to mark: (term, completed) — a completed word marks the words it starts."""
    out: list[tuple[str, bool]] = []
    for g in query.groups:
        if (g.word, g.prefix) not in out:
            out.append((g.word, g.prefix))
    return out


_WORDS = re.compile(r"[^\W]+")


def first_match(text: str, words: list[tuple[str, bool]]) -> int:
    """Where the first whole term of ``words`` starts in ``text`` (-1: none)."""
    for m in _WORDS.finditer(text):
        for t in terms(m.group()):
            if any(t == w or (prefix and t.startswith(w)) for w, prefix in words):
                return m.start()
    return -1


def phrase_at(text: str, phrase: list[str]) -> int:
    """Where the phrase first starts in ``text`` (-1: nowhere)."""
    spots = [(m.start(), t) for m in _WORDS.finditer(text) for t in terms(m.group())]
    n = len(phrase)
    return next((spots[i][0] for i in range(len(spots) - n + 1)
                 if [t for _, t in spots[i:i + n]] == phrase), -1)


def snippet(text: str, words: list[tuple[str, bool]], phrases: list | None = None) -> str:
    """The text around the first phrase (or the first marked word), spaces collapsed."""
    at = phrase_at(text, phrases[0]) if phrases else -1
    at = at if at >= 0 else max(first_match(text, words), 0)
    start = max(0, at - 60)
    return " ".join(text[start:start + SNIPPET * 2].split())[:SNIPPET]


def to_hit(ix: SiteIndex, hit: str, words: list, phrases: list | None = None) -> SearchHit | None:
    key = hit.split(":")[0]
    ix.need_units([units_file(key)])
    u, d = ix.units.get(key), ix.doc(hit)
    if not u:
        return None
    if d is None:  # a unit with no message (a filter's listing): its session
        return SearchHit(u[3], ix.project_title(u[2]), u[1], u[0], "prompt", "", _when(u))
    return SearchHit(u[3], ix.project_title(u[2]), u[1], u[0] + d[1], KIND_NAMES.get(d[0], "tool"),
                     snippet(d[4], words, phrases), d[2] or "")


def search_site(site: Path, query: str, limit: int = 20) -> list[SearchHit]:
    """The query language of the site's search box (words, "phrases", and filters file: tool:
    project: session: model: after: before: is:error), run over the built site's index files in
    ``site/search/``; hits ordered as the page orders them (best first), at most ``limit``.
    Raises ValueError with a clear message for a query it cannot parse."""
    q = parse(query)
    if not q.groups and not any(q.filters[k] for k in (*POSTING_FILTERS, *META_FILTERS)):
        raise ValueError(f"nothing to search for in {query!r}: give words, a \"phrase\" or a filter")
    ix = SiteIndex(site)
    words, out = marks(q), []
    for hit in page_order(run_query(ix, q)):
        if len(out) >= limit:
            break
        h = to_hit(ix, hit, words, q.phrases)
        if h is not None:
            out.append(h)
    return out
