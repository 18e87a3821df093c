"""The outline reads as text: no raw Markdown in its prompts and answers (issue 25, point 8)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ccreport.site.outline import answer_lines


class _Outline(HTMLParser):
    """The text of the outline's prompt links and answer lines."""

    def __init__(self):
        super().__init__()
        self.texts, self._in = [], None

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "p" and cls == "turn-prompt":
            self._in = "prompt"
        elif tag == "div" and cls == "answer-head":
            self._in = "answer"
        elif tag == "p" and self._in == "answer":
            self.texts.append("")
        elif tag == "a" and self._in == "prompt":
            self.texts.append("")

    def handle_endtag(self, tag):
        if (tag == "p" and self._in == "prompt") or (tag == "div" and self._in == "answer"):
            self._in = None

    def handle_data(self, data):
        if self._in and self.texts:
            self.texts[-1] += data


RAW = re.compile(r"^\s*(#{1,6}\s|[-*+]\s|>\s)|\*\*|`[^`]+`")


def test_answer_lines_are_plain():
    assert answer_lines("## `_get_enhanced_session_navigation`\n\n- **New files:**\n---\nthird") == [
        "_get_enhanced_session_navigation", "New files:", "third"]


def test_corpus_outline_has_no_raw_markdown(corpus_site):
    out, _res = corpus_site
    shown, raw = 0, []
    for page in out.glob("p/*/*/index.html"):
        parser = _Outline()
        parser.feed(page.read_text())
        shown += len(parser.texts)
        raw.extend(t for t in parser.texts if RAW.search(t))
    assert shown > 200
    assert raw == [], raw[:20]
