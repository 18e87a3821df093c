"""`ccreport mcp` driven through the mcp SDK's own stdio client (tests/mcphelp.py): each tool on the
sample home, a session the home lost after a build (read from the archive), bad and unknown ids,
and queries the search cannot answer. One server per scenario: its calls are made once per module
and the tests read the replies."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ccreport.inspect.listing import list_rows
from ccreport.inspect.tail import tail
from ccreport.site.build import Options, build
from mcphelp import TOOLS, exchange, resolves
from util import SAMPLE_HOME

SID = "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"  # alice's webshop session: 3 prompts, sub-agents
AGENT = "a3840a7bfdeb9696c"
MAIN = Path("projects/-home-alice-webshop") / f"{SID}.jsonl"
ACCOUNT = "5f1c2a9e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"

CALLS = [
    ("list_sessions", {}),
    ("list_sessions", {"project": "atlas", "limit": 2}),
    ("list_sessions", {"query": "UMLAUT"}),
    ("session_transcript", {"session": SID[:8], "tail": 5}),
    ("session_transcript", {"session": SID, "agent": AGENT, "tail": 3}),
    ("session_outline", {"session": SID}),
    ("search", {"query": "umlaut"}),
    ("search", {"query": "pytest"}),
    ("search", {"query": "pytest tool:Bash"}),
    ("search", {"query": "pytest project:gallery"}),
    ("search", {"query": "tool:Bash"}),
    ("search", {"query": "crash is:error"}),
]
BAD = [
    ("session_transcript", {"session": "../../etc/passwd"}),
    ("session_transcript", {"session": "a/b"}),
    ("session_outline", {"session": ".."}),
    ("session_transcript", {"session": SID, "agent": "../x"}),
    ("session_transcript", {"session": "0000dead"}),
    ("session_outline", {"session": "ffffffff-0000-0000-0000-000000000000"}),
    ("session_transcript", {"session": SID, "agent": "a000000000"}),
    ("session_transcript", {"session": SID, "tail": -1}),
    ("search", {"query": "crash is:foo"}),
    ("list_sessions", {"limit": 0}),
    ("session_transcript", {"session": "x" * 100_000}),
    ("search", {"query": "word " * 1000}),
]


@pytest.fixture(scope="module")
def sample(sample_site):
    site = sample_site[0]
    names, replies = exchange(SAMPLE_HOME, site, CALLS + BAD)
    return site, names, dict(zip(range(len(CALLS)), replies[:len(CALLS)])), replies[len(CALLS):]


def test_the_four_tools_are_listed(sample):
    assert sample[1] == TOOLS


def test_list_sessions_newest_first_as_list_does(sample):
    _, _, r, _ = sample
    rows = r[0].data["sessions"]
    assert [x["id"] for x in rows] == [x.id for x in list_rows(SAMPLE_HOME) if not x.empty][:20]
    assert [x["lastActivity"] for x in rows] == sorted((x["lastActivity"] for x in rows), reverse=True)
    assert all(x["inHome"] for x in rows) and r[0].data["byteCap"] == 256 * 1024
    alice = next(x for x in rows if x["id"] == SID)
    assert alice["prompts"] == 3 and alice["cost"] > 0 and alice["title"].startswith("Fix checkout crash")
    atlas = r[1].data
    assert len(atlas["sessions"]) == 2 and atlas["more"] and all("atlas" in x["project"] for x in atlas["sessions"])
    assert all(x["prompts"] or x["responses"] for x in rows)
    assert [x["id"] for x in r[2].data["sessions"]] == [SID]


def test_transcript_is_tails_answer(sample):
    _, _, r, _ = sample
    got, want = r[3].data, tail(SAMPLE_HOME, SID, 5)
    assert (got["totalLines"], got["truncated"], got["sessionId"]) == (want["totalLines"], True, SID)
    assert [e.get("uuid") for e in got["entries"]] == [e.get("uuid") for e in want["entries"]]
    agent = r[4].data
    assert agent["agentId"] == AGENT and len(agent["entries"]) == 3
    assert agent["totalLines"] == tail(SAMPLE_HOME, SID, 3, AGENT)["totalLines"]


def test_outline_is_the_session_pages(sample):
    site, _, r, _ = sample
    o = r[5].data
    page = (site / o["sessionUrl"]).read_text(encoding="utf-8")
    shown = re.search(r'outline-h">Prompts <span class="dim">\((\d+)\)', page)
    assert o["prompts"] == len(o["turns"]) == int(shown.group(1)) == 3
    assert all(resolves(site, t["url"]) for t in o["turns"])
    first = o["turns"][0]
    assert first["prompt"].startswith("Der Checkout bricht") and first["tools"] and first["answer"]
    assert any(f.endswith("cart.py") for t in o["turns"] for f in t["filesChanged"])
    assert AGENT in {x["agent"] for x in o["agents"]}


def test_a_filter_alone_lists_what_it_selects(sample):
    """The site's search: tool:Bash alone lists Bash calls (sessions newest first); is:error the failed calls."""
    site, _, r, _ = sample
    bash, errors = r[10].data["hits"], r[11].data["hits"]
    assert bash and all(h["kind"] == "tool" for h in bash) and all(resolves(site, h["url"]) for h in bash)
    assert all(h["kind"] == "tool" for h in errors)


def test_search_hits_link_to_their_message(sample):
    site, _, r, _ = sample
    umlaut = r[6].data["hits"]
    assert umlaut and umlaut[0]["session"] == SID and all(resolves(site, h["url"]) for h in umlaut)
    assert any("umlaut" in h["snippet"].lower() for h in umlaut) and all(h["when"] for h in umlaut)
    every, bash, gallery = (r[i].data["hits"] for i in (7, 8, 9))
    assert bash and all(h["kind"] == "tool" for h in bash) and len(bash) <= len(every)
    assert {h["session"] for h in gallery} < {h["session"] for h in every}
    assert all("gallery" in h["project"] for h in gallery)


def test_bad_ids_and_unknown_sessions_are_tool_errors(sample):
    bad = sample[3]
    assert all(x.error and "Traceback" not in x.text for x in bad)
    for x in bad[:4]:
        assert "not a valid" in x.text, x.text
    assert "no session 0000dead" in bad[4].text and "list_sessions" in bad[4].text
    assert "no session ffffffff" in bad[5].text
    assert "has no transcript a000000000" in bad[6].text
    assert "tail must be" in bad[7].text
    assert "cannot read the filter" in bad[8].text and "is:foo" in bad[8].text
    assert "limit must be" in bad[9].text
    assert "not a valid session id" in bad[10].text and len(bad[10].text) < 1000
    assert "at most 2,000" in bad[11].text


# ---- a session the home lost after a build: read from the site's archive ---------------------
@pytest.fixture(scope="module")
def lost(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-lost")
    home, site = root / "home", root / "site"
    shutil.copytree(SAMPLE_HOME, home)
    # an account id (2.1.2xx bridge-session line) that the text repeats: redacted from the archive's copy too
    with open(home / MAIN, "ab") as fh:
        fh.write(b'{"type":"bridge-session","ownerAccountUuid":"%s","sessionId":"%s"}\n' % (ACCOUNT.encode(), SID.encode()))
        fh.write(b'{"type":"system","content":"bridged for %s","sessionId":"%s"}\n' % (ACCOUNT.encode(), SID.encode()))
    build(home, site, Options(jobs=1))
    before = tail(home, SID, 0)
    (home / MAIN).unlink()
    shutil.rmtree(home / MAIN.with_suffix(""))
    calls = [("list_sessions", {"query": SID[:8]}), ("session_transcript", {"session": SID, "tail": 0}),
             ("session_transcript", {"session": SID, "agent": AGENT}), ("session_outline", {"session": SID}),
             ("search", {"query": "umlaut"}), ("session_transcript", {"session": "latest", "tail": 1})]
    _, replies = exchange(home, site, calls)
    _, unarchived = exchange(home, root / "no-site", calls[:2])
    return site, before, replies, unarchived


def test_a_lost_session_is_read_from_the_archive(lost):
    site, before, (listed, whole, agent, outline, found, _), _ = lost
    row = listed.data["sessions"][0]
    assert row["id"] == SID and row["inHome"] is False and row["goneSince"] and row["prompts"] == 3
    t = whole.data
    assert t["archived"] is True and t["totalLines"] == before["totalLines"] and not t["truncated"]
    assert [e.get("uuid") for e in t["entries"]] == [e.get("uuid") for e in before["entries"]]
    assert ACCOUNT not in whole.text and ACCOUNT in str(before["entries"])  # learnt from the archive's copy
    assert agent.data["archived"] is True and agent.data["entries"]
    o = outline.data
    assert o["inHome"] is False and len(o["turns"]) == 3 and all(resolves(site, x["url"]) for x in o["turns"])
    assert found.data["hits"][0]["session"] == SID


def test_without_the_archive_a_lost_session_is_unknown(lost):
    listed, transcript = lost[3]
    assert SID not in {x["id"] for x in listed.data["sessions"]}
    assert transcript.error and f"no session {SID}" in transcript.text


def test_search_needs_a_built_site(tmp_path):
    _, (r,) = exchange(SAMPLE_HOME, tmp_path / "nowhere", [("search", {"query": "umlaut"})])
    assert r.error and "has no search index" in r.text and "ccreport build --out" in r.text
