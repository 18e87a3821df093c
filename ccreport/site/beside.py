"""Work beside this process: one function run in a forked worker while the caller goes on. A full
build's serial end has one core idle while the search index's shards are merged (site.build): the
index pages are written beside it.

The function reaches the worker through the fork (the pool's initializer arguments are inherited,
not pickled), so it may hold anything this process has; what it returns comes back pickled.
"""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor

_work = None  # in the worker: the function given to Beside (set by _hold)


def _hold(work) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (Ctrl-C is the caller's to handle, as in the build's pool)
    global _work
    _work = work


def _run():
    return _work()


class Beside:
    """``work()`` started in a forked process; ``result()`` waits for what it returned (or raises
    what it raised)."""

    def __init__(self, work) -> None:
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"),
                                         initializer=_hold, initargs=(work,))
        self._future = self._pool.submit(_run)

    def result(self):
        try:
            return self._future.result()
        finally:
            self._pool.shutdown()
