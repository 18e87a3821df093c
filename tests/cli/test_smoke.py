"""The archive builds from the real corpus with nothing lost and no broken link."""

from util import site_text


def test_corpus_builds_without_errors(corpus_site):
    out, res = corpus_site
    assert res.errors == []
    assert res.sessions > 40 and res.transcripts == 99
    assert (out / "index.html").is_file()
    assert "claude_p" in site_text(out / "p" / "-src-experiments-claude_p")


def test_no_page_repeats_an_id(corpus_site, sample_site):
    """An id names one element: a repeated one breaks #anchors and the live page's merge."""
    import collections
    import re

    for site, _ in (corpus_site, sample_site):
        for page in site.rglob("*.html"):
            ids = collections.Counter(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))
            assert [k for k, v in ids.items() if v > 1] == [], page
