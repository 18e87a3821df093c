"""A session's row in the indexes (SessionInfo, from its transcripts' states) and its overview page:
the transcripts grouped by kind, with their pages, sizes, tokens and costs."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

from ccreport.layout import INDEX, LATEST, depth_root, page_name, project_url, session_dir, url_name
from ccreport.layout import transcript_slug
from ccreport.model.usage import session_cost
from ccreport.render.markup import human_size
from ccreport.render.message import local_date
from ccreport.render.resources import env
from ccreport.render.usage import view as usage_view
from ccreport.site.indexes import fmt_tokens, page_args
from ccreport.site.state import SessionInfo, TranscriptState
from ccreport.site.write import Writer
from ccreport.source.home import Session

GROUP_LABELS = {  # transcript kind → its group on the overview, in this order
    "main": "Main session",
    "agent": "Sub-agents",
    "compaction": "Compaction runs",
    "side_question": "Side questions",
    "prompt_suggestion": "Prompt suggestions",
}


def session_info(s: Session, states: list[TranscriptState]) -> SessionInfo:
    """The session's row, from its transcripts (the main one first for title, prompt and cwd)."""
    sums = [ts.summary for ts in states]
    main = next((x for x in sums if x.kind == "main"), None)
    ordered = ([main] if main else []) + sums
    usage: Counter = Counter()
    models: list = []
    for x in sums:
        usage.update(x.usage or {})
        models.extend(m for m in x.models or [] if m not in models)
    stamps = [v for x in sums for v in (x.first_ts, x.last_ts) if v]
    title = next((x.title for x in ordered if x.title), None)
    return SessionInfo(id=s.id, title=(title or "(untitled session)").strip()[:200],
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
    return {
        "name": x.label if x.id == "main" else (x.agent_type or x.label) + f" {x.id}",
        "description": x.description or (x.title if x.id != "main" else None),
        "first_url": f"{sub}{page_name(1)}" if ts.pages else None,
        "messages": f"{x.messages:,}", "lines": f"{x.lines:,}", "malformed": x.malformed,
        "size": human_size(x.size), "tokens": fmt_tokens(x.usage or {}), "error": x.error,
        "cost": session_cost({"total": by_transcript.get(x.id, {})}),
        "pages": [{"no": p[0], "url": f"{sub}{page_name(p[0])}"} for p in ts.pages],
    }


def write_session_overview(s: Session, info: SessionInfo, states: list[TranscriptState], writer: Writer,
                           project_title: str, home: dict | None = None) -> None:
    """``home``: its section of home files (site.extras.section)."""
    rel = session_dir(s.project.dir_name, s.id)
    root = depth_root(rel)
    groups = []
    for kind, label in GROUP_LABELS.items():
        rows = [_row(ts, info) for ts in states if ts.summary.kind == kind]
        if rows:
            groups.append({"label": label, "rows": rows})
    counts: Counter = Counter()
    for ts in states:
        counts.update(ts.summary.counts or {})
    main = next((ts for ts in states if ts.summary.kind == "main" and ts.pages), None)
    sview = dict(asdict(info), started=local_date(info.first_ts), last=local_date(info.last_ts),
                 counts=counts.most_common(), cwd=info.cwd or "", latest_url=LATEST if main else None, gone=s.gone)
    crumbs = [{"label": project_title, "url": f"{root}{project_url(s.project.dir_name)}/{INDEX}"},
              {"label": s.id[:8], "url": None}]
    html = env().get_template("session.html").render(
        **page_args(root, info.title, crumbs, "session"), s=sview, groups=groups, home=home or {},
        usage=usage_view(info.usage_report, "This session: activity per day"))
    writer.write(f"{rel}/{INDEX}", html)
