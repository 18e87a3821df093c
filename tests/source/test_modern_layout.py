"""Discovery of Claude Code 2.1.2xx layouts (docs/formats.md F4–13.2): nested agents' meta, the agents
and files of Workflow runs, and an agent team's files in the home."""

from __future__ import annotations

import json

from ccreport.source.home import discover
from ccreport.source.teams import read_team
from ccreport.source.workflows import find_runs
from util import SAMPLE_HOME, make_home

LEAD = "90e61059-2a7b-527a-9fe4-7ccd0eb689e0"


def _lead():
    cat = discover(SAMPLE_HOME)
    return next(s for s in cat.sessions() if s.id == LEAD)


def test_nested_agent_meta_and_parents_sort_first():
    s = _lead()
    by_id = {t.id: t for t in s.agents}
    nested = [t for t in s.agents if t.parent_agent_id]
    assert len(nested) == 1 and nested[0].spawn_depth == 2
    parent = by_id[nested[0].parent_agent_id]
    assert parent.agent_type == "Plan" and parent.spawn_depth == 1
    assert s.agents.index(parent) < s.agents.index(nested[0])


def test_workflow_agents_are_marked_with_their_run():
    s = _lead()
    in_run = [t for t in s.agents if t.workflow_run]
    assert {t.workflow_run for t in in_run} == {"wf_3c9e1a27-4b1"} and len(in_run) == 2
    assert all(t.tool_use_id is None for t in in_run)  # their meta has no toolUseId


def test_find_runs_lists_journal_summary_and_script():
    (run,) = find_runs(_lead())
    assert run.run_id == "wf_3c9e1a27-4b1"
    assert run.journal.name == "journal.jsonl"
    assert run.summary.name == "wf_3c9e1a27-4b1.json"
    assert run.script.name == "bench-tiles-wf_3c9e1a27-4b1.js"


def test_find_runs_keeps_a_run_whose_folder_is_gone(tmp_path):
    home = make_home(tmp_path, {"-p": {"s1.jsonl": [{"type": "user", "uuid": "u"}]}})
    (home / "projects" / "-p" / "s1" / "workflows").mkdir(parents=True)
    (home / "projects" / "-p" / "s1" / "workflows" / "wf_1234abcd-001.json").write_text("{}")
    (home / "projects" / "-p" / "s1" / "workflows" / "wf_..%2f.json").write_text("{}")  # not a run id
    s = next(discover(home).sessions())
    (run,) = find_runs(s)
    assert run.run_id == "wf_1234abcd-001" and run.folder is None and run.summary is not None


def test_read_team_reads_config_inboxes_and_board():
    team = read_team(SAMPLE_HOME, "atlas-perf")
    assert team.found and team.config["leadSessionId"] == LEAD
    assert [m["name"] for m in team.config["members"]] == ["team-lead", "profiler", "reviewer"]
    assert [m["from"] for m in team.inboxes["team-lead"]] == ["profiler", "reviewer"]
    assert [(t["id"], t["status"]) for t in team.tasks] == [("1", "completed"), ("2", "in_progress")]


def test_read_team_refuses_names_that_leave_the_home(tmp_path):
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "config.json").write_text(json.dumps({"members": []}))
    (tmp_path / "teams").mkdir()
    assert not read_team(tmp_path, "../secret").found
    assert not read_team(tmp_path, "gone").found
