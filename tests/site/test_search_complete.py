"""Issue 25, points 1–3: every word the site shows is found (phrases sampled at random offsets of
the corpus site's rendered messages), filters alone list what they select, newest first, and the
ranking and marks. Python's site.searchquery and the page's search.js must agree: the same
sessions and hits for the same queries, from file://."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest

from ccreport.site.searchquery import SiteIndex, page_order, parse, run_query, search_site
from phrasesample import opens, sample_phrases, site_lines
from searchhelp import unit_docs
from util import assistant, make_home, tool_result, user

SEED, PHRASES, IN_BROWSER = 25, 200, 40


@pytest.fixture(scope="module")
def phrases(corpus_site):
    site, _ = corpus_site
    return sample_phrases(site_lines(site), PHRASES, SEED)


def _found(ix: SiteIndex, phrase: list[str], line) -> bool:
    """The phrase's query has a hit that opens the message holding it (every candidate checked)."""
    for s in run_query(ix, parse('"' + " ".join(phrase) + '"', strict=False), checks=None):
        for hit in s.hits:
            ix.need_units([hit[:1]])
            u, d = ix.units.get(hit.split(":")[0]), ix.doc(hit)
            if u and d and opens(u[0] + d[1], line):
                return True
    return False


def test_phrases_at_random_offsets_of_the_site_are_found(corpus_site, phrases):
    """200 two- and three-word phrases from the rendered messages (tool results whole, sub-agents,
    prompts-only pages): ≥ 99 % are found as phrases, a hit opening the message that holds each."""
    site, _ = corpus_site
    ix = SiteIndex(site)
    missed = [(" ".join(p), line.page, sorted(line.anchors)[:2]) for p, line in phrases if not _found(ix, p, line)]
    assert len(phrases) == PHRASES
    assert len(missed) <= 0.01 * PHRASES, missed
    deep = [p for p, line in phrases if len(" ".join(line.terms)) > 0]  # (a sanity check of the sampler)
    assert len(deep) == PHRASES


def test_text_deep_in_tool_output_is_found(corpus_site):
    """The issue's examples: a TypeError at characters 2,675–8,496 of pytest outputs, a phrase at
    character 12,659 of a Read, an assertion at character 4,689."""
    site, _ = corpus_site
    for q in ("unsupported operand", '"known transcript entry type"', "\"assert '1.0.0' == '2.0.0'\""):
        hits = search_site(site, q)
        assert hits and all(h.kind == "tool" for h in hits[:1]), q
        assert any(w in hits[0].snippet.lower() for w in ("unsupported", "known transcript", "1.0.0")), hits[0]


def _page_query(page, q):
    return page.evaluate("""q => ccreportSearch.query(q, {checks: null}).then(r =>
        r.sessions.map(s => [s.key, s.hits]))""", q)


def _py_query(ix: SiteIndex, q: str):
    return [[s.key, s.hits] for s in run_query(ix, parse(q, strict=False), checks=None)]


def test_the_page_finds_what_python_finds(corpus_site, phrases, browser):
    """search.js from file:// gives the same sessions and hits, in the same order, as
    site.searchquery for a subset of the phrases and for words, completions and filters; a hit's
    link opens the message (its element is on the page it names)."""
    site, _ = corpus_site
    ix = SiteIndex(site)
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    queries = ['"' + " ".join(p) + '"' for p, _ in phrases[:IN_BROWSER]] + [
        "renderer.py", "cache manager", "confi", "file:renderer.py", "tool:Edit", "is:error", "model:haiku",
        "project:coderabbit", "tool:Bash after:2025-07-15 before:2025-12-31", "file:renderer.py CacheManager",
        "session:37f83ec9", "kind:prompt test"]
    for q in queries:
        assert _page_query(page, q) == _py_query(ix, q), q
    for p, line in phrases[:IN_BROWSER]:
        hits = [h for s in _py_query(ix, '"' + " ".join(p) + '"') for h in s[1]]
        target = next((h for h in hits if opens(_url(ix, h), line)), None)
        assert target is not None, p
    page.close()


def _url(ix: SiteIndex, hit: str) -> str:
    ix.need_units([hit[:1]])
    return ix.units[hit.split(":")[0]][0] + ix.doc(hit)[1]


def test_the_search_box_opens_a_phrase_deep_in_a_tool_result(corpus_site, browser):
    """Typed into the real box: the TypeError deep in a pytest output is listed, and its link opens
    the tool result on its page, the words marked."""
    site, _ = corpus_site
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    page.fill("#search-q", "unsupported operand ")
    page.wait_for_selector("#search-status[data-hits]")
    link = page.locator("#search-results a.hit-link").first
    want = search_site(site, "unsupported operand ")[0]
    assert unquote(link.get_attribute("href")).split("?")[0] == unquote(want.url.split("#")[0])
    link.click()
    page.wait_for_load_state()
    anchor = "L" + want.url.rsplit("#L", 1)[1]
    assert page.locator(f"[id='{anchor}']").count() == 1
    marks = page.locator(f"[id='{anchor}'] mark.hit-mark").all_text_contents()
    assert marks and {m.lower() for m in marks} <= {"unsupported", "operand"}
    page.close()


def _tool_docs(site: Path, ix: SiteIndex, pred) -> dict[str, set]:
    """session key → the hits ("unit:doc") of the tool documents ``pred`` keeps (read back)."""
    ix.need_units(f"{i:x}" for i in range(16))
    out: dict[str, set] = {}
    for key in ix.units:
        for no, d in enumerate(unit_docs(site, key)):
            if d[0] == "t" and pred(d):
                out.setdefault(key[:8], set()).add(f"{key}:{no}")
    return out


def test_filters_alone_list_what_they_select_newest_first(corpus_site):
    site, _ = corpus_site
    ix = SiteIndex(site)
    cases = {
        "file:renderer.py": lambda d: d[3].split("\t")[1].rsplit("/", 1)[-1].lower() == "renderer.py",
        "tool:Edit": lambda d: d[3].split("\t")[0].lower() == "edit",
        "is:error": lambda d: d[3].endswith("\t!"),
    }
    for q, pred in cases.items():
        want = _tool_docs(site, ix, pred)
        found = run_query(ix, parse(q))
        assert want and {s.key: set(s.hits) for s in found} == want, q
        times = [max(ix.units[h.split(":")[0]][6] for h in s.hits) for s in found]
        assert times == sorted(times, reverse=True), q  # newest first
    # A filter on the sessions' metadata alone: every session it selects, newest first.
    by_project = run_query(ix, parse("project:coderabbit"))
    assert by_project and all("coderabbit" in ix.units[s.hits[0].split(":")[0]][2] for s in by_project)
    sessions = {u[3] for u in ix.units.values() if "coderabbit" in u[2]}
    assert {ix.units[s.hits[0].split(":")[0]][3] for s in by_project} == sessions
    assert search_site(site, "model:haiku") and all(
        any("haiku" in m for m in ix.units[s.hits[0].split(":")[0]][7]) for s in run_query(ix, parse("model:haiku")))
    # Combined: a filter narrows the words' hits to its documents.
    both = run_query(ix, parse("file:renderer.py CacheManager "))
    assert both and all(h in _tool_docs(site, ix, cases["file:renderer.py"]).get(s.key, ()) for s in both for h in s.hits)
    with pytest.raises(ValueError):
        search_site(site, "is:broken")
    with pytest.raises(ValueError):
        search_site(site, "   ")


def _ranking_home(tmp_path):
    """'zanzibar' in a prompt of one session, in a Bash call's output of another (shorter)."""
    return make_home(tmp_path / "home", {"-home-u-rank": {
        "s1.jsonl": [user("u1", "tell me about the zanzibar release plan and what it needs from us this week"),
                     assistant("a1", [{"type": "text", "text": "Sure."}], parent="u1", mid="m1")],
        "s2.jsonl": [user("u1", "run it"),
                     assistant("a1", [{"type": "tool_use", "id": "t1", "name": "Bash",
                                       "input": {"command": "ruff format zanzibar.py"}}], parent="u1", mid="m1"),
                     tool_result("u2", "t1", "1 file reformatted zanzibar", parent="a1")],
    }})


def test_a_prompt_outranks_tool_output_and_words_are_marked_whole(tmp_path, build_site, browser):
    out = tmp_path / "site"
    build_site(_ranking_home(tmp_path), out)
    hits = search_site(out, "zanzibar ")
    assert [h.kind for h in hits][:1] == ["prompt"] and "/s1/" in hits[0].url
    page = browser.new_page()
    page.goto((out / "index.html").as_uri())
    page.fill("#search-q", "zanzibar ")
    page.wait_for_selector("#search-status[data-hits]")
    heads = page.locator("#search-results .hit-count").all_inner_texts()
    assert heads == ["1 message", "1 message"]  # grouped by session, with their counts
    assert page.locator("#search-results .hit .chip").first.inner_text() == "prompt"
    # "py" is a whole term: marked in "zanzibar.py" alone, never inside "pycache" or "Python".
    page.evaluate("""() => { const p = document.createElement('p'); p.id = 'probe';
        window.ccreport.mark(p, 'Python pycache zanzibar.py PY', ['py'], null); document.body.appendChild(p); }""")
    assert page.locator("#probe mark").all_inner_texts() == ["py", "PY"]
    page.evaluate("""() => { const p = document.createElement('p'); p.id = 'probe2';
        window.ccreport.mark(p, 'config confirm unconfig', ['conf*'], null); document.body.appendChild(p); }""")
    assert page.locator("#probe2 mark").all_inner_texts() == ["config", "confirm"]
    page.close()


def test_renderer_py_ranks_prose_before_tool_calls(corpus_site):
    """The issue's example: `renderer.py` ranked `ruff format` Bash calls first."""
    site, _ = corpus_site
    first = search_site(site, "renderer.py ")[0]
    assert first.kind in ("prompt", "answer") and "renderer.py" in first.snippet


def test_hits_in_page_order(corpus_site):
    site, _ = corpus_site
    ix = SiteIndex(site)
    found = run_query(ix, parse("cache "))
    order = page_order(found)
    assert order[:3] == found[0].hits[:3] and len(order) == sum(len(s.hits) for s in found)
    hits = search_site(site, "cache ", limit=7)
    assert len(hits) == 7 and all(len(h.snippet) <= 300 and h.session and h.title for h in hits)
