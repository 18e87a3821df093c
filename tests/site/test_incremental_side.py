"""Incremental builds of a session whose transcripts did not change but whose other files did: its
Workflow run files, its team's files in the home and its custom-title.json (site/plan.py). The next
build re-renders what depends on them, and the site is the cold build's."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ccreport.site.build import Options, build
from incrhelp import PROJECT, SDIR, SID, assert_same_as_cold, lines_of, rel_written
from util import assistant, make_home, tool_result, user

RUN = "wf_abcd1234-001"


def _session() -> list[dict]:
    return [
        user("u0", "run the workflow", sid=SID, teamName="crew"),
        assistant("a0", [{"type": "tool_use", "id": "t0", "name": "Workflow", "input": {"script": "x"}}],
                  parent="u0", sid=SID, mid="m0", rid="r0"),
        tool_result("r0", "t0", f"Started run {RUN}", parent="a0", sid=SID, extra={"runId": RUN}),
    ] + lines_of(4)


@pytest.fixture
def home(tmp_path):
    h = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": _session()}})
    sdir = h / "projects" / PROJECT / SID
    (sdir / "subagents" / "workflows" / RUN).mkdir(parents=True)
    (sdir / "subagents" / "workflows" / RUN / "journal.jsonl").write_text(
        json.dumps({"type": "step", "step": "build", "status": "running"}) + "\n")
    (sdir / "workflows").mkdir()
    (sdir / "workflows" / f"{RUN}.json").write_text(json.dumps({"status": "running"}))
    (h / "teams" / "crew").mkdir(parents=True)
    (h / "teams" / "crew" / "config.json").write_text(json.dumps({"members": [{"name": "lead", "agentType": "lead"}]}))
    (h / "tasks" / "crew").mkdir(parents=True)
    (h / "tasks" / "crew" / "1.json").write_text(json.dumps({"subject": "FIRST-TASK", "status": "pending"}))
    return h


def _touch(path: Path, text: str) -> None:
    path.write_text(text)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a new stamp even on a coarse clock


def _change(home: Path, what: str) -> str:
    """Change one kind of side file; returns a text the rebuilt site must show."""
    sdir = home / "projects" / PROJECT / SID
    if what == "summary":
        _touch(sdir / "workflows" / f"{RUN}.json", json.dumps({"status": "SUCCEEDED-NOW"}))
        return "SUCCEEDED-NOW"
    if what == "journal":
        _touch(sdir / "subagents" / "workflows" / RUN / "journal.jsonl",
               json.dumps({"type": "step", "step": "build", "status": "running"}) + "\n"
               + json.dumps({"type": "step", "step": "SHIP-IT", "status": "done"}) + "\n")
        return "2 journal steps"
    if what == "team":
        _touch(home / "tasks" / "crew" / "2.json", json.dumps({"subject": "SECOND-TASK", "status": "pending"}))
        return "SECOND-TASK"
    _touch(sdir / "custom-title.json", json.dumps({"customTitle": "RENAMED-SESSION"}))
    return "RENAMED-SESSION"


@pytest.mark.parametrize("what", ["summary", "journal", "team", "title"])
def test_a_changed_side_file_is_rebuilt(home, tmp_path, what):
    opts = Options(page_size=5, jobs=1)
    out = tmp_path / "site"
    assert build(home, out, opts).errors == []
    assert build(home, out, opts).written == []  # nothing changed: nothing written
    shown = _change(home, what)
    res = build(home, out, opts)
    assert res.errors == []
    written = rel_written(res, out)
    assert f"{SDIR}/index.html" in written or what == "journal"
    site_text = "".join(p.read_text() for p in out.rglob("*.html"))
    assert shown in site_text
    assert_same_as_cold(home, out, tmp_path, opts)
    assert build(home, out, opts).written == []  # and the next build sees nothing new


def test_a_run_card_on_a_closed_page_follows_its_summary(home, tmp_path):
    """The Workflow call's card (status) sits on page 1, closed: it is rendered again."""
    opts = Options(page_size=2, jobs=1)
    out = tmp_path / "site"
    build(home, out, opts)
    assert "running" in (out / SDIR / "page-0001.html").read_text()
    _change(home, "summary")
    build(home, out, opts)
    assert "SUCCEEDED-NOW" in (out / SDIR / "page-0001.html").read_text()
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_pruned_session_takes_its_run_folders_with_it(home, tmp_path):
    opts = Options(page_size=5, jobs=1)
    out = tmp_path / "site"
    build(home, out, opts)
    assert (out / SDIR / f"workflow-{RUN}" / "index.html").is_file()
    shutil.rmtree(home / "projects" / PROJECT / SID)
    (home / "projects" / PROJECT / f"{SID}.jsonl").unlink()
    res = build(home, out, Options(page_size=5, jobs=1, prune_missing=True))  # the archive forgets only when told
    assert res.errors == [] and f"{SDIR}/workflow-{RUN}/index.html" in rel_written_deleted(res, out)
    assert not (out / SDIR / f"workflow-{RUN}").exists()


def rel_written_deleted(res, out: Path) -> set[str]:
    return {Path(p).relative_to(out).as_posix() for p in res.deleted}
