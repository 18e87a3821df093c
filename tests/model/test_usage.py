"""Usage and cost: de-duplication by (message.id, requestId), sub-agents, replays, prices, stats."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from ccreport.model.prices import CACHE_READ, CACHE_WRITE_1H, CACHE_WRITE_5M, UNITS_PER_DOLLAR, cost_units, price_of
from util import assistant, make_home, page_text, tool_result, user

SONNET = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"


def cost(model: str | None, usage: dict) -> float | None:
    """Dollars for one usage record, in floating point: the reference prices.cost_units is checked against."""
    p = price_of(model)
    if p is None:
        return None
    inp, out = p
    write = usage.get("cache_creation_input_tokens", 0)
    write_1h = min(usage.get("cache_write_1h", 0), write)
    return (usage.get("input_tokens", 0) * inp + usage.get("output_tokens", 0) * out
            + (write - write_1h) * inp * CACHE_WRITE_5M + write_1h * inp * CACHE_WRITE_1H
            + usage.get("cache_read_input_tokens", 0) * inp * CACHE_READ) / 1_000_000


def U(i, o, cw=0, cr=0):
    return {"input_tokens": i, "output_tokens": o, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr}


def _home(tmp_path):
    sid = "s1"
    main = [
        user("u1", "hello"),
        # One API response written as two lines (text, then tool_use) that repeat a growing usage.
        assistant("a1", [{"type": "text", "text": "Let me look."}], parent="u1", mid="m1", rid="r1",
                  usage=U(100_000, 10_000, 1_000_000)),
        assistant("a2", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}], parent="a1",
                  mid="m1", rid="r1", usage=U(100_000, 40_000, 1_000_000)),
        tool_result("u2", "t1", "file.txt", parent="a2"),
        assistant("a3", [{"type": "text", "text": "Done."}], parent="u2", mid="m2", rid="r2",
                  ts="2025-06-02T09:00:00.000Z", usage=U(5_000, 20_000, 0, 2_000_000)),
        # A model without a price: tokens only.
        assistant("a4", [{"type": "text", "text": "other model"}], parent="a3", mid="m5", rid="r5",
                  ts="2025-06-02T09:01:00.000Z", model="glm-5.1", usage=U(1, 1)),
    ]
    agent = [
        user("b1", "sub task", sid=sid, isSidechain=True),
        assistant("b2", [{"type": "text", "text": "sub answer"}], parent="b1", mid="m3", rid="r3", model=HAIKU,
                  isSidechain=True, usage=U(50_000, 30_000)),
    ]
    compaction = [
        # A replayed copy of the parent's m1 (another requestId): must not count again.
        assistant("c1", [{"type": "text", "text": "Let me look."}], mid="m1", rid="r9", isSidechain=True,
                  usage=U(100_000, 40_000, 1_000_000)),
        assistant("c2", [{"type": "text", "text": "<analysis>summary</analysis>"}], parent="c1", mid="m4", rid="r4",
                  isSidechain=True, usage=U(7_000, 3_000)),
    ]
    return make_home(tmp_path / "home", {"-home-u-proj": {
        f"{sid}.jsonl": main,
        f"{sid}/subagents/agent-a1.jsonl": agent,
        f"{sid}/subagents/agent-acompact-77.jsonl": compaction,
    }})


# Hand-computed, $ per million tokens: Sonnet 4.5 in 3 / out 15 / cache write 3.75 / read 0.30;
# Haiku 4.5 in 1 / out 5.
#   m1 (2 lines, the larger usage): 100k×3 + 40k×15 + 1M×3.75 = 0.3 + 0.6 + 3.75 = 4.65
#   m2: 5k×3 + 20k×15 + 2M×0.30 = 0.015 + 0.3 + 0.6 = 0.915
#   m3 (sub-agent, Haiku): 50k×1 + 30k×5 = 0.05 + 0.15 = 0.2
#   m4 (compaction's own answer): 7k×3 + 3k×15 = 0.021 + 0.045 = 0.066
#   m5 (glm-5.1): no price, 2 tokens; m1's replay in the compaction file: not counted.
EXPECTED = {"input_tokens": 100_000 + 5_000 + 50_000 + 7_000 + 1, "output_tokens": 40_000 + 20_000 + 30_000 + 3_000 + 1,
            "cache_creation_input_tokens": 1_000_000, "cache_read_input_tokens": 2_000_000, "responses": 5}
EXPECTED_COST = 4.65 + 0.915 + 0.2 + 0.066


def test_stats_of_split_lines_equal_hand_computed(tmp_path):
    home = _home(tmp_path)
    r = CliRunner().invoke(cli, ["stats", "--home", str(home), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    s = data["projects"]["-home-u-proj"]["sessions"]["s1"]
    for k, v in EXPECTED.items():
        assert s["total"][k] == v, k
    assert s["total"]["cost"] == pytest.approx(EXPECTED_COST)
    assert s["total"]["unpriced_tokens"] == 2
    assert s["unpriced_models"] == ["glm-5.1"]
    assert s["replayed_lines"] == 1
    # attribution: the sub-agent's response is its own, the compaction run keeps only its answer
    assert s["by_transcript"]["a1"]["cost"] == pytest.approx(0.2)
    assert s["by_transcript"]["acompact-77"]["output_tokens"] == 3_000
    assert s["by_transcript"]["main"]["responses"] == 3
    # per day (UTC) and per model
    assert s["by_day"]["2025-06-02"]["output_tokens"] == 20_001
    assert s["by_day"]["2025-06-01"]["output_tokens"] == 40_000 + 30_000 + 3_000
    assert s["by_model"][HAIKU]["input_tokens"] == 50_000
    # the home total is the same session (only one)
    assert data["home"]["total"]["cost"] == pytest.approx(EXPECTED_COST)
    text = CliRunner().invoke(cli, ["stats", "--home", str(home)]).output
    assert "$5.83" in text and "glm-5.1" in text and "1 replayed line" in text


def test_pages_show_the_same_figures(tmp_path, build_site):
    home = _home(tmp_path)
    out = tmp_path / "site"
    res = build_site(home, out)
    assert not res.errors
    overview = page_text(out / "p/-home-u-proj/s1/index.html")
    assert "$5.83" in overview and "+ 2 tokens of unpriced models" in overview
    assert "$0.20" in overview  # the sub-agent's row
    assert "1 replayed line " in overview and "glm-5.1" in overview
    assert "claude --resume s1" in (out / "p/-home-u-proj/s1/index.html").read_text()
    assert "$5.83" in page_text(out / "p/-home-u-proj/index.html")
    home_page = (out / "index.html").read_text()
    assert "$5.83" in page_text(out / "index.html")
    # the activity chart: inline SVG, one bar per day from 2025-06-01 to 2025-06-02, no style attributes
    assert home_page.count('<rect class="bar"') == 2
    assert "style=" not in home_page


def test_price_table_matches_most_specific_model():
    assert price_of("claude-opus-4-5-20251101") == (5.0, 25.0)
    assert price_of("claude-opus-4-20250514") == (15.0, 75.0)
    assert price_of("glm-5.1") is None and price_of(None) is None
    # one hour cache writes cost twice the input price, five minute ones 1.25 times
    u = {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 2_000_000, "cache_write_1h": 1_000_000}
    assert cost(SONNET, u) == pytest.approx(3 * 2 + 3 * 1.25)
    assert cost_units(SONNET, u) / UNITS_PER_DOLLAR == pytest.approx(3 * 2 + 3 * 1.25)


def test_corpus_stats_equal_builder_totals(corpus_home):
    """On the real corpus (no replayed runs in it) the session-wide de-dup equals the per-transcript one."""
    from ccreport.source.home import discover
    from ccreport.source.jsonl import read_entries
    from ccreport.model.usage import TranscriptUsage

    tot: dict = {}
    transcripts = [t for s in discover(corpus_home).sessions() for t in s.transcripts]
    for t in transcripts:
        ledger = TranscriptUsage()
        for e in read_entries(t.path):
            ledger.feed(e.obj, e.line)
        for k, v in ledger.tokens().items():
            tot[k] = tot.get(k, 0) + v
    r = CliRunner().invoke(cli, ["stats", "--home", str(corpus_home), "--json"])
    data = json.loads(r.output)
    for k, v in tot.items():
        assert data["home"]["total"][k] == v


def test_incremental_usage_equals_one_read(tmp_path, build_site):
    """Usage collected while rendering, resumed from the ledgers after appends that split one API
    response (two lines) across builds and add the replayed copy later, equals stats' one read."""
    from ccreport.source.home import discover
    from ccreport.site.state import State
    from ccreport.model.usage import session_report

    home = _home(tmp_path)
    files = {f: f.read_bytes().splitlines(keepends=True) for f in (home / "projects").rglob("*.jsonl")}
    for f, lines in files.items():
        f.write_bytes(b"".join(lines[:2]))  # main: up to the first line of m1; compaction: its replay
    out = tmp_path / "site"
    build_site(home, out, page_size=2)
    for f, lines in files.items():
        f.write_bytes(b"".join(lines))
    build_site(home, out, page_size=2)
    got = State.load(out).sessions[("-home-u-proj", "s1")].info.usage_report
    want = session_report(discover(home).projects[0].sessions["s1"])
    assert got == want
    assert got["replayed_lines"] == 1 and got["total"]["responses"] == 5
    assert got["total"]["cost"] == pytest.approx(EXPECTED_COST)


def test_integer_cost_units_equal_the_dollar_cost():
    """Sums are kept in whole 1e-10 dollar units (exact in any order): every price row and cache
    multiplier must be a whole number of units per token, and agree with cost()."""
    from ccreport.model.prices import PRICE_ROWS, UNITS_PER_DOLLAR, cost_units

    u = {"input_tokens": 1_234_567, "output_tokens": 89_123, "cache_creation_input_tokens": 777_777,
         "cache_write_1h": 111_111, "cache_read_input_tokens": 9_876_543}
    for patterns, inp, out in PRICE_ROWS:
        for per in (inp, out, inp * 1.25, inp * 2, inp * 0.1):
            assert abs(per * 10_000 - round(per * 10_000)) < 1e-6, (patterns, per)
        for pattern in patterns:
            model = f"claude-{pattern}-x"
            assert cost_units(model, u) / UNITS_PER_DOLLAR == pytest.approx(cost(model, u), rel=1e-12)
    assert cost_units("glm-5.1", u) is None
