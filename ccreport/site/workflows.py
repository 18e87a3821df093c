"""A session's Workflow runs as pages (docs/formats.md F4): ``workflow-wf_<id>/index.html`` beside the
transcripts, with the run's agents (linked both ways), its journal as steps, its summary and its
script; and the card each Workflow call shows of its run."""

from __future__ import annotations

import os
from pathlib import Path

from markupsafe import Markup

from ccreport.layout import INDEX, WORKFLOW_PREFIX, depth_root, page_name, project_url, run_dir, run_url
from ccreport.layout import session_url
from ccreport.layout import transcript_url, url_name
from ccreport.model.workflows import journal_steps, run_facts, run_status, run_summary
from ccreport.render.resources import env
from ccreport.render.runs import script_html, steps_html, summary_html
from ccreport.site.indexes import page_args
from ccreport.site.write import Writer, remove, rmdir
from ccreport.source.home import Session
from ccreport.source.workflows import RunFiles, read_text


def run_cards(s: Session) -> tuple[list[RunFiles], dict]:
    """The session's runs and, by run id, the card a Workflow call shows (render.runs.run_card)."""
    runs, facts = run_facts(s)
    # (its agents are linked from the run's page, not the card)
    return runs, {rid: {"url": f"{run_url(s.project.dir_name, s.id, rid)}/{INDEX}", "status": f["status"],
                        "steps": f["steps"], "agents": f["agents"]} for rid, f in facts.items()}


def write_runs(s: Session, runs: list[RunFiles], writer: Writer, project_title: str, agent_calls: dict) -> list[dict]:
    """Write each run's page; returns the rows the session overview lists."""
    rows = []
    pdir = s.project.dir_name
    for r in runs:
        rel = run_dir(pdir, s.id, r.run_id)
        root = depth_root(rel)
        agents = [a for a in s.agents if a.workflow_run == r.run_id]
        links = {a.id: f"{root}{transcript_url(pdir, s.id, a.id)}/{page_name(1)}" for a in agents}
        journal, journal_cut = read_text(s, r.journal)
        steps = journal_steps(journal)
        summary, raw = run_summary(s, r)
        script, script_cut = read_text(s, r.script)
        call = agent_calls.get(r.run_id)
        view = {"id": r.run_id, "status": run_status(summary, steps), "steps": steps,
                "name": summary.get("workflowName") or summary.get("name") if summary else None,
                "agents": [{"name": f"{a.agent_type or a.label} {a.id}", "description": a.description,
                            "url": links[a.id]} for a in agents],
                "call_url": f"{root}{session_url(pdir, s.id)}/{call}" if call else None,
                "steps_html": Markup(steps_html(steps, links)), "journal_cut": journal_cut,
                "summary_html": Markup(summary_html(summary, raw)),
                "script_name": r.script.name if r.script else None,
                "script_html": Markup(script_html(script, r.script.name if r.script else None)), "script_cut": script_cut}
        crumbs = [{"label": project_title, "url": f"{root}{project_url(pdir)}/{INDEX}"},
                  {"label": s.id[:8], "url": f"{root}{session_url(pdir, s.id)}/{INDEX}"},
                  {"label": f"workflow run {r.run_id}", "url": None}]
        html = env().get_template("workflow.html").render(
            **page_args(root, f"{project_title} · workflow run {r.run_id}", crumbs, "workflow"), r=view)
        writer.write(f"{rel}/{INDEX}", html)
        rows.append({"id": r.run_id, "url": f"{url_name(WORKFLOW_PREFIX + r.run_id)}/{INDEX}", "status": view["status"],
                     "steps": len(steps), "agents": view["agents"], "name": view["name"]})
    return rows


def prune_runs(folder: Path, keep: set, deleted: list) -> None:
    """The pages of runs whose files are gone, in a session's site folder (``keep`` empty: all of
    them, for a session pruned whole)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(WORKFLOW_PREFIX) and name[len(WORKFLOW_PREFIX):] not in keep:
            remove(folder / name / INDEX, deleted)
            rmdir(folder / name)
