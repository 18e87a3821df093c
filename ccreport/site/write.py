"""Writing the site: atomic, skipped when the bytes are already there, and recorded.

Every file goes to a temporary name in its own folder and is moved into place with os.replace, so
a reader (a browser, the live server) never sees a half-written page. ``Writer.written`` lists the
files actually written in this run: incremental tests and watch notifications read it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


class Writer:
    def __init__(self, out: Path):
        self.out = out
        self.written: list[Path] = []
        self.skipped = 0

    def write(self, rel: str | Path, data: str | bytes) -> bool:
        """Write ``data`` to out/rel unless identical bytes are there. True when written."""
        path = self.out / rel
        raw = data.encode("utf-8") if isinstance(data, str) else data
        try:
            if path.stat().st_size == len(raw) and path.read_bytes() == raw:
                self.skipped += 1
                return False
        except OSError:
            pass
        atomic_write(path, raw)
        self.written.append(path)
        return True


def atomic_write(path: Path, raw: bytes) -> None:
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
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
