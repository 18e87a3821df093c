"""Every command on a line longer than jsonl.LINE_CAP (lowered here): the line is shown cut with its
size, everything around it is kept, ``tail`` stays within its caps (issue 18, point 2; the memory
figures on 1 GiB files are benchmarks/memory.py's)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from ccreport.inspect import tail as tail_mod
from ccreport.live.api import CatalogCache, handle
from ccreport.source import jsonl
from faults import assert_all_lines_shown
from util import assistant, make_home, page_text, user

CAP = 4096
PROJECT = "-home-u-proj"
SID, ZERO = "11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"
LONG = ('{"type":"user","sessionId":"%s","message":{"role":"user","content":"' % SID + "a" * 20_000 + '"}}').encode()
SIZE = f"{len(LONG) + 1:,}"  # the size the messages give, newline included


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl, "LINE_CAP", CAP)
    h = make_home(tmp_path / "home", {PROJECT: {
        f"{SID}.jsonl": [user("u0", "before the long line", sid=SID), LONG + b"\n",
                         assistant("a1", [{"type": "text", "text": "a reply"}], parent="u0", sid=SID),
                         user("u3", "after the long line", parent="a1", sid=SID)],
        f"{ZERO}.jsonl": [user("z0", "the only good line", sid=ZERO), b"\x00" * 30_000]}})
    return h


def _run(*args) -> str:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_build_shows_the_cut_line_with_its_size_and_every_other_line(home, tmp_path):
    site = tmp_path / "site"
    _run("build", "--home", home, "--out", site, "-j", "1", "-q")
    folder = site / "p" / PROJECT / SID
    text = page_text(folder / "page-0001.html")
    assert f"line of {SIZE} bytes, longer than the {CAP:,}-byte limit" in text
    assert "before the long line" in text and "a reply" in text and "after the long line" in text
    assert_all_lines_shown(home / "projects" / PROJECT / f"{SID}.jsonl", folder)
    zero = page_text(site / "p" / PROJECT / ZERO / "page-0001.html")
    assert "the only good line" in zero and "unfinished last line (no newline yet), line of 30,000 bytes" in zero


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_export_shows_the_cut_line_and_keeps_the_rest(home, tmp_path, fmt):
    out = tmp_path / f"x.{fmt}"
    _run("export", "--home", home, "--format", fmt, "-o", out, SID)
    text = out.read_text()
    assert f"line of {SIZE} bytes" in text and "after the long line" in text and "a reply" in text
    assert "a" * 2000 not in text  # only the first KiB of the line is there


def test_api_returns_the_cut_line_as_malformed(home):
    status, body = handle(home, f"/api/sessions/{SID}/transcript", "limit=10", 50, CatalogCache())
    assert status == 200
    kinds = [m["content"][0].get("type") if m.get("content") else None for m in body["messages"]]
    cut = [m for m in body["messages"] if m["content"] and m["content"][0].get("type") == "malformed"]
    assert len(cut) == 1 and f"line of {SIZE} bytes" in cut[0]["content"][0]["error"], kinds
    assert len(body["messages"]) == 4


def test_stats_and_list_count_the_lines_around_it(home):
    stats = json.loads(_run("stats", "--home", home, "--json"))
    assert stats["projects"][PROJECT]["sessions"][SID]["total"]["responses"] == 1
    rows = {r["id"]: r for r in json.loads(_run("list", "--home", home, "--json"))}
    assert rows[SID]["messages"] == 4  # (the cut line is judged by its start: a user line)
    assert rows[ZERO]["messages"] == 1 and rows[ZERO]["title"] == "the only good line"


def test_tail_caps_each_entry_it_prints(home, monkeypatch):
    monkeypatch.setattr(tail_mod, "ENTRY_CAP", 8192)
    monkeypatch.setattr(tail_mod, "STRING_KEEP", 1000)
    # a JSON line over ENTRY_CAP but under LINE_CAP: kept as an object, its long string shortened
    monkeypatch.setattr(jsonl, "LINE_CAP", 64 * 1024)
    data = json.loads(_run("tail", "--home", home, "--json", "-n", "3", SID))
    big = data["entries"][0]
    assert big["message"]["content"] == "a" * 1000 + "… [19,000 more characters]"
    # over LINE_CAP: its start and size only
    monkeypatch.setattr(jsonl, "LINE_CAP", CAP)
    data = json.loads(_run("tail", "--home", home, "--json", "-n", "3", SID))
    cut = data["entries"][0]
    assert set(cut) == {"malformed", "cut"} and cut["malformed"] == LONG[:jsonl.PREVIEW].decode()
    assert f"line of {SIZE} bytes" in cut["cut"]
    assert [e.get("uuid") for e in data["entries"][1:]] == ["a1", "u3"]
    text = _run("tail", "--home", home, "-n", "3", SID)
    assert f"malformed line (line of {SIZE} bytes" in text and "after the long line" in text
    zero = json.loads(_run("tail", "--home", home, "--json", ZERO))
    assert zero["totalLines"] == 2 and zero["entries"][0]["uuid"] == "z0"
    assert "line of 30,000 bytes" in zero["entries"][1]["cut"] and len(zero["entries"][1]["malformed"]) == jsonl.PREVIEW


def test_tail_stops_at_its_budget_and_says_the_rest_was_left_out(home, monkeypatch):
    monkeypatch.setattr(tail_mod, "ENTRY_CAP", 8192)
    # Room for the two newest as they print (~0.8 KB), not for the cut line's 1 KiB preview too.
    monkeypatch.setattr(tail_mod, "BUDGET", tail_mod.HEADROOM + 1000)
    data = json.loads(_run("tail", "--home", home, "--json", "-n", "0", SID))
    assert data["totalLines"] == 4 and data["truncated"] is True
    assert [e.get("uuid") for e in data["entries"]] == ["a1", "u3"]  # the newest, as many as fit
