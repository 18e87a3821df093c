"""Sub-agents read as tasks (issue 28, point 3): their pages are titled by what they were asked to do
(meta.json's description, else their call's description, else the first line of their prompt), their
prompt comes first, the outline's "Sub-agents:" names link to their pages, and "back to the call"
opens the call's fold and shows it below the sticky header."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape

import pytest

from ccreport.site.agentpages import agent_name
from util import SAMPLE_HOME

BOB = "-srv-bob-webshop"
BOB_SESSION = "8155b4cc-d7e0-5ee8-8948-ff41164d3048"
BOB_AGENT = "48670e0e"  # a 2.0-style agent file at the project's root: no meta.json, no description


def _h1(html: str) -> str:
    return unescape(re.search(r"<h1>(.*?)</h1>", html, re.S).group(1))


def _task_calls(path) -> dict:
    """agentId → (description, prompt) of the Task/Agent calls of a main transcript."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    calls = {b["id"]: b["input"] for o in lines if o.get("type") == "assistant"
             for b in o["message"]["content"] if isinstance(b, dict) and b.get("name") in ("Task", "Agent")}
    out = {}
    for o in lines:
        extra = o.get("toolUseResult")
        content = (o.get("message") or {}).get("content")
        if isinstance(extra, dict) and extra.get("agentId") and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("tool_use_id") in calls:
                    inp = calls[b["tool_use_id"]]
                    out[extra["agentId"]] = (inp.get("description"), inp.get("prompt"))
    return out


def test_agent_without_meta_is_titled_by_its_calls_description(sample_site):
    site, _ = sample_site
    calls = _task_calls(SAMPLE_HOME / "projects" / BOB / f"{BOB_SESSION}.jsonl")
    description, prompt = calls[BOB_AGENT]
    page = (site / "p" / BOB / BOB_SESSION / f"agent-{BOB_AGENT}" / "page-0001.html").read_text()
    assert _h1(page) == description == "Map Redis and middleware"
    assert f"<title>{description} · page 1" in page
    # Its prompt comes first: the first message of its page is the prompt the call gave it.
    first = re.search(r'<article class="msg user side" id="L1">.*?<div class="md">(.*?)</div>', page, re.S)
    assert first and re.sub(r"<[^>]+>", "", unescape(first.group(1))).strip() == prompt
    assert '<article class="msg user side" id="L1"><header><span class="who">Task prompt</span>' in page
    assert page.count('<span class="who">Task prompt</span>') == 1
    # The session's list of transcripts names it the same way.
    overview = (site / "p" / BOB / BOB_SESSION / "index.html").read_text()
    assert f'<a href="agent-{BOB_AGENT}/page-0001.html">{description}</a>' in overview


def test_no_agent_page_is_titled_by_its_id(sample_site):
    site, _ = sample_site
    pages = list(site.glob("p/*/*/agent-*/page-0001.html"))
    assert pages
    for page in pages:
        assert not re.match(r"Sub-agent [0-9a-f]+$", _h1(page.read_text())), page


def test_the_name_falls_back_to_the_first_line_of_the_prompt():
    prompt = "\n  Investigate the flaky upload test\nthen report the cause."
    assert agent_name("agent", None, prompt, "Explore", "Sub-agent a1") == "Investigate the flaky upload test"
    assert agent_name("agent", "Fix the upload", prompt, "Explore", "Sub-agent a1") == "Fix the upload"
    assert agent_name("agent", None, None, "Explore", "Sub-agent a1") == "Explore"
    assert agent_name("agent", None, "", None, "Sub-agent a1") == "Sub-agent a1"
    # A compaction run's "prompt" is Claude Code's own instruction: it keeps its kind's name.
    assert agent_name("compaction", None, "Summarise the conversation", None, "Compaction run x") == "Compaction run x"


def test_outline_names_link_to_the_agents_pages(sample_site):
    site, _ = sample_site
    linked = 0
    for index in site.glob("p/*/*/index.html"):
        html = index.read_text()
        for line in re.findall(r'<p class="small">Sub-agents: (.*?)</p>', html):
            for href, name in re.findall(r'<a href="([^"]+)">([^<]*)</a>', line):
                target = index.parent / href
                assert target.is_file(), (index, href)
                assert _h1(target.read_text()) == unescape(name)
                linked += 1
    assert linked >= 5


def test_title_stays_when_only_the_agent_grows(tmp_path, build_site):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home)
    out = tmp_path / "site"
    build_site(home, out)
    agent_file = home / "projects" / BOB / f"agent-{BOB_AGENT}.jsonl"
    last = json.loads(agent_file.read_text(encoding="utf-8").splitlines()[-1])
    more = dict(last, uuid="0b8f8e52-5b3e-4d53-9c1e-6f2f1f0f0a01", parentUuid=last["uuid"], type="user",
                message={"role": "user", "content": "One more thing: list the env vars too."})
    more.pop("toolUseResult", None)
    with open(agent_file, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(more) + "\n")
    build_site(home, out)  # the main transcript is unchanged: its call's description comes from the state
    page = (out / "p" / BOB / BOB_SESSION / f"agent-{BOB_AGENT}" / "page-0001.html").read_text()
    assert "One more thing" in page and _h1(page) == "Map Redis and middleware"


@pytest.mark.browser
def test_back_to_the_call_opens_the_fold_and_shows_the_call(sample_site, browser):
    site, _ = sample_site
    page = browser.new_page(viewport={"width": 1100, "height": 700})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((site / "p" / BOB / BOB_SESSION / f"agent-{BOB_AGENT}" / "page-0001.html").as_uri())
    page.click("text=back to the call in the main session")
    page.wait_for_load_state()
    fold = page.locator("details.tool[data-tool=Task].called")
    assert fold.count() == 1
    assert fold.evaluate("d => d.open")
    assert "Map Redis and middleware" in fold.locator(":scope > summary").inner_text()
    header = page.evaluate("document.querySelector('header.top').getBoundingClientRect().bottom")
    box = fold.bounding_box()
    assert box is not None and header <= box["y"] < page.viewport_size["height"]
    # The outline's name links to the agent's page.
    page.goto((site / "p" / BOB / BOB_SESSION / "index.html").as_uri())
    page.click("section.outline >> text=Map Redis and middleware")
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Map Redis and middleware"
    assert errors == []
