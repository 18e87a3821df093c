"""The home page starts from the most recent sessions; its tables and a project's sessions sort by
a click on a header and filter with a text box; without scripts rows are most recent first
(issue 25, point 7)."""

from __future__ import annotations

import pytest


def test_home_lists_the_20_most_recent_sessions(corpus_site):
    out, _res = corpus_site
    html = (out / "index.html").read_text()
    assert html.index('id="recent"') < html.index('id="projects"')  # above the projects
    assert html.split('id="recent"')[1].split("<tbody>")[1].split("</tbody>")[0].count("<tr>") == 20


@pytest.mark.browser
def test_sort_and_filter_in_the_page(corpus_site, browser):
    out, _res = corpus_site
    page = browser.new_page()
    try:
        page.goto((out / "index.html").as_uri())
        page.wait_for_selector("#recent thead button.sort")
        prompts = lambda: [int(x) for x in page.eval_on_selector_all(  # noqa: E731
            "#recent tbody tr", "rows => rows.map(r => r.cells[3].textContent.trim())")]
        before = prompts()
        assert before != sorted(before, reverse=True)  # (recency order is not the prompts' order)
        page.click("#recent thead th:nth-child(4) button")
        assert prompts() == sorted(before, reverse=True)
        page.click("#recent thead th:nth-child(4) button")
        assert prompts() == sorted(before)
        # the filter hides the rows that do not match
        project = page.eval_on_selector("#recent tbody tr td:nth-child(2)", "c => c.textContent.trim()")
        page.fill("label.table-filter input >> nth=0", project)
        shown = page.eval_on_selector_all("#recent tbody tr:not([hidden])", "rows => rows.map(r => r.cells[1].textContent.trim())")
        hidden = page.eval_on_selector_all("#recent tbody tr[hidden]", "rows => rows.length")
        assert shown and set(shown) == {project} and hidden > 0
        assert page.is_hidden("#recent tbody tr[hidden] >> nth=0")
        # a project's sessions sort too: by last activity, oldest first on a second click
        sub = next(p for p in out.glob("p/*/index.html") if p.read_text().count("<tr") > 5)
        page.goto(sub.as_uri())
        page.wait_for_selector("#sessions thead button.sort")
        last = lambda: page.eval_on_selector_all(  # noqa: E731
            "#sessions tbody tr", "rows => rows.map(r => r.cells[2].dataset.sort)")
        page.click("#sessions thead th:nth-child(3) button")
        page.click("#sessions thead th:nth-child(3) button")
        assert last() == sorted(last())
    finally:
        page.close()


@pytest.mark.browser
def test_without_scripts_rows_are_most_recent_first(corpus_site, browser):
    out, _res = corpus_site
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto((out / "index.html").as_uri())
        assert page.query_selector("button.sort") is None and page.query_selector("label.table-filter") is None
        for table, col in (("recent", 2), ("projects", 3)):
            stamps = page.eval_on_selector_all(f"#{table} tbody tr", f"rows => rows.map(r => r.cells[{col}].dataset.sort)")
            assert stamps and stamps == sorted(stamps, reverse=True)
        sub = next(out.glob("p/*/index.html"))
        page.goto(sub.as_uri())
        stamps = page.eval_on_selector_all("#sessions tbody tr", "rows => rows.map(r => r.cells[2].dataset.sort)")
        assert stamps and stamps == sorted(stamps, reverse=True)
    finally:
        ctx.close()
