"""A full build's term shards written by two processes. After the pool a pooled build (``--jobs``
≥ 2) has one core idle while the main process merges and writes the 256 shards (the larger part of
its serial tail: docs/benchmarks.md). So a child forked then takes shards from a queue (a pipe of
shard numbers, biggest first) while the main process writes the document files, the unit metadata
and the index pages, then takes the shards left. The child sends back what it wrote (the Writer's
record, IndexOut.keep) or its error, and the main process records that as its own or raises it,
before the state is saved. A ``--jobs 1`` build, or a small index, stays in one process.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
from pathlib import Path

from ccreport.site.search import SHARDS
from ccreport.site.searchfiles import IndexOut
from ccreport.site.searchindex import Fresh, end_fresh
from ccreport.site.write import Writer

# Shard bytes gathered below which one process writes them all: a fork and the pages it copies
# cost more than half of so small a merge saves.
SPLIT_BYTES = 1 << 20
# This process's resident size above which it writes the shards alone: a child forked from it is
# counted at nearly its size (its pages are shared until written, but resident in both), so a
# split of a 200 MB process (one 1 GB session) made the build's tree 381 MB for 1.5 s of 30.
SPLIT_MAX_RESIDENT = 100 << 20
_NUMBER = 2  # bytes of a shard number in the queue


def start(o: IndexOut, fresh: Fresh, jobs: int) -> Split | None:
    """The child forked when the build runs ``jobs`` ≥ 2, the shards are worth it and this process
    is small enough to copy; else None (searchindex.write_fresh writes them in this process)."""
    sizes = fresh.shard_bytes()
    if jobs < 2 or sum(sizes) < SPLIT_BYTES or resident() > SPLIT_MAX_RESIDENT:
        return None
    try:
        return Split(o, fresh, sorted(range(SHARDS), key=sizes.__getitem__, reverse=True))
    except OSError:  # (no fork: no process or memory to spare) this process writes them all
        return None


def resident() -> int:
    """This process's resident bytes now (Linux's /proc; 0 where there is none to read)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Split:
    """The forked child's side of the shards, seen from the main process: ``finish`` writes the
    shards it has not taken and joins it; ``abandon`` stops it when the build fails here."""

    def __init__(self, o: IndexOut, fresh: Fresh, order: list[int]) -> None:
        self.o, self.fresh = o, fresh
        self.queue, queue_in = os.pipe()
        # (512 bytes: within a pipe's buffer, so written whole before anyone reads)
        os.write(queue_in, b"".join(n.to_bytes(_NUMBER, "little") for n in order))
        os.close(queue_in)
        self.record, record_in = os.pipe()
        fresh.flush()  # (buffered bytes of the spill files would be the parent's alone)
        parent = os.getpid()
        try:
            self.pid = os.fork()
        except OSError:
            for fd in (self.queue, self.record, record_in):
                os.close(fd)
            raise
        if self.pid == 0:
            os.close(self.record)
            _child(o.out, fresh, self.queue, record_in, parent)
        os.close(record_in)

    def finish(self) -> None:
        """The shards left written here, the child's record joined (its error raised), the spill
        files closed, then the delta and the removal of stale shards (end_fresh)."""
        try:
            self.fresh.write(self.o, _taken(self.queue, None))
        except BaseException:
            self.abandon()
            raise
        self.join()
        self.fresh.close()
        end_fresh(self.o)

    def join(self) -> None:
        """Wait for the child; what it wrote is recorded in ``o`` as if written here, or its error
        raised here (a child that died without a word: ChildProcessError)."""
        try:
            raw = _received(self.record)
        except BaseException:
            self.abandon()
            raise
        status = self._reap(None)
        answer = pickle.loads(raw) if raw else None
        if answer is not None and answer[0] == "failed":
            raise answer[1]
        if answer is None or status != 0:
            raise ChildProcessError(f"the process writing half of the search shards ended with status {status}")
        _, written, skipped, keep, deleted = answer
        self.o.writer.joined(written, skipped)
        self.o.keep.update(keep)
        self.o.deleted.extend(deleted)

    def abandon(self) -> None:
        """The build failed in this process: the child is killed and reaped (the files it wrote are
        whole, as a killed build leaves them; the spill files go with Fresh.close)."""
        if self.pid is not None:
            self._reap(signal.SIGKILL)

    def _reap(self, kill) -> int | None:
        """The child's exit code (negative: the signal that ended it), its pipes closed."""
        for fd in (self.queue, self.record):
            try:
                os.close(fd)
            except OSError:
                pass
        self.queue = self.record = -1
        if self.pid is None:
            return None
        if kill is not None:
            os.kill(self.pid, kill)
        pid, self.pid = self.pid, None
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _taken(queue: int, parent: int | None):
    """Shard numbers from the queue until it is empty (in the child: or its parent is gone)."""
    while parent is None or os.getppid() == parent:
        raw = os.read(queue, _NUMBER)
        if not raw:
            return
        yield int.from_bytes(raw, "little")


def _child(out: Path, fresh: Fresh, queue: int, record: int, parent: int):
    """The forked child: shards from the queue, then what it wrote (or its error) into ``record``.
    It never returns into the build it was forked from (os._exit: no cleanup of the parent's
    objects, its database connection, its buffers)."""
    code = 1
    try:
        gc.freeze()  # (what it inherits: traversed by its collections, and so copied, otherwise)
        writer = Writer(out)
        o = IndexOut(out, writer, [])
        try:
            fresh.write(o, _taken(queue, parent))
            answer = ("done", [str(p) for p in writer.written], writer.skipped, sorted(o.keep), o.deleted)
            code = 0
        except BaseException as exc:  # (the parent raises it: the build fails as it would in one process)
            answer = ("failed", exc)
        _send(record, answer)
    finally:
        os._exit(code)


def _send(fd: int, answer: tuple) -> None:
    try:
        raw = pickle.dumps(answer)
    except Exception as exc:  # (an error that does not pickle: its text)
        raw = pickle.dumps(("failed", RuntimeError(f"{answer[-1]!r} ({exc})")))
    view = memoryview(raw)
    try:
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:
        pass  # (the parent is gone)


def _received(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
