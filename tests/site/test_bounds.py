"""Bounded on any shape (issue 29 point 6): a site is at most 3× its JSONL plus a fixed size per page,
whatever the lines; runs of empty or malformed lines and of one bookkeeping line fold into one
counted row, so such a file makes a page or two, not thousands. (The 2-million-line figures:
benchmarks/shapes.py, docs/benchmarks.md.)"""

from __future__ import annotations

import pytest

from ccreport.model.folds import MALFORMED_SHOWN
from ccreport.site.build import Options, build
from shapes import PER_PAGE, SID, tiny_home, tree_size
from util import page_text

SHAPES = {"empty": 200_000, "malformed": 20_000, "meta": 20_000, "users": 3_000}


@pytest.mark.parametrize("kind", list(SHAPES))
def test_site_is_at_most_three_times_its_jsonl_plus_a_fixed_size_per_page(tmp_path, kind):
    jsonl = tiny_home(tmp_path / "home", kind, SHAPES[kind])
    build(tmp_path / "home", tmp_path / "site", Options(jobs=1))
    size, pages = tree_size(tmp_path / "site")
    assert size <= 3 * jsonl.stat().st_size + PER_PAGE * pages, (size, pages)
    transcript_pages = list((tmp_path / "site").rglob("page-*.html"))
    if kind != "users":  # a folded run is one row: one page for the whole file
        assert len(transcript_pages) == 1
    else:  # real messages: one each, 50 to a page
        assert len(transcript_pages) == SHAPES[kind] // 50


def test_the_folded_row_says_how_many_lines_it_holds(tmp_path):
    tiny_home(tmp_path / "home", "empty", 20_000)
    head = b"not json\n" * 5
    tiny_home(tmp_path / "home2", "malformed", 1000, head=head)
    k = MALFORMED_SHOWN
    build(tmp_path / "home", tmp_path / "site", Options(jobs=1))
    build(tmp_path / "home2", tmp_path / "site2", Options(jobs=1))
    (page,) = (tmp_path / "site").rglob("page-*.html")
    assert "20,000 empty lines (lines 1–20,000" in page_text(page)
    (page,) = (tmp_path / "site2").rglob("page-*.html")
    text = page_text(page)
    assert text.count("could not be read") == k + 1  # the first lines on their own, then the run of the rest
    assert f"{1005 - k:,} lines that could not be read (lines {k + 1}–1,005" in text
    assert SID[:8] in text
