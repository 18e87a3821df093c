"""A site built from a copy of sample_home, then a session deleted from the copy: what the reads
that take --site must still find in the site's archive (issue 26, "the archive everywhere")."""

from __future__ import annotations

import shutil
from pathlib import Path

from ccreport.site.build import Options, build
from util import SAMPLE_HOME

LOST = "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"  # alice's webshop session: 3 prompts, sub-agents
LOST_AGENT = "a3840a7bfdeb9696c"
LOST_MAIN = Path("projects/-home-alice-webshop") / f"{LOST}.jsonl"


def copy_home(root: Path) -> Path:
    home = root / "home"
    shutil.copytree(SAMPLE_HOME, home)
    return home


def build_site(home: Path, site: Path, **opts) -> Path:
    build(home, site, Options(jobs=1, **opts))
    return site


def lose(home: Path) -> None:
    """Delete the session's files from the home (its transcript and its folder of sub-agents)."""
    (home / LOST_MAIN).unlink()
    shutil.rmtree(home / LOST_MAIN.with_suffix(""))
