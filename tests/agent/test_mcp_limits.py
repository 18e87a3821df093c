"""`ccreport mcp`'s limits, through the SDK's stdio client: every result within its stated byte cap
(a huge transcript's tail cut to its newest entries, a 2 MB line shortened), and redaction on by
default (the export's planted secrets) and off with --no-redact."""

from __future__ import annotations

import json

import pytest

from ccreport.site.build import Options, build
from exporthelp import PROJECT, SID, make_export_home
from mcphelp import exchange
from planted import SECRETS
from util import assistant, make_home, user

CAP = 65_536
BIG_SID = "b16b16b1-0000-4000-8000-000000000001"
PROMPTS = 1500


def _huge_entries() -> list:
    out, parent = [], None
    for i in range(PROMPTS):
        kw = {"sid": BIG_SID, "ts": f"2025-06-01T{10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"}
        out.append(user(f"u{i}", f"prompt {i} " + "lorem ipsum " * 40, parent=parent, **kw))
        out.append(assistant(f"a{i}", [{"type": "text", "text": f"answer {i} " + "dolor sit " * 40}],
                             parent=f"u{i}", mid=f"m{i}", rid=f"r{i}", **kw))
        parent = f"a{i}"
    out.append('{"type": "user", "broken')  # a malformed line: its own kind
    out.append(user("last", "x" * (2 << 20), parent=parent, sid=BIG_SID, ts="2025-06-01T12:00:00.000Z"))
    return out


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-huge")
    home = make_home(root / "home", {"-work-big": {f"{BIG_SID}.jsonl": _huge_entries()}})
    calls = [("session_transcript", {"session": BIG_SID, "tail": 0}),
             ("session_transcript", {"session": BIG_SID, "tail": 3}),
             ("session_transcript", {"session": BIG_SID, "tail": 1}),
             ("session_outline", {"session": BIG_SID}),
             ("list_sessions", {"limit": 200})]
    return exchange(home, root / "site", calls, "--max-bytes", str(CAP))[1]


def test_every_result_is_within_the_stated_cap(huge):
    for r in huge:
        assert len(r.text.encode()) <= CAP and r.data["byteCap"] == CAP


def test_a_huge_tail_keeps_its_newest_entries(huge):
    every = huge[0].data
    assert every["totalLines"] == 2 * PROMPTS + 2 and every["truncated"] is True
    assert every["omitted"] > 0 and "byteCap" in every["omittedWhy"]
    entries = every["entries"]
    assert 10 < len(entries) < 2 * PROMPTS
    # newest last, in order: the last prompts' answers, the malformed line, the 2 MB line shortened
    assert entries[-2] == {"malformed": '{"type": "user", "broken'}
    assert entries[-1]["uuid"] == "last" and "more characters]" in entries[-1]["message"]["content"]
    assert entries[-3]["uuid"] == f"a{PROMPTS - 1}"
    three = huge[1].data
    assert [e.get("uuid") for e in three["entries"]] == [f"a{PROMPTS - 1}", None, "last"]
    one = huge[2].data
    assert len(one["entries"]) == 1 and one["truncated"] is True and "omitted" not in one


def test_a_long_outline_is_cut_and_says_so(huge):
    o = huge[3].data
    assert o["prompts"] == PROMPTS + 1 and 0 < len(o["turns"]) < PROMPTS and o["truncated"] is True
    assert o["turns"][0]["no"] == 1 and o["omitted"] == o["prompts"] - len(o["turns"])


# ---- redaction -----------------------------------------------------------------------------------
KEEP = ("id", "sessionId", "session", "projectDir", "url", "sessionUrl", "path")


def _without_places(value):
    """A result without the fields that name places (ids, site URLs, project folders, the file),
    which are not redacted: a project folder's name spells its path."""
    if isinstance(value, dict):
        return {k: _without_places(v) for k, v in value.items() if k not in KEEP}
    if isinstance(value, list):
        return [_without_places(v) for v in value]
    return value


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-secrets")
    home = make_export_home(root / "home")
    build(home, root / "site", Options(jobs=1))
    calls = [("list_sessions", {}), ("session_transcript", {"session": SID}),
             ("session_transcript", {"session": SID, "agent": "a1b2c3d"}), ("session_outline", {"session": SID}),
             ("search", {"query": "anthropic_key"}), ("search", {"query": "github_token"})]
    redacted = exchange(home, root / "site", calls)[1]
    plain = exchange(home, root / "site", calls, "--no-redact")[1]
    return redacted, plain


def test_results_are_redacted_by_default(planted):
    redacted, _ = planted
    assert all(r.data["redaction"].startswith("redacted: ") for r in redacted[1:4])
    for r in redacted:
        text = json.dumps(_without_places(r.data), ensure_ascii=False)
        assert [k for k, v in SECRETS.items() if v in text] == [], r.text[:300]
        assert "/home/" not in text
    assert "[REDACTED:github-token]" in redacted[1].text and "[REDACTED:slack-token]" in redacted[1].text
    assert "[REDACTED:google-api-key]" in redacted[2].text
    assert redacted[4].data["hits"] and redacted[5].data["hits"]  # still found; only their text is redacted
    assert all(h["url"].startswith(f"p/{PROJECT}/{SID}/") for h in redacted[4].data["hits"])


def test_no_redact_returns_the_text_as_written(planted):
    _, plain = planted
    assert plain[1].data["redaction"] == "off (--no-redact)"
    assert SECRETS["github-oauth"] in plain[1].text and SECRETS["slack-token"] in plain[1].text
    assert SECRETS["home-user"] in json.dumps(_without_places(plain[3].data))
    assert any(SECRETS["anthropic-key"] in h["snippet"] for h in plain[4].data["hits"])
