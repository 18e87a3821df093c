"""A session's row in the indexes (SessionInfo, from its transcripts' states) and its overview page:
the transcripts grouped by kind, with their pages, sizes, tokens and costs."""

from __future__ import annotations

from collections import Counter
from dataclasses import fields

from ccreport.layout import INDEX, LATEST, depth_root, page_name, project_url, session_dir, url_name
from ccreport.layout import transcript_slug
from ccreport.model.agents import agent_tree
from ccreport.model.text import session_title
from ccreport.model.usage import session_cost
from ccreport.render.markup import human_size
from ccreport.render.message import local_date
from ccreport.render.resources import env
from ccreport.render.usage import view as usage_view
from ccreport.site import closedturns
from ccreport.site.agentpages import agent_links, agent_name
from ccreport.site.features import Changes, TurnLines
from ccreport.site.indexes import fmt_tokens, page_args
from ccreport.site.outline import first_turn_url, outline_html
from ccreport.site.state import SessionInfo, TranscriptState
from ccreport.site.write import Writer
from ccreport.source.home import Session

GROUP_LABELS = {  # transcript kind → its group on the overview, in this order
    "main": "Main session",
    "agent": "Sub-agents",
    "workflow": "Agents of workflow runs",
    "compaction": "Compaction runs",
    "side_question": "Side questions",
    "prompt_suggestion": "Prompt suggestions",
}


def session_info(s: Session, states: list[TranscriptState], summary_title: str | None = None) -> SessionInfo:
    """The session's row, from its transcripts (the main one first for title, prompt and cwd);
    ``summary_title``: a summary line's text naming it (already in the main transcript's title)."""
    sums = [ts.summary for ts in states]
    main = next((x for x in sums if x.kind == "main"), None)
    ordered = ([main] if main else []) + sums
    usage: Counter = Counter()
    models: list = []
    for x in sums:
        usage.update(x.usage or {})
        models.extend(m for m in x.models or [] if m not in models)
    stamps = [v for x in sums for v in (x.first_ts, x.last_ts) if v]
    title = (s.custom_title or (main.title if main else None) or summary_title  # a /rename wins
             or next((x.title for x in sums if x.title), None))
    main_state = next((ts for ts in states if ts.summary.kind == "main"), None)
    turns = main_state.slice_of(TurnLines) if main_state else None
    warm = sum(1 for x in sums if x.warmup)
    return SessionInfo(id=s.id, title=session_title(title), summary_title=summary_title,
                       warmups=warm, warmup_only=warm > 0 and all(x.warmup or not x.messages for x in sums),
                       prompts=len(turns.turns) + closedturns.count(turns) if turns else 0,
                       first_turn=first_turn_url(closedturns.first(turns)) if turns else None,
                       prompt=main.prompt if main else None, git_branch=main.git_branch if main else None,
                       first_ts=min(stamps) if stamps else None, last_ts=max(stamps) if stamps else None,
                       messages=sum(x.messages for x in sums), malformed=sum(x.malformed for x in sums),
                       transcripts=len(states), pages=sum(len(ts.pages) for ts in states), usage=dict(usage), models=models,
                       cwd=next((x.cwd for x in ordered if x.cwd), None))


def _row(ts: TranscriptState, info: SessionInfo) -> dict:
    x = ts.summary
    slug = transcript_slug(x.id)
    sub = f"{url_name(slug)}/" if slug else ""
    by_transcript = (info.usage_report or {}).get("by_transcript", {})
    # A sub-agent by what it was asked to do (or its type), its id below: ids are random hex.
    ident = (x.agent_type or x.label) + f" {x.id}"
    name = x.label if x.id == "main" else agent_name(x.kind, x.description or x.task, x.prompt, x.agent_type, ident)
    return {
        "name": name, "description": None if x.id == "main" else ident if name != ident else x.title,
        "first_url": f"{sub}{page_name(1)}" if ts.pages else None,
        "messages": f"{x.messages:,}", "lines": f"{x.lines:,}", "malformed": x.malformed,
        "size": human_size(x.size), "tokens": fmt_tokens(x.usage or {}), "error": x.error,
        "cost": session_cost({"total": by_transcript.get(x.id, {})}),
        "pages": [{"no": p[0], "url": f"{sub}{page_name(p[0])}"} for p in ts.pages],
    }


def _tree(s: Session, states: list[TranscriptState]) -> list[dict]:
    """The session's sub-agents as a tree (nested agents under the agent that started them)."""
    agents = [t for t in s.agents if t.kind == "agent" and not t.workflow_run]
    if not any(t.parent_agent_id for t in agents):
        return []
    paged = {ts.summary.id for ts in states if ts.pages}
    return [{"depth": min(depth, 8), "name": f"{t.agent_type or t.label} {t.id}", "description": t.description,
             "url": f"{url_name(transcript_slug(t.id))}/{page_name(1)}" if t.id in paged else None}
            for depth, t in agent_tree(agents)]


def _warmups(states: list[TranscriptState]) -> list[dict]:
    """The warm-up runs (model.warmup) the overview counts instead of listing, each linked."""
    runs = sorted((ts for ts in states if ts.summary.warmup), key=lambda ts: (ts.summary.first_ts or "~", ts.summary.id))
    return [{"id": ts.summary.id, "url": f"{url_name(transcript_slug(ts.summary.id))}/{page_name(1)}" if ts.pages else None}
            for ts in runs]


def write_session_overview(s: Session, info: SessionInfo, states: list[TranscriptState], writer: Writer,
                           project_title: str, extras: dict | None = None, home: dict | None = None) -> None:
    """``extras``: the workflow runs (site.workflows) and the team (site.teampage) the page lists;
    ``home``: its section of home files (site.extras.section)."""
    rel = session_dir(s.project.dir_name, s.id)
    root = depth_root(rel)
    groups = []
    in_run = {t.id for t in s.agents if t.workflow_run}
    for kind, label in GROUP_LABELS.items():
        # In the order they started (their ids are random)
        mine = sorted((ts for ts in states if ("workflow" if ts.summary.id in in_run else ts.summary.kind) == kind
                       and not ts.summary.warmup), key=lambda ts: (ts.summary.first_ts or "~", ts.summary.id))
        rows = [_row(ts, info) for ts in mine]
        if rows:
            groups.append({"label": label, "rows": rows})
    counts: Counter = Counter()
    for ts in states:
        counts.update(ts.summary.counts or {})
    main = next((ts for ts in states if ts.summary.kind == "main" and ts.pages), None)
    # (a shallow view: asdict deep-copied every session's usage report, for five scalars)
    sview = dict({f.name: getattr(info, f.name) for f in fields(info)}, started=local_date(info.first_ts),
                 last=local_date(info.last_ts), counts=counts.most_common(), cwd=info.cwd or "",
                 latest_url=LATEST if main else None, gone=s.gone)
    crumbs = [{"label": project_title, "url": f"{root}{project_url(s.project.dir_name)}/{INDEX}"},
              {"label": s.id[:8], "url": None}]
    turns = main.slice_of(TurnLines) if main else TurnLines.SLICE()
    base = closedturns.count(turns)  # the prompts on part pages (site.outlineparts)
    html = env().get_template("session.html").render(
        **page_args(root, info.title, crumbs, "session"), s=sview, groups=groups, home=home or {},
        outline=outline_html(turns.turns, info.cwd, base, closedturns.PART,
                             agent_links(ts.summary.id for ts in states if ts.pages),
                             {ts.summary.id: changed for ts in states if (changed := ts.slice_of(Changes).changed)}),
        usage=usage_view(info.usage_report, "This session: activity per day"), tree=_tree(s, states),
        runs=(extras or {}).get("runs") or [], team=(extras or {}).get("team"), fork=(extras or {}).get("fork"),
        warmups=_warmups(states))
    writer.write(f"{rel}/{INDEX}", html)
