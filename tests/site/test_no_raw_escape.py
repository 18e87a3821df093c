"""No page shows a raw escape character: ANSI in system, hook and tool text becomes colours (the
original, when kept, is folded with ESC written as \\u001b). Checked on every page of the sample home
and of the shared corpus, whose hook lines carry ``\\x1b[1mPostToolUse:MultiEdit\\x1b[22m``."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("which", ["sample_site", "corpus_site"])
def test_no_page_holds_a_raw_escape(which, request):
    site, _ = request.getfixturevalue(which)
    pages = sorted(site.rglob("*.html"))
    assert pages
    raw = [str(p.relative_to(site)) for p in pages if "\x1b" in p.read_text(encoding="utf-8")]
    assert raw == []


def test_corpus_hook_lines_are_coloured(corpus_site):
    site, _ = corpus_site
    text = "".join(p.read_text(encoding="utf-8") for p in site.rglob("page-*.html"))
    assert '<span class="ansi-b">PostToolUse:MultiEdit</span>' in text
