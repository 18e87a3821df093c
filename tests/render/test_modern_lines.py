"""Claude Code 2.1.2xx (docs/formats.md F6) in the sample home's -home-dana-atlas session written by
make_modern_tools.py: every new line type, attachment, system subtype and tool is rendered for a reader
(no "Unrecognised" card, no JSON dump, no raw escape), the task board follows the Task* calls, hook
errors are errors, origin.kind says who sent a user line, cost-state shows beside ccreport's cost."""

from __future__ import annotations

import json
import re
import sys

import pytest

from ccreport.inspect.stats import collect, render_text
from ccreport.render.tools.modern import NAMES
from util import SAMPLE_HOME

sys.path.insert(0, str(SAMPLE_HOME))
import make_modern_tools as modern  # noqa: E402  (the generator: its ids and names)

PROJECT = "-home-dana-atlas"
RAW_FOLD = re.compile(r'<details class="raw">.*?</details>', re.S)


@pytest.fixture(scope="module")
def page(sample_site):
    site, _ = sample_site
    return (site / "p" / PROJECT / modern.SID / "page-0001.html").read_text(encoding="utf-8")


def _lines():
    path = SAMPLE_HOME / "projects" / PROJECT / f"{modern.SID}.jsonl"
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_the_session_exercises_every_new_shape():
    lines = _lines()
    types = {o["type"] for o in lines}
    atts = {o["attachment"]["type"] for o in lines if o["type"] == "attachment"}
    subs = {o.get("subtype") for o in lines if o["type"] == "system"}
    tools = {b["name"] for o in lines if o["type"] == "assistant"
             for b in o["message"]["content"] if b["type"] == "tool_use"}
    assert {"cost-state", "atis-latch", "mode", "bridge-session", "frame-link", "file-history-delta",
            "artifact-autoreact-ledger", "artifact-comment-monitor", "agent-name", "last-prompt"} <= types
    assert {"task_status", "task_reminder", "hook_blocking_error", "hook_non_blocking_error", "prompt_snapshot",
            "instructions", "session_context", "environment", "model", "date", "total_tokens_reminder",
            "remote_session_change", "agent_listing_delta"} <= atts
    assert {"model_refusal_no_fallback", "scheduled_task_fire", "post_turn", "bridge_status",
            "stop_hook_summary"} <= subs
    assert set(NAMES) | {"TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "TaskOutput", "TaskStop",
                         "SendMessage"} <= tools
    assert {o["origin"]["kind"] for o in lines if "origin" in o} == {"human", "task-notification", "hook", "peer"}


def test_no_unrecognised_card_no_json_dump_no_raw_escape(page):
    assert "Unrecognised" not in page
    assert "\x1b" not in page
    shown = RAW_FOLD.sub("", page)  # the folded source of a line is the one place its JSON may appear
    assert 'data-lang="json"' not in shown and 'class="rawjson"' not in shown
    assert '<span class="p">{</span>' not in shown
    assert not re.search(r"<pre[^>]*>\s*[\[{]", shown), re.search(r"<pre[^>]*>\s*[\[{].{0,200}", shown).group(0)
    assert "&quot;activeForm&quot;" not in shown  # a task reminder is a checklist, not its JSON


def test_every_line_has_its_anchor(page):
    for n in range(1, len(_lines()) + 1):
        assert f'id="L{n}"' in page, n


def test_bookkeeping_is_folded_and_context_is_one_block_per_turn(page):
    contexts = re.findall(r'<div class="msg meta context" id="L\d+"><details><summary>([^<]*)', page)
    assert len(contexts) == 2  # two turns
    assert contexts[0].startswith("Context given to the model: system prompt, instructions (CLAUDE.md), environment")
    groups = re.findall(r"\d+ bookkeeping lines?: ([^<]*)</summary>", page)
    assert "mode, permission-mode, atis-latch, bridge-session, agent-name, frame-link" in groups
    assert any("cost-state ×2" in g and "artifact-autoreact-ledger" in g for g in groups)
    assert "Claude Code&#x27;s own cost so far: $0.87" in page


def test_task_board_after_each_change(page):
    def summary(tool_id):
        m = re.search(rf'id="T-{tool_id}"[^>]*><summary>(.*?)</summary>', page, re.S)
        return re.sub(r"<[^>]+>", "", m.group(1))

    assert "board 0/1 done" in summary("toolu_01DanaCreate1")
    assert "#3 Benchmark the cache" in summary("toolu_01DanaCreate3")  # its id read from the result's text
    assert "in progress" in summary("toolu_01DanaUpdate1") and "dana" in summary("toolu_01DanaUpdate1")
    assert "blocked by #2" in summary("toolu_01DanaUpdate3")
    assert "board 1/3 done" in summary("toolu_01DanaUpdate1b")
    board = re.search(r'id="T-toolu_01DanaUpdate1b"[^>]*>.*?<div class="board">(.*?)</ul></div>', page, re.S).group(1)
    assert board.count('<li class="todo') == 3 and "st-completed changed" in board and "blocked by #2" in board
    reminder = re.search(r"task_reminder.*?<div class=\"board\">(.*?)</ul></div>", page, re.S).group(1)
    assert "0/3 done" in reminder and "Measure tile render time" in reminder
    assert "Background task</span> <code>b7f3a1</code>" in page and "2 new lines of output" in page


def test_hook_errors_are_errors_and_ansi_is_coloured(page):
    errors = re.findall(r'<div class="sysnote err hook-error"[^>]*><p>⚠ <b>(Hook error[^<]*)</b> ([^<]*)', page)
    assert errors == [("Hook error", "PostToolUse:Edit exit 1 "),
                      ("Hook error (blocked the action)", "PreToolUse:Bash ")]
    assert '<span class="ansi-b">PostToolUse:Edit</span>' in page
    assert '<span class="ansi-fg31">atlas/tiles.py:12:5: F841' in page
    assert '<span class="ansi-b">notify-send done</span>' in page


def test_origin_kind_says_who_sent_a_user_line(page):
    for words in ("typed by a person, via cli", "sent by a background task", "sent by a hook",
                  "sent by another session (session 5e0c (dana&#x27;s laptop))"):
        assert f">{words}</span>" in page, words


def test_new_system_subtypes(page):
    assert "Scheduled task fired <code>0 7 * * 1-5</code>: Re-run the tile benchmark" in page
    assert "The model refused and no fallback model was tried" in page
    assert "Remote-control bridge" in page and "After the turn" in page


def test_every_new_tool_has_a_summary_line(page):
    for name in NAMES + ("TaskGet", "TaskOutput", "TaskStop", "SendMessage"):
        pattern = rf'data-tool="{name}" id="T-[^"]+"[^>]*><summary>.*?<span class="tsum">(.*?)</span> ?</summary>'
        for m in re.finditer(pattern, page, re.S):
            assert re.sub(r"<[^>]+>", "", m.group(1)).strip(), name
        assert f'data-tool="{name}"' in page, name
    assert "Published at <code>https://claude.ai/artifacts/atlas-bench-3f2</code>" in page
    assert "Team atlas-cache created" in page  # the result's own words stay beside its table
    assert "export default async" in page  # the Workflow script, shown as code


def test_persisted_output_path_from_another_machine_is_found_by_name(sample_site, page):
    site, _ = sample_site
    assert '/tool-results/toolu_01DanaBigLog.txt">open the full output' in page
    assert (site / "p" / PROJECT / modern.SID / "tool-results" / "toolu_01DanaBigLog.txt").is_file()


def test_session_page_names_and_both_costs(sample_site):
    site, _ = sample_site
    html = (site / "p" / PROJECT / modern.SID / "index.html").read_text(encoding="utf-8")
    assert "Atlas: tile cache task board" in html  # custom-title.json
    claude = re.search(r'<p class="usage-sum claude-cost"><strong>([^<]*)</strong> by Claude Code', html)
    assert claude and claude.group(1) == "$0.87"
    assert "at API list prices" in html and "so the two differ" in html
    project = (site / "p" / PROJECT / "index.html").read_text(encoding="utf-8")
    assert "Atlas: tile cache task board" in project


def test_stats_shows_claude_codes_own_cost():
    data = collect(SAMPLE_HOME)
    session = data["projects"][PROJECT]["sessions"][modern.SID]
    assert session["claude_code"]["cost"] == pytest.approx(0.87)
    assert session["claude_code"]["models"]["claude-haiku-4-5-20251001"] == pytest.approx(0.05)
    text = render_text(data)
    assert "Claude Code's own cost (its cost-state lines, 1 session(s)): $0.87" in text
