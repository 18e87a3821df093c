"""Control characters (NUL, the C0 set but tab/newline/return, DEL) show as visible symbols in the
pages, never raw (issue 18, point 7); search keeps the text as it was."""

from __future__ import annotations

import re

import orjson
import pytest

from ccreport.render import markup
from ccreport.site.build import Options, build
from ccreport.site.search import read_doc_script
from util import assistant, make_home, page_text, tool_result, user

CTRL = "".join(chr(c) for c in [*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f])
RAW = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("controls")
    lines = [
        user("u1", f"title{CTRL}prompt", ts="2025-06-01T10:00:00.000Z"),
        assistant("a1", [{"type": "text", "text": f"**bold\x00x** and `co\x07de`\n\n```py\nx = '\x1b\x08'\n```"},
                         {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "echo \x00nul"}}],
                  parent="u1"),
        tool_result("r1", "t1", "out\x1bput\x00 with \x1b[1mbold\x1b[0m", parent="a1"),
        {"type": "system", "subtype": "informational", "content": "hook \x1b[1mran\x1b[22m \x07", "uuid": "s1",
         "timestamp": "2025-06-01T10:00:02.000Z", "sessionId": "s1"},
    ]
    home = make_home(tmp / "home", {"-home-u-p": {"s1.jsonl": lines}})
    with open(home / "projects" / "-home-u-p" / "s1.jsonl", "ab") as fh:
        fh.write(b'{"type": "user", "broken\x00\x00 line with NUL\x01 bytes\n')  # a malformed line
    res = build(home, tmp / "site", Options(jobs=1))
    assert res.errors == []
    return tmp / "site"


def test_no_page_holds_a_raw_control_character(site):
    pages = sorted(site.rglob("*.html"))
    assert pages
    for p in pages:
        raw = p.read_bytes()
        assert RAW.search(raw) is None, (p.name, RAW.search(raw), raw[max(0, RAW.search(raw).start() - 40):][:80])


def test_control_characters_show_as_symbols(site):
    text = page_text(site / "p" / "-home-u-p" / "s1" / "page-0001.html")
    assert "title" + markup.show_controls(CTRL) + "prompt" in text  # every one of them, in order
    assert "broken␀␀ line with NUL␁ bytes" in text  # the malformed line, shown
    assert "bold␀x" in text and "co␇de" in text and "echo ␀nul" in text and "out␛put␀" in text
    assert "hook ran ␇" in text  # the ANSI sequence became bold; the bell is shown
    index = page_text(site / "p" / "-home-u-p" / "index.html")
    assert "title␀␁" in index  # the session title in the project's list


def test_search_keeps_the_text(site):
    # the document chunks (search/d/) are deflated: read them back
    docs = [d for p in (site / "search" / "d").glob("*.js") for d in read_doc_script(p.read_bytes()) or []]
    text = orjson.dumps(docs).decode()
    assert "echo \\u0000nul" in text and "bold\\u0000x" in text


def test_show_controls_keeps_other_text_and_types():
    from markupsafe import Markup

    assert markup.show_controls("tab\tnl\ncr\r ok é ␀") == "tab\tnl\ncr\r ok é ␀"
    assert markup.show_controls("\x00\x1f\x7f") == "␀␟␡"
    assert type(markup.show_controls(Markup("<b>\x00</b>"))) is Markup


def test_a_control_character_made_by_rendering_shows_too(tmp_path):
    """A page is checked whole (markup.controls_free) and its messages one by one only when it
    fails: a character no input check saw (a relative link's %01, decoded for its target) shows."""
    lines = [user("u1", "plain prompt"),
             assistant("a1", [{"type": "text", "text": "see [the file](notes%01.txt) here"}], parent="u1")]
    home = make_home(tmp_path / "home", {"-home-u-p": {"s1.jsonl": lines, "s2.jsonl": lines[:1]}})
    assert build(home, tmp_path / "site", Options(jobs=1)).errors == []
    shown = (tmp_path / "site/p/-home-u-p/s1/page-0001.html").read_bytes()
    assert RAW.search(shown) is None and "notes␁.txt" in shown.decode()
    assert markup.controls_free(shown) and not markup.controls_free("a\x01b".encode())
    assert markup.controls_free("→ tab\tand\r\nnewlines, Grüße ␀".encode())
