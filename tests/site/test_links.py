"""Every relative href/src of the built sites resolves to a file of the site, every #anchor exists,
and the page chrome loads nothing from another host (the site works from file:// offline)."""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from util import SAMPLE_HOME

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# Attributes that make the browser fetch something when the page loads.
LOADS = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src"),
         ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data"), ("video", "poster")}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        for attr in ("href", "src", "data", "poster"):
            if a.get(attr) is not None:
                self.refs.append((tag, attr, a[attr]))
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            m = re.search(r"url=(.+)$", a.get("content") or "", re.I)
            if m:
                self.refs.append(("meta", "refresh", m.group(1).strip()))

    handle_startendtag = handle_starttag


@lru_cache(maxsize=None)
def parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def check_site(site: Path) -> tuple[int, int, list[str]]:
    """(pages, links checked, problems) for every HTML file under site."""
    parse.cache_clear()
    site = site.resolve()
    problems: list[str] = []
    pages = sorted(site.rglob("*.html"))
    links = 0
    for page in pages:
        rel = page.relative_to(site)
        for tag, attr, url in parse(page).refs:
            if SCHEME.match(url):
                scheme = url.split(":", 1)[0].lower()
                if (tag, attr) in LOADS and scheme != "data":
                    problems.append(f"{rel}: <{tag} {attr}> loads from another place: {url}")
                elif (tag, attr) not in LOADS and scheme not in ("http", "https", "mailto", "data"):
                    problems.append(f"{rel}: <{tag} {attr}> with scheme {scheme}: {url[:80]}")
                continue
            if url.startswith("//"):
                problems.append(f"{rel}: protocol-relative URL {url}")
                continue
            links += 1
            parts = urlsplit(url)
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if not target.is_relative_to(site):
                problems.append(f"{rel}: {url} leaves the site")
                continue
            if not target.is_file():
                # file:// does not turn a folder into its index.html: links must name files.
                problems.append(f"{rel}: {url} → missing {target.relative_to(site)}")
                continue
            if parts.fragment:
                if target.suffix != ".html":
                    problems.append(f"{rel}: {url} has an anchor into a non-page")
                elif unquote(parts.fragment) not in parse(target).ids:
                    problems.append(f"{rel}: {url} → no id {parts.fragment!r} in {target.relative_to(site)}")
    return len(pages), links, problems


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
