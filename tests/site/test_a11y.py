"""Accessibility and keyboard use, checked in chromium from file://.

axe-core (tests/vendor/axe.min.js, from `npm pack axe-core`) runs on the home index, a project
index, a session overview and the busiest transcript page of the corpus site, in the light and the
dark theme, with every <details> opened and with search results shown: no serious or critical
violation is allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from util import TESTS

AXE = TESTS / "vendor" / "axe.min.js"
pytestmark = pytest.mark.browser


def _pages(site: Path) -> dict:
    busiest = max(site.glob("p/*/*/**/page-*.html"), key=lambda p: p.read_text(encoding="utf-8").count("<details"))
    project = max(site.glob("p/*/index.html"), key=lambda p: p.stat().st_size)
    session = max(site.glob("p/*/*/index.html"), key=lambda p: p.stat().st_size)
    return {"home": site / "index.html", "project": project, "session": session, "transcript": busiest}


def _serious(page, only=None) -> list:
    page.add_script_tag(path=str(AXE))
    opts = {"resultTypes": ["violations"]} | ({"runOnly": only} if only else {})
    res = page.evaluate("opts => axe.run(document, opts)", opts)
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]], v["nodes"][0].get("failureSummary"))
            for v in res["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_no_serious_violations(corpus_site, browser, scheme):
    site, _ = corpus_site
    # bypass_csp only lets the test inject axe; the pages' own scripts are external files anyway.
    ctx = browser.new_context(color_scheme=scheme, bypass_csp=True)
    page = ctx.new_page()
    # Only colours differ between the themes: the dark run checks contrast, the light run everything.
    only = ["color-contrast"] if scheme == "dark" else None
    found = {}
    for name, path in _pages(site).items():
        page.goto(path.as_uri())
        page.keyboard.press("e")  # open every <details> so their content is checked too
        if page.locator("#show-all[aria-pressed=false]").count():
            page.keyboard.press("s")  # and show the bookkeeping the page hides by default
        found[name] = _serious(page, only)
    page.goto(_pages(site)["transcript"].as_uri())
    page.keyboard.press("?")
    page.wait_for_selector("dialog.keys[open]")
    found["keys dialog"] = _serious(page, only)
    page.goto((site / "index.html").as_uri())
    page.fill("#search-q", "test")
    page.keyboard.press("Enter")
    page.wait_for_selector("#search-status[data-hits]")
    found["search results"] = _serious(page, only)
    ctx.close()
    assert found == {k: [] for k in found}


def test_every_control_reachable_by_keyboard(corpus_site, browser):
    """Tab visits the search box, the theme toggle and the page's buttons; no control is mouse-only."""
    site, _ = corpus_site
    page = browser.new_page()
    for path in _pages(site).values():
        page.goto(path.as_uri())
        # Controls must be focusable natively: no clickable <div>/<span>, no negative tabindex on them.
        bad = page.evaluate("""Array.from(document.querySelectorAll('a[href], button, input, select, summary, [tabindex]'))
            .filter(e => e.tabIndex < 0 && !e.closest('.messages > .msg[tabindex="-1"]') && !e.matches('.msg'))
            .map(e => e.outerHTML.slice(0, 80))""")
        assert bad == []
        controls = page.evaluate("""Array.from(document.querySelectorAll('header.top button, header.top input, main button'))
            .filter(e => e.offsetParent !== null).slice(0, 6).map(e => e.id || e.className)""")
        reached = set()
        for _ in range(60):
            page.keyboard.press("Tab")
            reached.add(page.evaluate("document.activeElement.id || document.activeElement.className"))
            if set(controls) <= reached:
                break
        assert set(controls) <= reached, (path, set(controls) - reached)
        assert "search-q" in reached and "theme-toggle" in reached
    page.close()


def test_keys_move_open_and_page(tmp_path, build_site, browser):
    from util import assistant, make_home, tool_result, user

    lines = [user("u0", "start")]
    for i in range(1, 12):
        lines.append(assistant(f"a{i}", [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"echo {i}"}}],
                               mid=f"m{i}", rid=f"r{i}"))
        lines.append(tool_result(f"u{i}", f"t{i}", f"out {i}"))
    home = make_home(tmp_path / "home", {"-p": {"s1.jsonl": lines}})
    out = tmp_path / "site"
    build_site(home, out, page_size=5)
    page = browser.new_page()
    page.goto((out / "p/-p/s1/page-0001.html").as_uri())
    page.keyboard.press("j")
    first = page.evaluate("document.activeElement.id")
    page.keyboard.press("j")
    second = page.evaluate("document.activeElement.id")
    page.keyboard.press("k")
    assert first.startswith("L") and second != first and page.evaluate("document.activeElement.id") == first
    page.keyboard.press("j")
    page.keyboard.press("o")  # opens the focused message's tool call
    assert page.evaluate(f"document.getElementById('{second}').querySelector('details').open")
    page.keyboard.press("o")
    assert not page.evaluate(f"document.getElementById('{second}').querySelector('details').open")
    page.keyboard.press("e")
    assert page.evaluate("Array.from(document.querySelectorAll('main details')).every(d => d.open)")
    page.keyboard.press("c")
    assert page.evaluate("Array.from(document.querySelectorAll('main details')).every(d => !d.open)")
    # every message has a "copy link" button next to its permalink
    assert page.locator(".msg > header .copylink").count() == page.locator(".msg > header a.perma").count() > 0
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-q"
    page.keyboard.press("j")  # typing in the box is not a shortcut
    assert page.input_value("#search-q") == "j"
    page.keyboard.press("Escape")
    page.keyboard.press("n")
    page.wait_for_url("**/page-0002.html")
    page.keyboard.press("p")
    page.wait_for_url("**/page-0001.html")
    # print: every <details> opens for the print and closes again
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate("Array.from(document.querySelectorAll('details')).every(d => d.open)")
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.evaluate("Array.from(document.querySelectorAll('main details')).every(d => !d.open)")
    page.close()


def test_copy_resume_command(tmp_path, build_site, browser):
    from util import assistant, make_home, user

    home = make_home(tmp_path / "home", {"-p": {"abc-123.jsonl": [user("u", "hi", sid="abc-123"),
                                                                  assistant("a", [{"type": "text", "text": "yo"}], sid="abc-123")]}})
    out = tmp_path / "site"
    build_site(home, out)
    ctx = browser.new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    page = ctx.new_page()
    page.goto((out / "p/-p/abc-123/index.html").as_uri())
    page.click("button[data-copy]")
    page.wait_for_selector("button[data-copy].copied, button[data-copy].copy-failed")
    if page.locator("button.copied").count():
        assert page.evaluate("navigator.clipboard.readText()") == "claude --resume abc-123"
    else:  # some headless setups refuse the clipboard; the command is still in the button
        assert page.get_attribute("button[data-copy]", "data-copy") == "claude --resume abc-123"
    ctx.close()
