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
        if (tag in ("a", "p") and self._in == "prompt") or (tag == "div" and self._in == "answer"):
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


def test_a_title_taken_from_a_prompt_reads_as_text(tmp_path):
    from ccreport.site.build import Options, build
    from ccreport.site.state import State
    from util import assistant, make_home, user

    sid = "aaaaaaaa-0000-0000-0000-000000000001"
    home = make_home(tmp_path / "home", {"-p": {f"{sid}.jsonl": [
        user("u0", "## Fix `parse_row` in **reader.py**\n- keep the tests", sid=sid),
        assistant("a0", [{"type": "text", "text": "- **Done:** `parse_row` fixed"}], parent="u0", sid=sid)]}})
    out = tmp_path / "site"
    build(home, out, Options(jobs=1))
    assert State.load(out).sessions[("-p", sid)].info.title == "Fix parse_row in reader.py keep the tests"
    page = (out / "p" / "-p" / sid / "page-0001.html").read_text()
    assert "<title>Fix parse_row in reader.py keep the tests · page 1" in page
    parser = _Outline()
    parser.feed((out / "p" / "-p" / sid / "index.html").read_text())
    assert parser.texts == ["Fix parse_row in reader.py keep the tests", "Done: parse_row fixed"]
