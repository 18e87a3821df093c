"""An export's title is the session's true title (issue 25, point 5): a summary line titles the
session holding its leaf, not the file it is in."""

from __future__ import annotations

from click.testing import CliRunner

from ccreport.cli import cli


def _first_heading(home, sid: str, *extra) -> str:
    res = CliRunner().invoke(cli, ["export", sid, "--home", str(home), "--format", "md", "-o", "-", *extra],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return next(ln for ln in res.output.splitlines() if ln.startswith("# "))


def test_export_titles_follow_summary_leaves(corpus_home):
    # aa5c5ada holds the leaf of a summary line written in 37f83ec9's file
    assert _first_heading(corpus_home, "aa5c5ada-4f1e-4b7f-9d1f-c496b3badde5") == (
        "# Cache Version Compatibility Tests Added")
    # 37f83ec9's own summary lines name other sessions' messages: its first prompt titles it
    head = _first_heading(corpus_home, "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8")
    assert "Centralizing Project Name Logic" not in head
    assert head.startswith("# Hey Claude, please have a look at the git diff")
