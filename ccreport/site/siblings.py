"""Which sessions a project holds, as a session's job sees them: a fork's note links to its parent
only when the parent is in the archive. A pooled build's job carries its own session and not its
project's others (pickled with every job, they made a build quadratic in the sessions of a
project: 4,000 in one project took 392 s), so the workers get every project's session ids once,
through the pool's initializer; an in-process build looks at the catalog itself."""

from __future__ import annotations

import gc
import signal
from dataclasses import replace

from ccreport.source.home import Session

# project dir name -> the ids of its sessions; set in each pool worker by start_worker
_ids: dict[str, frozenset] = {}


def project_ids(sessions) -> dict[str, frozenset]:
    """Every project's session ids, for start_worker (sessions: those of the jobs)."""
    projects = {id(s.project): s.project for s in sessions}
    return {p.dir_name: frozenset(p.sessions) for p in projects.values()}


def start_worker(ids: dict[str, frozenset]) -> None:
    """A pool worker's initializer. Workers ignore Ctrl-C: the main process stops the build (and
    says so) instead of every worker printing its own KeyboardInterrupt traceback. What the worker
    inherits from the fork (modules, the catalog, the saved state: ~35,000 tracked objects on a
    146 MB home) is frozen out of its garbage collector, which traversed all of it in each full
    collection: 0.15-0.20 CPU s a worker there, 0.03 s frozen (it was the main process's to free)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    know(ids)


def know(ids: dict[str, frozenset]) -> None:
    """Tell this process every project's session ids (what start_worker does besides)."""
    _ids.clear()
    _ids.update(ids)


def for_worker(job):
    """The job (a site.session.SessionJob) with its session's project copied without the project's
    sessions: what a pooled build pickles for a worker."""
    s: Session = job.session
    return replace(job, session=replace(s, project=replace(s.project, sessions={})))


def in_project(s: Session, sid: object) -> bool:
    """Whether the session's project holds a session ``sid`` (in this process, or as a worker was told)."""
    return isinstance(sid, str) and (sid in s.project.sessions or sid in _ids.get(s.project.dir_name, ()))
