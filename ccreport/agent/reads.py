"""The four reads the MCP server offers, as plain functions over the home and a site's archive:
JSON-able dicts, LocateError / ValueError for what the caller asked wrong. No MCP here (the server,
agent/mcpserver.py, caps, redacts and turns errors into tool errors).

A session the home lost is read from the site's archive (``SITE/.ccreport``, its database) exactly as the
site's pages read it: the home's catalog merged with the store (source.archive.merge), each
transcript opened through source.reading. Ids are validated and paths contained by the code `tail`
and the API use (inspect.tail.locate → source.locate).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from ccreport.inspect.tail import locate, tail
from ccreport.layout import page_name, session_url
from ccreport.model.messages import Builder, title_of
from ccreport.model.pages import DEFAULT_PAGE_SIZE, paginate
from ccreport.model.prices import UNITS_PER_DOLLAR
from ccreport.model.turns import Turns, duration_s
from ccreport.model.usage import session_report
from ccreport.render.turns import figures_text
from ccreport.render.outline import answer_lines
from ccreport.site.searchquery import search_site
from ccreport.source.activity import has_conversation, last_activity, project_path
from ccreport.source.archive import home_and_archive
from ccreport.source.home import Catalog, Session, Transcript
from ccreport.source.jsonl import Reader
from ccreport.source.reading import open_transcript

LIST_MAX = 200  # sessions one list_sessions call may ask for
SEARCH_MAX = 100  # hits one search call may ask for
QUERY_MAX = 2000  # characters of a search query


@dataclass(frozen=True)
class Archive:
    """Where the reads look: the Claude home, and the site whose archive keeps what the home lost."""

    home: Path
    site: Path
    page_size: int = DEFAULT_PAGE_SIZE  # the site's page size: outline URLs name its pages

    def catalog(self) -> Catalog:
        """The home's sessions, plus those only the site's archive still has (when there is one)."""
        return home_and_archive(self.home, self.site)


def _main_pass(s: Session, page_size: int) -> tuple[dict, Turns]:
    """One read of the main transcript through the site's model: the builder's carry (title,
    times) and the turns the session page's outline lists."""
    builder, turns = Builder(), Turns()
    if s.main is None:
        return builder.carry, turns
    try:
        with open_transcript(s.main) as fh:
            for page in paginate(Reader(fh), builder, page_size):
                turns.feed_page(page.messages, page.no)
    except OSError:
        pass
    return builder.carry, turns


def _title(s: Session, carry: dict) -> str:
    return " ".join((s.custom_title or title_of(carry) or "(untitled session)").split())[:200]


def _session_row(s: Session, project: str, page_size: int) -> dict:
    carry, turns = _main_pass(s, page_size)
    cost = session_report(s)["total"]
    return {"id": s.id, "title": _title(s, carry), "project": project, "projectDir": s.project.dir_name,
            "started": carry.get("first_ts"), "lastActivity": last_activity(s), "prompts": turns.count,
            "agents": len(s.agents), "cost": round(cost.get("cost") or 0.0, 4), "responses": cost.get("responses", 0),
            "inHome": s.gone is None, **({"goneSince": s.gone} if s.gone else {})}


def list_sessions(a: Archive, project: str | None = None, query: str | None = None, limit: int = 20) -> dict:
    """Sessions newest first (by last activity, as `ccreport list`), the empty ones left out as
    there (no prompt and no answer: has_conversation): ``project`` keeps those whose project path
    or folder contains it, ``query`` those whose title or id contains it (any case)."""
    if not 1 <= limit <= LIST_MAX:
        raise ValueError(f"limit must be 1 to {LIST_MAX}")
    catalog = a.catalog()
    wanted = []
    for p in catalog.projects:
        name = project_path(p)
        if project and project.lower() not in name.lower() and project.lower() not in p.dir_name.lower():
            continue
        wanted += [(last_activity(s), s.id, s, name) for s in p.sessions.values()]
    wanted.sort(key=lambda r: (r[0], r[1]), reverse=True)
    rows, needle, seen = [], (query or "").lower(), 0
    for _, _, s, name in wanted:
        if len(rows) == limit:
            break
        seen += 1
        if not has_conversation(s):
            continue
        row = _session_row(s, name, a.page_size)
        if not needle or needle in row["title"].lower() or needle in s.id.lower():
            rows.append(row)
    # more: sessions were left unread (a bigger limit may list more of them)
    return {"sessions": rows, "more": seen < len(wanted)}


def session_transcript(a: Archive, session: str, tail_lines: int = 200, agent: str | None = None,
                       budget: int | None = None) -> dict:
    """The transcript as `ccreport tail --json` gives it ({path, totalLines, truncated, entries}), by its code."""
    if tail_lines < 0:
        raise ValueError("tail must be ≥ 0 (0: every line, within the byte cap)")
    result = tail(a.home, session, tail_lines, agent, catalog=a.catalog(), budget=budget)
    asked = min(tail_lines or result["totalLines"], result["totalLines"])
    if len(result["entries"]) < asked:  # the budget was spent first
        result["omitted"] = asked - len(result["entries"])
    return result


def transcript_of(a: Archive, session: str, agent: str | None) -> Transcript:
    """The transcript a session_transcript result names (located as tail locates it)."""
    return locate(a.home, session, agent if agent != "main" else None, a.catalog())[1]


def _turn_json(t, url: str) -> dict:
    f = t.figures
    return {"no": t.no, "prompt": t.prompt, "time": t.ts, "url": url, "responses": f.responses,
            "tools": dict(sorted(f.tools.items(), key=lambda kv: -kv[1])), "filesChanged": f.files,
            "filesMore": f.files_more, "subAgents": f.agents, "errors": f.errors, "models": f.models,
            "cost": round(f.cost_units / UNITS_PER_DOLLAR, 4), "unpricedTokens": f.unpriced,
            "durationS": duration_s(t.ts, f.end_ts), "figures": " · ".join(figures_text(f, t.ts)),
            "answer": answer_lines(f.answer)}


def session_outline(a: Archive, session: str) -> dict:
    """What the session page's outline shows: every prompt of the main transcript, what its turn did
    (tools, files changed, sub-agents, errors, cost, duration) and the first lines of its answer;
    each with the URL of its place on the site (relative to the site's root); and the session's
    sub-agent transcripts (the ids session_transcript's ``agent`` takes)."""
    s, t, path = locate(a.home, session, None, a.catalog())
    carry, turns = _main_pass(s, a.page_size)
    base = session_url(s.project.dir_name, s.id)
    rows = [_turn_json(turn, f"{base}/{page_name(turn.page)}#L{turn.line}") for turn in turns.turns]
    agents = [{"agent": t.id, "kind": t.kind, "type": t.agent_type, "description": t.description} for t in s.agents]
    return {"sessionId": s.id, "title": _title(s, carry), "project": project_path(s.project), "path": str(path),
            "inHome": s.gone is None, "sessionUrl": f"{base}/index.html", "agents": agents,
            "prompts": len(rows), "turns": rows}


def search(a: Archive, query: str, limit: int = 20) -> dict:
    """The site's search (site.searchquery: the search box's language), its hits as dicts."""
    if not 1 <= limit <= SEARCH_MAX:
        raise ValueError(f"limit must be 1 to {SEARCH_MAX}")
    if len(query) > QUERY_MAX:  # (the result repeats it)
        raise ValueError(f"the query is {len(query):,} characters long; at most {QUERY_MAX:,}")
    if not (a.site / "search").is_dir():
        raise FileNotFoundError(2, f"{a.site} has no search index: run `ccreport build --out {a.site}` first")
    hits = search_site(a.site, query, limit)
    return {"query": query, "hits": [asdict(h) for h in hits]}
