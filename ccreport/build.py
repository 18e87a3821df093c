"""The archive build: home → catalog → per-session pages → indexes.

Sessions are independent, so they are spread over worker processes (``jobs``); each worker
streams its transcripts page by page and returns a small summary that the indexes are made from.
Nothing of a transcript is held beyond its open page.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from markupsafe import Markup

from . import __version__
from .blobs import BlobStore
from .home import Catalog, Session, Transcript, discover
from .jsonl import MALFORMED_KEEP, Entry, Reader, parse_line
from .markup import esc, human_size
from .model import Builder, title_of, usage_totals
from .pages import DEFAULT_PAGE_SIZE, Page, paginate
from .render import RenderContext, local_date, render_message
from .resources import asset_files, asset_names, env
from .write import Writer

KIND_ORDER = ("main", "agent", "compaction", "side_question", "prompt_suggestion")
GROUP_LABELS = {
    "main": "Main session",
    "agent": "Sub-agents",
    "compaction": "Compaction runs",
    "side_question": "Side questions",
    "prompt_suggestion": "Prompt suggestions",
}


@dataclass
class Options:
    page_size: int = DEFAULT_PAGE_SIZE
    jobs: int = 1
    quiet: bool = False


@dataclass
class BuildResult:
    projects: int = 0
    sessions: int = 0
    transcripts: int = 0
    pages: int = 0
    messages: int = 0
    malformed: int = 0
    seconds: float = 0.0
    written: list = field(default_factory=list)
    errors: list = field(default_factory=list)

    def summary_line(self, out: Path) -> str:
        return (f"ccreport: {self.projects} projects, {self.sessions} sessions, {self.transcripts} transcripts, "
                f"{self.pages} pages, {self.messages:,} messages, {self.malformed} malformed lines "
                f"in {self.seconds:.2f} s → {out / 'index.html'}")


def session_dir(s: Session) -> str:
    return f"p/{s.project.dir_name}/{s.id}"


def transcript_dir(s: Session, t: Transcript) -> str:
    return session_dir(s) + (f"/{t.slug}" if t.slug else "")


def url_name(name: str) -> str:
    """A file or folder name as one URL path segment. Names come from the home's file names and
    may hold ':', '#', '?', '%', quotes or '<': unquoted, "javascript:x" would be a script link and
    "a#b" a broken one."""
    return quote(name, safe="")


def session_url(s: Session) -> str:
    """session_dir as a site-relative URL (each segment quoted)."""
    return f"p/{url_name(s.project.dir_name)}/{url_name(s.id)}"


def transcript_url(s: Session, t: Transcript) -> str:
    return session_url(s) + (f"/{url_name(t.slug)}" if t.slug else "")


def page_name(no: int) -> str:
    return f"page-{no:04d}.html"


def _depth_root(rel_dir: str) -> str:
    return "../" * (rel_dir.count("/") + 1)


def _fmt_tokens(u: dict) -> str:
    return f'{u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0):,} / {u.get("output_tokens", 0):,}'


def _common(root: str, title: str, crumbs, page_kind: str, source: str = "") -> dict:
    return {"root": root, "title": title, "crumbs": crumbs, "page_kind": page_kind, "assets": asset_names(),
            "version": __version__, "source": source or "Claude Code transcripts", "live": None}


# --- one transcript ---------------------------------------------------------------------------
def render_transcript(s: Session, t: Transcript, out: Path, writer: Writer, opts: Options,
                      agent_urls: dict, agent_calls: dict, parent_url: str | None, blobs: BlobStore,
                      project_title: str) -> dict:
    """Stream one transcript into its pages. Returns its summary (counts, pages, usage…)."""
    rel = transcript_dir(s, t)
    root = _depth_root(rel)
    tmpl = env().get_template("page.html")
    summary = {"id": t.id, "kind": t.kind, "label": t.label, "agent_type": t.agent_type, "description": t.description,
               "size": t.size, "pages": [], "messages": 0, "malformed": 0, "lines": 0, "error": None, "pending": 0}
    builder = Builder()
    heading = f"{project_title} · {s.id[:8]}" + ("" if t.kind == "main" else f" · {t.label} {t.id}")
    crumbs = [{"label": project_title, "url": f"{root}p/{url_name(s.project.dir_name)}/index.html"},
              {"label": s.id[:8], "url": f"{root}{session_url(s)}/index.html"}]
    if t.kind != "main":
        crumbs.append({"label": f"{t.label} {t.id}", "url": None})
    agent_line = " · ".join(x for x in (t.agent_type, t.description) if x)
    try:
        with open(t.path, "rb") as fh:
            reader = Reader(fh)
            last: Page | None = None
            for page in paginate(_with_unfinished_tail(reader, fh), builder, opts.page_size):
                last = page
                _write_page(page, s, t, rel, root, writer, tmpl, opts, agent_urls, agent_calls, parent_url, blobs,
                            heading, crumbs, agent_line, reader.pending)
                summary["pages"].append([page.no, page.first_line, page.first_offset])
            summary["lines"] = reader.line - 1 + (1 if reader.pending else 0)
            summary["pending"] = reader.pending
            summary["offset"] = reader.offset
            summary["carry_last"] = last.carry if last else None
    except OSError as exc:
        summary["error"] = f"cannot read {t.path}: {exc.strerror or exc}"
    c = builder.carry
    summary.update(messages=c["messages"], malformed=c["malformed"], counts=c["counts"], usage=usage_totals(c),
                   title=title_of(c), prompt=c["titles"].get("prompt"), cwd=c["cwd"], git_branch=c["git_branch"],
                   first_ts=c["first_ts"], last_ts=c["last_ts"], models=c["models"], tool_calls=c["tool_calls"])
    if summary["pages"] and summary["error"] is None:
        _remove_stale_pages(out / rel, summary["pages"][-1][0])
    if summary["pages"]:
        writer.write(f"{rel}/latest.html", env().get_template("redirect.html").render(target=page_name(summary["pages"][-1][0])))
    return summary


def _with_unfinished_tail(reader: Reader, fh):
    """The reader's entries, then its held-back last line (no newline yet) as it stands now.

    A one-off build must not lose a line because its writer never finished it (a crash, a full
    disk). The reader's ``offset``/``line`` stay before that line, so a resumed run reads it again
    once complete; it always sits on the last, still open page, which a resumed run re-renders.
    """
    yield from reader
    if reader.pending:
        fh.seek(reader.offset)
        data = fh.read(reader.pending)
        body = data[:-1] if data.endswith(b"\r") else data
        obj, err = parse_line(body)
        e = Entry(reader.line, reader.offset, reader.offset + len(data), obj)
        if err is not None:
            e.raw = body[:MALFORMED_KEEP].decode("utf-8", errors="replace")
            e.error = f"unfinished last line (no newline yet), {err}"
        del data, body
        yield e


def _remove_stale_pages(folder: Path, last_no: int) -> None:
    """Pages past the transcript's last page are left from a longer earlier version of the file
    (truncated or rewritten): they would show lines the file no longer has."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith("page-") and name.endswith(".html") and name[5:-5].isdigit() and int(name[5:-5]) > last_no:
            try:
                os.unlink(folder / name)
            except OSError:
                pass


def _write_page(page: Page, s, t, rel, root, writer, tmpl, opts, agent_urls, agent_calls, parent_url, blobs,
                heading, crumbs, agent_line, pending) -> None:
    lines = set()
    for m in page.messages:
        lines.update(m.lines)
    ctx = RenderContext(root=root, blobs=blobs, agent_urls=agent_urls, page_lines=lines, parent_url=parent_url)
    parts = []
    for m in page.messages:
        parts.append(render_message(m, ctx))
        if t.kind == "main":
            for call in m.calls:
                r = call.result
                aid = r.extra.get("agentId") if r is not None and isinstance(r.extra, dict) else None
                if isinstance(aid, str):
                    agent_calls.setdefault(aid, f"{page_name(page.no)}#L{call.line}")
                agent_calls.setdefault(call.id, f"{page_name(page.no)}#L{call.line}")
    last_line = max(lines) if lines else page.first_line
    body = "\n".join(parts) if parts else '<p class="dim">This transcript is empty.</p>'
    html = tmpl.render(**_common(root, heading + f" · page {page.no}", crumbs + [{"label": f"page {page.no}", "url": None}], "transcript"),
                       page=page, heading=heading, transcript_label=t.label, agent_line=agent_line,
                       last_line=last_line, body=Markup(body),
                       prev_url=page_name(page.no - 1) if page.no > 1 else None,
                       next_url=page_name(page.no + 1) if page.closed else None,
                       window_before=list(range(max(2, page.no - 3), page.no)) if page.no > 1 else [],
                       overview_url=("../" if t.slug else "") + "index.html",
                       parent_link=parent_url, pending=pending)
    writer.write(f"{rel}/{page_name(page.no)}", html)


# --- one session ------------------------------------------------------------------------------
def build_session(s: Session, out: Path, opts: Options, project_title: str) -> dict:
    writer = Writer(out)
    blobs = BlobStore(out, writer.written)
    agent_urls = {t.id: f"{transcript_url(s, t)}/{page_name(1)}" for t in s.agents}
    agent_calls: dict[str, str] = {}
    results = []
    if s.main:
        results.append(render_transcript(s, s.main, out, writer, opts, agent_urls, agent_calls, None, blobs, project_title))
    for t in s.agents:
        call = agent_calls.get(t.id) or (agent_calls.get(t.tool_use_id) if t.tool_use_id else None)
        parent = f"{_depth_root(transcript_dir(s, t))}{session_url(s)}/{call}" if call else None
        results.append(render_transcript(s, t, out, writer, opts, agent_urls, agent_calls, parent, blobs, project_title))
    info = session_summary(s, results)
    write_session_overview(s, info, results, writer, project_title)
    return {"info": info, "project": s.project.dir_name, "transcripts": results, "written": [str(p) for p in writer.written],
            "errors": [r["error"] for r in results if r["error"]]}


def session_summary(s: Session, results: list[dict]) -> dict:
    main = next((r for r in results if r["kind"] == "main"), None)
    title = None
    for r in ([main] if main else []) + results:
        if r and r.get("title"):
            title = r["title"]
            break
    tot = {}
    for r in results:
        for k, v in (r.get("usage") or {}).items():
            tot[k] = tot.get(k, 0) + v
    stamps = [r[k] for r in results for k in ("first_ts", "last_ts") if r.get(k)]
    models = []
    for r in results:
        for m in r.get("models") or []:
            if m not in models:
                models.append(m)
    cwd = next((r["cwd"] for r in ([main] if main else []) + results if r and r.get("cwd")), None)
    return {"id": s.id, "title": (title or "(untitled session)").strip()[:200], "prompt": (main or {}).get("prompt"),
            "first_ts": min(stamps) if stamps else None, "last_ts": max(stamps) if stamps else None,
            "messages": sum(r["messages"] for r in results), "malformed": sum(r["malformed"] for r in results),
            "transcripts": len(results), "pages": sum(len(r["pages"]) for r in results), "usage": tot,
            "models": models, "cwd": cwd, "git_branch": (main or {}).get("git_branch"), "size": s.size,
            "mtime_ns": s.mtime_ns, "url": f"{session_url(s)}/index.html"}


def write_session_overview(s: Session, info: dict, results: list[dict], writer: Writer, project_title: str) -> None:
    rel = session_dir(s)
    root = _depth_root(rel)
    groups = []
    for kind in KIND_ORDER:
        items = []
        for r in results:
            if r["kind"] != kind:
                continue
            sub = "" if r["id"] == "main" else f"{url_name('agent-' + r['id'])}/"
            items.append({
                "name": r["label"] if r["id"] == "main" else (r.get("agent_type") or r["label"]) + f" {r['id']}",
                "description": r.get("description") or (r.get("title") if r["id"] != "main" else None),
                "first_url": f"{sub}{page_name(1)}" if r["pages"] else None,
                "messages": f'{r["messages"]:,}', "lines": f'{r["lines"]:,}', "malformed": r["malformed"],
                "size": human_size(r["size"]), "tokens": _fmt_tokens(r.get("usage") or {}), "error": r["error"],
                "pages": [{"no": p[0], "url": f"{sub}{page_name(p[0])}"} for p in r["pages"]],
            })
        if items:
            groups.append({"label": GROUP_LABELS[kind], "rows": items})
    counts: dict[str, int] = {}
    for r in results:
        for k, v in (r.get("counts") or {}).items():
            counts[k] = counts.get(k, 0) + v
    main = next((r for r in results if r["kind"] == "main" and r["pages"]), None)
    sview = dict(info, started=local_date(info["first_ts"]), last=local_date(info["last_ts"]),
                 counts=sorted(counts.items(), key=lambda kv: -kv[1]), cwd=info["cwd"] or "",
                 latest_url="latest.html" if main else None)
    crumbs = [{"label": project_title, "url": f"{root}p/{url_name(s.project.dir_name)}/index.html"}, {"label": s.id[:8], "url": None}]
    html = env().get_template("session.html").render(**_common(root, info["title"], crumbs, "session"), s=sview, groups=groups)
    writer.write(f"{rel}/index.html", html)


# --- indexes ----------------------------------------------------------------------------------
def write_indexes(catalog: Catalog, infos_by_project: dict, writer: Writer, titles: dict) -> dict:
    rows = []
    totals = {"projects": 0, "sessions": 0, "messages": 0}
    for p in catalog.projects:
        infos = sorted(infos_by_project.get(p.dir_name, []), key=lambda i: (i.get("last_ts") or "", i["id"]), reverse=True)
        title = titles.get(p.dir_name, p.dir_name)
        rel = f"p/{p.dir_name}"
        root = _depth_root(rel)
        tot = {}
        for i in infos:
            for k, v in i["usage"].items():
                tot[k] = tot.get(k, 0) + v
        sessions = [{"url": f"{url_name(i['id'])}/index.html", "title": i["title"], "id": i["id"],
                     "first_prompt": (i.get("prompt") or "")[:200], "started": local_date(i["first_ts"]),
                     "last": local_date(i["last_ts"]), "messages": f'{i["messages"]:,}', "transcripts": i["transcripts"],
                     "tokens": _fmt_tokens(i["usage"]), "models": ", ".join(i["models"][:3])} for i in infos]
        html = env().get_template("project.html").render(
            **_common(root, title, [{"label": title, "url": None}], "project"),
            project={"title": title, "dir_name": p.dir_name}, sessions=sessions)
        writer.write(f"{rel}/index.html", html)
        msgs = sum(i["messages"] for i in infos)
        last = max((i["last_ts"] for i in infos if i.get("last_ts")), default=None)
        rows.append({"url": f"p/{url_name(p.dir_name)}/index.html", "title": title, "dir_name": p.dir_name, "sessions": len(infos),
                     "messages": f"{msgs:,}", "last": local_date(last), "last_ts": last or "", "tokens": _fmt_tokens(tot)})
        totals["projects"] += 1
        totals["sessions"] += len(infos)
        totals["messages"] += msgs
    rows.sort(key=lambda r: r["last_ts"], reverse=True)
    html = env().get_template("index.html").render(
        **_common("", "Projects", [], "home"), projects=rows, totals={k: f"{v:,}" for k, v in totals.items()},
        built=datetime.now(timezone.utc).strftime("%Y-%m-%d"))
    writer.write("index.html", html)
    return totals


def write_assets(writer: Writer) -> None:
    names = asset_names()
    for name, data in asset_files().items():
        writer.write(names[name], data)


# --- the whole build --------------------------------------------------------------------------
def _session_job(args):
    s, out, opts, title = args
    try:
        return build_session(s, out, opts, title)
    except Exception as exc:  # one broken session must not take the archive down
        import traceback

        detail = traceback.format_exc() if os.environ.get("CCREPORT_DEBUG") else "set CCREPORT_DEBUG=1 for the traceback"
        return {"info": None, "project": s.project.dir_name, "transcripts": [], "written": [],
                "errors": [f"{s.project.dir_name}/{s.id}: internal error: {exc!r} ({detail})"]}


def build(home: Path, out: Path, opts: Options, progress=None) -> BuildResult:
    t0 = time.perf_counter()
    catalog = discover(home)
    res = BuildResult(errors=list(catalog.problems))
    out.mkdir(parents=True, exist_ok=True)
    writer = Writer(out)
    write_assets(writer)
    sessions = list(catalog.sessions())
    # Project titles are needed in page headings before any session is read: peek each project's cwd.
    titles = {p.dir_name: _peek_project_title(p) for p in catalog.projects}
    jobs = [(s, out, opts, titles[s.project.dir_name]) for s in sessions]
    # Biggest first, so the pool does not end waiting on one giant session started last.
    jobs.sort(key=lambda j: -j[0].size)
    infos_by_project: dict[str, list] = {}
    done = 0
    results_iter = _run(jobs, opts.jobs)
    for r in results_iter:
        done += 1
        if progress:
            progress(done, len(jobs))
        res.errors.extend(r["errors"])
        res.written.extend(r["written"])
        info = r["info"]
        if info is None:
            continue
        infos_by_project.setdefault(r["project"], []).append(info)
        res.sessions += 1
        res.transcripts += info["transcripts"]
        res.pages += info["pages"]
        res.messages += info["messages"]
        res.malformed += info["malformed"]
    write_indexes(catalog, infos_by_project, writer, titles)
    res.written.extend(str(p) for p in writer.written)
    res.projects = len(catalog.projects)
    res.seconds = time.perf_counter() - t0
    return res


def _run(jobs, n):
    if n <= 1 or len(jobs) <= 1:
        for j in jobs:
            yield _session_job(j)
        return
    with ProcessPoolExecutor(max_workers=n) as pool:
        yield from pool.map(_session_job, jobs, chunksize=1)


def _peek_project_title(p) -> str:
    from .home import peek_field

    for s in sorted(p.sessions.values(), key=lambda s: -s.mtime_ns):
        for t in s.transcripts:
            cwd = peek_field(t.path, "cwd", limit=64 * 1024)
            if cwd:
                return cwd
    return p.dir_name
