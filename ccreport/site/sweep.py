"""Temporary files a killed writer left in the site (issue 29, point 7): ``fs.atomic_write``'s
``.<name>.<pid>.<thread>.tmp`` anywhere in the site, ``.ccreport/`` and the store inside it
included, and the search index's spill files (``.ccreport/search-spill-*``).

Swept as a build starts when the build before it did not end (its mark, ``.ccreport/building``,
is still there: a build writes it first and removes it last) and on every full build; not on every
build, since a walk of a large site costs ~10 ms per 1,000 files. The writer holds the site's lock
(site.lock), so no other process writes into the site, and its own threads and workers have not
started writing yet; a name of this very process, or of any process still running, is left alone
all the same. A store given with ``--store`` elsewhere is not swept (another site's build may be
writing it)."""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from ccreport.fs import TMP_NAME
from ccreport.layout import STATE_DIR
from ccreport.site.search import SPILL_PREFIX


MARK = "building"


def begin(out: Path, full: bool) -> None:
    """A build starts: sweep if the last one was killed (or this one is full), then mark it."""
    mark = out / STATE_DIR / MARK
    if full or mark.exists():
        sweep(out)
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.touch()


def end(out: Path) -> None:
    """The build ended (its own temporary files are gone: fs removes one whose write failed)."""
    with suppress(FileNotFoundError):
        (out / STATE_DIR / MARK).unlink()


def stale_temp(name: str, folder: str, state_dir: str) -> bool:
    m = TMP_NAME.fullmatch(name)
    if m is not None:
        return not _alive(int(m.group(1)))
    return folder == state_dir and name.startswith(SPILL_PREFIX)


def _alive(pid: int) -> bool:
    """This process, or one that still runs (a worker of a killed build finishing its page; a pid
    taken again by another process only keeps a file until a later build)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # another user's process: it runs
    return pid > 0


def sweep(out: Path) -> list[str]:
    """Remove the temporary files of writers gone; their paths."""
    removed = []
    state_dir = str(out / STATE_DIR)
    for folder, _, files in os.walk(out):
        for name in files:
            if name.endswith(".tmp") or name.startswith(SPILL_PREFIX):
                if stale_temp(name, folder, state_dir):
                    with suppress(FileNotFoundError):
                        os.unlink(os.path.join(folder, name))
                        removed.append(os.path.join(folder, name))
    return removed
