"""Every relative href/src of the built sites resolves to a file of the site, every #anchor exists,
and the page chrome loads nothing from another host (the site works from file:// offline)."""

from __future__ import annotations

import re

from linkcheck import check_site, parse
from util import SAMPLE_HOME


def test_link_checker_catches_broken_links(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a/x.html").write_text('<p id="L3">x</p><a href="#L3">ok</a>')
    (tmp_path / "index.html").write_text(
        '<a href="a/x.html#L3">ok</a><a href="a/x.html#L4">bad anchor</a><a href="a/">folder</a>'
        '<a href="b.html">missing</a><a href="#top">no such id</a><a href="../out.html">outside</a>'
        '<script src="https://cdn.example/x.js"></script><img src="data:image/png;base64,AAAA">'
        '<a href="javascript:alert(1)">js</a><a href="https://example.com">web link is fine</a>')
    pages, links, problems = check_site(tmp_path)
    assert pages == 2
    text = "\n".join(problems)
    assert len(problems) == 7, text
    for needle in ("#L4", "missing a", "missing b.html", "'top'", "leaves the site", "cdn.example", "javascript"):
        assert needle in text


def test_sample_site_links_resolve(sample_site):
    out, res = sample_site
    pages, links, problems = check_site(out)
    assert problems == []
    assert pages >= 20 and links >= 100
    # Every transcript page is reachable: the pager's latest.html of each transcript redirects to a real page.
    assert len(list(out.rglob("latest.html"))) == res.transcripts


def test_corpus_site_links_resolve(corpus_site):
    out, res = corpus_site
    pages, links, problems = check_site(out)
    assert problems == [], "\n".join(problems[:20])
    assert pages >= res.pages and links > 1000


def test_anchors_name_jsonl_lines(sample_site):
    """#L<n> anchors on a transcript page are the JSONL line numbers of the messages it shows."""
    out, _ = sample_site
    page = next(out.glob("p/-Users-chika-dev-dotfiles/*/page-0001.html"))
    ids = {i for i in parse(page).ids if re.fullmatch(r"L\d+", i)}
    src = next(SAMPLE_HOME.joinpath("projects/-Users-chika-dev-dotfiles").glob("*.jsonl"))
    n_lines = src.read_bytes().count(b"\n")
    # Every line is reachable, tool results absorbed into their call included.
    assert ids == {f"L{n}" for n in range(1, n_lines + 1)}
