#!/usr/bin/env python3
"""Photograph a session's `ccreport export --summary` as GitHub shows it (docs/summary.png): the Markdown
rendered by cmark-gfm (GitHub's parser), in a page styled like a GitHub comment, with its folds
opened.

    .venv/bin/python scripts/screenshot_summary.py --home /path/to/claude-home SESSION [--out docs/summary.png]

Uses Playwright for Python with Debian's chromium (/usr/bin/chromium; never `playwright install`).
"""

from __future__ import annotations

import argparse
import html
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ccreport.share.export import ExportOptions  # noqa: E402
from ccreport.share.run import run_export  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
CSS = """body{font:14px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;max-width:860px;
margin:24px auto;padding:16px 24px;border:1px solid #d1d9e0;border-radius:6px}
h1{font-size:2em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em}h2{font-size:1.5em}h3{font-size:1.25em}
h4{font-size:1em}h5{font-size:.875em}h6{font-size:.85em;color:#59636e}
blockquote{margin:0;padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}
code{background:#eff1f3;border-radius:6px;padding:.2em .4em;font-size:85%}summary{cursor:pointer}"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("session")
    ap.add_argument("--home", required=True)
    ap.add_argument("--out", default=str(ROOT / "docs" / "summary.png"))
    ap.add_argument("--height", type=int, default=1500)
    args = ap.parse_args()
    import cmarkgfm
    from playwright.sync_api import sync_playwright

    buf = io.StringIO()
    run_export(Path(args.home), args.session, "-", ExportOptions(format="md", summary=True), stdout=buf)
    body = cmarkgfm.github_flavored_markdown_to_html(buf.getvalue(), options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE)
    page = f"<!doctype html><meta charset=utf-8><title>{html.escape(args.session)}</title><style>{CSS}</style>{body}"
    with tempfile.TemporaryDirectory(prefix="summary-shot-") as tmp, sync_playwright() as pw:
        path = Path(tmp) / "summary.html"
        path.write_text(page, encoding="utf-8")
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 940, "height": args.height})
        tab.goto(path.as_uri())
        tab.evaluate("document.querySelectorAll('details').forEach(d => d.setAttribute('open', ''))")
        tab.screenshot(path=args.out)
        browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
