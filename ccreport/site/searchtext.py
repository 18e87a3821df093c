"""What search sees of a message: its documents (prompt, answer, thinking, tool call) and the
terms of a text. assets/search.js tokenizes queries by the same rules (docs/search.md), so a
change here is a change there.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import filterfalse
from typing import Any

from ccreport.layout import url_name
from ccreport.model.messages import Message
from ccreport.render.markup import RENDER_MAX, strip_ansi

# Every character a message shows is indexed (an error message deep in a pytest output must be
# found; docs/search.md gives the cost): each text whole up to what a page shows of it (RENDER_MAX,
# a million characters), not beyond (a 40 MB line would cost the build its memory bound).
SHOWN = RENDER_MAX
KINDS = {"p": 0, "a": 1, "h": 2, "t": 3}  # prompt, answer, thinking, tool call (2 bits of a posting)
WBITS = 6  # a posting's BM25 weight, quantized to 1..LEVELS
LEVELS = (1 << WBITS) - 1
SHIFT = WBITS + 2  # a posting: document no << SHIFT | kind << WBITS | weight

# A term is a run of letters, digits and "_" (identifiers stay whole: parse_numbered), lower-cased
# and cut at MAX_TERM characters; a run of CJK characters gives its overlapping pairs (bigrams),
# as no spaces separate its words. JS: /[\p{L}\p{N}_]+/gu and the same CJK ranges.
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
MAX_TERM = 40


def terms(text: str) -> list[str]:
    """The terms of a text, in order."""
    return _words(text.lower(), bool(_CJK.search(text)))


def _words(low: str, cjk: bool) -> list[str]:
    """The terms of a lower-cased text (``cjk``: it has CJK characters: they give bigrams)."""
    words = _WORD.findall(low)
    if not cjk:
        return [w[:MAX_TERM] for w in words]
    out: list[str] = []
    for w in words:
        if not _CJK.search(w):
            out.append(w[:MAX_TERM])
            continue
        pos = 0
        for m in _CJK.finditer(w):
            if m.start() > pos:
                out.append(w[pos:m.start()][:MAX_TERM])
            run = m.group()
            out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
            pos = m.end()
        if pos < len(w):
            out.append(w[pos:][:MAX_TERM])
    return out


# BM25 with k1 = 1.2, b = 0.75 against a fixed average length, so that a document's weight never
# depends on the rest of the archive: an append changes only its own postings. The weight is kept
# in WBITS bits (1–LEVELS) per posting; the query multiplies it by the term's idf.
K1, B, AVG_LEN = 1.2, 0.75, 120.0
_ASCII_SEP = bytes(i for i in range(128) if not (chr(i).isalnum() or chr(i) == "_"))
_ASCII_SPLIT = bytes.maketrans(_ASCII_SEP, b" " * len(_ASCII_SEP))
# The same, A–Z lower-cased as well: an ASCII text is folded in one pass; in any text only the
# pieces with a non-ASCII character need str.lower (Unicode's full lower-casing, a tenth of the
# tokenizing of the corpus when run over every non-ASCII text whole).
_ASCII_FOLD = bytes.maketrans(_ASCII_SEP + bytes(range(65, 91)), b" " * len(_ASCII_SEP) + bytes(range(97, 123)))


def counts(text: str) -> tuple[Counter, int]:
    """term → occurrences, and the number of terms (the multiset of terms() without its order).
    Every loop is in C, the regex only runs on the rare words with a non-ASCII character: the
    text's ASCII separators become spaces and its ASCII capitals small letters in its UTF-8 bytes
    (a multi-byte character has no byte below 128, so none is touched), split() then also cuts at
    Unicode spaces; neither is ever inside a term, so an ASCII piece is one term, and a non-ASCII
    one, lower-cased, gives terms() of its own. (A capital sigma's small form depends on the letters
    around it, past the separators: such a text is lower-cased whole first, as terms() does.)"""
    if text.isascii():
        words = text.encode().translate(_ASCII_FOLD).decode().split()
        rest: list[str] = []
    else:
        sigma = "\u03a3" in text
        raw = (text.lower() if sigma else text).encode("utf-8", "surrogatepass")
        pieces = raw.translate(_ASCII_SPLIT if sigma else _ASCII_FOLD).decode("utf-8", "surrogatepass").split()
        words = list(filter(str.isascii, pieces))
        odd = " ".join(filterfalse(str.isascii, pieces))
        odd = odd if sigma else odd.lower()
        rest = _words(odd, bool(_CJK.search(odd)))
    c = Counter(words)
    # (a term past MAX_TERM looked for among the distinct words, not every word: the corpus has
    # 151 K (term, document) pairs for 355 K words)
    if c and max(map(len, c)) > MAX_TERM:
        c = Counter([w[:MAX_TERM] for w in words])
    if rest:
        c.update(rest)
    return c, len(words) + len(rest)


# Texts that repeat (a file read again, a sub-agent's prompt that is its Task call's input, a tool
# output seen twice) are tokenized and weighed once: their terms and weights are kept by text, for
# texts of REPEAT_MIN characters or more (a short one costs less to count than to look up),
# REPEAT_CHARS of them at most (then the memory starts again: a bound on what a worker holds).
# 2 M characters: ~8 MB of a process's memory less than 8 M (corpus 73 -> 69 MB, m150 at --jobs 1
# 92 -> 85 MB, the 300 MB home's tree 203 -> 193 MB, a 1 GB session 190 -> 170 MB) for the same
# CPU on the real corpus and on m150 (alternated runs); only a home cloned from one corpus, whose
# texts all repeat within 8 M characters, loses hits (a 1 GB cloned session, benchmarks/run.py at
# --jobs 1: 35.3 -> 37.4 CPU s).
REPEAT_MIN, REPEAT_CHARS = 256, 2 << 20
_SEEN: dict[str, tuple[list, list]] = {}
_seen_chars = [0]


def weighed(text: str) -> tuple[list[str], list[int]]:
    """The distinct terms of a text and the quantized BM25 weight of each (weights: by its count
    in a text of that many terms), in the order of counts()."""
    c, length = counts(text)
    if not c:
        return [], []
    table = weights(length, c.values())
    return list(c), list(map(table.__getitem__, c.values()))


def weighed_once(text: str) -> tuple[list[str], list[int]]:
    """weighed(text), from the texts already weighed when it is one of them (never changed by the caller)."""
    if len(text) < REPEAT_MIN:
        return weighed(text)
    got = _SEEN.get(text)
    if got is None:
        if _seen_chars[0] + len(text) > REPEAT_CHARS:
            _SEEN.clear()
            _seen_chars[0] = 0
        got = _SEEN[text] = weighed(text)
        _seen_chars[0] += len(text)
    return got


def weight(n: int, length: int) -> int:
    norm = K1 * (1 - B + B * length / AVG_LEN)
    return max(1, min(LEVELS, round(LEVELS * (n * (K1 + 1) / (n + norm)) / (K1 + 1))))


# document length → {n: weight of a term seen n times}, for the counts met so far. Only the counts a
# text has are weighed (not every count up to its largest: 14,212 calls of weight() for the corpus's
# 1,794 texts, a fifth of weighing them; 6,016 with their distinct counts).
_TABLES: dict[int, dict[int, int]] = {}


def weights(length: int, counts_seen) -> dict[int, int]:
    """A document length's quantized weights, holding at least those of ``counts_seen`` (a dict:
    looked up in C)."""
    table = _TABLES.get(length)
    if table is None:
        table = _TABLES[length] = {}
    for n in set(counts_seen).difference(table):
        table[n] = weight(n, length)
    return table


def idf(df: int, n: int = 1_000_000) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _strings(value: Any) -> str:
    """The string leaves of a JSON value (tool inputs, structured results)."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(reversed([x for k, x in v.items() if k not in ("source", "signature", "data")]))
        elif isinstance(v, list):
            stack.extend(reversed(v))
    return " ".join(out)[:SHOWN]


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content[:SHOWN]
    if isinstance(content, list):
        return "\n".join(b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))[:SHOWN]
    return ""


def _patch_text(extra: Any) -> str:
    """The lines of the diff an Edit or Write shows (its recorded structuredPatch: the changed lines
    and the file's lines around them, which the call's input does not hold)."""
    patch = extra.get("structuredPatch") if isinstance(extra, dict) else None
    if not isinstance(patch, list):
        return ""
    lines = [x for h in patch if isinstance(h, dict) and isinstance(h.get("lines"), list) for x in h["lines"]]
    return "\n" + "\n".join(x for x in lines if isinstance(x, str))


def tool_field(name: str, path: str, failed: bool) -> str:
    """A tool call document's fourth field: "name\tfile path", with "\t!" when the call failed
    (is:error)."""
    return name + "\t" + path + ("\t!" if failed else "")


def file_of(value: Any) -> str:
    """The file a tool call works on (its file_path/notebook_path/path input), or ''."""
    if isinstance(value, dict):
        for k in ("file_path", "notebook_path", "path"):
            if isinstance(value.get(k), str):
                return value[k]
    return ""


def _assistant_docs(m: Message, url: str, ts: str) -> list[list]:
    docs: list[list] = []
    text = "\n".join(p for t, p in m.blocks if t == "text" and isinstance(p, str) and p)[:SHOWN]
    if text.strip():
        docs.append(["a", url + str(m.line), ts, "", text])
    thinking = "\n".join(p["thinking"] for t, p in m.blocks if t == "thinking" and isinstance(p, dict)
                         and isinstance(p.get("thinking"), str))[:SHOWN]
    if thinking.strip():
        docs.append(["h", url + str(m.line), ts, "", thinking])
    for call in m.calls:
        text = call.name + " " + _strings(call.input)
        anchor, failed = call.line, False
        if call.result is not None:
            text += "\n" + _result_text(call.result.content) + _patch_text(call.result.extra)
            anchor = call.result.line  # the result's block carries this id inside the call's <details>
            failed = call.result.is_error
        docs.append(["t", url + str(anchor), ts, tool_field(call.name, file_of(call.input), failed), text])
    return docs


def message_docs(m: Message, prefix: str) -> list[list]:
    """[kind, url, timestamp, tool, text] documents of one message; prefix = "<sub>page-NNNN.html"
    (a URL, relative to the session folder); tool = "<tool name>\\t<file path>" on tool calls."""
    ts = m.timestamp or ""
    url = prefix + "#L"
    if m.kind == "user":
        text = " ".join(b[1] for b in m.blocks if b[0] == "text" and isinstance(b[1], str))
        return [["p", url + str(m.line), ts, "", text[:SHOWN]]] if text.strip() else []
    if m.kind == "assistant":
        return _assistant_docs(m, url, ts)
    if m.kind == "result":  # one block: ("tool_result", the result)
        name = (m.late_call or {}).get("name") or "tool result"
        res = m.blocks[0][1]
        return [["t", url + str(m.line), ts, tool_field(name, "", res.is_error), name + "\n" + _result_text(res.content)]]
    return []


def page_docs(messages, prefix: str) -> list[list]:
    """The documents of one page's messages (one that cannot be indexed is left out). A text's
    terminal escapes go, as the page shows its colours and not the codes (a command's output:
    "\x1b[1mSystem prompt\x1b[22m: 3.0k" is found as "system prompt 3")."""
    docs: list[list] = []
    for m in messages:
        try:
            found = message_docs(m, prefix)
        except Exception:  # an odd message must not cost the session its pages
            continue
        for d in found:
            if "\x1b" in d[4]:
                d[4] = strip_ansi(d[4])
        docs.extend(found)
    return docs


def page_url(transcript_id: str, no: int) -> str:
    """A page's URL from its session folder (each name percent-encoded once)."""
    from ccreport.layout import page_in_session
    rel = page_in_session(transcript_id, no)
    return "/".join(url_name(part) for part in rel.split("/"))
