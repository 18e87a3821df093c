"""Hostile text in every place a transcript can carry it: shown literally, never run.

The home comes from hostile.make_hostile_home; the same checks (scan_html, assert_inert) are meant
for the exported file and the served pages.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

import hostile


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []

    def handle_data(self, data):
        self.out.append(data)


def html_text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return "".join(p.out)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    from ccreport.site.build import Options, build

    root = tmp_path_factory.mktemp("hostile")
    expected = hostile.make_hostile_home(root / "home")
    res = build(root / "home", root / "site", Options(jobs=1))
    return root / "site", res, expected


def test_hostile_home_builds_completely(hostile_site):
    site, res, _ = hostile_site
    # every project folder and session file of the hostile home became pages
    assert res.errors == []
    assert res.projects == 1 + len(hostile.NAME_PAYLOADS)
    assert res.sessions == 2 + len(hostile.NAME_PAYLOADS)  # the hostile session, the legacy agent's, one per name
    assert res.transcripts == 1 + 1 + 1 + len(hostile.NAME_PAYLOADS) + 1 + len(hostile.NAME_PAYLOADS)
    assert res.malformed == 2 * 1  # the non-JSON line and the array line of the main transcript


def test_every_page_is_statically_clean(hostile_site):
    site, _, _ = hostile_site
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    problems = {}
    for p in pages:
        found = hostile.scan_html(p.read_text(encoding="utf-8"))
        if found:
            problems[str(p.relative_to(site))] = found[:5]
    assert problems == {}


def test_hostile_text_shows_literally(hostile_site):
    site, _, expected = hostile_site
    text = "".join(html_text(p.read_text(encoding="utf-8")) for p in sorted(site.rglob("*.html")))
    missing = [e for e in expected if e not in text]
    assert missing == []
    assert len(expected) > 100


def test_names_from_the_file_system_link_to_their_pages(hostile_site):
    """A session file named 'javascript:…' or 'a#b?c' is a quoted relative link, and it resolves."""
    site, _, _ = hostile_site
    from urllib.parse import unquote, urlsplit
    import re

    checked = 0
    for page in sorted(site.rglob("index.html")):
        for href in re.findall(r'href="([^"]*)"', page.read_text(encoding="utf-8")):
            href = href.replace("&amp;", "&").replace("&#x27;", "'").replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
            u = urlsplit(href)
            if u.scheme or not u.path:
                assert u.scheme in ("", "http", "https", "mailto"), href
                continue
            target = (page.parent / unquote(u.path)).resolve()
            assert target.is_file(), f"{page.relative_to(site)}: {href} → missing {target}"
            assert target.is_relative_to(site.resolve())
            checked += 1
    assert checked > 30


def test_the_checker_sees_what_it_must():
    """scan_html is not vacuous: each kind of active markup is reported."""
    csp = '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src \'self\'">'
    clean = f"<html><head>{csp}</head><body><p>&lt;script&gt;</p></body></html>"
    assert hostile.scan_html(clean) == []
    for bad in ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '<a href=" JaVaScRiPt:alert(1)">x</a>',
                '<iframe srcdoc="x"></iframe>', '<a href="data:text/html,x">x</a>', "<svg onload=alert(1)>",
                '<p style="color:red">x</p>', '<base href="/">', '<meta http-equiv="refresh" content="0;url=javascript:x">'):
        assert hostile.scan_html(clean.replace("<p>", bad + "<p>")), bad
    assert hostile.scan_html("<html><body>no policy</body></html>")
    loose = csp.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
    assert hostile.scan_html(clean.replace(csp, loose))


@pytest.mark.browser
def test_assert_inert_catches_a_running_payload(tmp_path, browser):
    """The browser check fails on a page where a payload does run (and passes on a clean one)."""
    ok = tmp_path / "ok.html"
    ok.write_text("<!doctype html><p>&lt;script&gt;window.__pwned=1&lt;/script&gt;</p>")
    assert "<script>window.__pwned=1</script>" in hostile.assert_inert(ok.as_uri(), browser,
                                                                       expect_text=["<script>window.__pwned=1</script>"])
    for payload in ("<script>window.__pwned=1</script>", "<img src=x onerror=\"window.__pwned=2\">",
                    "<script>alert(3)</script>"):
        bad = tmp_path / "bad.html"
        bad.write_text(f"<!doctype html><p>hi</p>{payload}")
        with pytest.raises(AssertionError):
            hostile.assert_inert(bad.as_uri(), browser)


@pytest.mark.browser
def test_hostile_fragments_in_the_url(hostile_site, browser):
    """A shared link can carry any #fragment: app.js reads it, and must neither run it nor fail."""
    site, _, _ = hostile_site
    page = (site / "p" / "-home-u-proj" / "s-hostile" / "page-0001.html").as_uri()
    frags = ["#%E0%A4%A", "#%", "#<img src=x onerror=window.__pwned=1>", "#javascript:alert(1)", "#L1%22%3E%3Cscript%3E",
             "#" + "%2e" * 50, "#L99999", "#L3"]
    hostile.assert_inert([page + f for f in frags], browser, bypass_too=False)


@pytest.mark.browser
@pytest.mark.slow
def test_every_page_is_inert_in_chromium(hostile_site, browser):
    site, _, _ = hostile_site
    pages = sorted(site.rglob("*.html"))
    text = hostile.assert_inert([p.as_uri() for p in pages], browser)
    shown = text.count(hostile.SCRIPT)
    # the payloads are on the pages as text (one SCRIPT per place on the transcript pages)
    assert shown > 100
    # the main hostile transcript page: a few places checked by name
    main = site / "p" / "-home-u-proj" / "s-hostile" / "page-0001.html"
    hostile.assert_inert(main.as_uri(), browser, bypass_too=False, expect_text=[
        f"«{place}» {hostile.LITERAL_LINE}" for place in ("prompt", "answer", "thinking", "bash-command", "tool-name",
                                                          "read-path", "task-prompt", "orphan-result", "reminder")])


def test_the_single_file_check_wants_hashes():
    """scan_html(single_file=True): what the export must satisfy — inline code only by CSP hash."""
    import base64
    import hashlib

    js, css = "document.title='x';", "body{color:red}"
    h = lambda t: "'sha256-" + base64.b64encode(hashlib.sha256(t.encode()).digest()).decode() + "'"  # noqa: E731
    csp = f'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src {h(js)}; style-src {h(css)}; img-src data:">'
    page = f"<html><head>{csp}<style>{css}</style></head><body><p>&lt;script&gt;</p><script>{js}</script></body></html>"
    assert hostile.scan_html(page, single_file=True) == []
    assert hostile.scan_html(page)  # as a site page it would be wrong
    sneaked = page.replace("<p>", "<script>alert(1)</script><p>")
    assert any("sha256" in p for p in hostile.scan_html(sneaked, single_file=True))
