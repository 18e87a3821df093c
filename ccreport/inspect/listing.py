"""`ccreport list`: the sessions of a home, newest first, with the figures the site shows (each
transcript read once, streamed); see docs/inspect.md for where each column comes from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from ccreport.model.messages import Builder, title_of
from ccreport.model.pages import DEFAULT_PAGE_SIZE, paginate
from ccreport.render.markup import human_size
from ccreport.source.activity import last_activity, project_path
from ccreport.source.archive import home_and_archive
from ccreport.source.home import Session, Transcript
from ccreport.source.reading import read_transcript

@dataclass(slots=True)
class SessionRow:
    """One session of the listing; ``--json`` writes the fields as an object, in this order."""

    id: str
    project: str  # the project's real path (its recorded cwd), else its folder name
    project_dir: str
    title: str
    last_activity: str  # UTC, to the second (source.activity.last_activity: what `latest` sorts by)
    messages: int  # the site's count: model messages of every transcript of the session
    agents: int
    size: int
    empty: bool  # no user or assistant line anywhere (hidden unless asked for)
    in_home: bool = True  # False: the home lost it, the site's archive (--site) keeps it
    gone_since: str | None = None  # then: the day the home was last seen with it


def _scan(t: Transcript) -> dict:
    """The model's carry after reading the whole transcript the way the site does (pages of the
    site's default size, so messages are merged and counted exactly as the pages show them)."""
    builder = Builder()
    try:
        for _page in paginate(read_transcript(t), builder, DEFAULT_PAGE_SIZE):  # the archive's copy if lost
            pass
    except OSError:
        pass
    return builder.carry


def session_row(s: Session, project: str) -> SessionRow:
    carries = [_scan(t) for t in s.transcripts]  # the main one first: its title wins, as on the site
    title = next((t for c in carries if (t := title_of(c))), None)
    talk = sum(c["counts"].get("user", 0) + c["counts"].get("assistant", 0) for c in carries)
    return SessionRow(s.id, project, s.project.dir_name, " ".join((title or "(untitled session)").split())[:200],
                      last_activity(s), sum(c["messages"] for c in carries), len(s.agents), s.size, talk == 0,
                      s.gone is None, s.gone)


def list_rows(home: Path, project: str | None = None, site: Path | None = None) -> list[SessionRow]:
    """Every session, newest first (by last activity: the first non-empty row is `latest`); with
    ``site``, also those the home lost that the site's archive keeps (when it has one)."""
    rows = []
    needle = project.lower() if project else None
    for p in home_and_archive(home, site).projects:
        name = project_path(p)
        if needle and needle not in name.lower() and needle not in p.dir_name.lower():
            continue
        rows.extend(session_row(s, name) for s in p.sessions.values())
    rows.sort(key=lambda r: (r.last_activity, r.id), reverse=True)
    return rows


def rows_json(rows: list[SessionRow]) -> str:
    return orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()


def format_table(rows: list[SessionRow], width: int = 60) -> str:
    if not rows:
        return "(no sessions)"
    head = ("ID", "PROJECT", "TITLE", "LAST ACTIVITY (UTC)", "MSGS", "SIZE")
    body = []
    for r in rows:
        proj = r.project if len(r.project) <= 40 else "…" + r.project[-39:]
        title = r.title if r.in_home else f"[kept by the archive] {r.title}"
        title = title if len(title) <= width else title[: width - 1] + "…"
        body.append((r.id, proj, title, r.last_activity.replace("T", " ").rstrip("Z"), f"{r.messages:,}", human_size(r.size)))
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = []
    for row in [head] + body:
        cells = [c.ljust(w) if i not in (4, 5) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
