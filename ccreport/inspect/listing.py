"""`ccreport list`: the sessions of a home, newest first, with the figures the site shows (each
transcript read once, streamed); see docs/inspect.md for where each column comes from."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

import orjson

from ccreport.inspect.terminal import printable
from ccreport.model.messages import Builder, set_summary_title, title_of
from ccreport.model.pages import DEFAULT_PAGE_SIZE, paginate
from ccreport.model.text import plain_text
from ccreport.model.warmup import is_warmup
from ccreport.render.markup import human_size
from ccreport.source.activity import last_activity, project_path
from ccreport.source.archive import home_and_archive
from ccreport.source.home import Session, Transcript
from ccreport.source.reading import read_transcript
from ccreport.source.summaries import project_titles

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
    warmup: bool  # sub-agent warm-up runs only (model.warmup): no session to list (hidden unless asked for)
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


def session_row(s: Session, project: str, summary_title: str | None = None) -> SessionRow:
    """``summary_title``: what a summary line of the project names the session (source.summaries)."""
    carries = [_scan(t) for t in s.transcripts]  # the main one first: its title wins, as on the site
    if s.main is not None:
        set_summary_title(carries[0], summary_title)
    title = (s.custom_title or (title_of(carries[0]) if s.main is not None else None) or summary_title
             or next((t for c in carries if (t := title_of(c))), None))  # as the site's row (site.overview)
    talk = sum(c["counts"].get("user", 0) + c["counts"].get("assistant", 0) for c in carries)
    warm = [is_warmup(t.kind, c["messages"], c) for t, c in zip(s.transcripts, carries)]
    # (a title taken from a prompt may hold Markdown: shown as the text it marks up)
    return SessionRow(s.id, project, s.project.dir_name, (plain_text(title or "") or "(untitled session)")[:200],
                      last_activity(s), sum(c["messages"] for c in carries), len(s.agents), s.size, talk == 0,
                      any(warm) and all(w or not c["messages"] for w, c in zip(warm, carries)),
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
        titles = project_titles(p)
        rows.extend(session_row(s, name, titles.get(s.id)) for s in p.sessions.values())
    rows.sort(key=lambda r: (r.last_activity, r.id), reverse=True)
    return rows


def rows_json(rows: list[SessionRow]) -> str:
    return orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: wide and full-width characters (CJK, East Asian
    width W or F) take two, combining marks none, the rest one."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, width: int, from_end: bool = False) -> str:
    """``text`` cut to ``width`` columns with "…" (at its start when ``from_end``: a path's tail is kept)."""
    if columns(text) <= width:
        return text
    out, used = [], 1  # (the "…" takes one column)
    for c in (reversed(text) if from_end else text):
        w = columns(c)
        if used + w > width:
            break
        out.append(c)
        used += w
    return "…" + "".join(reversed(out)) if from_end else "".join(out) + "…"


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(width - columns(text), 0)
    return gap + text if right else text + gap


def format_table(rows: list[SessionRow], width: int = 60) -> str:
    if not rows:
        return "(no sessions)"
    head = ("ID", "PROJECT", "TITLE", "LAST ACTIVITY (UTC)", "MSGS", "SIZE")
    body = []
    for r in rows:
        # (names and titles from the home: no control, bidi or zero-width character reaches the terminal)
        title = printable(r.title) if r.in_home else f"[kept by the archive] {printable(r.title)}"
        body.append((printable(r.id), fit(printable(r.project), 40, from_end=True), fit(title, width),
                     r.last_activity.replace("T", " ").rstrip("Z"), f"{r.messages:,}", human_size(r.size)))
    # Columns are padded by what the terminal shows, not by characters (a CJK title is twice as wide).
    widths = [max(columns(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = []
    for row in [head] + body:
        cells = [_pad(c, w, i in (4, 5)) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
