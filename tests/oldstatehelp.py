"""The home the old-state fixtures (tests/oldstate/) were built from, and how they were made.

The fixtures are the state files of the code before the database (b2de99e): ``files`` has a file
per session, ``pack`` the pack (sessions.json); the first has a transcript of more than 250 prompts,
whose closed turns are in a turn file. Made by ``python tests/oldstatehelp.py DEST`` run with that
code (``git worktree add /tmp/old b2de99e``, then ``PYTHONPATH=/tmp/old`` and this file): the home
is rebuilt at test time, the state's stamps of it (inodes, mtimes) patched in (oldstate_site).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from incrhelp import lines_of
from util import make_home

PROJECT = "-home-u-proj"
SMALL = "aaaaaaaa-2222-3333-4444-555555555555"
LONG = "bbbbbbbb-2222-3333-4444-555555555555"
PAGE_SIZE = 10
# ``files``: one block of 250 closed turns (PART) and a few open ones; ``pack``: two small sessions
LONG_PROMPTS = {"files": 256, "pack": 4}
FIXTURES = Path(__file__).resolve().parent / "oldstate"


def old_home(root: Path, layout: str) -> Path:
    return make_home(root, {PROJECT: {f"{SMALL}.jsonl": lines_of(3, sid=SMALL),
                                      f"{LONG}.jsonl": lines_of(LONG_PROMPTS[layout], sid=LONG)}})


def _make(dest: Path) -> None:  # pragma: no cover (run by hand, with the old code)
    from ccreport.site import state
    from ccreport.site.build import Options, build
    for layout, pack_min in (("files", 32), ("pack", 2)):
        state.PACK_MIN = pack_min
        tmp = dest / f"tmp-{layout}"
        home = old_home(tmp / "home", layout)
        assert build(home, tmp / "site", Options(page_size=PAGE_SIZE, jobs=1)).errors == []
        shutil.copytree(tmp / "site" / ".ccreport", dest / layout, ignore=shutil.ignore_patterns("store", "lock"))
        shutil.rmtree(tmp)


if __name__ == "__main__":  # pragma: no cover
    _make(Path(sys.argv[1]))
