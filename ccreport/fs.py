"""Files written whole or not at all: the one atomic write every stage uses (pages, blobs, state,
exports)."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def atomic_file(path: Path, durable: bool = False):
    """A binary file to write; it replaces ``path`` whole when the block ends, and is removed when
    the block fails (a reader never sees a half-written file; a big export is streamed, not held).
    ``durable``: fsynced before it replaces ``path`` (the source store's manifests: a crash must not
    leave a manifest naming frames that never reached the disk)."""
    # Unique per process *and* thread: two threads writing one page (watch and a build) with a
    # shared temporary name would move each other's half-written file into place.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        try:
            fh = open(tmp, "wb")
        except FileNotFoundError:
            # The folder is made only when missing: a mkdir per file (most of them failing with
            # EEXIST) was a tenth of the system time of a cold build.
            path.parent.mkdir(parents=True, exist_ok=True)
            fh = open(tmp, "wb")
        with fh:
            yield fh
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise


def atomic_write(path: Path, raw: bytes, durable: bool = False) -> None:
    with atomic_file(path, durable) as fh:
        fh.write(raw)
