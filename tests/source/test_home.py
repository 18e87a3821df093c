"""Discovery: projects, sessions and transcripts in every layout; home resolution; containment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ccreport.source.home import HomeError, contained, discover, encode_cwd, resolve_home, valid_id
from util import SAMPLE_HOME, assistant, make_home, user

SID = "11111111-2222-3333-4444-555555555555"
SID2 = "66666666-7777-8888-9999-000000000000"


def _project(cat, name):
    return next(p for p in cat.projects if p.dir_name == name)


def test_three_agent_layouts_and_meta(tmp_path):
    home = make_home(tmp_path, {"-home-u-proj": {
        f"{SID}.jsonl": [user("u1", "hello", sid=SID), assistant("a1", [{"type": "text", "text": "hi"}], sid=SID)],
        f"{SID}/subagents/agent-a0123456789abcdef.jsonl": [user("s1", "explore", sid=SID, isSidechain=True)],
        f"{SID}/subagents/agent-acompact-00112233aabbccdd.jsonl": [user("c1", "summarise", sid=SID, isSidechain=True)],
        f"{SID}/subagents/agent-aside_question-99887766aabbccdd.jsonl": [user("q1", "btw", sid=SID, isSidechain=True)],
        f"{SID}/subagents/agent-aprompt_suggestion-abc123.jsonl": [user("p1", "[SUGGESTION MODE: …]", sid=SID, isSidechain=True)],
        # legacy layout: at the project root, tied to its session only by the sessionId inside
        "agent-1a2b3c4d.jsonl": [user("l1", "legacy task", sid=SID, isSidechain=True)],
    }})
    meta = tmp_path / "projects/-home-u-proj" / SID / "subagents/agent-a0123456789abcdef.meta.json"
    meta.write_text(json.dumps({"agentType": "Explore", "description": "Find the config"}))
    cat = discover(home)
    assert [p.dir_name for p in cat.projects] == ["-home-u-proj"]
    s = _project(cat, "-home-u-proj").sessions[SID]
    assert s.main is not None and s.main.kind == "main"
    by_id = {t.id: t for t in s.agents}
    assert set(by_id) == {"a0123456789abcdef", "acompact-00112233aabbccdd", "aside_question-99887766aabbccdd",
                          "aprompt_suggestion-abc123", "1a2b3c4d"}
    assert by_id["a0123456789abcdef"].kind == "agent" and by_id["a0123456789abcdef"].layout == "subagents"
    assert by_id["a0123456789abcdef"].agent_type == "Explore"
    assert by_id["a0123456789abcdef"].description == "Find the config"
    assert by_id["acompact-00112233aabbccdd"].kind == "compaction"
    assert by_id["aside_question-99887766aabbccdd"].kind == "side_question"
    assert by_id["aprompt_suggestion-abc123"].kind == "prompt_suggestion"
    assert by_id["1a2b3c4d"].kind == "agent" and by_id["1a2b3c4d"].layout == "root"
    # Real sub-agents come before compaction/side-question runs in the session's list.
    assert s.agents[0].kind == "agent" and s.agents[1].kind == "agent"
    assert sum(len(s.transcripts) for s in cat.sessions()) == 6


def test_legacy_agent_goes_to_the_session_named_inside(tmp_path):
    home = make_home(tmp_path, {"-p": {
        f"{SID}.jsonl": [user("u1", "one", sid=SID)],
        f"{SID2}.jsonl": [user("u2", "two", sid=SID2)],
        "agent-deadbeef.jsonl": [user("x", "task for two", sid=SID2, isSidechain=True)],
    }})
    p = _project(discover(home), "-p")
    assert [t.id for t in p.sessions[SID2].agents] == ["deadbeef"]
    assert p.sessions[SID].agents == []


def test_empty_and_summary_only_files_appear(tmp_path):
    home = make_home(tmp_path, {"-p": {
        f"{SID}.jsonl": [],
        f"{SID2}.jsonl": [{"type": "summary", "summary": "Old title", "leafUuid": "x"}],
        "agent-0badf00d.jsonl": [],
    }})
    p = _project(discover(home), "-p")
    assert p.sessions[SID].main.size == 0
    assert p.sessions[SID2].main.size > 0
    # An empty legacy agent file names no session: it is kept as a session of its own, not dropped.
    assert [t.id for t in p.sessions["agent-0badf00d"].agents] == ["0badf00d"]


def test_session_with_empty_main_and_agents(tmp_path):
    home = make_home(tmp_path, {"-p": {
        f"{SID}.jsonl": [],
        f"{SID}/subagents/agent-aaaa.jsonl": [user("s", "work", sid=SID, isSidechain=True)],
        # a session folder with sub-agents but no main file at all
        f"{SID2}/subagents/agent-bbbb.jsonl": [user("t", "more", sid=SID2, isSidechain=True)],
    }})
    p = _project(discover(home), "-p")
    assert p.sessions[SID].main.size == 0 and [t.id for t in p.sessions[SID].agents] == ["aaaa"]
    assert p.sessions[SID2].main is None and [t.id for t in p.sessions[SID2].agents] == ["bbbb"]


def test_folder_with_only_tool_results_is_not_a_session(tmp_path):
    home = make_home(tmp_path, {"-p": {f"{SID}.jsonl": [user("u", "x", sid=SID)]}})
    (tmp_path / "projects/-p" / SID2 / "tool-results").mkdir(parents=True)
    (tmp_path / "projects/-p" / SID2 / "tool-results/toolu_1.txt").write_text("out")
    p = _project(discover(home), "-p")
    assert list(p.sessions) == [SID]


def test_projects_ending_in_the_same_name_do_not_collide(tmp_path, build_site):
    home = make_home(tmp_path / "home", {
        "-home-alice-webshop": {f"{SID}.jsonl": [user("u1", "alice prompt", sid=SID, cwd="/home/alice/webshop")]},
        "-srv-bob-webshop": {f"{SID}.jsonl": [user("u1", "bob prompt", sid=SID, cwd="/srv/bob/webshop")]},
    })
    cat = discover(home)
    assert sorted(p.dir_name for p in cat.projects) == ["-home-alice-webshop", "-srv-bob-webshop"]
    out = tmp_path / "site"
    res = build_site(home, out)
    assert res.errors == [] and res.projects == 2 and res.sessions == 2
    a = (out / "p/-home-alice-webshop" / SID / "page-0001.html").read_text()
    b = (out / "p/-srv-bob-webshop" / SID / "page-0001.html").read_text()
    assert "alice prompt" in a and "bob prompt" not in a
    assert "bob prompt" in b and "alice prompt" not in b
    # Project titles come from the entries' cwd, not the lossy folder name.
    assert "/srv/bob/webshop" in (out / "p/-srv-bob-webshop/index.html").read_text()


def test_sample_home_is_discovered_completely():
    cat = discover(SAMPLE_HOME)
    names = {p.dir_name for p in cat.projects}
    assert {"-home-alice-webshop", "-srv-bob-webshop", "-Users-chika-dev-dotfiles"} <= names
    kinds = {(t.kind, t.layout) for s in cat.sessions() for t in s.transcripts}
    assert {("main", "main"), ("agent", "subagents"), ("agent", "root"), ("compaction", "subagents"),
            ("side_question", "subagents")} <= kinds
    assert cat.problems == []


def test_missing_or_wrong_home_raises(tmp_path):
    with pytest.raises(HomeError, match="not found"):
        discover(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(HomeError, match="not a folder"):
        discover(tmp_path / "file")
    (tmp_path / "empty").mkdir()
    with pytest.raises(HomeError, match="no projects/"):
        discover(tmp_path / "empty")


def test_symlink_out_of_the_home_is_skipped(tmp_path):
    outside = make_home(tmp_path / "other", {"-secret": {f"{SID}.jsonl": [user("u", "secret", sid=SID)]}})
    home = make_home(tmp_path / "home", {"-p": {f"{SID}.jsonl": [user("u", "mine", sid=SID)]}})
    os.symlink(outside / "projects/-secret", home / "projects/-secret")
    os.symlink(outside / "projects/-secret" / f"{SID}.jsonl", home / "projects/-p" / f"{SID2}.jsonl")
    cat = discover(home)
    assert [p.dir_name for p in cat.projects] == ["-p"]
    assert list(cat.projects[0].sessions) == [SID]
    assert len(cat.problems) == 2 and all("symlink out of the home" in x for x in cat.problems)


def test_resolve_home_order(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert resolve_home() == tmp_path / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/cfg")
    assert resolve_home() == Path("/cfg")
    monkeypatch.setenv("CLAUDE_HOME", "/ch")
    assert resolve_home() == Path("/ch")
    assert resolve_home("/opt") == Path("/opt")
    assert resolve_home("~/x") == tmp_path / "x"


def test_valid_id_contained_encode_cwd(tmp_path):
    assert valid_id(SID) and valid_id("acompact-0011aabb") and valid_id("aside_question-1")
    for bad in ("", "..", "../x", "a/b", "a\\b", ".hidden", "x..y", "a b", "a\x00"):
        assert not valid_id(bad), bad
    (tmp_path / "in").mkdir()
    assert contained(tmp_path / "in", tmp_path)
    assert not contained(tmp_path / ".." / "elsewhere", tmp_path)
    assert encode_cwd("/Users/agents/.claude") == "-Users-agents--claude"
    assert encode_cwd("C:\\Users\\Brahm\\Git\\Bookkeeper") == "C--Users-Brahm-Git-Bookkeeper"
