#!/usr/bin/env python3
"""Build sample_home and photograph the gallery session (docs/gallery.png).

    .venv/bin/python scripts/screenshot_gallery.py [--out docs/gallery.png] [--full] [--page N]

Uses Playwright for Python with Debian's chromium (/usr/bin/chromium; never `playwright install`).
A few tool calls are opened first so the picture shows diffs, code and terminal output.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ccreport.site.build import Options, build  # noqa: E402

SID = "9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21"
OPEN = ("Edit", "Read", "Bash", "TodoWrite", "TaskList", "Grep")  # first call of each is opened for the picture
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "docs" / "gallery.png"))
    ap.add_argument("--page", type=int, default=1)
    ap.add_argument("--full", action="store_true", help="whole page with every <details> open")
    ap.add_argument("--width", type=int, default=1100)
    ap.add_argument("--height", type=int, default=2400)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="render-gallery-") as tmp:
        site = Path(tmp)
        build(ROOT / "sample_home", site, Options(jobs=1))
        page_file = site / "p" / "-home-demo-gallery" / SID / f"page-{args.page:04d}.html"
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            pg = b.new_page(viewport={"width": args.width, "height": args.height}, color_scheme="light")
            pg.goto(page_file.as_uri())
            if args.full:
                pg.eval_on_selector_all("details", "els => els.forEach(e => e.open = true)")
            else:
                for name in OPEN:
                    pg.eval_on_selector(f'details.tool[data-tool="{name}"]', "e => e.open = true")
            pg.screenshot(path=args.out, full_page=args.full)
            b.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
