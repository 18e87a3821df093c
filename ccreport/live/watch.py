"""Follow a Claude home: rebuild what an append changed, as soon as the file system says so.

``follow()`` makes the site current once, then waits on watchfiles (inotify on Linux) for changes
under ``home/projects`` and runs the incremental build (build.py, state.py) with the state kept in
memory. Because that build only stats unchanged transcripts and resumes grown ones at their last
page, an append costs about the bytes appended plus one or two pages, whatever the session's size.

What it relies on from the lower stages: the reader holds back a line without its newline (a
transcript mid-write is shown up to its last complete line and re-read from there next time),
and every page is written atomically (write.py), so a browser or ``serve`` never sees a partial
page. A transcript deleted or replaced while watched is just another change: its pages are pruned
or rebuilt by the same build.

``serve --watch`` calls ``follow(..., on_change=push)`` to tell browsers which files changed.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import watchfiles

from ccreport.layout import page_name
from ccreport.site.build import BuildResult, Follow, Interrupted, Options, build
from ccreport.source.home import Catalog, HomeError, _Inside, discover, load_project
from ccreport.site.state import State

# watchfiles groups the events of one burst: it yields once no new event came for STEP_MS (and at
# the latest after DEBOUNCE_MS while events keep coming). Small values keep an append → page
# latency low; an append of many lines in a row still becomes a single build.
STEP_MS = 10
DEBOUNCE_MS = 100


def _outside(out: Path) -> Callable[[watchfiles.Change, str], bool]:
    """A watch filter that ignores the output folder (it may live inside the home) and the
    temporary files of atomic writes."""
    site = str(out.resolve())

    def keep(change: watchfiles.Change, path: str) -> bool:
        if path == site or path.startswith(site + os.sep):
            return False
        return not os.path.basename(path).endswith(".tmp")

    return keep


def follow(home: Path, out: Path, opts: Options, on_change: Callable[[list[str]], None] | None = None,
           stop_event: threading.Event | None = None, on_build: Callable[[BuildResult], None] | None = None,
           on_error: Callable[[str], None] | None = None, step_ms: int = STEP_MS,
           debounce_ms: int = DEBOUNCE_MS, ready: threading.Event | None = None,
           on_session: Callable[[list[str], dict], None] | None = None, render_cache=None,
           viewed: Callable[[], list[str]] | None = None) -> None:
    """Keep ``out`` current with ``home`` until ``stop_event`` is set (or Ctrl-C).

    ``on_change(paths)`` gets the absolute paths of the files each update wrote or deleted (only
    when there are some); ``on_build(result)`` every BuildResult, the first one included;
    ``on_error(message)`` a failure of one update (the watch goes on; the last good pages stay).
    ``ready`` is set once the watcher is in place (changes after that are never missed).
    ``on_session(paths, stamps)``: during an update, the files of each session as soon as its
    pages are written (before the indexes; with ``render_cache``, each page as soon as it is
    written); ``on_change`` then gets only the paths not given yet.
    ``render_cache`` (rendercache.RenderCache) is used by the updates (not the catch-up run).
    ``viewed()``, asked while idle, returns the site pages opened since (serve records them): the
    transcripts they show whose renders are not cached yet are rendered again into the cache, so
    the first append after a page is opened is as quick as the next ones.
    Raises HomeError when the home cannot be used at the start.
    """
    state = State.load(out)
    catalog = discover(home)
    try:
        first = build(home, out, opts, follow=Follow(state=state, catalog=catalog, stop=stop_event))
    except Interrupted:
        return  # stopped during the catch-up run: what was written is complete, the rest is redone next time
    _report(first, on_change, on_build)
    # Updates touch a session or two: worker processes would cost more than they save.
    live = replace(opts, jobs=1)
    projects = home / "projects"
    for changes in watchfiles.watch(projects, watch_filter=_outside(out), step=step_ms, debounce=debounce_ms,
                                    stop_event=stop_event, rust_timeout=200, yield_on_timeout=True,
                                    raise_interrupt=False):
        if ready is not None:
            ready.set()  # the first yield (a change or a timeout) means the watcher is running
        if stop_event is not None and stop_event.is_set():
            break
        warm = None
        if not changes:
            warm = _to_warm(viewed(), catalog, render_cache, state) if viewed is not None and render_cache is not None else None
            if not warm:
                continue
        try:
            if warm:
                names = {pdir for pdir, _ in warm}
            else:
                names = _projects_of(changes, projects)
                catalog = discover(home) if names is None else rescan(catalog, names)
            given: set[str] = set()
            started = time.time()

            def session_done(paths, stamps):
                paths = [p for p in paths if p not in given]
                if paths:
                    given.update(paths)
                    on_session(paths, stamps)

            if render_cache is not None and on_session is not None:
                render_cache.on_page = lambda path: session_done([path], {"start": started, "sessions": time.time()})
            res = build(home, out, live, follow=Follow(
                state=state, catalog=catalog, only_projects=names, render_cache=render_cache, warm=warm,
                on_session=session_done if on_session is not None else None))
        except HomeError as exc:
            _error(on_error, str(exc))
            continue
        except OSError as exc:
            _error(on_error, f"cannot update the site in {out}: {exc.strerror or exc}")
            state = State.load(out)  # what is on disk is the truth again
            continue
        _report(res, on_change, on_build, given)


WARM_PER_TURN = 4  # transcripts warmed per idle turn (each costs one page render; appends wait behind it)


def _to_warm(pages, catalog: Catalog, render_cache, state: State | None = None, limit: int = WARM_PER_TURN) -> dict:
    """Site pages (p/<project>/<session>/[agent-<id>/]page-N.html) → {(project, session): {transcript
    ids}} of those known to the catalog, not in the cache yet and (with ``state``) showing their
    transcript's last page: an earlier page never changes, so reading it needs no warm cache."""
    out: dict = {}
    n = 0
    by_name = {p.dir_name: p for p in catalog.projects}
    for page in pages or ():
        parts = page.split("/")
        if len(parts) not in (4, 5) or parts[0] != "p" or not parts[-1].startswith("page-"):
            continue
        project = by_name.get(parts[1])
        s = project.sessions.get(parts[2]) if project is not None else None
        if s is None:
            continue
        slug = parts[3] if len(parts) == 5 else ""
        t = next((t for t in s.transcripts if t.slug == slug), None)
        if t is None or render_cache.has((parts[1], s.id, t.id)):
            continue
        if state is not None:
            old = state.sessions.get((parts[1], s.id))
            saved = old.transcripts.get(t.id) if old is not None else None
            if saved is None or not saved.pages or parts[-1] != page_name(saved.last_page):
                continue
        out.setdefault((parts[1], s.id), set()).add(t.id)
        n += 1
        if n >= limit:
            break
    return out


def _projects_of(changes, projects: Path) -> set[str] | None:
    """The project folders the changed paths lie in (None: something above them changed)."""
    names = set()
    roots = {str(projects) + os.sep, str(projects.resolve()) + os.sep, os.path.abspath(projects) + os.sep}
    for _, path in changes:
        root = next((r for r in roots if path.startswith(r)), None)
        if root is None:
            return None
        names.add(path[len(root):].split(os.sep, 1)[0])
    return names


def rescan(catalog: Catalog, names: set[str]) -> Catalog:
    """The catalog with the projects ``names`` listed again (added, changed or gone)."""
    root = catalog.home / "projects"
    by_name = {p.dir_name: p for p in catalog.projects}
    problems: list[str] = []
    inside = _Inside(root)
    for name in names:
        by_name.pop(name, None)
        project = load_project(inside, name, problems)
        if project is not None:
            by_name[name] = project
    return Catalog(catalog.home, [by_name[k] for k in sorted(by_name)], problems)


def _report(res: BuildResult, on_change, on_build, given: set | None = None) -> None:
    if on_build is not None:
        on_build(res)
    changed = [p for p in list(res.written) + list(res.deleted) if not given or str(p) not in given]
    if changed and on_change is not None:
        on_change(changed)


def _error(on_error, msg: str) -> None:
    if on_error is not None:
        on_error(msg)
    else:
        print(f"ccreport: error: {msg}", file=sys.stderr, flush=True)


def run(home: Path, out: Path, opts: Options, quiet: bool = False) -> int:
    """The `ccreport watch` command: follow until Ctrl-C or SIGTERM, reporting each update."""
    import signal

    stop = threading.Event()

    def _stop(signum, frame):
        stop.set()

    # Both signals only ask to stop: the catch-up run (maybe a long first build) ends after the
    # session in hand, the watch between two updates, so no page is left half done.
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    builds = 0

    def on_build(res: BuildResult) -> None:
        nonlocal builds
        builds += 1
        for err in res.errors:
            print(f"ccreport: error: {err}", file=sys.stderr, flush=True)
        if not quiet and (res.written or res.deleted):
            print(f"ccreport: {time.strftime('%H:%M:%S')} {len(res.written)} written, {len(res.deleted)} deleted "
                  f"in {res.seconds * 1000:.0f} ms", file=sys.stderr, flush=True)
        if builds == 1 and not quiet:
            print(f"ccreport: watching {home / 'projects'} → {out / 'index.html'} (Ctrl-C to stop)",
                  file=sys.stderr, flush=True)

    follow(home, out, opts, stop_event=stop, on_build=on_build)
    if builds == 0:
        print("ccreport: stopped before the site was up to date", file=sys.stderr, flush=True)
        return 130
    if not quiet:
        print("ccreport: watch stopped", file=sys.stderr, flush=True)
    return 0
