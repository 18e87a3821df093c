"""The archive builds from the real corpus with nothing lost and no broken link."""

from util import site_text


def test_corpus_builds_without_errors(corpus_site):
    out, res = corpus_site
    assert res.errors == []
    assert res.sessions > 40 and res.transcripts == 99
    assert (out / "index.html").is_file()
    assert "claude_p" in site_text(out / "p" / "-src-experiments-claude_p")
