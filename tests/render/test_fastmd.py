"""fastmd (markdown-it-pyrs) must render what markup's markdown-it-py setup renders, as safely."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from ccreport.render import fastmd
from ccreport.render import markup

pytestmark = pytest.mark.skipif(not fastmd.available(), reason="markdown-it-pyrs not installed")

SAME = [
    "plain text & \"quotes\" 'x' <tag>",
    "# Heading\n\nSome *em* and **strong** and `code <x>` and ~~gone~~.",
    "* a\n* b\n  1. c\n  2. d\n\n> quote\n> more",
    "| a | b |\n|:--|--:|\n| 1 | 2 |",
    "```python\ndef f(x):\n    return x < 1\n```",
    "```\nno language & <b>\n```",
    "[web](https://example.com \"title & more\") and <https://auto.link/x?a=1&b=2> and [mail](mailto:a@b.c)",
    "[rel](docs/FORMAT.md) [js](javascript:alert(1)) [data](data:text/html,hi) <javascript:alert(1)>",
    "![pic](https://example.com/a.png) ![local](a.png)",
    "[![pic](https://i.example/a.png)](https://l.example)",
    "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<div>raw</div>",
    "line one  \nline two\\\nline three\n\n---\n\nSetext\n======",
    "[ref]\n\n[ref]: https://example.com/ref",
    "&copy; &#x3C;script&#x3E; &amp;lt;",
]


def fast(text: str) -> str:
    return fastmd.render(text, markup._code_block, markup.safe_link, markup.relative_link)


@pytest.mark.parametrize("text", SAME)
def test_same_html_as_markdown_it_py(text):
    assert fast(text) == markup._reference_md().render(text)


def test_markdown_uses_the_fast_renderer_by_default():
    text = "*x* [a](https://a.example)"
    assert markup.markdown(text) == fast(text)


_HREF = re.compile(r'href="([^"]*)"')


def _assert_safe(html: str) -> None:
    assert "<script" not in html.lower()
    assert "<img" not in html and "<iframe" not in html.lower()
    assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", html, re.I)  # no event-handler attributes
    for href in _HREF.findall(html):
        assert re.match(r"(https?:|mailto:)", href, re.I), href


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([
    "[", "]", "(", ")", "!", "<", ">", "`", "```", "*", "_", "\n", "\n\n", " ", "\"", "'", "&", "#", "|", "-",
    "javascript:", "JaVaScRiPt:", "data:", "http://a.b", "https://c.d/e", "mailto:x@y", "vbscript:",
    "<script>", "<img src=x onerror=y>", "onclick=", "title", "x", "&#106;avascript:", "%6a",
]), max_size=30).map("".join))
def test_hostile_markdown_stays_safe(text):
    try:
        html = fast(text)
    except fastmd.Unrenderable:
        html = markup.markdown(text)  # what a page gets then
    _assert_safe(html)
    # and the reference renderer agrees it is safe (a sanity check of the check)
    _assert_safe(markup._reference_md().render(text))


@pytest.mark.parametrize("text", ["[`", "a [` b", "[ `a", "[\n`"])
def test_inputs_the_rust_port_panics_on_fall_back_quietly(text, capfd):
    with pytest.raises(fastmd.Unrenderable):
        fast(text)
    assert markup.markdown(text) == markup._reference_md().render(text)
    out, err = capfd.readouterr()
    assert "panicked" not in err and "backtrace" not in err
