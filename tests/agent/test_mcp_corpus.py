"""`ccreport mcp` on the real corpus (skipped where it is absent), through the SDK's stdio client:
each tool on its biggest session, the answers checked against `ccreport list`, `tail` and the
built site's pages."""

from __future__ import annotations

import re

import pytest

from ccreport.agent.reads import Archive, session_outline
from ccreport.inspect.listing import list_rows
from ccreport.inspect.tail import tail
from ccreport.source.home import discover
from mcphelp import exchange, resolves


@pytest.fixture(scope="module")
def corpus(corpus_home, corpus_site):
    site = corpus_site[0]
    catalog = discover(corpus_home)
    s = max((s for s in catalog.sessions() if s.main), key=lambda s: s.main.size)
    first = session_outline(Archive(corpus_home, site), s.id)["turns"][0]["prompt"]
    word = max(re.findall(r"[A-Za-z]+", first), key=len).lower()  # a word the search must find there
    project = {x.id for x in s.project.sessions.values()}
    calls = [("list_sessions", {}), ("session_outline", {"session": s.id}),
             ("session_transcript", {"session": s.id, "tail": 20}),
             ("search", {"query": word + " ", "limit": 100}),
             ("search", {"query": f"{word} session:{s.id[:8]}"}),
             ("search", {"query": f"{word} project:{s.project.dir_name}", "limit": 100}),
             ("search", {"query": "the tool:Bash", "limit": 100}),
             ("search", {"query": "the", "limit": 100})]
    return corpus_home, site, s, project, exchange(corpus_home, site, calls)[1]


def test_list_sessions_on_the_corpus(corpus):
    home, _, _, _, replies = corpus
    rows = replies[0].data["sessions"]
    assert len(rows) == 20 and replies[0].data["more"]
    assert [r["id"] for r in rows] == [r.id for r in list_rows(home) if not r.empty and not r.warmup][:20]


def test_outline_on_the_corpus(corpus):
    _, site, s, _, replies = corpus
    o = replies[1].data
    page = (site / o["sessionUrl"]).read_text(encoding="utf-8")
    assert o["prompts"] == int(re.search(r'outline-h">Prompts <span class="dim">\((\d+)\)', page).group(1))
    assert o["turns"] and all(resolves(site, t["url"]) for t in o["turns"])


def test_transcript_on_the_corpus(corpus):
    home, _, s, _, replies = corpus
    got, want = replies[2].data, tail(home, s.id, 20)
    assert got["totalLines"] == want["totalLines"] and got["truncated"] == want["truncated"]
    kept = [e.get("uuid") for e in want["entries"]][-len(got["entries"]):]
    assert [e.get("uuid") for e in got["entries"]] == kept


def test_search_on_the_corpus(corpus):
    _, site, s, project, replies = corpus
    plain, own, in_project, bash, the = (r.data["hits"] for r in replies[3:8])
    assert s.id in {h["session"] for h in plain}
    assert own and {h["session"] for h in own} == {s.id}
    assert in_project and {h["session"] for h in in_project} <= project
    assert bash and all(h["kind"] == "tool" for h in bash) and len({h["session"] for h in bash}) <= len({h["session"] for h in the})
    for h in plain + own + bash:
        assert resolves(site, h["url"]) and len(h["snippet"]) <= 300
