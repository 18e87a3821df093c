"""An export writes all its files or none, and only to a regular file path (issue 18, point 6)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import ccreport.fs
from ccreport.cli import cli
from ccreport.share.export import ExportError, ExportOptions
from ccreport.share.run import run_export
from exporthelp import SID, make_export_home
from faults import FullDisk, temporary_files
from util import assistant, make_home, user


def big_home(root):
    """One session long enough for several Markdown parts at --max-chars 2000."""
    lines, prev = [], None
    for i in range(30):
        lines.append(user(f"u{i}", f"prompt {i} " + "words " * 120, parent=prev, sid=SID))
        lines.append(assistant(f"a{i}", [{"type": "text", "text": f"answer {i} " + "more " * 120}], parent=f"u{i}",
                               sid=SID, mid=f"m{i}", rid=f"r{i}"))
        prev = f"a{i}"
    return make_home(root, {"-p": {f"{SID}.jsonl": lines}})


def md(max_chars: int = 2_000, agents: str = "inline") -> ExportOptions:
    return ExportOptions(format="md", max_chars=max_chars, agents=agents)


def test_a_markdown_export_that_fails_midway_leaves_no_part(tmp_path, monkeypatch):
    """The finding: parts 1-2 of 6 stayed behind."""
    home = big_home(tmp_path / "h")
    whole = tmp_path / "whole"
    whole.mkdir()
    run_export(home, SID, str(whole / "big.md"), md())
    parts = sorted(whole.glob("big.part*.md"))
    assert len(parts) >= 4
    room = sum(len(p.read_bytes()) for p in parts[:2]) + 10  # the disk fills during part 3
    out = tmp_path / "out"
    out.mkdir()
    (out / "big.part1.md").write_text("an earlier export, whole")  # stays as it was
    disk = FullDisk(room)
    monkeypatch.setattr(ccreport.fs, "open", disk.open, raising=False)
    with pytest.raises(ExportError) as caught:
        run_export(home, SID, str(out / "big.md"), md())
    assert "cannot write" in str(caught.value) and "No space" in str(caught.value)
    assert disk.failures == 1
    assert sorted(p.name for p in out.iterdir()) == ["big.part1.md"] and temporary_files(out) == []
    assert (out / "big.part1.md").read_text() == "an earlier export, whole"


def test_html_export_with_agent_files_is_all_or_none(tmp_path, monkeypatch):
    home = make_export_home(tmp_path / "h")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(ccreport.fs, "open", FullDisk(0, only=".agent-").open, raising=False)
    with pytest.raises(ExportError):
        run_export(home, SID, str(out / "s.html"), ExportOptions(format="html", agents="link"))
    assert list(out.iterdir()) == []
    monkeypatch.undo()
    files = run_export(home, SID, str(out / "s.html"), ExportOptions(format="html", agents="link"))
    assert len(list(out.iterdir())) == 2 and files


@pytest.mark.parametrize("target", ["/dev/null", "{tmp}", "{tmp}/sub/"])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_an_output_that_is_not_a_regular_file_is_refused(tmp_path, target, fmt):
    """The finding: `export --format md -o /dev/null` wrote /dev/null.part1.md."""
    home = big_home(tmp_path / "h")
    (tmp_path / "sub").mkdir()
    before = sorted(tmp_path.rglob("*"))
    out = target.format(tmp=tmp_path)
    res = CliRunner().invoke(cli, ["export", SID, "--home", str(home), "--format", fmt, "-o", out,
                                   "--max-chars", "2000"])
    assert res.exit_code == 2, res.output
    assert "not a regular file" in res.stderr
    assert sorted(tmp_path.rglob("*")) == before
    assert not list(tmp_path.parent.glob(f"{tmp_path.name}.part*"))
