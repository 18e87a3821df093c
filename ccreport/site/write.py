"""Writing the site: atomic, skipped when the bytes are already there, and recorded.

Every file goes to a temporary name in its own folder and is moved into place with os.replace, so
a reader (a browser, the live server) never sees a half-written page. ``Writer.written`` lists the
files actually written in this run: incremental tests and watch notifications read it.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from ccreport.fs import atomic_write


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

    def joined(self, written: list[str], skipped: int) -> None:
        """What another process wrote into this site for this build (site.searchsplit's child),
        recorded as if written here."""
        self.written.extend(map(Path, written))
        self.skipped += skipped


def remove(path: Path, deleted: list) -> None:
    """Delete a site file, recorded in ``deleted`` (nothing when it is gone already)."""
    with suppress(FileNotFoundError):
        path.unlink()
        deleted.append(str(path))


def rmdir(path: Path) -> None:
    with suppress(OSError):
        path.rmdir()
