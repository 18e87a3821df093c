"""Issue 16 on the corpus: the session outline, turns read as one block, relative paths and links,
sub-agents by name in start order, and the page controls (show everything, expand/collapse, keys)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from ccreport.model.turns import Turn
from ccreport.site.agentpages import agent_name
from ccreport.site.search import read_doc_script
from util import saved_states

JSS = "-Users-dain-workspace-JSSoundRecorder"
JSS_SESSION = "7acd37a8-2745-4b58-a8a9-46164b22ad9e"


def states(site: Path):
    for (project, sid), st in saved_states(site).items():
        yield project, sid, st


def ids_of(page: Path) -> set:
    return set(re.findall(r' id="([^"]+)"', page.read_text()))


def test_outline_lists_every_prompt_linked_to_its_anchor(corpus_site):
    site, _ = corpus_site
    seen = 0
    for project, sid, st in states(site):
        main = st["transcripts"].get("main")
        if not main:
            continue
        folder = site / "p" / project / sid
        html = (folder / "index.html").read_text()
        rows = re.findall(r'<li class="turn-row">\s*<p class="turn-prompt"><a href="([^"]+)">', html)
        turns = main["slices"]["turns"]["turns"]
        assert len(rows) == len(turns), (project, sid)
        for href, data in zip(rows, turns):
            turn = Turn.from_json(data)
            page, anchor = href.split("#")
            assert anchor == f"L{turn.line}" and anchor in ids_of(folder / page)
            for name, n in turn.figures.tools.items():
                assert f"{n} {name}" in html  # tool counts by name
            seen += 1
    assert seen > 40


def test_outline_shows_figures_files_and_answer_of_a_known_turn(corpus_site):
    site, _ = corpus_site
    html = (site / "p" / JSS / JSS_SESSION / "index.html").read_text()
    start = html.index('<section class="outline"')
    outline = html[start:html.index("</section>", start)]
    assert re.search(r"\d+ Read", outline) and "responses" in outline and "$" in outline
    assert 'class="answer-head"' in outline
    # changed files relative to the project's folder, the full path on hover
    assert 'title="/Users/dain/workspace/JSSoundRecorder/' in outline
    assert ">/Users/dain/workspace/JSSoundRecorder/" not in outline


def test_project_page_links_to_each_session_first_prompt(corpus_site):
    site, _ = corpus_site
    html = (site / "p" / JSS / "index.html").read_text()
    href = re.search(rf'<a class="small" href="({JSS_SESSION}/page-0001\.html#L\d+)"', html).group(1)
    page, anchor = href.split("#")
    assert anchor in ids_of(site / "p" / JSS / page)


def test_transcript_page_is_titled_by_the_session(corpus_site):
    site, _ = corpus_site
    info = next(st for p, sid, st in states(site) if (p, sid) == (JSS, JSS_SESSION))["info"]
    page = (site / "p" / JSS / JSS_SESSION / "page-0001.html").read_text()
    h1 = unescape(re.search(r"<h1>(.*?)</h1>", page).group(1))
    assert h1 == info["title"] and JSS_SESSION[:8] not in h1


def test_page_starting_mid_turn_names_the_prompt_it_continues(sample_home_copy, build_site, tmp_path):
    out = tmp_path / "site"
    build_site(sample_home_copy, out, page_size=5)
    found = 0
    for page in sorted(out.glob("p/*/*/page-*.html")):
        html = page.read_text()
        m = re.search(r'<p class="continues" id="continues">Continues prompt \d+, <a href="([^"]+)">', html)
        if m is None:
            continue
        target, anchor = m.group(1).split("#")
        assert anchor in ids_of(page.parent / target)
        assert re.search(r'<div class="messages" id="messages">\s*<div class="turnline" id="turn-cont"', html)
        found += 1
    assert found


def test_turn_is_one_block_with_one_quiet_line(corpus_site):
    site, _ = corpus_site
    html = (site / "p" / JSS / JSS_SESSION / "page-0001.html").read_text()
    prompts = re.findall(r'<article class="msg user(?: command)?" id="(L\d+)">', html)
    lines = re.findall(r'<div class="turnline" id="turn-(L\d+)"', html)
    assert prompts and set(lines) <= set(prompts) and len(lines) >= 1
    assert 'class="msg assistant step"' in html and 'class="msg assistant"' not in html


def test_relative_markdown_links_show_text_and_target(corpus_site):
    site, _ = corpus_site
    text = "".join(p.read_text() for p in (site / "p" / JSS).rglob("page-*.html"))
    shown = text.count('<span class="rlink">recorder.js</span> <code class="rlink-target">js/lib/recorder.js</code>')
    assert shown >= 1
    everywhere = "".join(p.read_text() for p in (site / "p").rglob("page-*.html"))
    assert everywhere.count('<span class="rlink">') >= 40
    assert "[recorder.js](js/lib/recorder.js)" not in text and 'href="js/lib/recorder.js"' not in text


def test_tool_paths_are_relative_and_wrap(corpus_site):
    site, _ = corpus_site
    html = (site / "p" / JSS / JSS_SESSION / "page-0001.html").read_text()
    m = re.search(r'<code class="path" title="(/Users/dain/workspace/JSSoundRecorder/[^"]+)">([^<]*(?:<wbr>[^<]*)*)</code>',
                  html)
    assert m and "/<wbr>" in m.group(2) or "<wbr>" not in m.group(2)
    assert m.group(1).endswith(m.group(2).replace("<wbr>", ""))


def test_sub_agents_named_by_description_in_start_order(corpus_site):
    site, _ = corpus_site
    checked = 0
    for project, sid, st in states(site):
        # (warm-up runs are counted on a line of their own, not listed: model.warmup)
        agents = [t["summary"] for t in st["transcripts"].values()
                  if t["summary"]["kind"] == "agent" and not t["summary"].get("warmup")]
        if len(agents) < 2:
            continue
        html = (site / "p" / project / sid / "index.html").read_text()
        group = html[html.index("<h2>Sub-agents"):]
        group = group[:group.index("</table>")]
        names = [unescape(n) for n in re.findall(r'<td><a href="agent-[^"]+">([^<]*)</a>', group)]
        starts = sorted(agents, key=lambda a: (a["first_ts"] or "~", a["id"]))
        expected = [agent_name(a["kind"], a["description"] or a["task"], a["prompt"], a["agent_type"],
                               f'{a["agent_type"] or a["label"]} {a["id"]}') for a in starts]
        assert [n.rstrip("…") for n in names] == [e[:len(n.rstrip("…"))] for e, n in zip(expected, names)]
        checked += 1
    assert checked


@pytest.fixture
def sample_home_copy(tmp_path):
    import shutil

    from util import SAMPLE_HOME
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home)
    return home


@pytest.mark.browser
def test_controls_show_everything_expand_collapse_and_keys(sample_site, browser):
    site, _ = sample_site
    page_file = max(site.glob("p/*/*/page-*.html"), key=lambda p: p.read_text().count('class="msg meta chrome"'))
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_file.as_uri())
    page.evaluate("localStorage.removeItem('ccreport-show-all')")
    page.reload()
    meta = page.locator(".msg.meta").first
    assert page.locator("#controls").is_visible()
    assert not meta.is_visible()  # quiet by default, with script
    page.click("#show-all")
    assert meta.is_visible() and page.get_attribute("#show-all", "aria-pressed") == "true"
    page.click("#show-all")
    assert not meta.is_visible()
    page.click("button[data-all=open]")
    assert page.evaluate("[...document.querySelectorAll('main details')].every(d => d.open)")
    page.click("button[data-all=close]")
    assert page.evaluate("[...document.querySelectorAll('main details')].every(d => !d.open)")
    page.keyboard.press("?")
    dialog = page.locator("dialog.keys")
    assert dialog.is_visible() and "next / previous message" in dialog.inner_text()
    assert dialog.locator("kbd", has_text="?").count() == 1
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    page.click("button[data-keys]")
    assert dialog.is_visible()
    assert errors == []


@pytest.mark.browser
def test_without_script_everything_is_present_and_folded(sample_site, browser):
    site, _ = sample_site
    page_file = max(site.glob("p/*/*/page-*.html"), key=lambda p: p.read_text().count('class="msg meta chrome"'))
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(page_file.as_uri())
    meta = page.locator(".msg.meta").first
    assert meta.is_visible() and meta.locator(":scope > details").evaluate("d => !d.open")
    assert not page.locator("#controls").is_visible()  # buttons that need script are not offered
    ctx.close()


def test_search_keeps_the_full_path_of_a_relative_one(corpus_site):
    """A path shown relative on the page is found by its full path in search."""
    site, _ = corpus_site
    # the document chunks (search/d/) are deflated: read them back
    scripts = json.dumps([d for p in (site / "search" / "d").glob("*.js") for d in read_doc_script(p.read_bytes()) or []])
    html = (site / "p" / JSS / JSS_SESSION / "page-0001.html").read_text()
    full = re.search(r'<code class="path" title="(/Users/dain/workspace/JSSoundRecorder/[^"]+)">', html).group(1)
    assert json.dumps(full)[1:-1] in scripts


def test_outline_lists_prompts_that_follow_an_ide_context_block(corpus_site):
    """7acd37a8: two of its five typed prompts come after an <ide_…> block in the same user line."""
    site, _ = corpus_site
    st = saved_states(site)[(JSS, JSS_SESSION)]
    prompts = [Turn.from_json(t).prompt for t in st["transcripts"]["main"]["slices"]["turns"]["turns"]]
    typed = [p for p in prompts if not p.startswith("/")]
    assert len(typed) == 5, prompts
    assert typed[0].startswith("OK, so this was just so you know") and typed[-1] == "Let's also Migrate to AudioWorklet"
    html = (site / "p" / JSS / JSS_SESSION / "index.html").read_text()
    assert "Let&#39;s also Migrate to AudioWorklet" in html or "Let's also Migrate to AudioWorklet" in html
