"""One transcript streamed into its pages: read, paginate, render and write page by page, collecting
its search documents and usage ledger from the same read. Nothing is held beyond the open page.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable

import orjson
from markupsafe import Markup

from ccreport.fs import WriteError
from ccreport.layout import FORK_POINT, LATEST, depth_root, page_name
from ccreport.layout import transcript_dir, transcript_slug
from ccreport.model.warmup import is_warmup
from ccreport.model.messages import Builder, set_summary_title, title_of
from ccreport.model.pages import Page, paginate
from ccreport.model.text import session_title
from ccreport.model.usage import TranscriptUsage
from ccreport.model.workflows import run_id_of
from ccreport.render.context import BlobStore
from ccreport.render.markup import colours_in_browser, controls_free, show_controls
from ccreport.render.message import RenderContext, message_html
from ccreport.render.resources import env
from ccreport.render.tools.base import extra_of, input_of
from ccreport.render.tools.homelinks import plan_name, plan_paths
from ccreport.site import search
from ccreport.site.features import Usage, by_kind, for_transcript, tapped
from ccreport.site.agentpages import agent_name, back_link_label, run_link, transcript_crumbs
from ccreport.site.indexes import page_args
from ccreport.site.options import Options
from ccreport.site.siblings import in_project
from ccreport.site.state import TranscriptState, TranscriptSummary
from ccreport.site.write import Writer
from ccreport.source.home import Session, Transcript
from ccreport.source.jsonl import Reader
from ccreport.source.reading import open_transcript

@dataclass
class SessionRun:
    """What every transcript of one session update shares."""

    session: Session
    writer: Writer  # into the output folder (writer.out)
    opts: Options
    project_title: str
    blobs: BlobStore
    agent_urls: dict  # sub-agent id → URL of its first page
    agent_calls: dict  # call or agent id → "page-NNNN.html#L<line>" in the main transcript (filled as it renders)
    agent_titles: dict = field(default_factory=dict)  # sub-agent id → the description its call gave it
    copy_tool_result: Callable | None = None  # site.toolresults.copier
    render_cache: object = None  # live.rendercache.RenderCache, in-process builds only
    search: search.SessionIndex | None = None  # the session's part of the search index
    workflow_runs: dict = field(default_factory=dict)  # run id → its card (render.context.RenderContext)
    run_files: list = field(default_factory=list)  # source.workflows.RunFiles of the session
    before_edits: object = None  # site.filehistory.BeforeEdits: the file before an edit
    plan_urls: dict = field(default_factory=dict)  # plan file name → URL of its page (site.extras)
    summary_title: str | None = None  # what a summary line names the session (site.leaftitles)


@dataclass
class _Pages:
    """One transcript's page writing: its fixed parts, and what the pages collect as they go."""

    run: SessionRun
    t: Transcript
    parent_url: str | None
    state: TranscriptState
    keys: set
    renders: object  # rendercache.TranscriptRenders, or None
    rel: str  # the transcript's folder in the site
    builder: Builder  # its carry names the session (title) and its folder (cwd) as far as read
    features: list  # site.features: the slices of the state its read keeps
    takes: dict  # message kind → the features that take it (site.features.by_kind)


def _start(t: Transcript, resume: TranscriptState | None) -> tuple[TranscriptState, tuple]:
    """The state a read starts from and where it starts (page no, line, byte offset, model carry)."""
    state = TranscriptState(TranscriptSummary(id=t.id, kind=t.kind, label=t.label, agent_type=t.agent_type,
                                              description=t.description, size=t.size))
    if resume is None:
        return state, (1, 1, 0, None)
    no, line, offset = resume.pages[-1]  # a resumed state has pages and a carry (plan._stale)
    state.pages = [list(p) for p in resume.pages[:-1]]
    state.hashes = {k: v for k, v in resume.hashes.items() if int(k) < no}
    state.agent_refs = {k: v for k, v in resume.agent_refs.items() if v[0] < no}
    state.agent_keys = list(resume.agent_keys)
    return state, (no, line, offset, orjson.loads(orjson.dumps(resume.carry_last)))  # a copy


def render_transcript(run: SessionRun, t: Transcript, parent: str | None,
                      resume: TranscriptState | None) -> tuple[TranscriptState, TranscriptUsage]:
    """Stream one transcript into its pages; ``resume`` (its saved state) starts the read at the
    first byte of its last page with the model state saved there, the earlier pages kept as they
    are. Search and usage come from the same read: each written page's documents, and every entry
    through the transcript's usage ledger (resumed from the saved one). Returns the new state and
    the ledger."""
    saved = resume.slice_of(Usage).ledger if resume is not None else None
    ledger = TranscriptUsage(saved)  # (a saved ledger is continued: it counts each API response once)
    resume = resume if saved is not None else None  # without one the read starts at line 1, same pages
    state, (start_no, start_line, start_offset, carry) = _start(t, resume)
    state.summary.task = run.agent_titles.get(t.id) or run.agent_titles.get(t.tool_use_id or "")
    s = run.session
    renders = run.render_cache.transcript((s.project.dir_name, s.id, t.id)) if run.render_cache is not None else None
    builder = Builder(carry)
    if t.kind == "main":  # (the carry of a resumed read may hold the title of an earlier build)
        set_summary_title(builder.carry, run.summary_title)
    rel = transcript_dir(s.project.dir_name, s.id, t.id)
    features = for_transcript(run, t.kind, t.id, rel, ledger)
    for f in features:
        f.begin(resume.slices.get(f.NAME) if resume is not None else None, start_no, start_line)
    pages = _Pages(run, t, parent, state, set(state.agent_keys), renders, rel, builder, features, by_kind(features))
    try:
        with open_transcript(t) as fh:
            reader = Reader(fh, start_offset, start_line)
            entries = tapped(_with_unfinished_tail(reader), features)
            last = _write_pages(pages, paginate(entries, builder, run.opts.page_size, start_no, start_line, start_offset),
                                reader)
            state.summary.lines = reader.line - 1 + (1 if reader.pending else 0)
            state.offset = reader.offset
            state.carry_last = last.carry if last else None
    except WriteError as exc:  # a page or blob that could not be written (full disk…): not the transcript
        state.summary.error = f"cannot write {exc.filename}: {exc.strerror or exc}"
    except OSError as exc:
        state.summary.error = f"cannot read {t.path}: {exc.strerror or exc}"
    finally:
        if renders is not None:
            renders.end_pass()
    state.agent_keys = sorted(pages.keys)
    _summarize(state.summary, builder.carry, ledger)
    if state.pages:
        run.writer.write(f"{pages.rel}/{LATEST}", env().get_template("redirect.html").render(target=page_name(state.last_page)))
    for f in features:
        if (new := f.end()) is not None:
            state.slices[f.NAME] = new
    return state, ledger


def _write_pages(pages: _Pages, paginated, reader: Reader) -> Page | None:
    """Write each page as it closes (its search documents go to the session's index as it does)."""
    last = None
    for page in paginated:
        last = page
        pages.state.hashes[str(page.no)] = write_page(pages, page, reader.pending)
        pages.state.pages.append([page.no, page.first_line, page.first_offset])
    return last


def _summarize(summary: TranscriptSummary, c: dict, ledger: TranscriptUsage) -> None:
    """The figures of the model's carry (and the usage ledger's tokens) the overview and indexes show."""
    summary.messages, summary.malformed, summary.counts = c["messages"], c["counts"].get("(malformed)", 0), c["counts"]
    summary.usage, summary.title, summary.prompt = ledger.tokens(), title_of(c), c["titles"].get("prompt")
    summary.cwd, summary.git_branch, summary.models = c["cwd"], c["git_branch"], c["models"]
    summary.first_ts, summary.last_ts = c["first_ts"], c["last_ts"]
    summary.warmup = is_warmup(summary.kind, summary.messages, c)
    fork = c.get("fork")
    summary.fork = {"parent": fork["parent"], "until": fork.get("until")} if isinstance(fork, dict) else None


def _note_calls(pages: _Pages, page: Page, m) -> None:
    """Record the sub-agents a message's calls name (agent_refs) and, on the main transcript,
    where each call is (agent_calls: the agents' back-links)."""
    refs, calls, no = pages.state.agent_refs, pages.run.agent_calls, page.no
    for call in m.calls:
        r = call.result
        aid = r.extra.get("agentId") if r is not None and isinstance(r.extra, dict) else None
        if isinstance(aid, str) and aid not in refs:
            refs[aid] = [no, aid in pages.run.agent_urls]
        slug = transcript_slug(pages.t.id)
        where = (f"{slug}/" if slug else "") + f"{page_name(no)}#L{call.line}"
        rid = run_id_of(call) if call.name == "Workflow" else None
        if call.name in ("Task", "Agent"):
            _note_title(pages.run.agent_titles, call, aid)
        if pages.t.kind != "main":
            # A nested agent links back to the call in its parent agent (main-session calls come first).
            if call.name in ("Task", "Agent") and isinstance(aid, str):
                calls.setdefault(aid, where)
                calls.setdefault(call.id, where)
            continue
        for key in (aid, rid):
            if isinstance(key, str):
                calls.setdefault(key, where)
                pages.keys.add(key)
        calls.setdefault(call.id, where)
        if call.name in ("Task", "Agent"):  # a call that starts a sub-agent: its key is kept for back-links
            pages.keys.add(call.id)


def _note_title(titles: dict, call, aid) -> None:
    """The description a Task/Agent call gives its sub-agent: the agent's pages are titled by it
    (under its id from the result, and under the call's id, which meta.json's toolUseId names)."""
    inp = call.input if isinstance(call.input, dict) else {}
    desc = inp.get("description")
    if isinstance(desc, str) and desc.strip():
        for key in (aid, call.id):
            if isinstance(key, str):
                titles.setdefault(key, desc.strip())


def _page_title(pages: _Pages) -> str:
    """The session's title as far as read (a sub-agent's page: what it was asked to do)."""
    t, x = pages.t, pages.state.summary
    if t.kind == "main":
        return session_title(title_of(pages.builder.carry))
    titles = pages.builder.carry["titles"]
    return agent_name(x.kind, t.description or x.task, titles.get("prompt") or titles.get("task"),
                      t.agent_type, f"{t.label} {t.id}")


def _page_template_args(pages: _Pages, page: Page, lines: set, pending: int, body: Markup) -> dict:
    s, t, title = pages.run.session, pages.t, pages.run.project_title
    root = depth_root(pages.rel)
    heading = _page_title(pages)
    crumbs = transcript_crumbs(s, t, root, title)
    return dict(page_args(root, heading + f" · page {page.no}", crumbs + [{"label": f"page {page.no}", "url": None}],
                          "transcript"),
                page=page, heading=heading, transcript_label=t.label,
                agent_line=" · ".join(x for x in (t.agent_type, t.description) if x and x != heading),
                last_line=max(lines) if lines else page.first_line, body=body,
                prev_url=page_name(page.no - 1) if page.no > 1 else None,
                next_url=page_name(page.no + 1) if page.closed else None,
                first_url=page_name(1), latest_url=LATEST,
                window_before=[(n, page_name(n)) for n in range(max(2, page.no - 3), page.no)],
                overview_url=("../" if t.id != "main" else "") + "index.html",
                parent_link=pages.parent_url, parent_label=back_link_label(s, t), run_link=run_link(s, t, root),
                pending=pending, continues=None)


def _page_items(pages: _Pages, page: Page, ctx: RenderContext) -> tuple[list, dict | None]:
    """The page's parts in order, as (id, HTML): what the features put before the messages, each
    message and what they put after it (site.features.Inserts: the quiet line after a prompt);
    and the note the page opens with (None: none)."""
    inserts = [got for f in pages.features if (got := f.open(page)) is not None]
    items = [item for got in inserts for item in got.lead]
    if pages.renders is not None:
        pages.renders.begin_page()
    with colours_in_browser():  # once a page (a context manager per message cost 15k entries per 150 MB)
        for m in page.messages:
            _page_item(pages, page, ctx, m, inserts, items)
    return items, next((got.continues for got in inserts if got.continues is not None), None)


def _page_item(pages: _Pages, page: Page, ctx: RenderContext, m, inserts: list, items: list) -> None:
    """One message's parts (its HTML, what the features put after it) and what it tells the page."""
    # (without a render cache the page is checked for control characters whole: write_page)
    html = pages.renders.render(m, ctx, pages.run.writer.out) if pages.renders is not None else message_html(m, ctx)
    items.append((f"L{m.line}", html))
    for got in inserts:
        if m.line in got.after:  # (a test per message, as cheap as it gets: most have nothing after them)
            items.extend(got.after[m.line])
    _note_calls(pages, page, m)
    for f in pages.takes.get(m.kind, ()):
        f.message(page, m)


def write_page(pages: _Pages, page: Page, pending: int) -> str:
    """Render and write one page; returns the sha256 of its HTML. The page goes to the transcript's
    features (site.features: the search index among them); with a render cache, a written page also leaves its fragment
    (only the new or changed messages) there for live pages."""
    run = pages.run
    lines = {no for m in page.messages for no in m.lines}
    ctx = RenderContext(root=depth_root(pages.rel), blobs=run.blobs, agent_urls=run.agent_urls, page_lines=lines,
                        copy_tool_result=run.copy_tool_result, workflow_runs=run.workflow_runs,
                        fork_point=FORK_POINT if _fork_parent_known(run.session, page) else None,
                        cwd=pages.builder.carry.get("cwd"), **home_links(run, page))
    items, continues = _page_items(pages, page, ctx)
    args = dict(_page_template_args(pages, page, lines, pending, _BODY), continues=continues)
    # The page's frame is rendered around a marker, its messages put in its place: as a template
    # value the body (most of the page's bytes) was copied twice more (Markup, then escape()).
    # Everything before the marker is escaped text or markup made here: no "<" of a transcript.
    frame = env().get_template("page.html").render(**args).partition(_BODY)
    raw = _page_bytes(page, items, frame)
    if pages.renders is None and not controls_free(raw):
        # A control character somewhere: each message shows its own, as render_message does.
        items = [(key, show_controls(html) if key[0] == "L" else html) for key, html in items]
        raw = _page_bytes(page, items, frame)
    page_rel = f"{pages.rel}/{page_name(page.no)}"
    wrote = run.writer.write(page_rel, raw)
    if pages.renders is not None:
        _remember_page(pages, page_rel, dict(items), wrote, args)
    for f in pages.features:
        f.page(page)
    return hashlib.sha256(raw).hexdigest()


_BODY = Markup("<!--ccreport:page-body-->")


def _page_bytes(page: Page, items: list, frame: tuple[str, str, str]) -> bytes:
    """The page's HTML as written and hashed (encoded once): the frame around its messages."""
    body = _fold_forked(page.messages, items) if page.messages else '<p class="dim">This transcript is empty.</p>'
    return "".join((frame[0], body, frame[2])).encode("utf-8")


def _fork_parent_known(s: Session, page: Page) -> bool:
    """Whether the page's fork note can link to the parent (site.forks writes the redirect then)."""
    for m in page.messages:
        if m.kind == "fork":
            return in_project(s, (m.entry or {}).get("parentSessionId"))
    return False


def _fold_forked(messages: list, items: list[tuple[str, str]]) -> str:
    """The page's items, each run of messages copied from a fork's parent (with their turn lines) in one fold."""
    forked = {f"L{m.line}" for m in messages if m.forked}
    forked |= {"turn-" + k for k in forked}
    out: list[str] = []
    run: list[str] = []
    for key, html in items:
        if key in forked:
            run.append(html)
            continue
        if run:
            out.append(_forked_fold(run))
            run = []
        out.append(html)
    if run:
        out.append(_forked_fold(run))
    return "\n".join(out)


def _forked_fold(parts: list[str]) -> str:
    n = len(parts)
    return (f'<details class="forked"><summary>{n} message{"s" if n != 1 else ""} copied from the parent session '
            f"(before the fork)</summary>\n" + "\n".join(parts) + "\n</details>")


def home_links(run: SessionRun, page: Page) -> dict:
    """The plan pages and file-history backups this page's calls link to (RenderContext fields)."""
    calls = [c for m in page.messages for c in m.calls]
    plans = {n: run.plan_urls[n] for c in calls for p in plan_paths(c.name, input_of(c), extra_of(c))
             if (n := plan_name(p)) in run.plan_urls}
    before = run.before_edits.urls({c.id for c in calls}, page.first_line) if run.before_edits is not None else {}
    return {"plan_urls": plans, "file_before": before}


def _remember_page(pages: _Pages, page_rel: str, now: dict, wrote: bool, args: dict) -> None:
    """Keep the page's message HTML (by anchor) and, when the page was written and its previous
    version is known, leave its fragment: the page's <main> element, rendered by the same
    template with only the messages that are new or changed, and the ids of those gone. live.js
    merges that instead of the whole page."""
    renders, cache = pages.renders, pages.run.render_cache
    before = renders.pages.get(page_rel)
    renders.pages = {page_rel: now}  # earlier pages of the transcript are closed: never re-rendered
    if wrote and before is not None:
        changed = [k for k, html in now.items() if before.get(k) != html]
        frag = env().get_template("page.html").render(**dict(args, body=Markup("\n".join(now[k] for k in changed))))
        # The page's own <main> holds all live.js merges (messages, sub-heading, pagers, end note).
        # Transcript text inside it is escaped, so the last "</main>" is the element's own end.
        i, j = frag.find('<main id="main">'), frag.rfind("</main>")
        if 0 <= i < j:
            frag = frag[i:j + len("</main>")]
        cache.add_fragment(page_rel, {"ids": changed, "removed": [k for k in before if k not in now], "html": frag})
    if wrote and cache.on_page is not None:
        cache.on_page(str(pages.run.writer.out / page_rel))  # live pages: out now, not after the session


def _with_unfinished_tail(reader: Reader):
    """The reader's entries, then its held-back last line (no newline yet) as it stands now.

    A one-off build must not lose a line because its writer never finished it (a crash, a full
    disk). The reader's ``offset``/``line`` stay before that line, so a resumed run reads it again
    once complete; it always sits on the last, still open page, which a resumed run re-renders.
    """
    yield from reader
    if (e := reader.unfinished()) is not None:
        yield e
