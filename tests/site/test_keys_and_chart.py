"""Issue 28, point 6 in the pages: j/k stops each message below the sticky page header (its own
header stays visible), the shortcut dialog keeps "j / k" on one line, and a usage chart of one day
draws a thin bar, not a block."""

from __future__ import annotations

import re

import pytest

from ccreport.render.usage import BAR_MAX, day_chart

GALLERY = "p/-home-demo-gallery/9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21/page-0001.html"


@pytest.mark.browser
def test_j_and_k_leave_the_message_header_below_the_sticky_header(sample_site, browser):
    site, _ = sample_site
    page = browser.new_page(viewport={"width": 1000, "height": 600})
    page.goto((site / GALLERY).as_uri())
    seen = 0
    for key in ["j"] * 6 + ["k"] * 2:
        page.keyboard.press(key)
        gap = page.evaluate("""() => {
            const m = document.activeElement.closest('.messages > .msg');
            const top = document.querySelector('header.top').getBoundingClientRect().bottom;
            const own = m.querySelector(':scope > header') || m;
            return own.getBoundingClientRect().top - top; }""")
        assert gap >= 0, f"after {key}: the message header is {-gap:.0f}px under the sticky header"
        seen += 1
    # (the page scrolled: the test is not passing on messages already in view)
    assert page.evaluate("window.scrollY") > 0 and seen == 8
    page.close()


@pytest.mark.browser
def test_shortcut_dialog_keeps_each_key_pair_on_one_line(sample_site, browser):
    site, _ = sample_site
    page = browser.new_page(viewport={"width": 360, "height": 640})
    page.goto((site / GALLERY).as_uri())
    page.keyboard.press("?")
    cell = page.locator("dialog.keys td", has_text="j").first
    assert cell.is_visible()
    tops = cell.locator("kbd").evaluate_all("ks => ks.map(k => Math.round(k.getBoundingClientRect().top))")
    assert len(tops) == 2 and tops[0] == tops[1], tops
    assert cell.inner_text().strip() == "j / k"
    page.close()


def test_one_day_chart_draws_a_thin_bar():
    svg = str(day_chart({"2026-03-14": {"responses": 12, "output_tokens": 900, "cost": 0.2}}))
    widths = [float(w) for w in re.findall(r'<rect class="bar" [^>]*width="([\d.]+)"', svg)]
    assert len(widths) == 1 and widths[0] <= BAR_MAX < 640 / 20
    many = str(day_chart({f"2026-03-{d:02d}": {"responses": d} for d in range(1, 31)}))
    assert len(re.findall(r'<rect class="bar"', many)) == 30
