"""Follow a Claude home: rebuild what an append changed, as soon as the file system says so (and
``ccreport watch``: run_watch). How it stays fast and what it relies on from the lower stages: docs/live.md.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import watchfiles

from ccreport.live.events import Live
from ccreport.live.rendercache import RenderCache
from ccreport.layout import parse_page, site_name, transcript_dir
from ccreport.site.build import BuildResult, Follow, Interrupted, Options, build
from ccreport.site.grown import Memo
from ccreport.site.plan import team_names
from ccreport.site.state import State
from ccreport.source.home import Catalog, HomeError, discover, rescan

# watchfiles yields once no event came for STEP_MS (at the latest after DEBOUNCE_MS): a burst of lines
# is one build. Shorter debounce when a page is open (serve --watch); why these values: docs/live.md.
STEP_MS = 2
DEBOUNCE_MS = 100
LIVE_STEP_MS = 2
LIVE_DEBOUNCE_MS = 25
PUSH_YIELD_S = 0.002  # after pushing a page, the follower pauses this long (see _session_done)
WARM_PER_TURN = 4  # transcripts warmed per idle turn (each costs one page render; appends wait behind it)


class Follower:
    """Keeps ``out`` current with ``home`` (``run``, until ``stop`` is set or Ctrl-C) and tells what
    each update did through ``built``, ``changed`` and ``failed``: with ``live``, to the open pages
    (the render cache, early pushes and warming of docs/live.md are for them; ``log`` gets each failure too);
    ``ccreport watch`` overrides them to print (Printer)."""

    def __init__(self, home: Path, out: Path, opts: Options, live: Live | None = None,
                 log: Callable[[str], None] | None = None):
        self.home, self.out, self.opts, self.live, self.log = home, out, opts, live, log
        self.stop = threading.Event()
        self.ready = threading.Event()  # set once the watcher is in place: changes after that are never missed
        # (watch keeps one too: an append re-renders its last page from the first line, most of it unchanged)
        self.cache = RenderCache(on_page=self._page_written if live is not None else None)
        self.state: State | None = None
        self.catalog: Catalog | None = None
        self.memo = Memo()  # what the last build learnt: an append to a known transcript needs no more (site.grown)
        self._given: set[str] = set()  # paths of the update in hand already pushed
        self._started = 0.0

    # --- what it tells ---------------------------------------------------------------------------
    def built(self, res: BuildResult) -> None:
        """Every build's result, the catch-up run's included."""

    def changed(self, paths: list[str], stamps: dict | None) -> bool:
        """The files an update wrote or deleted (not pushed already); ``stamps``: its stage times.
        True when an open page was told."""
        return self.live is not None and self.live.changed(paths, stamps, self.cache.take_fragments())

    def failed(self, message: str) -> None:
        """One update failed: the watch goes on, the last good pages stay."""
        if self.log is not None:
            self.log(f"rebuild failed: {message}")
        if self.live is not None:
            self.live.failed(message)

    # --- the loop --------------------------------------------------------------------------------
    def run(self) -> None:
        """Catch up, then update on every change. Raises HomeError when the home cannot be used at the start."""
        if not self.catch_up():
            return
        while not self.stop.is_set():
            roots = _roots(self.home)
            self._watch(roots)
            if not self.stop.is_set():
                # A team or tasks folder came since the watch began: watch it too, and look once
                # at the teams' files, whose first changes came before it was watched.
                self.update(set(), None, _team_projects(self.state, None))

    def catch_up(self) -> bool:
        """The first build, from the saved state. False: stopped during it (what was written is
        complete, the rest is redone next time)."""
        self.state = State.load(self.out)
        self.catalog = discover(self.home)
        try:
            first = build(self.home, self.out, self.opts,
                          follow=Follow(state=self.state, catalog=self.catalog, stop=self.stop, memo=self.memo))
        except Interrupted:
            return False
        self._report(first)
        return True

    def _watch(self, roots: list[Path]) -> None:
        """Update on every change under ``roots`` until stopped or until the home has a root folder
        (teams/, tasks/) that ``roots`` lacks: inotify cannot watch a folder before it exists, and
        watching the whole home would put a watch on each of its many other folders."""
        step, debounce = (LIVE_STEP_MS, LIVE_DEBOUNCE_MS) if self.live is not None else (STEP_MS, DEBOUNCE_MS)
        for changes in watchfiles.watch(*roots, watch_filter=_outside(self.out), step=step,
                                        debounce=debounce, stop_event=self.stop, rust_timeout=200,
                                        yield_on_timeout=True, raise_interrupt=False):
            self.ready.set()  # the first yield (a change or a timeout) means the watcher is running
            if self.stop.is_set():
                return
            if changes:
                self.update(changes, None)
                if _roots(self.home) != roots:
                    return
            elif self.live is not None:  # idle: warm the cache for the pages opened since
                warm = _to_warm(self.live.take_views(), self.catalog, self.cache, self.state)
                if warm:
                    self.update(changes, warm)

    def update(self, changes, warm: dict | None, names: set | None = None) -> None:
        """Rebuild what ``changes`` touch (or warm ``warm``; or, with neither, the projects ``names``)."""
        self._given = set()
        self._started = time.time()
        grown = None
        try:
            if warm:
                names = {pdir for pdir, _ in warm}
            elif changes:
                # Only known transcripts that grew: the fast path, no rescan (site.grown).
                grown = self.memo.grown({path for change, path in changes if change == watchfiles.Change.modified}
                                        if all(c == watchfiles.Change.modified for c, _ in changes) else ())
                names = _projects_of(changes, self.home, self.state) if grown is None else {p for p, _ in grown}
                if grown is None:
                    self.catalog = discover(self.home) if names is None else rescan(self.catalog, names)
            if names is not None and not names:
                return  # only files no page shows (a team no session names) changed
            # Updates touch a session or two: worker processes would cost more than they save.
            res = build(self.home, self.out, replace(self.opts, jobs=1), follow=Follow(
                state=self.state, catalog=self.catalog, only_projects=names, render_cache=self.cache, warm=warm,
                on_session=self._session_done if self.live is not None else None, memo=self.memo, grown=grown))
        except HomeError as exc:
            self.failed(str(exc))
            self.memo = Memo()
        except OSError as exc:
            self.failed(f"cannot update the site in {self.out}: {exc.strerror or exc}")
            self.state = State.load(self.out)  # what is on disk is the truth again
            self.memo = Memo()
        else:
            self._report(res)

    def _page_written(self, path: str) -> None:
        self._session_done([path], {"start": self._started, "sessions": time.time()})

    def _session_done(self, paths: list[str], stamps: dict) -> None:
        """A session's pages (or one page) are out before the indexes are rebuilt: push them now."""
        paths = [p for p in paths if p not in self._given]
        if not paths:
            return
        self._given.update(paths)
        if self.changed(paths, stamps):
            # Let the event-stream threads take the GIL and send it before this thread goes on
            # with the indexes; otherwise the event waits for a switch (≈ 5 ms, or more).
            time.sleep(PUSH_YIELD_S)

    def _report(self, res: BuildResult) -> None:
        self.built(res)
        changed = [p for p in list(res.written) + list(res.deleted) if str(p) not in self._given]
        if changed:
            self.changed(changed, res.stamps)


def _outside(out: Path) -> Callable[[watchfiles.Change, str], bool]:
    """A watch filter that ignores the output folder (it may live inside the home) and the
    temporary files of atomic writes."""
    site = str(out.resolve())

    def keep(change: watchfiles.Change, path: str) -> bool:
        return not (path == site or path.startswith(site + os.sep) or path.endswith(".tmp"))

    return keep


def _to_warm(pages, catalog: Catalog, render_cache: RenderCache, state: State | None = None,
             limit: int = WARM_PER_TURN) -> dict:
    """Site pages → {(project, session): {transcript ids}} of those known to the catalog, not in
    the cache yet and (with ``state``) showing their transcript's last page: an earlier page never
    changes, so reading it needs no warm cache."""
    out: dict = {}
    n = 0
    by_name = {site_name(p.dir_name): p for p in catalog.projects}
    for page in pages:
        found = _transcript_of(page, by_name)
        if found is None:
            continue
        pdir, sid, tid, no = found
        if render_cache.has((pdir, sid, tid)):
            continue
        if state is not None:
            old = state.sessions.get((pdir, sid))
            saved = old.transcripts.get(tid) if old is not None else None
            if saved is None or not saved.pages or no != saved.last_page:
                continue
        out.setdefault((pdir, sid), set()).add(tid)
        n += 1
        if n >= limit:
            break
    return out


def _transcript_of(page: str, by_name: dict) -> tuple[str, str, str, int] | None:
    """A page's (project, session id, transcript id, page no) as the home names them (a long name
    has a short one on disk: layout.site_name), None when the catalog does not know it."""
    parsed = parse_page(page)
    project = by_name.get(parsed[0]) if parsed is not None else None
    if project is None:
        return None
    session = project.sessions.get(parsed[1])
    if session is None or site_name(session.id) != parsed[1]:
        session = next((s for s in project.sessions.values() if site_name(s.id) == parsed[1]), None)
    folder = page.rpartition("/")[0]
    for t in session.transcripts if session is not None else ():
        if transcript_dir(project.dir_name, session.id, t.id) == folder:
            return project.dir_name, session.id, t.id, parsed[3]
    return None


def _roots(home: Path) -> list[Path]:
    """The folders to watch: projects/, and teams/ and tasks/ (the team files a session page
    shows: source.sidefiles.team_stamp) once they exist."""
    return [home / "projects"] + [home / d for d in ("teams", "tasks") if (home / d).is_dir()]


def _projects_of(changes, home: Path, state: State | None) -> set[str] | None:
    """The project folders the changed paths lie in, with those of the sessions that name a changed
    team (``teams/<team>/…``, ``tasks/<team>/…``); None: something above them changed."""
    names: set[str] = set()
    teams: set[str] = set()
    for _, path in changes:
        under = _under(path, home)
        if under is None or len(under) < 2:
            return None
        if under[0] == "projects":
            names.add(under[1])
        else:
            teams.add(under[1])
    return names | _team_projects(state, teams) if teams else names


def _under(path: str, home: Path) -> list[str] | None:
    """``path`` split into its parts below ``home`` (None: not below it)."""
    for root in {str(home) + os.sep, str(home.resolve()) + os.sep, os.path.abspath(home) + os.sep}:
        if path.startswith(root):
            return path[len(root):].split(os.sep)
    return None


def _team_projects(state: State | None, teams: set[str] | None) -> set[str]:
    """The projects of the saved sessions that name one of ``teams`` (None: any team): their pages
    show the team's files (site.teampage), and their saved team stamp tells which changed."""
    found: set[str] = set()
    for (pdir, _), old in (state.sessions.items() if state is not None else ()):
        named = team_names(t.team for t in old.transcripts.values())
        if named and (teams is None or teams.intersection(named)):
            found.add(pdir)
    return found


class Printer(Follower):
    """A follower that reports on stderr: each update's counts, every error."""

    def __init__(self, home: Path, out: Path, opts: Options, quiet: bool = False):
        super().__init__(home, out, opts)
        self.quiet = quiet
        self.builds = 0

    def built(self, res: BuildResult) -> None:
        self.builds += 1
        for err in res.errors:
            print(f"ccreport: error: {err}", file=sys.stderr, flush=True)
        if not self.quiet and (res.written or res.deleted):
            print(f"ccreport: {time.strftime('%H:%M:%S')} {len(res.written)} written, {len(res.deleted)} deleted "
                  f"in {res.seconds * 1000:.0f} ms", file=sys.stderr, flush=True)
        if self.builds == 1 and not self.quiet:
            print(f"ccreport: watching {self.home / 'projects'} → {self.out / 'index.html'} (Ctrl-C to stop)",
                  file=sys.stderr, flush=True)

    def failed(self, message: str) -> None:
        print(f"ccreport: error: {message}", file=sys.stderr, flush=True)


def run_watch(home: Path, out: Path, opts: Options, quiet: bool = False) -> int:
    """The `ccreport watch` command: follow until Ctrl-C or SIGTERM, reporting each update."""
    printer = Printer(home, out, opts, quiet)
    # Both signals only ask to stop: the catch-up run (maybe a long first build) ends after the
    # session in hand, the watch between two updates, so no page is left half done.
    signal.signal(signal.SIGTERM, lambda signum, frame: printer.stop.set())
    signal.signal(signal.SIGINT, lambda signum, frame: printer.stop.set())
    printer.run()
    if printer.builds == 0:
        print("ccreport: stopped before the site was up to date", file=sys.stderr, flush=True)
        return 130
    if not quiet:
        print("ccreport: watch stopped", file=sys.stderr, flush=True)
    return 0
