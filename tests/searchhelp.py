"""The references the search index is checked against: one streaming read of a whole session
(documents and usage), a reader of the index files as built, and a brute-force query oracle."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from pathlib import Path

import orjson

from ccreport.model.messages import Builder
from ccreport.model.pages import paginate
from ccreport.model.usage import TranscriptUsage, merge_ledgers
from ccreport.site.search import unit_chunk, unit_key
from ccreport.site.searchfiles import read_shard
from ccreport.site.searchquery import KIND_FACTOR
from ccreport.site.searchtext import KINDS, AVG_LEN, B, K1, LEVELS, SHIFT, WBITS, idf, page_docs, page_url, terms
from ccreport.source.home import Session, discover
from ccreport.source.jsonl import Reader


def read_session(s: Session, page_size: int, by_transcript: bool = False):
    """(documents in session order, usage report); with ``by_transcript``: {transcript id: documents}."""
    ledgers = []
    docs: dict[str, list] = {}
    for t in s.transcripts:
        led = TranscriptUsage()
        ledgers.append((t.id, t.kind, led))
        mine = docs.setdefault(t.id, [])
        try:
            with open(t.path, "rb") as fh:
                for page in paginate(led.tap(Reader(fh)), Builder(), page_size):
                    mine.extend(page_docs(page.messages, page_url(t.id, page.no)))
        except OSError:
            continue
    if by_transcript:
        return docs, merge_ledgers(ledgers)
    return [d for t in s.transcripts for d in docs[t.id]], merge_ledgers(ledgers)


def _script_json(raw: bytes, head: bytes):
    assert raw.startswith(head) and raw.endswith(b");\n"), raw[:60]
    return orjson.loads(raw[len(head):-3])


def unit_docs(site: Path, key: str) -> list[list]:
    """A unit's documents, read back from its chunks in order."""
    docs, c = [], 0
    while (chunk := unit_chunk(site, key, c)) is not None:
        docs.extend(chunk)
        c += 1
    return docs


def index_terms(site: Path) -> dict[str, dict[str, list[tuple[int, int, int]]]]:
    """term → {unit key: [(document no, kind, weight)]}, as the page sees the index: the shards and
    blocks as written with the pending delta (search/delta.js) applied, the way search.js does —
    a unit the delta cuts keeps its shard postings before its cut, and gets the delta's."""
    out: dict = {}
    for shard in sorted((site / "search/t").glob("*.js")):
        entries = read_shard(site, int(shard.stem, 16))
        assert entries is not None, shard
        for term, e in entries.items():
            flat = e
            if e and isinstance(e[0], int):
                flat = []
                for b in range(1 << e[0]):
                    name = f"{e[2]}-{e[0]}-{b}"
                    flat += _script_json((site / f"search/b/{name}.js").read_bytes(), b'ccreportSearch.block("%s",' % name.encode())
            _add_postings(out.setdefault(term, {}), flat)
    delta = _script_json((site / "search/delta.js").read_bytes(), b"ccreportSearch.delta(")
    for units in out.values():
        for key in delta["cuts"].keys() & units.keys():
            units[key] = [row for row in units[key] if row[0] < delta["cuts"][key]]
    for term, flat in delta["terms"].items():
        units = out.setdefault(term, {})
        for key, enc in zip(flat[::2], flat[1::2]):
            assert key in delta["cuts"] and all(row[0] < delta["cuts"][key] for row in units.get(key, ()))
            _add_postings(units, [key, enc])
    for term in list(out):
        out[term] = {key: rows for key, rows in out[term].items() if rows}
        if not out[term]:
            del out[term]
    return out


def _add_postings(units: dict, flat: list) -> None:
    for key, enc in zip(flat[::2], flat[1::2]):
        doc, rows = 0, units.setdefault(key, [])
        for v in (int(x, 16) for x in enc.split(",")):
            doc += v >> SHIFT  # a step from the document before
            rows.append((doc, (v >> WBITS) & 3, v & LEVELS))
        assert rows == sorted(rows), key


# ---- the oracle: every session's documents, matched and ranked by brute force with exact BM25
# weights (the index keeps them in 4 bits). A session matches when each query word occurs in one
# of its documents and each phrase in one document; its score sums, per word, the word's idf
# times its best BM25 weight in the session, weighted by the document's kind (a prompt or an
# answer outranks tool output).

class Oracle:
    def __init__(self, home: Path, page_size: int = 50):
        self.sessions: dict[str, list] = {}  # session hash (8 hex) → [(terms, counter, text)]
        self.df: Counter = Counter()
        for s in discover(home).sessions():
            docs, _ = read_session(s, page_size)
            rows = []
            for d in docs:
                ts = terms(d[4])
                c = Counter(ts)
                self.df.update(c.keys())
                rows.append((ts, c, d))
            self.sessions[unit_key(s.project.dir_name, s.id, "main")[:8]] = rows

    @staticmethod
    def _w(n: int, length: int) -> float:
        return n * (K1 + 1) / (n + K1 * (1 - B + B * length / AVG_LEN))

    def search(self, words: list[str], phrases: list[list[str]]) -> dict[str, float]:
        """{session hash: score} of the matching sessions."""
        out = {}
        for key, rows in self.sessions.items():
            score, ok = 0.0, True
            for w in words:
                best = max((self._w(c[w], len(ts)) * KIND_FACTOR[KINDS[d[0]]] for ts, c, d in rows if w in c),
                           default=0.0)
                if not best:
                    ok = False
                    break
                score += best * idf(self.df[w])
            if ok and all(any(_has(ts, p) for ts, _, _ in rows) for p in phrases):
                out[key] = score
        return out


def _has(ts: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(ts[i:i + n] == phrase for i in range(len(ts) - n + 1))


def corpus_queries(oracle: Oracle, seed: int = 17) -> list[tuple[str, str]]:
    """(kind, query) drawn from the corpus: single words of every frequency, word pairs of one
    message, phrases, identifiers, file names, error messages and non-Latin words (≥ 50)."""
    rnd = random.Random(seed)
    rows = [r for key in sorted(oracle.sessions) for r in oracle.sessions[key]]
    vocab = sorted(t for t in oracle.df if len(t) >= 3 and not t.isdigit())
    out = [("word", w) for w in rnd.sample(vocab, 20)]
    for _ in range(8):
        ts = rnd.choice([r for r in rows if len(set(r[0])) > 4])[0]
        out.append(("words", " ".join(rnd.sample(sorted(set(ts)), 2))))
    for _ in range(8):
        ts = rnd.choice([r for r in rows if len(r[0]) > 6])[0]
        i = rnd.randrange(len(ts) - 3)
        out.append(("phrase", '"' + " ".join(ts[i:i + 3]) + '"'))
    idents = sorted({t for t in oracle.df if "_" in t.strip("_") and len(t) > 5 and not t[0].isdigit()})
    out += [("identifier", w) for w in rnd.sample(idents, min(5, len(idents)))]
    files = sorted({d[3].split("\t")[1].rsplit("/", 1)[-1] for r in rows for d in [r[2]] if d[0] == "t"
                    and "." in d[3].split("\t")[1].rsplit("/", 1)[-1]})
    out += [("file name", f) for f in rnd.sample(files, min(5, len(files)))]
    errors = sorted({m.group(0) for r in rows for m in re.finditer(r"\w*Error: \w+ \w+ \w+", r[2][4])})
    out += [("error", f'"{e}"') for e in rnd.sample(errors, min(4, len(errors)))]
    latin = sorted({t for t in oracle.df if not t.isascii() and len(t) >= 2})
    out += [("non-Latin", w) for w in rnd.sample(latin, min(4, len(latin)))]
    return out


def oracle_terms(query: str) -> tuple[list[str], list[list[str]]]:
    """The words and phrases of a query, by the rules of assets/search.js (parse)."""
    words, phrases = [], []
    for m in re.finditer(r'"([^"]*)"|(\S+)', query):
        ts = terms(m.group(1) if m.group(1) is not None else m.group(2))
        words += ts
        if len(ts) > 1:
            phrases.append(ts)
    return words, phrases


def top_is_best(found: list[str], scores: dict[str, float]) -> bool:
    if not scores:
        return not found
    best = max(scores.values())
    return bool(found) and math.isclose(scores.get(found[0], -1), best, rel_tol=1e-9)
