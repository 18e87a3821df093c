"""A session's agent team on its overview: the members and the task board, from the team's files in
the home (``teams/<team>/config.json``, ``tasks/<team>/*.json``) when Claude Code has not erased them,
else from what the session's lines and calls say (model.teams)."""

from __future__ import annotations

from markupsafe import Markup

from ccreport.layout import page_name, transcript_slug, url_name
from ccreport.model.teams import merge_facts
from ccreport.render.teammates import colour_class
from ccreport.render.checklist import checklist
from ccreport.source.home import Session
from ccreport.source.teams import read_team


def _members_from_config(config: dict) -> dict:
    out = {}
    for m in config.get("members") or []:
        if isinstance(m, dict) and isinstance(m.get("agentId") or m.get("name"), str):
            name = str(m.get("name") or m["agentId"]).split("@", 1)[0]
            out[name] = {k: m[k] for k in ("agentType", "model", "color") if isinstance(m.get(k), str)}
    return out


def team_view(s: Session, facts: list[dict]) -> dict | None:
    """What the overview shows of the session's team(s) (None when the session has no team)."""
    merged = merge_facts(facts)
    if not merged["teams"] and not merged["members"] and not merged["tasks"]:
        return None
    home = s.project.home
    members, tasks, sources = dict(merged["members"]), list(merged["tasks"].values()), []
    for name in merged["teams"]:
        files = read_team(home, name, s.store)
        if files.config is not None:
            for who, m in _members_from_config(files.config).items():
                members[who] = dict(members.get(who, {}), **m)
            sources.append(f"teams/{name}/config.json")
        if files.tasks:
            tasks = files.tasks
            sources.append(f"tasks/{name}/")
    agents = {t.id for t in s.agents}
    rows = []
    for name, m in members.items():
        aid = m.get("agentId")
        url = f"{url_name(transcript_slug(aid))}/{page_name(1)}" if aid in agents else None
        rows.append({"name": name, "type": m.get("agentType"), "model": m.get("model"),
                     "colour": colour_class(m.get("color")), "url": url})
    board = Markup(checklist(tasks)[0]) if tasks else None
    return {"names": merged["teams"], "members": rows, "board": board,
            "source": (", ".join(sources) + " in the Claude home") if sources else "the session's own lines and calls"}
