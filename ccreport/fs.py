"""Files written whole or not at all: the one atomic write every stage uses (pages, blobs, state,
exports), and its form for several files that go into place together (an export's parts)."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from contextlib import contextmanager, suppress
from pathlib import Path

# A temporary name adds ~40 bytes to the file's own: a longer name is replaced by its hash there
# (file systems refuse names over 255 bytes; a 230-character project folder failed every build).
_TMP_NAME_BYTES = 180


class WriteError(OSError):
    """Writing a file failed (full disk, read-only folder…): callers say "cannot write", never
    "cannot read", and ``filename`` names the file that was being written."""


# What _tmp_path names: ".<name or its hash>.<pid>.<thread id>.tmp" (site.sweep removes those a killed
# writer left).
TMP_NAME = re.compile(r"\..+\.(\d+)\.\d+\.tmp", re.S)


def _tmp_path(path: Path) -> Path:
    name = path.name
    if len(name.encode("utf-8", "surrogateescape")) > _TMP_NAME_BYTES:
        name = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    # Unique per process *and* thread: two threads writing one page (watch and a build) with a
    # shared temporary name would move each other's half-written file into place.
    return path.with_name(f".{name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _open_new(tmp: Path, path: Path, buffering: int = -1):
    try:
        return open(tmp, "wb", buffering=buffering)
    except FileNotFoundError:
        # The folder is made only when missing: a mkdir per file (most of them failing with
        # EEXIST) was a tenth of the system time of a cold build.
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return open(tmp, "wb", buffering=buffering)
        except OSError as exc:
            raise WriteError(exc.errno, exc.strerror, str(path)) from exc
    except OSError as exc:
        raise WriteError(exc.errno, exc.strerror, str(path)) from exc


class Batch:
    """Files that go into place together (an export's parts): each is written to a temporary name
    beside its place; ``commit`` moves them all, ``abort`` removes them all (all_or_none)."""

    def __init__(self):
        self.pending: list[tuple[Path, Path]] = []  # (temporary, final)

    @contextmanager
    def file(self, path: Path, durable: bool = False):
        """A binary file to write; it goes into place on ``commit`` (``durable``: fsynced first)."""
        tmp = _tmp_path(path)
        fh = _open_new(tmp, path)
        self.pending.append((tmp, path))
        with fh:
            yield fh
            try:
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise WriteError(exc.errno, exc.strerror, str(path)) from exc

    def commit(self) -> None:
        for tmp, path in self.pending:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise WriteError(exc.errno, exc.strerror, str(path)) from exc
        self.pending = []

    def abort(self) -> None:
        for tmp, _ in self.pending:
            with suppress(OSError):
                tmp.unlink()
        self.pending = []


@contextmanager
def all_or_none():
    """A Batch: every file written in the block is in place when it ends, none when it fails."""
    batch = Batch()
    try:
        yield batch
        batch.commit()
    except BaseException:
        batch.abort()
        raise


@contextmanager
def atomic_file(path: Path, durable: bool = False):
    """A binary file to write; it replaces ``path`` whole when the block ends, and is removed when
    the block fails (a reader never sees a half-written file; a big export is streamed, not held).
    A failure of the file itself (creating, flushing, moving it into place) is a WriteError.
    ``durable``: fsynced before it replaces ``path`` (the source store's manifests: a crash must not
    leave a manifest naming frames that never reached the disk)."""
    with all_or_none() as batch, batch.file(path, durable) as fh:
        yield fh


def atomic_write(path: Path, raw: bytes, durable: bool = False) -> None:
    """``raw`` as the whole of ``path`` (atomic_file's contract), in one unbuffered write: no
    buffer object, context managers or terminal check per file (a site has thousands of files).
    ``durable``: fsynced before it replaces ``path`` (the source store's manifests)."""
    tmp = _tmp_path(path)
    fh = _open_new(tmp, path, buffering=0)
    try:
        with fh:
            view = memoryview(raw)
            while view:  # (a raw write may take only part of the bytes)
                view = view[fh.write(view):]
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            raise WriteError(exc.errno, exc.strerror, str(path)) from exc
        raise
