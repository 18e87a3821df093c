"""The build's pages of home files (site.extras reads them): one page per plan file and their list,
"prompts only" sessions — sessions history.jsonl names whose transcripts were deleted before
ccreport ever saw them: a page, a row, and their prompts in the search index —, and the page of the
history lines that are not prompts of a session (shown as they are: dropped data is worse than
ugly data). Runs in the main process after the session jobs, before the indexes are written.
"""

from __future__ import annotations

from dataclasses import replace

from markupsafe import Markup

from ccreport.layout import HISTORY_PAGE, INDEX, PLANS_DIR, depth_root, project_url, session_dir
from ccreport.model.messages import Message
from ccreport.render.markup import markdown
from ccreport.render.message import local_date
from ccreport.render.resources import env
from ccreport.site.extras import HomeExtras, iso, prompt_rows
from ccreport.site.indexes import page_args
from ccreport.site.search import SessionIndex
from ccreport.site.state import SessionBrief, SessionInfo, TranscriptBrief, TranscriptSummary
from ccreport.site.write import remove, rmdir
from ccreport.source.home import Project
from ccreport.source.homefiles import HomeFiles, expanded

PROMPTS_ONLY = "prompts only: the transcript was deleted before ccreport saw it"


def encode_cwd(cwd: str, known: set) -> str:
    """The project folder Claude Code names after a cwd (docs/formats.md F4): every UTF-16 unit
    outside [A-Za-z0-9] becomes "-"; past 200 units the name is cut and a hash appended (the known
    folder of that cut is taken, its hash is not recomputed)."""
    name = "".join(c if c.isascii() and c.isalnum() else ("--" if ord(c) > 0xFFFF else "-") for c in cwd) or "-"
    if len(name) <= 200:
        return name
    return next((d for d in sorted(known) if d.startswith(name[:200] + "-")), name[:200])


def show_home(run, jobs: list) -> None:
    """Plan pages and prompts-only sessions (``run``: site.build._Run); a session whose home-file
    section moved is rewritten by its own job (site.build._home_moved)."""
    ex: HomeExtras | None = run.home
    if ex is None:
        return
    write_plans(ex, run.writer)
    _prompts_only(run, ex)
    write_stray(ex, run.writer, run.res.deleted)


def write_stray(ex: HomeExtras, writer, deleted: list) -> None:
    """The page of the history lines that are not prompts of a session (malformed, another shape,
    no session id), each as it is, escaped, with its line number; removed when there are none."""
    if not ex.stray:
        remove(writer.out / HISTORY_PAGE, deleted)  # (records it only when there was one)
        return
    lines = [{"line": p.line, "why": p.error, "text": p.display} for p in ex.stray]
    crumbs = [{"label": "history.jsonl", "url": None}]
    writer.write(HISTORY_PAGE, env().get_template("history.html").render(
        **page_args("", "history.jsonl: lines not shown with a session", crumbs, "history"), lines=lines))


def write_plans(ex: HomeExtras, writer) -> None:
    files = HomeFiles(ex.home, ex.store)
    rows = []
    for name, url in sorted(ex.plan_urls.items()):
        raw = files.plan(name)
        if raw is None:
            continue
        text = raw.decode("utf-8", errors="replace")
        crumbs = [{"label": "Plans", "url": "index.html"}, {"label": name, "url": None}]
        writer.write(url, env().get_template("plan.html").render(
            **page_args(depth_root(PLANS_DIR), name, crumbs, "plan"), name=name, body=Markup(markdown(text)),
            size=len(raw)))
        title = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.strip()), name)
        rows.append({"url": url[len(PLANS_DIR) + 1:], "name": name, "title": title[:200]})
    if rows:
        writer.write(f"{PLANS_DIR}/{INDEX}", env().get_template("plans.html").render(
            **page_args(depth_root(PLANS_DIR), "Plans", [{"label": "Plans", "url": None}], "plans"), plans=rows))


def _prompts_only(run, ex: HomeExtras) -> None:
    known = {sid for p in run.catalog.projects for sid in p.sessions} | {k[1] for k in run.state.sessions}
    by_dir = {p.dir_name: p for p in run.catalog.projects}
    added = False
    for sid in sorted(set(ex.history) - known):
        prompts = sorted(ex.history[sid], key=lambda p: (p.timestamp or 0, p.line))
        cwd = next((p.project for p in prompts if p.project), "")
        pdir = encode_cwd(cwd, set(by_dir))
        if pdir not in by_dir:
            by_dir[pdir] = Project(pdir, ex.home / "projects" / pdir)
            added = True
        run.titles.setdefault(pdir, cwd or pdir)
        info = _info(sid, prompts, cwd)
        changed = _write_prompts_only(run, pdir, info, prompts)
        if changed:
            run.dirty.add(pdir)
        _search(run, pdir, info, prompts, changed)
        run.rows.setdefault(pdir, []).append(info)
        run.res.count(info)
        run.res.prompts_only += 1
    if added:
        run.catalog = replace(run.catalog, projects=[by_dir[n] for n in sorted(by_dir)])
    for pdir, sid in run.state.head.get("prompts_only", []):
        if (pdir, sid) not in run.indexed:  # no longer in history.jsonl (nor a session with transcripts)
            remove(run.out / session_dir(pdir, sid) / INDEX, run.res.deleted)
            rmdir(run.out / session_dir(pdir, sid))
            run.dirty.add(pdir)


def _info(sid: str, prompts: list, cwd: str) -> SessionInfo:
    stamps = [t for p in prompts if (t := iso(p.timestamp))]
    first = next((expanded(p) for p in prompts if p.display.strip()), "")
    return SessionInfo(id=sid, title=(" ".join(first.split()) or "(prompts only)")[:200], prompt=first,
                       first_ts=min(stamps) if stamps else None, last_ts=max(stamps) if stamps else None, cwd=cwd)


def _write_prompts_only(run, pdir: str, info: SessionInfo, prompts: list) -> bool:
    rel = session_dir(pdir, info.id)
    root = depth_root(rel)
    title = run.titles[pdir]
    crumbs = [{"label": title, "url": f"{root}{project_url(pdir)}/{INDEX}"}, {"label": info.id[:8], "url": None}]
    html = env().get_template("prompts_only.html").render(
        **page_args(root, info.title, crumbs, "session"), s=info, note=PROMPTS_ONLY, prompts=prompt_rows(prompts),
        started=local_date(info.first_ts), last=local_date(info.last_ts))
    return run.writer.write(f"{rel}/{INDEX}", html)


def _search(run, pdir: str, info: SessionInfo, prompts: list, changed: bool) -> None:
    """A prompts-only session's prompts in the search index, as one unit (its "main" transcript)
    whose documents link to its page (``index.html#L<history line>``). Indexed again when its page
    changed (or on a full build, which gathers every unit); listed every build, so it is never
    taken for gone."""
    run.indexed[(pdir, info.id)] = SessionBrief(pdir, info.id, info, {"main": TranscriptBrief(
        TranscriptSummary(id="main", kind="main", label="prompts only"))})
    run.prompts_only.add((pdir, info.id))
    if (not changed and run.fresh is None) or not run.opts.search:
        return
    index = SessionIndex(run.writer, pdir, info.id, packed=run.fresh is not None)
    index.begin("main", 1, existed=[pdir, info.id] in run.state.head.get("prompts_only", []))
    typed = [Message("user", p.line, None, [("text", expanded(p))], timestamp=iso(p.timestamp)) for p in prompts]
    index.page("main", 1, typed, url=INDEX)
    index.end("main")
    run.take_search(index.deltas)
