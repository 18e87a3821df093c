"""Phrases drawn from the text a built site shows in its messages, for the completeness check of
search (issue 25): every prompt, answer, thinking block, tool input and result (whole), sub-agent
and prompts-only page. Each phrase knows the message that holds it: its page and the anchors
(``id="L…"``) inside that message, any of which a hit may open."""

from __future__ import annotations

import random
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from ccreport.site.searchtext import terms

# Page chrome inside a message: who/when/model headers, tool names in summaries, labels, chips and
# notes the site adds (not transcript text), the line numbers it puts beside code and diffs, a
# task's status word, the task board it rebuilds from other calls, the link to a sub-agent's pages,
# and the raw JSON view of a line (its escapes are the file's, not the text).
_CHROME = {"dim", "chip", "lbl", "rinfo", "note", "perma", "who", "model", "usage", "when", "tname", "chrome",
           "anchor", "turnline", "copy", "kv-key", "ln", "lsep", "hunk", "raw", "tstatus", "mark",
           "board", "agent-link"}
_SKIP_TAGS = {"header", "summary", "script", "style", "button", "th", "time", "svg", "nav"}
_VOID = {"br", "img", "hr", "input", "wbr", "meta", "link", "col", "area", "source"}
_BLOCK = {"p", "div", "pre", "li", "ul", "ol", "table", "tr", "td", "h1", "h2", "h3", "h4", "h5", "h6",
          "blockquote", "details", "section", "article", "dl", "dt", "dd"}


@dataclass
class Line:
    page: str  # the page's path from the site root, unquoted
    anchors: frozenset  # the ids L… of the message that holds it
    terms: list


class _Messages(HTMLParser):
    """Lines of text (block by block, split at newlines) of each <article class="msg …"> outside
    chrome; the anchors of each message."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.depth = -1  # stack depth of the open message, -1: none
        self.anchors: set = set()
        self.texts: list[list[str]] = []  # the message's blocks, each a list of text pieces
        self.done: list[tuple[frozenset, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if self.depth < 0 and tag == "article" and "msg" in classes:
            self.depth, self.anchors, self.texts = len(self.stack), set(), [[]]
        if self.depth >= 0:
            if (a.get("id") or "").startswith("L"):
                self.anchors.add(a["id"])
            if tag in _BLOCK:
                self.texts.append([])
        if tag in _VOID:
            return
        skipped = bool(self.stack and self.stack[-1][1]) or tag in _SKIP_TAGS or bool(classes & _CHROME)
        self.stack.append((tag, skipped))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if self.depth >= 0 and t in _BLOCK:
                self.texts.append([])
            if self.depth >= 0 and len(self.stack) == self.depth:
                self.done.append((frozenset(self.anchors), ["".join(b) for b in self.texts if b]))
                self.depth = -1
            if t == tag:
                break

    def handle_data(self, data):
        if self.depth >= 0 and not (self.stack and self.stack[-1][1]):
            self.texts[-1].append(data)


def site_lines(site: Path) -> list[Line]:
    """Every line of message text of every page under p/ with at least two terms."""
    out: list[Line] = []
    for path in sorted((site / "p").rglob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        if '<article class="msg' not in raw:
            continue
        parser = _Messages()
        parser.feed(raw)
        page = unquote(path.relative_to(site).as_posix())
        for anchors, blocks in parser.done:
            for block in blocks:
                for line in block.split("\n"):
                    ts = terms(line)
                    if len(ts) >= 2:
                        out.append(Line(page, anchors, ts))
    return out


def sample_phrases(lines: list[Line], n: int, seed: int) -> list[tuple[list[str], Line]]:
    """``n`` phrases of two or three terms at random offsets of the whole text (each term of the
    site equally likely to start one)."""
    rnd = random.Random(seed)
    starts, total = [], 0
    for line in lines:
        starts.append(total)
        total += len(line.terms)
    out = []
    for _ in range(n):
        at = rnd.randrange(total)
        i = max(j for j in (_bisect(starts, at),))
        line, size = lines[i], rnd.choice((2, 3))
        size = min(size, len(line.terms))
        k = min(at - starts[i], len(line.terms) - size)
        out.append((line.terms[k:k + size], line))
    return out


def _bisect(starts: list[int], at: int) -> int:
    import bisect
    return bisect.bisect_right(starts, at) - 1


def opens(url: str, line: Line) -> bool:
    """Whether a hit's URL (from the site root) opens the message holding ``line``."""
    page, _, anchor = unquote(url).partition("#")
    return page.split("?")[0] == line.page and anchor in line.anchors
