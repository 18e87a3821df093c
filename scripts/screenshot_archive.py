#!/usr/bin/env python3
"""Photograph what a session the home lost looks like in the archive (docs/archive-kept.png, and
its project page: docs/archive-kept-project.png).

    .venv/bin/python scripts/screenshot_archive.py

Builds sample_home, deletes session 8155b4cc's files as Claude Code's cleanup would, builds again,
and takes the pictures with Debian's chromium through Playwright (never `playwright install`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ccreport.site.build import Options, build  # noqa: E402

PROJECT, SID = "-srv-bob-webshop", "8155b4cc-d7e0-5ee8-8948-ff41164d3048"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="archive-shot-") as tmp:
        home, site = Path(tmp) / "home", Path(tmp) / "site"
        shutil.copytree(ROOT / "sample_home", home, ignore=shutil.ignore_patterns("*.py"))
        build(home, site, Options(jobs=1))
        for f in (home / "projects" / PROJECT).glob("*.jsonl"):
            if f.name.startswith(SID) or SID in f.read_text(errors="replace")[:4096]:
                f.unlink()
        build(home, site, Options(jobs=1))
        shots = {"archive-kept.png": site / "p" / PROJECT / SID / "index.html",
                 "archive-kept-project.png": site / "p" / PROJECT / "index.html"}
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            pg = b.new_page(viewport={"width": 1100, "height": 620}, color_scheme="light")
            for name, page in shots.items():
                pg.goto(page.as_uri())
                if "project" in name:  # the filter and the rows, not the usage chart above them
                    pg.eval_on_selector("fieldset.kept-filter", "e => e.scrollIntoView()")
                pg.screenshot(path=str(ROOT / "docs" / name))
                print(f"wrote docs/{name}")
            b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
