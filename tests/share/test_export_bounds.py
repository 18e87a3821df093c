"""The single-file export and the Markdown parts stay bounded on files of many tiny lines (issue 29
point 6): a run of empty or malformed lines is one counted row there too."""

from __future__ import annotations

import pytest

from ccreport.model.folds import MALFORMED_SHOWN
from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from shapes import PER_PAGE, SID, tiny_home

ASSETS = 1024 * 1024  # the inlined stylesheet and script, the header and footer


@pytest.mark.parametrize("kind,n", [("empty", 200_000), ("malformed", 20_000), ("meta", 20_000)])
def test_html_export_and_markdown_parts_are_bounded(tmp_path, kind, n):
    jsonl = tiny_home(tmp_path / "home", kind, n)
    html = tmp_path / "out.html"
    run_export(tmp_path / "home", SID, str(html), ExportOptions(format="html"))
    assert html.stat().st_size <= 3 * jsonl.stat().st_size + ASSETS
    assert html.stat().st_size <= ASSETS + PER_PAGE  # one row (and, malformed, its first lines)
    md = tmp_path / "out.md"
    run_export(tmp_path / "home", SID, str(md), ExportOptions(format="md"))
    parts = sorted(tmp_path.glob("out*.md"))
    assert len(parts) <= 3, [p.name for p in parts]  # (malformed: its 64 KB of raw text)
    text = "".join(p.read_text(encoding="utf-8") for p in parts)
    if kind == "empty":
        assert f"{n:,} empty line(s), lines 1–{n:,}" in text
    elif kind == "malformed":
        k = MALFORMED_SHOWN
        assert f"{n - k:,} malformed lines {k + 1}–{n:,}" in text


def test_tiny_real_messages_export_within_three_times_plus_a_size_per_message(tmp_path):
    n = 3000
    jsonl = tiny_home(tmp_path / "home", "users", n)
    html = tmp_path / "out.html"
    run_export(tmp_path / "home", SID, str(html), ExportOptions(format="html"))
    assert html.stat().st_size <= 3 * jsonl.stat().st_size + ASSETS + PER_PAGE * (n // 50)
