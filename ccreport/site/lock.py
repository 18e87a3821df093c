"""One writer per site: ``build``, ``watch``, ``serve``, ``forget`` and ``restore`` hold
``<out>/.ccreport/lock`` while they write (two builds of different homes into one folder left a
mixed site that stayed wrong after a later clean build); given a ``--store`` of its own, a command
also holds ``<store>/lock``, so sites sharing one store write it one at a time. A second writer
says whom it waits for, waits a little, then gives up naming the holder.

The lock is an ``fcntl.flock`` on that file: the kernel drops it when its holder dies, even by
``kill -9``, so a stale lock is simply taken over. The file also says who holds it (pid, host,
command, start time) for the message a second writer prints. Where the file system has no flock
(some network mounts), the pid is checked instead: a dead pid on this host is a stale lock.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ccreport.layout import STATE_DIR

LOCK_NAME = "lock"
WAIT_S = 3.0  # a second writer waits this long for the first to finish, then gives up
_POLL_S = 0.1


class SiteLocked(Exception):
    """Another process writes this site; the message names it."""


@dataclass
class Holder:
    pid: int
    host: str
    command: str
    started: str  # local time, as a person reads it

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}, `{self.command}`, since {self.started}"


def _read_holder(path: Path) -> Holder | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Holder(int(data["pid"]), str(data["host"]), str(data["command"]), str(data["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # gone, or being written this instant


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process, alive
    return True


class SiteLock:
    """``with SiteLock(out, "build"):`` — raises SiteLocked when another writer holds the site
    for longer than ``wait`` seconds. ``on_wait(message)`` is called once when it has to wait."""

    def __init__(self, out: Path, command: str, wait: float = WAIT_S, on_wait=None):
        self.path = out / STATE_DIR / LOCK_NAME
        self.what = str(out)
        self.me = Holder(os.getpid(), socket.gethostname(), command, time.strftime("%Y-%m-%d %H:%M:%S"))
        self.wait = wait
        self.on_wait = on_wait
        self.fd: int | None = None
        self.made: list[Path] = []

    def __enter__(self) -> "SiteLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        # Folders made only for the lock go again on release (a build that stops at once, for a
        # missing home, leaves nothing behind).
        self.made = [d for d in (self.path.parent.parent, self.path.parent) if not d.exists()]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.wait
        told = self.on_wait is None
        while not self._try():
            holder = _read_holder(self.path)
            who = holder.describe() if holder else "another ccreport process"
            if time.monotonic() >= deadline:
                raise SiteLocked(f"{self.what} is being written by {who}; "
                                 f"wait for it to finish (or stop it), then run this again")
            if not told:
                self.on_wait(f"{self.what} is being written by {who}; waiting up to {self.wait:g} s")
                told = True
            time.sleep(_POLL_S)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, json.dumps(asdict(self.me)).encode("utf-8"), 0)

    def _try(self) -> bool:
        """True once this process holds the lock."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:  # its folder was just removed by a holder letting go
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except OSError as exc:
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                os.close(fd)
                raise
            if not self._stale_or_free():
                os.close(fd)
                return False
        # The previous holder removes the file as it lets go: a lock on that removed file would
        # not keep out the next writer, who creates a new one. Then try again on the new file.
        try:
            same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            return False
        self.fd = fd
        return True

    def _stale_or_free(self) -> bool:
        """Without flock: free when nobody is named, or the one named is a dead pid of this host."""
        holder = _read_holder(self.path)
        if holder is None or holder.pid == self.me.pid:
            return True
        return holder.host == self.me.host and not _alive(holder.pid)

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            self.path.unlink()  # removed while still held, so nobody takes a lock on a dying file
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None
        for folder in reversed(self.made):
            try:
                folder.rmdir()  # only when still empty
            except OSError:
                break


class StoreLock(SiteLock):
    """The source store's own lock (``<store>/lock``), taken after the site's by every command that
    writes the store: two sites sharing one ``--store`` are written one at a time."""

    def __init__(self, store: Path, command: str, wait: float = WAIT_S, on_wait=None):
        super().__init__(store, command, wait, on_wait)
        self.path = store / LOCK_NAME
        self.what = f"the archive {store}"
