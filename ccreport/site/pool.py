"""The build's sessions, run in worker processes (``--jobs``) or in this one: each job's outcome in
job order. A full build forks its workers early (``Workers``, site.build): the copy into the store
starts with them and runs on the core the main process leaves idle while it scans the summary lines
and plans the sessions.
"""

from __future__ import annotations

from ccreport.site.session import SessionJob, run_job
from ccreport.site.siblings import for_worker, project_ids, start_worker


class Interrupted(Exception):
    """The build was asked to stop (Follow.stop) between two sessions; nothing was saved."""


class Workers:
    """A pool of ``n`` worker processes, forked at once; ``started()`` is called once they are
    (the copy into the store: site.keep.start_copy). ``sessions``: every session a job may belong
    to (the workers learn their projects' ids: site.siblings)."""

    def __init__(self, n: int, sessions, started) -> None:
        # (imported here: a one-process build, and every small home's, does without it: ~13 ms)
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(max_workers=n, mp_context=_forking(), initializer=start_worker,
                                         initargs=(project_ids(sessions),))
        self._pool.submit(int)  # (a fork start method forks every worker at the first task: now)
        started()

    def outcomes(self, jobs: list[SessionJob], stop):
        """Each job's outcome, in job order; the pool is shut down after the last."""
        try:
            for r in self._pool.map(run_job, map(for_worker, jobs), chunksize=1):
                if stop is not None and stop.is_set():
                    raise Interrupted()
                yield r
        except BaseException:
            self.drop()
            raise
        self._pool.shutdown()

    def drop(self) -> None:
        """Interrupted (Ctrl-C, a stop request, an error before the jobs): drop the sessions not
        started rather than finishing the whole build first. Written pages are complete (atomic
        writes)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def _forking():
    """Fork on Linux, whatever Python's default: the workers inherit the main process's loaded
    modules and frozen heap (start_worker), and they are forked before the copy thread starts
    (Workers, site.keep). Python 3.14 makes forkserver Linux's default, which would start each
    worker from a fresh interpreter. Elsewhere the platform's default (spawn on macOS)."""
    import multiprocessing
    import sys

    return multiprocessing.get_context("fork") if sys.platform == "linux" else None


def outcomes(jobs: list[SessionJob], n: int, stop, started, workers: Workers | None = None):
    """Each job's outcome, in job order: on ``workers`` when given, else on a pool forked now when
    ``n`` > 1 and there are several jobs, else in this process (``started()`` called at once)."""
    if workers is not None:
        return workers.outcomes(jobs, stop)
    if n <= 1 or len(jobs) <= 1:
        return _here(jobs, stop, started)
    return Workers(n, (j.session for j in jobs), started).outcomes(jobs, stop)


def _here(jobs: list[SessionJob], stop, started):
    started()
    for j in jobs:
        if stop is not None and stop.is_set():
            raise Interrupted()
        yield run_job(j)
