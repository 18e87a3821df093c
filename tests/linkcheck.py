"""The link checker the site tests share: every relative href/src of a built site resolves to a
file of the site, every #anchor exists, and nothing loads from another host."""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

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
