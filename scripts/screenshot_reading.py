#!/usr/bin/env python3
"""Build sample_home and photograph two reading features (issue 28): a sub-agent's page, titled by
its task with its prompt first (docs/subagent.png), and an Edit whose changed words are marked
inside its changed lines (docs/worddiff.png).

    .venv/bin/python scripts/screenshot_reading.py [--docs docs]

Uses Playwright for Python with Debian's chromium (/usr/bin/chromium; never `playwright install`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ccreport.site.build import Options, build  # noqa: E402

AGENT_PAGE = "p/-srv-bob-webshop/8155b4cc-d7e0-5ee8-8948-ff41164d3048/agent-48670e0e/page-0001.html"
GALLERY_PAGE = "p/-home-demo-gallery/9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21/page-0001.html"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", default=str(ROOT / "docs"))
    args = ap.parse_args()
    docs = Path(args.docs)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="render-reading-") as tmp:
        site = Path(tmp)
        build(ROOT / "sample_home", site, Options(jobs=1))
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            pg = b.new_page(viewport={"width": 1000, "height": 760}, color_scheme="light")
            pg.goto((site / AGENT_PAGE).as_uri())
            pg.screenshot(path=str(docs / "subagent.png"))
            pg.set_viewport_size({"width": 900, "height": 900})
            pg.goto((site / GALLERY_PAGE).as_uri())
            edit = pg.locator('details.tool[data-tool="Edit"]', has=pg.locator("pre.diff ins")).first
            edit.evaluate("e => e.open = true")
            edit.scroll_into_view_if_needed()
            edit.locator("pre.diff").first.screenshot(path=str(docs / "worddiff.png"))
            b.close()
    print(f"wrote {docs / 'subagent.png'} and {docs / 'worddiff.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
