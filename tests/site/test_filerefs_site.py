"""File references (issue 28.5) on the site: the corpus session with 19 links such as
``[next.config.js](next.config.js:190:4-201:6)`` shows each as the file's name and lines, on its pages and in
its outline's answer lines, and none as its Markdown source."""

from __future__ import annotations

import re

SESSION = "9e953218-585f-4692-89df-9e0747a31c68"
SOURCE = re.compile(r"\]\((?:cci:\d+://)?[^()\s]*:\d+(?::\d+)?(?:-\d+(?::\d+)?)?\)")


def test_corpus_file_references_show_name_and_lines(corpus_site):
    out, _ = corpus_site
    folder = next(out.glob(f"p/*/{SESSION}"))
    pages = sorted(folder.glob("page-*.html"))
    refs = [r for p in pages for r in re.findall(r'<code class="fref" title="[^"]*">([^<]*)</code>',
                                                  p.read_text(encoding="utf-8"))]
    assert len(refs) == 19 and "next.config.js:190–201" in refs and "vercel.json:3" in refs
    for page in folder.glob("*.html"):  # the transcript pages and the overview with its outline
        assert not SOURCE.search(page.read_text(encoding="utf-8")), page.name
    assert "next.config.js:190–201" in (folder / "index.html").read_text(encoding="utf-8")
