"""The site's index pages — the home page (projects) and one page per project (its sessions) — the
shared assets, the frame every page shares (page_args) and the project titles every heading carries."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from markupsafe import Markup

from ccreport import __version__
from ccreport.layout import INDEX, depth_root, project_dir, project_url, segment
from ccreport.model.text import cut_words, plain_text
from ccreport.model.usage import merge_reports, session_cost
from ccreport.render.message import local_date
from ccreport.render.resources import asset_names, env
from ccreport.render.usage import view as usage_view
from ccreport.site.write import Writer
from ccreport.source.home import Catalog, Project
from ccreport.source.reading import peek


def page_args(root: str, title: str, crumbs: list, page_kind: str) -> dict:
    """The template arguments of every page's frame: assets, crumbs, the version line."""
    return {"root": root, "title": title, "crumbs": crumbs, "page_kind": page_kind, "assets": asset_names(),
            "version": __version__, "source": "Claude Code transcripts", "live": None}


def fmt_tokens(u: dict) -> str:
    """input (with cache reads and writes) / output tokens, as the index rows show them."""
    inputs = u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0)
    return f'{inputs:,} / {u.get("output_tokens", 0):,}'


def _gone(p: Project, sid: str) -> str | None:
    s = p.sessions.get(sid)
    return s.gone if s is not None else None


def _session_rows(p: Project, infos: list, reports: dict) -> list[dict]:
    """The rows of the sessions listed (not those made of warm-up runs only: model.warmup)."""
    return [{"url": f"{segment(i.id)}/{INDEX}", "title": i.title, "id": i.id, "gone": _gone(p, i.id),
             "first_turn": f"{segment(i.id)}/{i.first_turn}" if i.first_turn else None,
             "first_prompt": cut_words(plain_text(i.prompt or ""), 200), "started": local_date(i.first_ts),
             "first_ts": i.first_ts or "", "last_ts": i.last_ts or "",
             "last": local_date(i.last_ts), "messages": f"{i.messages:,}", "transcripts": i.transcripts,
             "tokens": fmt_tokens(i.usage), "models": ", ".join(i.models[:3]),
             "cost": session_cost(reports.get(i.id))} for i in infos if not i.warmup_only]


def _project_row(p: Project, title: str, infos: list, report: dict) -> dict:
    tot: Counter = Counter()
    for i in infos:
        tot.update(i.usage)
    last = max((i.last_ts for i in infos if i.last_ts), default=None)
    return {"url": f"{project_url(p.dir_name)}/{INDEX}", "title": title, "dir_name": p.dir_name,
            "sessions": sum(1 for i in infos if not i.warmup_only), "messages": f"{sum(i.messages for i in infos):,}", "last": local_date(last),
            "last_ts": last or "", "tokens": fmt_tokens(tot), "cost": session_cost(report),
            "prompts_only": sum(1 for i in infos if not i.transcripts),  # site.homepages: history only
            "kept": sum(1 for i in infos if _gone(p, i.id)), "gone": max((_gone(p, i.id) or "" for i in infos), default="")
            if infos and all(_gone(p, i.id) for i in infos) else None}


RECENT = 20  # sessions on the home page, across projects


def _recent_row(p: Project, title: str, i, reports: dict) -> dict:
    """One of the home page's most recent sessions: its title, project, last activity, prompts, cost."""
    return {"url": f"{project_url(p.dir_name)}/{segment(i.id)}/{INDEX}", "title": i.title, "id": i.id,
            "project": title, "project_url": f"{project_url(p.dir_name)}/{INDEX}", "last": local_date(i.last_ts),
            "last_ts": i.last_ts or "", "prompts": i.prompts, "cost": session_cost(reports.get(i.id)),
            "gone": _gone(p, i.id)}


# Per process: each project's summed usage and its home-page rows, kept while its session rows are
# the very objects they were made from (a follower's state keeps an unchanged session's row): an
# append sums its own project again, not every project of the archive (docs/live.md).
_SUMS: dict[str, tuple] = {}


def _project_sums(p: Project, title: str, infos: list, reports: dict) -> tuple[dict, dict, list]:
    """The project's usage report, its home-page row and its most recent sessions' rows."""
    key = (title, tuple(reports), tuple(_gone(p, i.id) for i in infos))
    held = _SUMS.get(p.dir_name)
    if held is not None and held[0] == key and len(held[1]) == len(infos) and all(
            a is b for a, b in zip(held[1], infos)):
        return held[2]
    report = merge_reports(reports.values())
    row = _project_row(p, title, infos, report)
    row["html"] = Markup(env().get_template("_project_row.html").render(p=row))  # (escaped by the template)
    sums = (report, row, [_recent_row(p, title, i, reports) for i in [i for i in infos if not i.warmup_only][:RECENT]])
    _SUMS[p.dir_name] = (key, tuple(infos), sums)
    return sums


def _most_recent(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (r["last_ts"], r["id"]), reverse=True)[:RECENT]


def write_indexes(catalog: Catalog, infos_by_project: dict, writer: Writer, titles: dict, only: set | None,
                  plans: int = 0, stray: int = 0) -> None:
    """The home page and the project pages (only those named in ``only`` when given: the rows of
    the home page come from the session rows either way), with the sessions' usage reports summed
    per project and for the home; ``plans``: how many plan pages there are, ``stray``: how many
    history lines the history page shows (site.homepages)."""
    rows, project_reports, recent = [], [], []
    for p in catalog.projects:
        infos = sorted(infos_by_project.get(p.dir_name, []), key=lambda i: (i.last_ts or "", i.id), reverse=True)
        by_id = {i.id: i for i in infos}
        reports = {sid: by_id[sid].usage_report for sid in sorted(p.sessions)
                   if sid in by_id and by_id[sid].usage_report}
        title = titles.get(p.dir_name, p.dir_name)
        report, row, recent_rows = _project_sums(p, title, infos, reports)
        project_reports.append(report)
        if only is None or p.dir_name in only:
            rel = project_dir(p.dir_name)
            html = env().get_template("project.html").render(
                **page_args(depth_root(rel), title, [{"label": title, "url": None}], "project"),
                project={"title": title, "dir_name": p.dir_name}, sessions=_session_rows(p, infos, reports),
                warmup_only=[{"url": f"{segment(i.id)}/{INDEX}", "id": i.id} for i in infos if i.warmup_only],
                usage=usage_view(project_reports[-1], f"{title}: activity per day"))
            writer.write(f"{rel}/{INDEX}", html)
        rows.append(row)
        recent.extend(recent_rows)
    totals = {"projects": len(rows), "sessions": sum(r["sessions"] for r in rows),
              "messages": sum(i.messages for p in catalog.projects for i in infos_by_project.get(p.dir_name, []))}
    rows.sort(key=lambda r: r["last_ts"], reverse=True)
    html = env().get_template("index.html").render(
        **page_args("", "Projects", [], "home"), projects=rows, recent=_most_recent(recent), totals={k: f"{v:,}" for k, v in totals.items()},
        usage=usage_view(merge_reports(project_reports), "All projects: activity per day"),
        built=datetime.now(timezone.utc).strftime("%Y-%m-%d"), plans=plans, stray=stray)
    writer.write(INDEX, html)


def project_title(p: Project, cached: dict | None, sources: dict) -> str:
    """The project's title: the first cwd in its most recent session. Reuses ``cached`` ({"title",
    "seen": [[path, size, mtime_ns], …]}) when the same files, unchanged, would be peeked at in the
    same order; records what it used in ``sources``, so a later run can skip reading them."""
    order = [t for s in sorted(p.sessions.values(), key=lambda s: -s.mtime_ns) for t in s.transcripts]  # newest first
    if cached and cached.get("seen"):
        seen = cached["seen"]
        if len(order) >= len(seen) and all([str(t.path), t.size, t.mtime_ns] == want for t, want in zip(order, seen)):
            sources[p.dir_name] = cached
            return cached["title"]
    seen = []
    title = p.dir_name
    for t in order:
        seen.append([str(t.path), t.size, t.mtime_ns])
        cwd = peek(t, "cwd", limit=64 * 1024)
        if cwd:
            title = cwd
            break
    sources[p.dir_name] = {"title": title, "seen": seen}
    return title
