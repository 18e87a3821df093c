"""File references (issue 28.5) in the single-file HTML and the Markdown export of the corpus session that
has 19 of them (``[next.config.js](next.config.js:190:4-201:6)``): the file's name and lines, never the
link's Markdown source, and what GitHub (cmark-gfm) shows of the Markdown the same."""

from __future__ import annotations

import io
import re

from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from exporthelp import github_view, md_problems

SESSION = "9e953218-585f-4692-89df-9e0747a31c68"
SOURCE = re.compile(r"\]\((?:cci:\d+://)?[^()\s]*:\d+(?::\d+)?(?:-\d+(?::\d+)?)?\)")
SHOWN = ("next.config.js:190–201", "vercel.json:20–24", "vercel.json:3", "next.config.js:184–186", "transformers.js")


def test_single_file_html_shows_names_and_lines(corpus_home, tmp_path):
    out = tmp_path / "s.html"
    run_export(corpus_home, SESSION, str(out), ExportOptions(format="html"))
    html = out.read_text(encoding="utf-8")
    assert not SOURCE.search(html)
    refs = re.findall(r'<code class="fref" title="[^"]*">([^<]*)</code>', html)
    assert len(refs) == 19 and all(s in refs for s in SHOWN)


def test_markdown_shows_names_and_lines_on_github(corpus_home):
    buf = io.StringIO()
    run_export(corpus_home, SESSION, "-", ExportOptions(format="md", max_chars=10_000_000), stdout=buf)
    md = buf.getvalue()
    text, problems = github_view(md)
    assert problems == [] and md_problems(md) == []
    assert not SOURCE.search(md) and not SOURCE.search(text)
    assert sum(text.count(s) for s in ("next.config.js:", "vercel.json:")) >= 16
    assert all(s in text for s in SHOWN) and "/Users/" not in md
