"""The archive build: home → catalog → per-session pages (in worker processes) → indexes, reading
and writing only what changed since the state in out/.ccreport (the rules: docs/site.md).
"""

from __future__ import annotations

import gc
import shutil
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ccreport.layout import INDEX, SEARCH_MANIFEST, STATE_DIR, project_dir, session_dir
from ccreport.layout import outline_part_no, transcript_dir
from ccreport.render.resources import asset_files, asset_names, fingerprint
from ccreport.site.forks import write_fork_points
from ccreport.site import grown, searchdelta, searchindex, searchsplit
from ccreport.site.searchfiles import IndexOut
from ccreport.site.search import unit_key
from ccreport.site.indexes import project_title, write_indexes
from ccreport.site.extras import HomeExtras, digest, for_session, section
from ccreport.site.homepages import show_home
from ccreport.site.keep import Kept, finish, gone_keys, keep_sources, start_copy, store_dir
from ccreport.site.options import BuildResult, Options
from ccreport.site.plan import session_unchanged
from ccreport.site.pool import Interrupted, Workers, outcomes as outcomes_of  # (Interrupted: callers catch it here)
from ccreport.site.session import SessionJob, prune_pages, remove_stale_pages
from ccreport.site import sweep
from ccreport.site.state import PackedState, SessionBrief, SessionState, State
from ccreport.site.workflows import prune_runs
from ccreport.site.write import Writer, remove, rmdir
from ccreport.source.home import Catalog, discover
from ccreport.source.names import unreported


@dataclass
class Follow:
    """What a long-running caller (live.follow) brings to each build. A render cache lives in this
    process: a build given one must run with ``jobs=1`` (it raises ValueError otherwise)."""

    state: State | None = None  # kept in memory between builds
    catalog: Catalog | None = None
    only_projects: set | None = None  # where something changed: other sessions come from the state, unread
    stop: object = None  # a threading.Event: set, the build raises Interrupted after the current session
    on_session: object = None  # (paths, stamps) as each session's pages are written, before the indexes
    render_cache: object = None  # live.rendercache.RenderCache: re-uses the HTML of unchanged messages
    # (project dir, session id) → transcript ids whose last page is rendered again into the cache
    # (what is written is identical, so nothing is)
    warm: dict | None = None
    memo: object = None  # site.grown.Memo: what the last build learnt, for the next append's fast path
    # (project dir, session id) of the sessions whose known transcripts only grew (Memo.grown): the
    # fast path (site.grown), where nothing else is looked at; None: the whole incremental way
    grown: set | None = None


@dataclass
class _Run:
    """One build's working set."""

    out: Path
    opts: Options
    follow: Follow
    catalog: Catalog
    state: State
    fingerprint: str  # of templates, assets and code (render.resources.fingerprint)
    full_all: bool  # no usable state (or other code, version, options): everything is rendered
    writer: Writer
    res: BuildResult
    titles: dict = field(default_factory=dict)  # project dir → title (in every heading)
    sources: dict = field(default_factory=dict)  # project dir → what its title was read from
    rows: dict = field(default_factory=dict)  # project dir → [SessionInfo] of the sessions counted
    indexed: dict = field(default_factory=dict)  # (project dir, session id) → SessionBrief, counted
    dirty: set = field(default_factory=set)  # project dirs whose pages or scripts changed
    frozen: set = field(default_factory=set)  # sessions known from the saved state only: counted, never re-read
    kept: Kept | None = None  # the source store's side of this build (site.keep)
    deltas: list = field(default_factory=list)  # site.search.UnitDelta of every transcript read
    fresh: searchindex.Fresh | None = None  # a full build's index, gathered as sessions finish
    old_units: set = field(default_factory=set)  # search unit keys of the state before the build
    home: HomeExtras | None = None  # history, plans, todos, file-history (site.extras)
    prompts_only: set = field(default_factory=set)  # (project dir, session id) known from history.jsonl only
    summary_titles: dict = field(default_factory=dict)  # (project dir, session id) → its summary line's text
    leaves: dict = field(default_factory=dict)  # what each file's summary lines and leaves were (site.leaftitles)
    fast: bool = False  # an append's fast path (Follow.grown, site.grown)

    def take_search(self, parts: list) -> None:
        """A session's search deltas: into a full build's Fresh, else kept for site.searchdelta."""
        for d in parts:
            self.fresh.add(d) if self.fresh is not None else self.deltas.append(d)


def build(home: Path, out: Path, opts: Options, progress=None, follow: Follow | None = None) -> BuildResult:
    """Build the site, or bring it up to date. ``progress(done, total)`` is called as sessions
    finish; ``follow``: what a long-running caller keeps between builds (Follow)."""
    f = follow or Follow()
    if f.render_cache is not None and opts.jobs > 1:
        raise ValueError("a build with a render cache runs in this process: use Options(jobs=1)")
    t0, started = time.perf_counter(), time.time()
    catalog = f.catalog if f.catalog is not None else discover(home)
    run = _start(out, opts, f, catalog, started)
    if f.memo is not None and not run.fast:
        f.memo.remember(catalog, run.kept)  # (before the copy into the store runs: Kept.catalog is set)
    workers = _early_workers(run)
    jobs = _jobs(run, workers)
    frozen = _freeze()
    try:
        try:
            _run_jobs(run, jobs, progress, workers)
        finally:
            if workers is not None:  # (shut down after its last outcome; not when stopped before its first)
                workers.drop()
            run.res.errors.extend(unreported(run.res.errors, finish(run.kept)))  # the copy into the store, beside the rendering
        run.res.stamps["sessions"] = time.time()
        _count_rest(run)
        show_home(run, jobs)
        _prune_vanished(run)
        # (a fork and its parent are in one project: an append's changes none outside its own)
        write_fork_points(catalog, _looked_into(run, run.state.sessions, run.follow.only_projects), run.writer)
        _write_indexes(run, jobs)
    finally:
        if run.fresh is not None:  # its spill files and the workers' go, whatever stopped the build
            run.fresh.close()
        if frozen:
            gc.unfreeze()
    run.res.written.extend(str(p) for p in run.writer.written)
    _save(run)
    sweep.end(out)
    run.res.projects = len(run.catalog.projects)
    run.res.seconds = time.perf_counter() - t0
    run.res.stamps["end"] = time.time()
    return run.res


def _jobs(run: _Run, workers: Workers | None) -> list[SessionJob]:
    """The sessions to update (_plan_sessions), each with its share of the home files; early
    workers are dropped if planning fails."""
    try:
        _prepare(run)
        jobs = _plan_sessions(run)
    except BaseException:
        if workers is not None:
            workers.drop()
        raise
    for j in jobs:
        j.home = for_session(run.home, j.session.id)
    return jobs


def _save(run: _Run) -> None:
    """The state, with its head, once every page is written."""
    run.state.set_head(run.opts, run.fingerprint, run.titles, run.sources, gone_keys(run.catalog))
    run.state.head["leaves"] = run.leaves
    if run.prompts_only:  # their search units: the next build drops those that are gone
        run.state.head["prompts_only"] = sorted(map(list, run.prompts_only))
    try:
        run.state.save()
        if not run.fast:  # (an append's log stays: SQLite folds it in every 1,000 pages)
            run.state.fold_log()
    except OSError as exc:
        run.res.errors.append(f"cannot save the incremental state in {run.state.dir}: {exc.strerror or exc}")


def _freeze() -> bool:
    """Keep what the build holds before its sessions (modules, catalog, saved state) out of the
    garbage collector until it ends: every full collection traversed it again (at --jobs 1 on a
    146 MB home, 17 of 19-41 ms; pool workers freeze theirs: site.siblings). Only when nothing
    else froze objects in this process, whose unfreeze would be ours to do."""
    if gc.get_freeze_count():
        return False
    gc.freeze()
    return True


def _start(out: Path, opts: Options, f: Follow, catalog: Catalog, started: float) -> _Run:
    res = BuildResult(errors=list(catalog.problems), stamps={"start": started})
    out.mkdir(parents=True, exist_ok=True)
    st = f.state if f.state is not None else State.load(out)
    res.errors.extend(st.problems)
    memo = f.memo if f.memo is not None else grown.Memo()
    fp = memo.fingerprint = memo.fingerprint or fingerprint()  # (the running code's: kept by a follower)
    # (a session whose last update failed is retried by the whole way, as is every session the
    # last build did not leave in the state)
    fast = (f.grown is not None and f.memo is not None and f.memo.catalog is not None and st.compatible(opts, fp)
            and not st.redo and all(k in st.sessions for k in f.memo.keys) and f.memo.same_extras(catalog.home))
    # The home's files go into the source store; what the home lost comes back from it (site.keep).
    # On an append's fast path, only the grown sessions are copied, into the last build's catalog.
    kept = (grown.keep_grown(memo, store_dir(out, opts), f.grown) if fast
            else keep_sources(catalog, out, opts, st, f.only_projects))
    res.cleanup = kept.cleanup
    run = _Run(out, opts, f, kept.catalog, st, fp, not st.compatible(opts, fp), Writer(out), res, frozen=kept.frozen,
               kept=kept, home=memo.extras if fast else grown.extras(f.memo, catalog.home, store_dir(out, opts)),
               fast=fast)
    names = asset_names()
    for name, data in asset_files().items() if not fast else ():  # (an append's: the last build wrote them)
        run.writer.write(names[name], data)
    if run.full_all:  # the parts folders of formats 1-3 and the unit records of 9 are no longer read
        for rel in (".ccreport/search", ".ccreport/usage", ".ccreport/parts", ".ccreport/units"):
            shutil.rmtree(out / rel, ignore_errors=True)
    return run


def _early_workers(run: _Run) -> Workers | None:
    """A full build's worker processes, forked before the summary lines are scanned and the sessions
    planned (0.3-0.4 s of the main process on a 146 MB home, with the other core idle): the copy into
    the store starts with them, on that core."""
    f = run.follow
    if (run.opts.jobs <= 1 or not run.full_all or run.fast or f.render_cache is not None
            or sum(len(p.sessions) for p in run.catalog.projects) < 2):
        return None
    return Workers(run.opts.jobs, run.catalog.sessions(), partial(start_copy, run.kept))


def _prepare(run: _Run) -> None:
    """What planning needs after the store's side: titles, summary titles, the old search units."""
    f, st, out, fast = run.follow, run.state, run.out, run.fast
    _titles(run)
    run.summary_titles, run.leaves = grown.summary_titles(f.memo, run.catalog, {} if run.full_all else st.head.get(
        "leaves", {}), f.only_projects if fast else None)
    run.old_units = set() if run.full_all else set(searchindex.unit_keys(_looked_into(run, st.sessions))) | ({
        unit_key(p, sid, "main") for p, sid in st.head.get("prompts_only", [])} if not fast else set())
    run.fresh = searchindex.Fresh(out / STATE_DIR) if run.full_all else None
    sweep.begin(out, run.full_all)  # (what a killed build left; before any page of this one is written)


def _titles(run: _Run) -> None:
    """Project titles are needed in page headings before any session is read: peek each project's
    cwd, or take the saved title of a project where nothing changed."""
    head = {} if run.full_all else run.state.head
    old_titles, old_sources = head.get("titles", {}), head.get("title_sources", {})
    only = run.follow.only_projects  # (on a full build no old title is known: each is read)
    for p in run.catalog.projects:
        if only is not None and p.dir_name in old_titles and p.dir_name not in only:
            run.titles[p.dir_name] = old_titles[p.dir_name]
            if p.dir_name in old_sources:
                run.sources[p.dir_name] = old_sources[p.dir_name]
        else:
            run.titles[p.dir_name] = project_title(p, old_sources.get(p.dir_name), run.sources)


def _count(run: _Run, pdir: str, st: SessionBrief) -> None:
    run.rows.setdefault(pdir, []).append(st.info)
    run.indexed[(pdir, st.id)] = st
    run.res.count(st.info)


def _plan_sessions(run: _Run) -> list[SessionJob]:
    """The sessions to update, biggest first; the others are counted from their saved rows."""
    f, st = run.follow, run.state
    warm = (f.warm or {}) if f.render_cache is not None else {}  # warming fills the cache: nothing to fill
    old_titles, old_gone = st.head.get("titles", {}), st.head.get("gone", {})
    jobs = []
    for s in _planned(run):
        pdir, key = s.project.dir_name, (s.project.dir_name, s.id)
        known = key in st.sessions
        run.res.archived += s.gone is not None
        if key in run.frozen:
            _count(run, pdir, st.sessions[key])  # nothing to read it from: its pages stay as they are
            continue
        # Just vanished from the home, or back: its overview and its project's rows change their mark.
        flipped = old_gone.get(f"{pdir}/{s.id}") != s.gone
        # A new project title is in every heading of the project: then its sessions are redone.
        # So is a session whose last update failed (State.redo).
        # And one a summary line now titles differently (site.leaftitles): its pages carry the title.
        summary = run.summary_titles.get(key)
        full = (run.full_all or old_titles.get(pdir) != run.titles[pdir] or key in st.redo
                or (known and st.sessions[key].info.summary_title != summary))
        quiet = not (key in warm and known) and not full and not flipped  # may be left as it is
        if quiet and known and not _looked_at(run, key):
            # Outside the changed projects a known session's files are not looked at, only its
            # home-file section (a prompt typed, a todo): its state is decoded when it has one.
            old = None if _home_empty(run, s.id, st.sessions[key]) else st.session(key)
            if old is None or not _home_moved(run, s, old):
                _count(run, pdir, st.sessions[key])
                continue
        else:
            old = st.session(key)
            if quiet and _unchanged(run, s, old):
                _count(run, pdir, st.sessions[key])  # unchanged transcripts mean an unchanged row: the saved one
                continue
        jobs.append(SessionJob(s, run.out, run.opts, run.titles[pdir], old, full, f.render_cache,
                               frozenset(warm.get(key, ())), overview=flipped, packed_search=run.full_all,
                               summary_title=summary))
        run.dirty.add(pdir)
    st.done_planning()
    # Biggest first, so the pool does not end waiting on one giant session started last.
    jobs.sort(key=lambda j: -j.session.size)
    return jobs


def _planned(run: _Run):
    """The sessions to plan: all, or on an append's fast path those of its projects (the others
    are counted after its page is out: _count_rest)."""
    if not run.fast:
        return run.catalog.sessions()
    return (s for p in run.catalog.projects if p.dir_name in run.follow.only_projects for s in p.sessions.values())


def _count_rest(run: _Run) -> None:
    """An append's fast path: the sessions of the other projects, counted from their saved rows
    (nothing of them moved: the fast path needs the last build to have left every one in the state)."""
    if not run.fast:
        return
    sessions = run.state.sessions
    for p in run.catalog.projects:
        if p.dir_name in run.follow.only_projects:
            continue
        for sid, s in p.sessions.items():
            run.res.archived += s.gone is not None
            _count(run, p.dir_name, sessions[(p.dir_name, sid)])


def _looked_at(run: _Run, key: tuple[str, str]) -> bool:
    """Whether the session's files may have changed: in a changed project (and, on an append's
    fast path, one of the grown sessions)."""
    only = run.follow.only_projects
    if only is not None and key[0] not in only:
        return False
    return not run.fast or key in run.follow.grown


def _looked_into(run: _Run, sessions: dict, projects: set | None = None) -> dict:
    """``sessions``, or on an append's fast path those of them that grew (no other unit can go), or
    of the ``projects`` given."""
    if not run.fast:
        return sessions
    if projects is not None:
        return {k: v for k, v in sessions.items() if k[0] in projects}
    return {k: sessions[k] for k in run.follow.grown if k in sessions}


def _unchanged(run: _Run, s, old: SessionState | None) -> bool:
    """Nothing of the session to read or write: its stats are checked (and folder stamps seen are
    remembered), and its home-file section."""
    unchanged, stamps = session_unchanged(s, old, run.out)
    if unchanged and stamps:
        for tid, stamp in stamps.items():
            old.transcripts[tid].dir_mtime_ns = stamp
        run.state.put(PackedState.of(old))  # a folder stamp was refreshed
    return unchanged and not _home_moved(run, s, old)


def _home_empty(run: _Run, sid: str, brief: SessionBrief) -> bool:
    """No home file names the session, and none did when it was last rendered: its section is
    empty both times (_home_moved without decoding its state)."""
    ex = run.home
    return ex is None or (not ex.history.get(sid) and not ex.todos.get(sid) and not brief.home_digest)


def _home_moved(run: _Run, s, old: SessionState) -> bool:
    """The session's home-file section (site.extras: a new todo, a prompt typed) changed though no
    transcript did: its job rewrites the overview with everything else on it."""
    if run.home is None:
        return False
    home = section(for_session(run.home, s.id), s.id, list(old.transcripts.values()))
    return digest(home) != old.home_digest


def _run_jobs(run: _Run, jobs: list[SessionJob], progress, workers: Workers | None) -> None:
    f, res, st = run.follow, run.res, run.state
    if progress:
        progress(0, len(jobs))  # the total, before the first (possibly long) session ends
    outcomes = outcomes_of(jobs, run.opts.jobs, f.stop, partial(start_copy, run.kept), workers)
    # (outcomes first: the last one's next() ends the generator, so the pool is shut down and its
    # workers gone before the build goes on; jobs first left it to be torn down when dropped)
    for done, (r, job) in enumerate(zip(outcomes, jobs), 1):  # in job order
        if progress:
            progress(done, len(jobs))
        res.errors.extend(r.errors)
        res.written.extend(r.written)
        res.deleted.extend(r.deleted)
        run.take_search(r.search)
        if f.on_session is not None and (r.written or r.deleted):
            f.on_session(list(r.written) + list(r.deleted), {"start": res.stamps["start"], "sessions": time.time()})
        if r.state is not None:
            brief = r.state.brief
            st.put(r.state)
            st.redo.discard((brief.project, brief.id))
            _count(run, brief.project, brief)
        else:
            _keep_failed(run, job)


def _keep_failed(run: _Run, job: SessionJob) -> None:
    """A session whose update failed (a full disk) stays in the site as the last build left it:
    its row and search data come from its previous state (still the saved one), not dropped
    until the next build, and it is rendered whole next time (State.redo)."""
    pdir, key = job.session.project.dir_name, (job.session.project.dir_name, job.session.id)
    run.state.redo.add(key)
    if key in run.state.sessions:
        _count(run, pdir, run.state.sessions[key])


def _prune_vanished(run: _Run) -> None:
    """Sessions and projects whose files are gone: their pages go too."""
    out, st, deleted = run.out, run.state, run.res.deleted
    seen = {(s.project.dir_name, s.id) for s in run.catalog.sessions()}
    for key in [k for k in st.sessions if k not in seen]:
        old = st.session(key)
        st.drop(key)
        for tid, prev in old.transcripts.items():
            prune_pages(out, transcript_dir(key[0], key[1], tid), prev, 0, deleted)
        prune_runs(out / session_dir(*key), set(), deleted)  # its Workflow run pages
        remove_stale_pages(out / session_dir(*key), 0, deleted, outline_part_no)  # its outline's parts
        remove(out / session_dir(*key) / INDEX, deleted)
        rmdir(out / session_dir(*key))
        run.dirty.add(key[0])
    current = {p.dir_name for p in run.catalog.projects}
    for pdir in set(st.head.get("titles", {})) - current:
        remove(out / project_dir(pdir) / INDEX, deleted)
        rmdir(out / project_dir(pdir))


def _write_indexes(run: _Run, jobs: list[SessionJob]) -> None:
    """Search scripts and index pages of the projects that changed (all on a full build), when
    anything changed or is missing from the site."""
    out = run.out
    current = {p.dir_name for p in run.catalog.projects}
    if run.fast:  # (an append's: the other projects' pages were there after the last build)
        current &= run.follow.only_projects
    missing = {p for p in current if not (out / project_dir(p) / INDEX).exists()}
    if not (run.full_all or run.dirty or missing or run.res.deleted or not (out / INDEX).exists()
            or not (out / SEARCH_MANIFEST).exists()):
        return
    full = run.full_all
    # A full build's shards, half of them written by a forked child on the core the pool left idle
    # while this process writes the rest of the tail (site.searchsplit); joined before the state is saved.
    split = searchsplit.start(IndexOut(out, run.writer, run.res.deleted), run.fresh, run.opts.jobs) if (
        run.opts.search and run.fresh is not None) else None
    try:
        if run.opts.search:
            _write_search(run, jobs, split)
        write_indexes(run.catalog, run.rows, run.writer, run.titles, only=None if full else run.dirty | missing,
                      plans=len(run.home.plan_urls) if run.home is not None else 0,
                      stray=len(run.home.stray) if run.home is not None else 0)
    except BaseException:
        if split is not None:
            split.abandon()
        raise
    if split is not None:
        split.finish()


def _write_search(run: _Run, jobs: list[SessionJob], split: searchsplit.Split | None) -> None:
    """The search index's shared files: a full build's shards (with a ``split``: those the child
    leaves, after the pages), or the pending delta; the unit metadata of the sessions that changed."""
    out, full = run.out, run.full_all
    gone = run.old_units - set(searchindex.unit_keys(_looked_into(run, run.indexed)))
    if run.fresh is not None:
        if split is None:
            searchindex.write_fresh(out, run.writer, run.fresh, run.res.deleted)
        else:  # (its shards: split.finish, once the pages are written)
            run.fresh.docs.write(out, run.writer, run.res.deleted, fresh=True)
        searchindex.prune_docs(out, run.res.deleted)
    else:
        searchindex.write_docs(out, run.writer, run.deltas, gone, run.res.deleted)
        searchdelta.update(out, run.writer, run.deltas, gone, run.res.deleted)
    # The metadata of the units that changed (their sessions were read, or they are gone).
    redone = {key: run.indexed[key] for key in ((j.session.project.dir_name, j.session.id) for j in jobs)
              if key in run.indexed}
    # (prompts-only sessions are no jobs: their few units are all looked at, written when they differ)
    changed = gone | set(searchindex.unit_keys(redone)) | {unit_key(p, sid, "main") for p, sid in run.prompts_only}
    only = None if full else {searchindex.units_file(k) for k in changed}
    searchindex.write_meta(run.writer, run.indexed, [p.dir_name for p in run.catalog.projects], run.titles,
                           run.res.deleted, only)
