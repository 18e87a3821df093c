"""One session brought up to date: plan its transcripts, render those that changed, prune what is
gone, and write its overview, its search scripts and its new state. Runs in a worker process when
the build has several jobs, so what goes in (SessionJob) and out (SessionOutcome) is plain data.
"""

from __future__ import annotations

import os
import traceback
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ccreport.fs import WriteError
from ccreport.layout import FORK_POINT, INDEX, LATEST, page_name, page_no, session_dir, tool_results_dir, tool_results_url
from ccreport.layout import outline_part_no, transcript_dir
from ccreport.model.usage import TranscriptUsage, merge_ledgers
from ccreport.render.context import BlobStore
from ccreport.site import search, closedturns
from ccreport.site.extras import SessionHome, digest, section
from ccreport.site.features import Changes, Replies, Search, Teams, TurnLines, Usage
from ccreport.site.filehistory import BeforeEdits
from ccreport.site.options import Options
from ccreport.site.outlineparts import PartsView, write_parts
from ccreport.site.overview import session_info, write_session_overview
from ccreport.site.plan import FULL, GROW, SAME, Plan, agent_urls, dir_stamp, parent_url, rel_source, session_plans
from ccreport.site.plan import team_names
from ccreport.site.siblings import in_project
from ccreport.site.state import HEAD_BYTES, PackedState, SessionInfo, SessionState, TranscriptState, head_hash
from ccreport.site.teampage import team_view
from ccreport.site.toolresults import copier
from ccreport.site.transcript import SessionRun, render_transcript
from ccreport.site.workflows import prune_runs, run_cards, write_runs
from ccreport.site.write import Writer, remove, rmdir
from ccreport.source.home import Session, Transcript
from ccreport.source.reading import read_session_file
from ccreport.source.sidefiles import session_stamp, team_stamp


@dataclass
class SessionJob:
    """One session to update: its previous state (None: render everything) and whether to render
    it whole anyway (``full``: still pruning by the previous state)."""

    session: Session
    out: Path
    opts: Options
    project_title: str
    old: SessionState | None = None
    full: bool = False
    render_cache: object = None  # live.rendercache.RenderCache (in-process builds only)
    warm: frozenset = frozenset()  # transcript ids whose last page is rendered again into the cache
    overview: bool = False  # write the overview even when no transcript changed (its archive mark did)
    home: SessionHome | None = None  # its share of the home files (site.extras)
    packed_search: bool = False  # a full build: its search postings go as one site.search.SessionPart
    summary_title: str | None = None  # the text of the summary line naming one of its messages (site.leaftitles)


@dataclass
class SessionOutcome:
    state: PackedState | None = None  # None when the update failed
    written: list = field(default_factory=list)
    deleted: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    search: list = field(default_factory=list)  # site.search.UnitDelta of each transcript read


def run_job(job: SessionJob) -> SessionOutcome:
    """update_session, with one broken session reported instead of taking the archive down."""
    try:
        return update_session(job)
    except WriteError as exc:  # a full disk, a read-only folder: the site's fault, not the session's
        s = job.session
        return SessionOutcome(errors=[f"{s.project.dir_name}/{s.id}: cannot write {exc.filename}: "
                                      f"{exc.strerror or exc}"])
    except Exception as exc:
        s = job.session
        detail = traceback.format_exc() if os.environ.get("CCREPORT_DEBUG") else "set CCREPORT_DEBUG=1 for the traceback"
        return SessionOutcome(errors=[f"{s.project.dir_name}/{s.id}: internal error: {exc!r} ({detail})"])


def _plans(job: SessionJob, run: SessionRun) -> dict[str, Plan]:
    """The plan of every transcript; the agent calls they rest on go into ``run``. Without the
    previous state, everything is read again; pages that come out the same are not rewritten."""
    s, old = job.session, job.old
    if job.full or old is None:
        return {t.id: Plan(FULL, "whole session") for t in s.transcripts}
    plans, calls = session_plans(s, old, job.out, run.workflow_runs)
    run.agent_calls.update(calls)
    run.agent_titles.update(old.agent_titles)  # (a call's description never changes; new calls add theirs)
    for tid in job.warm:  # render the last page again, through the cache (Follow.warm)
        if plans.get(tid) is not None and plans[tid].mode == SAME:
            plans[tid] = Plan(GROW, "warming the render cache")
    return plans


def _new_run(job: SessionJob) -> SessionRun:
    s, old = job.session, job.old
    pdir = s.project.dir_name
    writer = Writer(job.out)
    runs, cards = run_cards(s)
    records = {tid: ts.slice_of(Search).search for tid, ts in old.transcripts.items()} if old is not None else {}
    copy = copier(s.tool_results_dir, tool_results_dir(pdir, s.id), tool_results_url(pdir, s.id), writer,
                  partial(read_session_file, s))
    return SessionRun(
        session=s, writer=writer, opts=job.opts, project_title=job.project_title, summary_title=job.summary_title,
        blobs=BlobStore(job.out, writer.written), agent_urls=agent_urls(s), agent_calls={},
        copy_tool_result=copy,
        render_cache=job.render_cache, search=(search.SessionIndex(writer, pdir, s.id, records, job.packed_search)
                                                if job.opts.search else None),
        before_edits=BeforeEdits(job.home.files(), pdir, s.id, writer) if job.home is not None else None,
        plan_urls=job.home.plan_urls if job.home is not None else {},
        workflow_runs=cards, run_files=runs)


def _update_transcript(run: SessionRun, t: Transcript, mode: str, prev: TranscriptState | None,
                       parent: str | None, deleted: list) -> tuple[TranscriptState, TranscriptUsage | None]:
    """Render one transcript as planned (unless its mode is SAME): (state, ledger)."""
    s, out = run.session, run.writer.out
    if mode == SAME:
        return prev, None
    st, ledger = render_transcript(run, t, parent, resume=prev if mode == GROW else None)
    st.source, st.inode, st.mtime_ns, st.parent_url = rel_source(s, t), t.inode, t.mtime_ns, parent
    st.meta = [t.agent_type, t.description]
    st.head_len = min(HEAD_BYTES, st.offset or 0)
    st.head = head_hash(t.path, st.head_len)
    folder = transcript_dir(s.project.dir_name, s.id, t.id)
    if prev and mode == FULL:
        prune_pages(out, folder, prev, len(st.pages), deleted)
        for name in set(prev.slice_of(Replies).replies) - set(st.slice_of(Replies).replies):  # their calls are gone
            remove(out / folder / name, deleted)
    if mode == FULL and st.pages and st.summary.error is None:
        # Pages left from a longer earlier file that no state remembers (state deleted, or an
        # older site in the folder): they would show lines the file no longer has.
        remove_stale_pages(out / folder, st.last_page, deleted)
    return st, ledger


def update_session(job: SessionJob) -> SessionOutcome:
    """Bring one session's pages up to date with its transcripts, given its previous state."""
    s, out, old = job.session, job.out, job.old
    side = session_stamp(s)  # before its files are read: a change while they are is seen next time
    run = _new_run(job)
    plans = _plans(job, run)
    prev_ts = old.transcripts if old is not None else {}
    new_ts: dict[str, TranscriptState] = {}
    ledgers: dict[str, TranscriptUsage] = {}  # transcript id → usage ledger, of those read this time
    deleted: list[str] = []
    modes = {}
    for t in s.transcripts:
        prev = prev_ts.get(t.id)
        parent = None if t.kind == "main" else parent_url(s, t, run.agent_calls)
        modes[t.id] = plans[t.id].mode
        if t.kind != "main" and prev and prev.parent_url != parent:
            modes[t.id] = FULL  # the main transcript's re-rendered pages moved the call this agent links to
        new_ts[t.id], ledger = _update_transcript(run, t, modes[t.id], prev, parent, deleted)
        if ledger is not None:
            ledgers[t.id] = ledger
    for tid, prev in prev_ts.items():
        if tid not in new_ts:  # the transcript file is gone: so are its pages
            prune_pages(out, transcript_dir(s.project.dir_name, s.id, tid), prev, 0, deleted)
            closedturns.drop(out, s.project.dir_name, s.id, tid)
    closed = _spill(job, new_ts, modes)
    changed = any(m != SAME for m in modes.values()) or set(prev_ts) != set(new_ts)
    info = session_info(s, list(new_ts.values()), job.summary_title)
    info.usage_report = _usage_report(s, new_ts, ledgers, old if not changed else None)
    side += team_stamp(s.project.home, team_names(ts.slice_of(Teams).team for ts in new_ts.values()))
    extras = _extras(run, job, new_ts, deleted)
    home = section(job.home, s.id, list(new_ts.values()))
    moved = old is None or old.home_digest != digest(home)
    if (changed or job.overview or moved or old.side != side
            or not (out / session_dir(s.project.dir_name, s.id) / INDEX).exists()):
        _write_parts(job, run, new_ts, modes.get("main"), info, closed, deleted)
        write_session_overview(s, info, list(new_ts.values()), run.writer, job.project_title, extras, home)
    state = _new_state(job, run, new_ts, info)
    state.home_digest = digest(home)
    state.side = side
    return SessionOutcome(PackedState.of(state), [str(p) for p in run.writer.written], deleted,
                          [ts.summary.error for ts in new_ts.values() if ts.summary.error],
                          run.search.deltas if run.search is not None else [])


def _spill(job: SessionJob, new_ts: dict, modes: dict) -> list:
    """Full blocks of closed turns out of the states of the transcripts read (site.closedturns); the
    main transcript's blocks that just closed (its outline's new part pages)."""
    s = job.session
    closed = {tid: closedturns.spill(job.out, s.project.dir_name, s.id, tid, st.slice_of(TurnLines))
              for tid, st in new_ts.items() if modes[tid] != SAME}
    return closed.get("main", [])


def _write_parts(job: SessionJob, run: SessionRun, new_ts: dict, main_mode: str | None, info: SessionInfo,
                 closed: list, deleted: list) -> None:
    """The outline's part pages (site.outlineparts), before the overview that links them; those
    left from a longer earlier main transcript go."""
    s, old, main = job.session, job.old, new_ts.get("main")
    view = PartsView(job.project_title, info.cwd, {ts.summary.id: changed for ts in new_ts.values()
                                                   if (changed := ts.slice_of(Changes).changed)})
    write_parts(s, main, closed, run.writer, view, old is None or old.info.cwd != info.cwd)
    if main is None or main_mode == FULL:
        keep = closedturns.full_blocks(main.slice_of(TurnLines)) if main is not None else 0
        remove_stale_pages(job.out / session_dir(s.project.dir_name, s.id), keep, deleted, outline_part_no)


def _extras(run: SessionRun, job: SessionJob, new_ts: dict, deleted: list) -> dict:
    """The workflow run pages (written here, their rows listed), the team and the fork of the overview."""
    s = job.session
    rows = write_runs(s, run.run_files, run.writer, job.project_title, run.agent_calls)
    prune_runs(job.out / session_dir(s.project.dir_name, s.id), {r["id"] for r in rows}, deleted)
    main = new_ts.get("main")
    fork = main.summary.fork if main is not None else None
    if fork:
        fork = dict(fork, url=FORK_POINT if in_project(s, fork.get("parent")) else None)
    teams = [team for ts in new_ts.values() if (team := ts.slice_of(Teams).team)]
    return {"runs": rows, "team": team_view(s, teams), "fork": fork}


def _usage_report(s: Session, new_ts: dict, ledgers: dict, unchanged: SessionState | None) -> dict:
    """The session's usage: the saved report when nothing changed, else its transcripts' ledgers
    merged (those not read this time come from the saved ones)."""
    if unchanged is not None and unchanged.info.usage_report is not None:
        return unchanged.info.usage_report
    merged = []
    for t in s.transcripts:
        merged.append((t.id, t.kind, ledgers.get(t.id) or TranscriptUsage(new_ts[t.id].slice_of(Usage).ledger)))
    return merge_ledgers(merged)


def _new_state(job: SessionJob, run: SessionRun, new_ts: dict, info: SessionInfo) -> SessionState:
    s = job.session
    for t in s.transcripts:  # after the last write into the folders: see plan.dir_stamp
        new_ts[t.id].dir_mtime_ns = dir_stamp(job.out / transcript_dir(s.project.dir_name, s.id, t.id))
    keep = set(new_ts["main"].agent_keys) if "main" in new_ts else set()
    for t in s.agents:
        keep.update(k for k in (t.id, t.tool_use_id) if k)
    calls = run.agent_calls
    return SessionState(project=s.project.dir_name, id=s.id, info=info, transcripts=new_ts,
                        agent_calls={k: calls[k] for k in sorted(calls) if k in keep},
                        agent_titles={k: v for k, v in sorted(run.agent_titles.items()) if k in keep})


def prune_pages(out: Path, rel: str, prev: TranscriptState, keep: int, deleted: list) -> None:
    """Delete the pages past ``keep`` of a transcript (all of them and latest.html when 0)."""
    names = [page_name(p[0]) for p in prev.pages if p[0] > keep]
    if keep == 0:
        names.extend([LATEST, *prev.slice_of(Replies).replies])
    for name in names:
        remove(out / rel / name, deleted)
    if keep == 0 and rel.count("/") > 2:  # an agent-<id>/ folder: drop it when empty
        rmdir(out / rel)


def remove_stale_pages(folder: Path, last_no: int, deleted: list, number=page_no) -> None:
    """Pages past the transcript's last page are left from a longer earlier version of the file
    (truncated or rewritten): they would show lines the file no longer has. ``number``: of the
    pages of another series (layout.outline_part_no: the outline's parts)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        no = number(name)
        if no is not None and no > last_no:
            with suppress(OSError):
                remove(folder / name, deleted)
