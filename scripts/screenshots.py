"""Chromium screenshots of a built site for docs/: the session outline and a grouped turn.

    python3 scripts/screenshots.py SITE PROJECT_DIR SESSION_ID [--out docs]

Uses Debian's chromium through Playwright (never `playwright install`)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("site", type=Path)
    ap.add_argument("project")
    ap.add_argument("session")
    ap.add_argument("--out", type=Path, default=Path("docs"))
    ap.add_argument("--turn", type=int, default=2, help="which prompt's turn to show (1-based)")
    a = ap.parse_args()
    folder = (a.site / "p" / a.project / a.session).resolve()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
                              args=["--no-sandbox", "--disable-gpu"])
        page = b.new_page(viewport={"width": 1100, "height": 1000}, device_scale_factor=1)
        page.goto((folder / "index.html").as_uri())
        page.locator("section.outline").screenshot(path=str(a.out / "outline.png"))
        href = page.locator("ol.turns > li a").nth(a.turn - 1).get_attribute("href")
        page.goto((folder / href.split("#")[0]).as_uri() + "#" + href.split("#")[1])
        page.wait_for_timeout(300)
        page.evaluate("id => { document.getElementById(id).scrollIntoView(); window.scrollBy(0, -70); }",
                      href.split("#")[1])
        page.screenshot(path=str(a.out / "turn.png"))
        b.close()


if __name__ == "__main__":
    main()
