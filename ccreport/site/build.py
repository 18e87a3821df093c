"""The archive build: home → catalog → per-session pages → indexes.

Sessions are independent, so they are spread over worker processes (``jobs``); each worker
streams its transcripts page by page and returns a small summary that the indexes are made from.
Nothing of a transcript is held beyond its open page.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

import orjson
from markupsafe import Markup

from ccreport import __version__
from ccreport.site import toolresults
from ccreport.render.blobs import BlobStore
from ccreport.source.home import Catalog, Session, Transcript, discover
from ccreport.source.jsonl import MALFORMED_KEEP, Entry, Reader, parse_line
from ccreport.render.markup import colours_in_browser, human_size
from ccreport.model.messages import Builder, title_of
from ccreport.model.pages import DEFAULT_PAGE_SIZE, Page, paginate
from ccreport.render.message import RenderContext, local_date, render_message
from ccreport.render.resources import asset_files, asset_names, env, fingerprint
from ccreport.site.state import FORMAT as STATE_FORMAT, HEAD_BYTES, State, head_hash, page_hash
from ccreport.site import search
from ccreport.site.search import bundle
from ccreport.model.usage import TranscriptUsage, merge_ledgers, session_cost as usage_fmt_cost
from ccreport.render.usage import view as usage_view
from ccreport.site.write import Writer

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
    deleted: list = field(default_factory=list)  # pages of transcripts that are gone
    errors: list = field(default_factory=list)
    # Wall-clock stamps (time.time()) of the build's stages: "start", "sessions" (every session's
    # pages written), "end". serve --watch passes them on so a benchmark can split its latency.
    stamps: dict = field(default_factory=dict)

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
                      project_title: str, resume: dict | None = None, copy_tool_result=None,
                      ledgers: dict | None = None, parts: dict | None = None, docs: dict | None = None,
                      render_cache=None) -> dict:
    """Stream one transcript into its pages. Returns its summary (counts, pages, usage…).

    ``resume`` is the transcript's previous summary (state.py): reading then starts at the first
    byte of its last page with the model state saved there, and the earlier pages are kept as
    they are. Besides the summary fields the indexes use, the result holds what the next
    incremental run needs: ``hashes`` (page no → sha256 of its HTML), ``agent_refs`` (sub-agent
    id → [page no, linked]) and ``agent_keys`` (agent_calls keys worth keeping).

    Search and usage come from the same read: each written page's documents go to
    ``docs[t.id][page no]`` and every entry feeds the transcript's usage ledger
    (usage.TranscriptUsage, resumed from the session's ``parts`` when ``resume`` is given), which
    is put in ``ledgers`` (transcript id → ledger). update_session keeps the ledgers in the
    session's state and the documents in its search scripts.

    ``render_cache`` (rendercache.RenderCache): reuse the HTML of unchanged messages, and leave a
    fragment of each re-rendered page there for live pages.
    """
    rel = transcript_dir(s, t)
    root = _depth_root(rel)
    tmpl = env().get_template("page.html")
    summary = {"id": t.id, "kind": t.kind, "label": t.label, "agent_type": t.agent_type, "description": t.description,
               "size": t.size, "pages": [], "messages": 0, "malformed": 0, "lines": 0, "error": None, "pending": 0,
               "hashes": {}, "agent_refs": {}, "agent_keys": []}
    start_no, start_line, start_offset, carry = 1, 1, 0, None
    parts = parts if parts is not None else {"ledgers": {}, "docs": None}
    docs = docs if docs is not None else {}
    saved = _ledger(parts["ledgers"].get(t.id)) if resume else None
    kept_docs = (parts["docs"] or {}).get(t.id) or {}
    if saved is None or parts["docs"] is None or not _tail_docs_kept(resume, kept_docs):
        # No usage ledger to continue, or not the search documents of the closed pages the tail
        # script holds (tail script deleted or from an older run?): read from line 1, same pages.
        resume = None
    ledger = saved or TranscriptUsage()
    tdocs = docs[t.id] = {}
    rewrite_chunks = resume is None  # a read from line 1 (full build, or new code): chunks made again
    chunks_done: set = set()
    if resume and resume.get("pages") and resume.get("carry_last") is not None:
        start_no, start_line, start_offset = resume["pages"][-1]
        tdocs.update((k, v) for k, v in kept_docs.items() if int(k) < start_no)
        carry = _copy(resume["carry_last"])
        summary["pages"] = [list(p) for p in resume["pages"][:-1]]
        summary["hashes"] = {k: v for k, v in resume.get("hashes", {}).items() if int(k) < start_no}
        summary["agent_refs"] = {k: v for k, v in resume.get("agent_refs", {}).items() if v[0] < start_no}
        summary["agent_keys"] = list(resume.get("agent_keys", []))
    builder = Builder(carry)
    heading = f"{project_title} · {s.id[:8]}" + ("" if t.kind == "main" else f" · {t.label} {t.id}")
    crumbs = [{"label": project_title, "url": f"{root}p/{url_name(s.project.dir_name)}/index.html"},
              {"label": s.id[:8], "url": f"{root}{session_url(s)}/index.html"}]
    if t.kind != "main":
        crumbs.append({"label": f"{t.label} {t.id}", "url": None})
    agent_line = " · ".join(x for x in (t.agent_type, t.description) if x)
    keys = set(summary["agent_keys"])
    renders = render_cache.transcript((s.project.dir_name, s.id, t.id)) if render_cache is not None else None
    try:
        with open(t.path, "rb") as fh:
            reader = Reader(fh, start_offset, start_line)
            last: Page | None = None
            entries = ledger.tap(_with_unfinished_tail(reader, fh))
            for page in paginate(entries, builder, opts.page_size, start_no, start_line, start_offset):
                last = page
                digest = _write_page(page, s, t, rel, root, writer, tmpl, opts, agent_urls, agent_calls, parent_url,
                                     blobs, heading, crumbs, agent_line, reader.pending,
                                     refs=summary["agent_refs"], keys=keys, copy_tool_result=copy_tool_result,
                                     docs=tdocs, renders=renders, render_cache=render_cache)
                summary["pages"].append([page.no, page.first_line, page.first_offset])
                summary["hashes"][str(page.no)] = digest
                if page.no > 1 and (page.no - 1) % search.CHUNK_PAGES == 0:
                    # CHUNK_PAGES more closed pages: their search chunk goes out now, and their
                    # documents leave memory (a 1 GB transcript has thousands of pages).
                    search.flush_chunks(writer, out, s.project.dir_name, s.id, t.id, summary, tdocs,
                                        rewrite_chunks, chunks_done)
            summary["lines"] = reader.line - 1 + (1 if reader.pending else 0)
            summary["pending"] = reader.pending
            summary["offset"] = reader.offset
            summary["carry_last"] = last.carry if last else None
    except OSError as exc:
        summary["error"] = f"cannot read {t.path}: {exc.strerror or exc}"
    finally:
        if renders is not None:
            renders.end_pass()
    summary["agent_keys"] = sorted(keys)
    if ledgers is not None:
        ledgers[t.id] = ledger
    c = builder.carry
    summary.update(messages=c["messages"], malformed=c["malformed"], counts=c["counts"], usage=ledger.tokens(),
                   title=title_of(c), prompt=c["titles"].get("prompt"), cwd=c["cwd"], git_branch=c["git_branch"],
                   first_ts=c["first_ts"], last_ts=c["last_ts"], models=c["models"], tool_calls=c["tool_calls"])
    if summary["pages"]:
        writer.write(f"{rel}/latest.html", env().get_template("redirect.html").render(target=page_name(summary["pages"][-1][0])))
    return summary


def _copy(data):
    return orjson.loads(orjson.dumps(data))


def _ledger(data) -> TranscriptUsage | None:
    """A transcript's saved usage ledger (None when missing: a resumed read would then miss the
    lines before its last page, so render_transcript reads from line 1 instead)."""
    return TranscriptUsage(data) if isinstance(data, dict) else None


def _tail_docs_kept(resume: dict | None, kept: dict) -> bool:
    """Are the search documents of the transcript's closed pages outside full chunks (which the
    tail script repeats and a resumed read does not render again) all in the tail read back?"""
    if not resume or not resume.get("pages"):
        return True
    last_no = resume["pages"][-1][0]
    return all(str(n) in kept for n in search.chunked(resume)[1] if n < last_no)


# Tools whose calls start a sub-agent: the keys of agent_calls kept in the state for back-links.
AGENT_TOOLS = ("Task", "Agent")


def _write_page(page: Page, s, t, rel, root, writer, tmpl, opts, agent_urls, agent_calls, parent_url, blobs,
                heading, crumbs, agent_line, pending, refs: dict | None = None, keys: set | None = None,
                copy_tool_result=None, docs: dict | None = None, renders=None, render_cache=None) -> str:
    """Render and write one page; returns the sha256 of its HTML. ``refs`` collects the sub-agent
    ids its calls name (and whether they were linked), ``keys`` the agent_calls keys to keep.
    ``docs``: the page's search documents go in it, under its number.
    ``renders`` (rendercache.TranscriptRenders) renders through the cache; with ``render_cache``
    a written page also leaves its fragment (only the new or changed messages) there."""
    lines = set()
    for m in page.messages:
        lines.update(m.lines)
    ctx = RenderContext(root=root, blobs=blobs, agent_urls=agent_urls, page_lines=lines, parent_url=parent_url,
                        copy_tool_result=copy_tool_result)
    parts = []
    if renders is not None:
        renders.begin_page()
    for m in page.messages:
        with colours_in_browser():
            parts.append(renders.render(m, ctx, writer.out) if renders is not None else render_message(m, ctx))
        for call in m.calls:
            r = call.result
            aid = r.extra.get("agentId") if r is not None and isinstance(r.extra, dict) else None
            if refs is not None and isinstance(aid, str) and aid not in refs:
                refs[aid] = [page.no, aid in agent_urls]
            if t.kind == "main":
                if isinstance(aid, str):
                    agent_calls.setdefault(aid, f"{page_name(page.no)}#L{call.line}")
                    if keys is not None:
                        keys.add(aid)
                agent_calls.setdefault(call.id, f"{page_name(page.no)}#L{call.line}")
                if keys is not None and call.name in AGENT_TOOLS:
                    keys.add(call.id)
    last_line = max(lines) if lines else page.first_line
    body = "\n".join(parts) if parts else '<p class="dim">This transcript is empty.</p>'
    args = dict(_common(root, heading + f" · page {page.no}", crumbs + [{"label": f"page {page.no}", "url": None}], "transcript"),
                page=page, heading=heading, transcript_label=t.label, agent_line=agent_line,
                last_line=last_line, body=Markup(body),
                prev_url=page_name(page.no - 1) if page.no > 1 else None,
                next_url=page_name(page.no + 1) if page.closed else None,
                window_before=list(range(max(2, page.no - 3), page.no)) if page.no > 1 else [],
                overview_url=("../" if t.slug else "") + "index.html",
                parent_link=parent_url, pending=pending)
    html = tmpl.render(**args)
    page_rel = f"{rel}/{page_name(page.no)}"
    wrote = writer.write(page_rel, html)
    if renders is not None:
        _remember_page(renders, render_cache, page_rel, page.messages, parts, wrote, tmpl, args)
        if wrote and render_cache is not None and render_cache.on_page is not None:
            render_cache.on_page(str(writer.out / page_rel))  # live pages: out now, not after the session
    if docs is not None:
        docs[str(page.no)] = search.page_docs(page.messages, (f"{t.slug}/" if t.slug else "") + page_name(page.no))[0]
    return page_hash(html)


def _remember_page(renders, render_cache, page_rel: str, messages, parts: list[str], wrote: bool, tmpl,
                   args: dict) -> None:
    """Keep the page's message HTML (by id) and, when the page was written and its previous
    version is known, leave its fragment: the page's <main> element, rendered by the same
    template with only the messages that are new or changed, and the ids of those gone. live.js
    merges that instead of the whole page."""
    now = {f"L{m.line}": html for m, html in zip(messages, parts)}
    before = renders.pages.get(page_rel)
    renders.pages = {page_rel: now}  # earlier pages of the transcript are closed: never re-rendered
    if not wrote or before is None or render_cache is None:
        return
    changed = [k for k, html in now.items() if before.get(k) != html]
    removed = [k for k in before if k not in now]
    frag = tmpl.render(**dict(args, body=Markup("\n".join(now[k] for k in changed))))
    # The page's own <main> holds all live.js merges (messages, sub-heading, pagers, end note).
    # Transcript text inside it is escaped, so the last "</main>" is the element's own end.
    i, j = frag.find('<main id="main">'), frag.rfind("</main>")
    if 0 <= i < j:
        frag = frag[i:j + len("</main>")]
    render_cache.add_fragment(page_rel, {"ids": changed, "removed": removed, "html": frag})


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


def _remove_stale_pages(folder: Path, last_no: int, deleted: list | None = None) -> None:
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
                continue
            if deleted is not None:
                deleted.append(str(folder / name))


# --- one session ------------------------------------------------------------------------------
def build_session(s: Session, out: Path, opts: Options, project_title: str) -> dict:
    """Render a whole session from scratch (the cold path; update_session without state)."""
    return update_session(s, out, opts, project_title, None)


def _agent_urls(s: Session) -> dict:
    return {t.id: f"{transcript_url(s, t)}/{page_name(1)}" for t in s.agents}


def _parent_url(s: Session, t: Transcript, agent_calls: dict) -> str | None:
    call = agent_calls.get(t.id) or (agent_calls.get(t.tool_use_id) if t.tool_use_id else None)
    return f"{_depth_root(transcript_dir(s, t))}{session_url(s)}/{call}" if call else None


def _rel_source(s: Session, t: Transcript) -> str:
    # The transcript's path under projects/ (discovery builds it from the project's path).
    root, path = str(s.project.path.parent), str(t.path)
    return path[len(root) + 1:] if path.startswith(root + os.sep) else path


def plan_transcript(s: Session, t: Transcript, prev: dict | None, parent: str | None, agent_urls: dict,
                    out: Path, touched: list | None = None) -> str:
    """How to bring one transcript's pages up to date: "same" (nothing to do), "grow" (resume at
    its last page) or "full" (render from line 1). Costs stats, plus a ≤ 64 KiB read when grown."""
    if prev is None or prev.get("error") or not prev.get("pages") or prev.get("carry_last") is None:
        return "full"
    if (prev.get("source") != _rel_source(s, t) or prev.get("inode") != t.inode
            or prev.get("parent_url") != parent or prev.get("meta") != [t.agent_type, t.description]):
        return "full"
    last_no = prev["pages"][-1][0]
    mode = "same"
    for aid, (no, linked) in prev.get("agent_refs", {}).items():
        if (aid in agent_urls) != linked:  # a sub-agent link would now render differently
            if no < last_no:
                return "full"
            mode = "grow"
    folder = out / transcript_dir(s, t)
    stamp = _dir_stamp(folder)
    if stamp is None or stamp != prev.get("dir_mtime_ns"):
        # Something was added to or removed from the folder since we wrote it: look at each page.
        for no, _, _ in prev["pages"][:-1]:
            if not (folder / page_name(no)).exists():
                return "full"  # a closed page deleted by hand: only a read from line 1 restores it
        if not (folder / page_name(last_no)).exists() or not (folder / "latest.html").exists():
            mode = "grow"
        elif t.kind == "main" and not (folder / "index.html").exists():
            mode = "grow"  # the session overview (written with the main transcript's update)
        elif stamp is not None:
            prev["dir_mtime_ns"] = stamp  # all there: remember the folder as it is now
            if touched is not None:
                touched.append(t.id)
    if search.missing_chunks(out, s.project.dir_name, s.id, t.id, prev):
        return "full"  # a search chunk deleted by hand: its pages' documents are not kept
    if t.size == prev.get("size") and t.mtime_ns == prev.get("mtime_ns"):
        return mode
    if t.size <= prev.get("size", 0):
        return "full"  # shrunk, or rewritten in place at the same size
    if head_hash(t.path, prev.get("head_len", 0)) != prev.get("head"):
        return "full"  # the start of the file is not what we read: a new file under the old name
    return "grow"


def _dir_stamp(folder: Path) -> int | None:
    """The folder's mtime: it changes when a file in it is created, renamed or deleted, so an
    unchanged stamp saves a stat per page on a run where nothing changed."""
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None


def _seed_calls(old: dict | None, main_mode: str | None) -> dict:
    return dict(old.get("agent_calls", {})) if old and main_mode in ("same", "grow") else {}


def session_plans(s: Session, old: dict | None, out: Path, touched: list | None = None) -> tuple[dict, dict]:
    """Plans for every transcript of ``s`` (id → mode) and the agent_calls they rest on."""
    prev = (old or {}).get("transcripts", {})
    agent_urls = _agent_urls(s)
    plans = {}
    if s.main:
        plans["main"] = plan_transcript(s, s.main, prev.get("main"), None, agent_urls, out, touched)
    calls = _seed_calls(old, plans.get("main"))
    for t in s.agents:
        plans[t.id] = plan_transcript(s, t, prev.get(t.id), _parent_url(s, t, calls), agent_urls, out, touched)
    return plans, calls


def session_unchanged(s: Session, old: dict | None, out: Path, touched: list | None = None) -> bool:
    """True when nothing of the session needs reading or writing (stats only)."""
    if not old or set(old.get("transcripts", {})) != {t.id for t in s.transcripts}:
        return False
    plans, _ = session_plans(s, old, out, touched)
    if not all(m == "same" for m in plans.values()):
        return False
    if not (out / search.tail_rel(s.project.dir_name, s.id)).exists():
        return False  # update_session reads the session again and writes it (pages that come out the same are not rewritten)
    return s.main is not None or (out / session_dir(s) / "index.html").exists()


def update_session(s: Session, out: Path, opts: Options, project_title: str, old: dict | None,
                   full: bool = False, render_cache=None, warm: frozenset = frozenset()) -> dict:
    """Bring one session's pages up to date with its transcripts, given its previous state (None:
    render everything; ``full``: render everything but still prune by ``old``). Returns the
    summaries, the files written and deleted, and the session's new state."""
    writer = Writer(out)
    blobs = BlobStore(out, writer.written)
    agent_urls = _agent_urls(s)
    copy = toolresults.copier(s.tool_results_dir, f"{session_dir(s)}/tool-results", writer)
    prev_ts = (old or {}).get("transcripts", {})
    deleted: list[str] = []
    if full or old is None:
        plans = {t.id: "full" for t in s.transcripts}
        agent_calls: dict[str, str] = {}
    else:
        plans, agent_calls = session_plans(s, old, out)
        for tid in warm:  # render the last page again, through the cache (build(warm=…))
            if plans.get(tid) == "same":
                plans[tid] = "grow"
    results = []
    new_ts = {}
    ledgers: dict[str, TranscriptUsage] = {}  # transcript id → usage ledger, of those read this time
    pdir = s.project.dir_name
    # The previous run's usage ledgers (in the state) and tail documents (read back from the tail script).
    parts = ({"ledgers": old.get("ledgers") or {}, "docs": search.load_tail_docs(out, pdir, s.id)}
             if old is not None else {"ledgers": {}, "docs": None})
    if parts["docs"] is None:
        # The tail script (which holds the documents of the pages not re-rendered) is gone: the
        # transcripts are read again; pages that come out the same are not rewritten.
        plans = {tid: "full" for tid in plans}
        agent_calls = {}
    docs: dict[str, dict] = {}  # transcript id → {page no: search documents}
    for t in s.transcripts:
        mode = plans[t.id]
        prev = prev_ts.get(t.id)
        parent = None if t.kind == "main" else _parent_url(s, t, agent_calls)
        if t.kind != "main" and mode != "full" and prev and prev.get("parent_url") != parent:
            mode = "full"  # the main transcript's re-rendered pages moved the call this agent links to
            plans[t.id] = mode
        if mode == "same":
            summary = prev
            docs[t.id] = parts["docs"].get(t.id) or {}  # (not None: see above)
        else:
            summary = render_transcript(s, t, out, writer, opts, agent_urls, agent_calls, parent, blobs, project_title,
                                        resume=prev if mode == "grow" else None, copy_tool_result=copy,
                                        ledgers=ledgers, parts=parts, docs=docs, render_cache=render_cache)
            summary.update(source=_rel_source(s, t), inode=t.inode, mtime_ns=t.mtime_ns, parent_url=parent,
                           meta=[t.agent_type, t.description])
            consumed = summary.get("offset") or 0
            summary["head_len"] = min(HEAD_BYTES, consumed)
            summary["head"] = head_hash(t.path, summary["head_len"])
            if prev and mode == "full":
                _prune_pages(out, transcript_dir(s, t), prev, len(summary["pages"]), deleted)
            if mode == "full" and summary["pages"] and summary["error"] is None:
                # Pages left from a longer earlier file that no state remembers (state deleted,
                # or an older site in the folder): they would show lines the file no longer has.
                _remove_stale_pages(out / transcript_dir(s, t), summary["pages"][-1][0], deleted)
        results.append(summary)
        new_ts[t.id] = summary
    for tid, prev in prev_ts.items():
        if tid not in new_ts:  # the transcript file is gone: so are its pages
            _prune_pages(out, session_dir(s) + (f"/agent-{tid}" if tid != "main" else ""), prev, 0, deleted)
    changed = any(m != "same" for m in plans.values()) or set(prev_ts) != set(new_ts)
    info = session_summary(s, results)
    old_report = ((old or {}).get("info") or {}).get("usage_report")
    if changed or old_report is None:
        # Usage (usage.py): merge the transcripts' ledgers; those not read this time come from
        # the parts file (one row per API response; only the main one's sums and ids are used).
        merged = []
        for t in s.transcripts:
            led = ledgers.get(t.id) or _ledger(parts["ledgers"].get(t.id)) or TranscriptUsage()
            merged.append((t.id, t.kind, led))
        info["usage_report"] = merge_ledgers(merged)
    else:
        info["usage_report"] = old_report
    if changed or not (out / session_dir(s) / "index.html").exists():
        write_session_overview(s, info, results, writer, project_title)
    # Search: the session's chunk and tail scripts; its parts file keeps the tail pages' documents
    # and every transcript's usage ledger for the next update.
    search.write_session_search(writer, out, pdir, s.id, new_ts, docs, rewrite=full or old is None)
    led_json = {t.id: (ledgers[t.id].to_json() if t.id in ledgers else parts["ledgers"].get(t.id))
                for t in s.transcripts}
    for t in s.transcripts:  # after the last write into the folders: see plan_transcript
        new_ts[t.id]["dir_mtime_ns"] = _dir_stamp(out / transcript_dir(s, t))
    keep = set((new_ts.get("main") or {}).get("agent_keys", []))
    for t in s.agents:
        keep.update(k for k in (t.id, t.tool_use_id) if k)
    state = {"format": STATE_FORMAT, "project": s.project.dir_name, "id": s.id, "title": project_title,
             "agent_calls": {k: agent_calls[k] for k in sorted(agent_calls) if k in keep}, "transcripts": new_ts,
             "info": info, "ledgers": {k: v for k, v in led_json.items() if v is not None}}
    return {"info": info, "project": s.project.dir_name, "transcripts": results, "written": [str(p) for p in writer.written],
            "deleted": deleted, "errors": [r["error"] for r in results if r["error"]], "state": state}


def _prune_pages(out: Path, rel: str, prev: dict, keep: int, deleted: list) -> None:
    """Delete the pages past ``keep`` of a transcript (all of them and latest.html when 0)."""
    names = [page_name(p[0]) for p in prev.get("pages", []) if p[0] > keep]
    if keep == 0:
        names.append("latest.html")
    for name in names:
        _remove(out / rel / name, deleted)
    if keep == 0 and rel.count("/") > 2:  # an agent-<id>/ folder: drop it when empty
        _rmdir(out / rel)


def _remove(path: Path, deleted: list) -> None:
    try:
        path.unlink()
        deleted.append(str(path))
    except FileNotFoundError:
        pass


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


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
                "cost": usage_fmt_cost({"total": (info.get("usage_report") or {}).get("by_transcript", {}).get(r["id"], {})}),
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
    html = env().get_template("session.html").render(**_common(root, info["title"], crumbs, "session"), s=sview, groups=groups,
                                                     usage=usage_view(info.get("usage_report"), "This session: activity per day"))
    writer.write(f"{rel}/index.html", html)


# --- indexes ----------------------------------------------------------------------------------
def write_indexes(catalog: Catalog, infos_by_project: dict, writer: Writer, titles: dict, only: set | None = None,
                  usage: dict | None = None) -> dict:
    """The home page and the project pages (only those named in ``only`` when given: the rows of
    the home page come from the summaries either way)."""
    usage = usage or {"home": None, "projects": {}, "sessions": {}}
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
                     "tokens": _fmt_tokens(i["usage"]), "models": ", ".join(i["models"][:3]),
                     "cost": usage_fmt_cost(usage["sessions"].get(p.dir_name, {}).get(i["id"]))} for i in infos]
        if only is None or p.dir_name in only:
            html = env().get_template("project.html").render(
                **_common(root, title, [{"label": title, "url": None}], "project"),
                project={"title": title, "dir_name": p.dir_name}, sessions=sessions,
                usage=usage_view(usage["projects"].get(p.dir_name), f"{title}: activity per day"))
            writer.write(f"{rel}/index.html", html)
        msgs = sum(i["messages"] for i in infos)
        last = max((i["last_ts"] for i in infos if i.get("last_ts")), default=None)
        rows.append({"url": f"p/{url_name(p.dir_name)}/index.html", "title": title, "dir_name": p.dir_name, "sessions": len(infos),
                     "messages": f"{msgs:,}", "last": local_date(last), "last_ts": last or "", "tokens": _fmt_tokens(tot),
                     "cost": usage_fmt_cost(usage["projects"].get(p.dir_name))})
        totals["projects"] += 1
        totals["sessions"] += len(infos)
        totals["messages"] += msgs
    rows.sort(key=lambda r: r["last_ts"], reverse=True)
    html = env().get_template("index.html").render(
        **_common("", "Projects", [], "home"), projects=rows, totals={k: f"{v:,}" for k, v in totals.items()},
        usage=usage_view(usage["home"], "All projects: activity per day"),
        built=datetime.now(timezone.utc).strftime("%Y-%m-%d"))
    writer.write("index.html", html)
    return totals


def write_assets(writer: Writer) -> None:
    names = asset_names()
    for name, data in asset_files().items():
        writer.write(names[name], data)


# --- the whole build --------------------------------------------------------------------------
def _session_job(args):
    s, out, opts, title, old, full = args[:6]
    try:
        return update_session(s, out, opts, title, old, full, render_cache=args[6] if len(args) > 6 else None,
                              warm=args[7] if len(args) > 7 else frozenset())
    except Exception as exc:  # one broken session must not take the archive down
        import traceback

        detail = traceback.format_exc() if os.environ.get("CCREPORT_DEBUG") else "set CCREPORT_DEBUG=1 for the traceback"
        return {"info": None, "project": s.project.dir_name, "transcripts": [], "written": [], "deleted": [],
                "state": None, "errors": [f"{s.project.dir_name}/{s.id}: internal error: {exc!r} ({detail})"]}


class Interrupted(Exception):
    """The build was asked to stop (build(stop=…)) between two sessions; nothing was saved."""


@dataclass
class Follow:
    """What a long-running caller (live.watch) brings to each build, beyond a one-off build.

    ``state`` and ``catalog``: kept in memory between builds; ``only_projects``: the project folders
    where something changed (sessions elsewhere are then taken from the state without a stat);
    ``stop`` (a threading.Event) set while it runs raises Interrupted after the current session;
    ``on_session(paths, stamps)`` is called as each session's pages are written, before the indexes
    (serve --watch pushes a page that soon); ``render_cache`` (live.rendercache.RenderCache) re-uses
    the HTML of messages rendered by an earlier run; ``warm`` ((project dir, session id) →
    transcript ids) re-renders those transcripts' last pages even when unchanged, to fill the cache
    (what is written is identical, so nothing is). A render cache lives in this process: a build
    given one runs with ``jobs=1`` (Options), and says so by raising ValueError otherwise.
    """

    state: State | None = None
    catalog: Catalog | None = None
    only_projects: set | None = None
    stop: object = None
    on_session: object = None
    render_cache: object = None
    warm: dict | None = None


def build(home: Path, out: Path, opts: Options, progress=None, follow: Follow | None = None) -> BuildResult:
    """Build the site, or bring it up to date: only what changed since the state in out/.ccreport
    is read and written (state.py). ``progress(done, total)`` is called as sessions finish;
    ``follow``: what a long-running caller keeps between builds (Follow)."""
    f = follow or Follow()
    if f.render_cache is not None and opts.jobs > 1:
        raise ValueError("a build with a render cache runs in this process: use Options(jobs=1)")
    state, catalog, only_projects, stop = f.state, f.catalog, f.only_projects, f.stop
    on_session, render_cache, warm = f.on_session, f.render_cache, f.warm
    t0 = time.perf_counter()
    started = time.time()
    warm = (warm or {}) if render_cache is not None else {}  # warming fills the cache: nothing to fill
    catalog = catalog if catalog is not None else discover(home)
    res = BuildResult(errors=list(catalog.problems), stamps={"start": started})
    out.mkdir(parents=True, exist_ok=True)
    st = state if state is not None else State.load(out)
    fp = fingerprint()
    full_all = not st.compatible(opts, fp)
    old_titles = {} if full_all else st.head.get("titles", {})
    writer = Writer(out)
    write_assets(writer)
    if full_all:  # parts kept in an earlier layout are no longer read
        search.remove_old_layouts(out)
    sessions = list(catalog.sessions())
    # Project titles are needed in page headings before any session is read: peek each project's cwd.
    old_sources = {} if full_all else st.head.get("title_sources", {})
    sources: dict = {}
    if only_projects is not None and not full_all:
        titles = {p.dir_name: old_titles[p.dir_name] if p.dir_name in old_titles and p.dir_name not in only_projects
                  else _project_title(p, old_sources.get(p.dir_name), sources) for p in catalog.projects}
        for pdir in titles:
            if pdir not in sources and pdir in old_sources:
                sources[pdir] = old_sources[pdir]
    else:
        only_projects = None
        titles = {p.dir_name: _project_title(p, old_sources.get(p.dir_name), sources) for p in catalog.projects}
    infos_by_project: dict[str, list] = {}
    dirty: set[str] = set()
    jobs = []
    seen = set()
    for s in sessions:
        pdir = s.project.dir_name
        key = (pdir, s.id)
        seen.add(key)
        old = st.sessions.get(key)
        # A new project title is in every heading of the project: then its sessions are redone.
        full = full_all or old_titles.get(pdir) != titles[pdir]
        quiet = only_projects is not None and pdir not in only_projects and old is not None
        if key in warm and old is not None and not full:
            jobs.append((s, out, opts, titles[pdir], old, full, render_cache, frozenset(warm[key])))
            dirty.add(pdir)
            continue
        if not full and (quiet or session_unchanged(s, old, out, touched := [])):
            if not quiet and touched:
                st.dirty.add(key)  # a folder stamp was refreshed
            # Unchanged transcripts mean an unchanged session row: the saved one is reused.
            info = old.get("info") or session_summary(s, [old["transcripts"][t.id] for t in s.transcripts])
            _count(res, infos_by_project, pdir, info)
            continue
        jobs.append((s, out, opts, titles[pdir], old, full) + ((render_cache,) if render_cache is not None else ()))
        dirty.add(pdir)
    # Biggest first, so the pool does not end waiting on one giant session started last.
    jobs.sort(key=lambda j: -j[0].size)
    done = 0
    if progress:
        progress(0, len(jobs))  # the total, before the first (possibly long) session ends
    for r in _run(jobs, opts.jobs, stop):
        done += 1
        if progress:
            progress(done, len(jobs))
        res.errors.extend(r["errors"])
        res.written.extend(r["written"])
        res.deleted.extend(r.get("deleted", []))
        if on_session is not None and (r["written"] or r.get("deleted")):
            on_session(list(r["written"]) + list(r.get("deleted", [])), {"start": started, "sessions": time.time()})
        if r["state"] is not None:
            st.sessions[(r["project"], r["state"]["id"])] = r["state"]
            st.dirty.add((r["project"], r["state"]["id"]))
        if r["info"] is not None:
            _count(res, infos_by_project, r["project"], r["info"])
    res.stamps["sessions"] = time.time()
    # Sessions whose files are gone: their pages go too.
    for key in [k for k in st.sessions if k not in seen]:
        _prune_session(out, key, st.sessions.pop(key), res.deleted)
        dirty.add(key[0])
    current = {p.dir_name for p in catalog.projects}
    for pdir in set(st.head.get("titles", {})) - current:
        _remove(out / "p" / pdir / "index.html", res.deleted)
        _rmdir(out / "p" / pdir)
        search.remove_project(out, pdir, res.deleted)
    missing = {p for p in current if not (out / "p" / p / "index.html").exists()}
    no_bundle = {p for p in current if not (out / search.BUNDLES / f"{p}.js").exists()}
    if (full_all or dirty or missing or no_bundle or res.deleted or not (out / "index.html").exists()
            or not (out / search.BUNDLES / "manifest.js").exists()):
        # Search: the projects that changed get their script again, concatenated from the page
        # parts the renderer wrote (search.py); usage: the session reports, from the rows.
        site_usage = bundle(out, catalog, titles, writer, sessions=st.sessions, infos=infos_by_project,
                            only=None if full_all else dirty | no_bundle,
                            rendered=None if full_all else {(j[0].project.dir_name, j[0].id) for j in jobs})
        write_indexes(catalog, infos_by_project, writer, titles, only=None if full_all else dirty | missing,
                      usage=site_usage)
    res.written.extend(str(p) for p in writer.written)
    st.set_head(opts, fp, titles, sources)
    try:
        st.save()
    except OSError as exc:
        res.errors.append(f"cannot save the incremental state in {st.dir}: {exc.strerror or exc}")
    res.projects = len(catalog.projects)
    res.seconds = time.perf_counter() - t0
    res.stamps["end"] = time.time()
    return res


def _count(res: BuildResult, infos_by_project: dict, pdir: str, info: dict) -> None:
    infos_by_project.setdefault(pdir, []).append(info)
    res.sessions += 1
    res.transcripts += info["transcripts"]
    res.pages += info["pages"]
    res.messages += info["messages"]
    res.malformed += info["malformed"]


def _prune_session(out: Path, key: tuple[str, str], old: dict, deleted: list) -> None:
    rel = f"p/{key[0]}/{key[1]}"
    for tid, prev in old.get("transcripts", {}).items():
        _prune_pages(out, rel + (f"/agent-{tid}" if tid != "main" else ""), prev, 0, deleted)
    _remove(out / rel / "index.html", deleted)
    _rmdir(out / rel)


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(jobs, n, stop=None):
    if n <= 1 or len(jobs) <= 1:
        for j in jobs:
            if stop is not None and stop.is_set():
                raise Interrupted()
            yield _session_job(j)
        return
    # Workers ignore Ctrl-C: the main process stops the build (and says so) instead of every
    # worker printing its own KeyboardInterrupt traceback.
    pool = ProcessPoolExecutor(max_workers=n, initializer=_ignore_sigint)
    try:
        for r in pool.map(_session_job, jobs, chunksize=1):
            if stop is not None and stop.is_set():
                raise Interrupted()
            yield r
    except BaseException:
        # Interrupted (Ctrl-C, a stop request): drop the sessions not started rather than
        # finishing the whole build first. Written pages are complete (atomic writes).
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _peek_project_title(p, seen: list | None = None) -> str:
    """The project's title: the first cwd in its most recent session. ``seen`` collects the
    [path, size, mtime_ns] of each transcript peeked at, so a later run can tell it would peek at
    the same unchanged files (and skip reading them: _project_title)."""
    from ccreport.source.home import peek_field

    for s in sorted(p.sessions.values(), key=lambda s: -s.mtime_ns):
        for t in s.transcripts:
            if seen is not None:
                seen.append([str(t.path), t.size, t.mtime_ns])
            cwd = peek_field(t.path, "cwd", limit=64 * 1024)
            if cwd:
                return cwd
    return p.dir_name


def _project_title(p, cached: dict | None, sources: dict) -> str:
    """_peek_project_title, reusing ``cached`` ({"title", "seen"}) when the same files, unchanged,
    would be peeked at in the same order. Records what it used in ``sources``."""
    if cached and cached.get("seen"):
        order = [t for s in sorted(p.sessions.values(), key=lambda s: -s.mtime_ns) for t in s.transcripts]
        seen = cached["seen"]
        if len(order) >= len(seen) and all([str(t.path), t.size, t.mtime_ns] == want for t, want in zip(order, seen)):
            sources[p.dir_name] = cached
            return cached["title"]
    seen: list = []
    title = _peek_project_title(p, seen)
    sources[p.dir_name] = {"title": title, "seen": seen}
    return title
