"""`forget` and `build --prune-missing` leave no byte of the forgotten session anywhere in the
site's .ccreport/ (issue 26 point 1): the store's rows are deleted and the database vacuumed."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccreport.site.build import Options, build
from util import SAMPLE_HOME

PROJECT = "-Users-chika-dev-dotfiles"
SID = "fa85718f-1a31-5507-a654-e710c7269adb"


def _planted(tmp_path: Path) -> tuple[Path, bytes]:
    """The sample home, the session SID given a tool result of random bytes (they stay as they are
    in a zstandard frame, so they can be found in the database's file)."""
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    secret = random.Random(26).randbytes(30000)
    results = home / "projects" / PROJECT / SID / "tool-results"
    results.mkdir(parents=True)
    (results / "toolu_planted.txt").write_bytes(secret)
    return home, secret


def _found(folder: Path, needle: bytes) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes())


@pytest.mark.parametrize("how", ["forget", "prune-missing"])
def test_no_byte_of_a_forgotten_session_is_left(tmp_path, how):
    from ccreport.cli import cli

    home, secret = _planted(tmp_path)
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    shutil.rmtree(home / "projects" / PROJECT)
    assert build(home, out, Options(jobs=1)).errors == []
    state = out / ".ccreport"
    assert _found(state, secret[5000:5100]) and _found(state, b"toolu_planted")  # kept, before
    if how == "forget":
        r = CliRunner().invoke(cli, ["forget", SID, "--home", str(home), "--out", str(out)])
    else:
        r = CliRunner().invoke(cli, ["build", "--home", str(home), "--out", str(out), "--prune-missing", "-q", "-j", "1"])
    assert r.exit_code == 0, r.stderr
    for needle in (secret[:64], secret[5000:5100], secret[-64:], b"toolu_planted"):
        assert _found(state, needle) == [], needle
    assert not (out / "p" / PROJECT).exists()
