"""Where an agent's pages sit among the session's agents: the breadcrumbs through its parents (nested
agents) or its workflow run, and the words of its back-link."""

from __future__ import annotations

from ccreport.layout import INDEX, page_name, project_url, run_url, session_url, transcript_slug, transcript_url, url_name
from ccreport.model.agents import ancestry
from ccreport.model.text import cut_words
from ccreport.source.home import Session, Transcript


def transcript_crumbs(s: Session, t: Transcript, root: str, title: str) -> list[dict]:
    """Project › session › [workflow run] › [parent agents …] › this agent (page crumbs follow)."""
    pdir = s.project.dir_name
    crumbs = [{"label": title, "url": f"{root}{project_url(pdir)}/{INDEX}"},
              {"label": s.id[:8], "url": f"{root}{session_url(pdir, s.id)}/{INDEX}"}]
    if t.kind == "main":
        return crumbs
    if t.workflow_run:
        crumbs.append({"label": f"workflow run {t.workflow_run}", "url": f"{root}{run_url(pdir, s.id, t.workflow_run)}/{INDEX}"})
    for a in ancestry(t, {x.id: x for x in s.agents}):
        crumbs.append({"label": f"{a.agent_type or a.label} {a.id}",
                       "url": f"{root}{transcript_url(pdir, s.id, a.id)}/{page_name(1)}"})
    crumbs.append({"label": f"{t.label} {t.id}", "url": None})
    return crumbs


def agent_name(kind: str, description: str | None, prompt: str | None, agent_type: str | None,
               fallback: str) -> str:
    """What a sub-agent's pages and rows are called: what it was asked to do — the description
    (meta.json's, else its parent's Task/Agent call's), else the first line of its prompt —, else its
    type, else ``fallback`` (its kind and id). Compaction runs and side questions keep their kind."""
    first = next((ln.strip() for ln in (prompt or "").splitlines() if ln.strip()), "") if kind == "agent" else ""
    return cut_words(description or first or agent_type or fallback, 120)


def back_link_label(s: Session, t: Transcript) -> str:
    if t.parent_agent_id and any(a.id == t.parent_agent_id for a in s.agents):
        return f"back to the call in its parent agent {t.parent_agent_id}"
    return "back to the call in the main session"


def run_link(s: Session, t: Transcript, root: str) -> dict | None:
    """An agent of a workflow run links to the run's page."""
    if t.kind == "main" or not t.workflow_run:
        return None
    return {"url": f"{root}{run_url(s.project.dir_name, s.id, t.workflow_run)}/{INDEX}",
            "label": f"part of workflow run {t.workflow_run}"}


def agent_links(ids) -> dict:
    """Sub-agent id → its first page, from the session's folder (the outline links names there)."""
    return {aid: f"{url_name(transcript_slug(aid))}/{page_name(1)}" for aid in ids if aid != "main"}
