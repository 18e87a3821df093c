"""Issue 28, point 6 at the command line: a home without sessions says so (the README's first command
on a new machine, or the wrong folder), counts take the singular for one, and `list` pads its columns
by the width a terminal gives each character (a CJK title takes two columns a character)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from ccreport.inspect.listing import SessionRow, columns, fit, format_table
from ccreport.model.text import counted
from util import SAMPLE_HOME


def run(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_HOME", "CLAUDE_CONFIG_DIR")}
    return subprocess.run([sys.executable, "-m", "ccreport", *args], capture_output=True, text=True, env=env)


def test_empty_projects_folder_builds_the_empty_site_and_says_why(tmp_path):
    home = tmp_path / "home"
    (home / "projects").mkdir(parents=True)
    r = run("build", "--home", str(home), "--out", str(tmp_path / "site"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert f"no sessions found in {home / 'projects'} — is this the Claude home? Give it with --home" in r.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert "0 projects · 0 sessions" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_missing_projects_folder_says_how_to_name_the_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = run("build", "--home", str(home), "--out", str(tmp_path / "site"))
    assert r.returncode == 2
    assert "no projects/ folder in the Claude home" in r.stderr and "--home or CLAUDE_HOME" in r.stderr


def test_counts_are_singular_for_one():
    assert counted(1, "prompt") == "1 prompt" and counted(2, "prompt") == "2 prompts"
    assert counted(0, "malformed line") == "0 malformed lines" and counted(1, "malformed line") == "1 malformed line"
    assert counted("1,204", "session") == "1,204 sessions" and counted(1204, "session") == "1,204 sessions"
    assert counted(1, "match", "matches") == "1 match" and counted(3, "match", "matches") == "3 matches"


def test_build_summary_says_one_malformed_line(tmp_path):
    r = run("build", "--home", str(SAMPLE_HOME), "--out", str(tmp_path / "site"), "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert ", 1 malformed line in " in r.stderr and "2 sessions with prompts only" in r.stderr
    assert "1 malformed lines" not in r.stderr


def _row(title: str, project: str = "/home/u/p") -> SessionRow:
    return SessionRow(id="s" * 8, project=project, project_dir="-home-u-p", title=title,
                      last_activity="2026-10-01T10:00:00Z", messages=3, agents=0, size=2048, empty=False,
                      warmup=False)


def test_list_columns_line_up_with_cjk_titles():
    rows = [_row("zshの起動が遅い（約2秒）。原因を調べて"), _row("plain ascii title"), _row("Ünïcödé ✓ mixed 日本")]
    lines = format_table(rows).splitlines()
    # The column after the title starts at the same terminal column on every line.
    starts = [columns(line[: line.index("2026-10-01") if "2026" in line else line.index("LAST ACTIVITY")])
              for line in lines]
    assert len(set(starts)) == 1, lines


def test_fit_cuts_by_columns():
    cut = fit("原因を調べて速くしてください", 9)
    assert cut.endswith("…") and columns(cut) <= 9 and cut.startswith("原因を調")
    assert fit("/very/long/project/path", 10, from_end=True) == "…ject/path"
    assert columns("e\u0301") == 1 and columns("日本") == 4


def test_help_and_docs_describe_the_json_instead_of_naming_unknown_things():
    r = run("tail", "--help")
    assert r.returncode == 0 and "totalLines" in r.stdout and "seed-" not in r.stdout


def test_format_notes_are_cited_from_the_repository():
    """Comments cite docs/formats.md's sections (F1…), never a FORMAT.md outside the repository."""
    root = SAMPLE_HOME.parent
    notes = (root / "docs" / "formats.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^### (F\d+)\. ", notes, re.M))
    assert {f"F{i}" for i in range(1, 9)} <= sections
    texts = [p for p in (root / "ccreport").rglob("*.py")] + list((root / "docs").glob("*.md")) + [root / "README.md"]
    cited = set()
    for p in texts:
        text = p.read_text(encoding="utf-8")
        assert "FORMAT.md" not in text and "seed-00" not in text, p
        for group in re.findall(r"docs/formats\.md ((?:F\d+(?:[–,] ?)?)+)", text):
            cited.update(re.findall(r"F\d+", group))
    assert cited and cited <= sections, cited - sections
