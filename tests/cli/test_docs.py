"""The README and docs/: the README's first commands work as written, it stays short, and every link of
the README and docs/ resolves inside the repository (nothing points at files a clone does not have)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from util import ROOT, SAMPLE_HOME

README = ROOT / "README.md"
PAGES = [README] + sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _first_commands() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    return [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page."""
    heads = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_readme_is_short_and_starts_with_install_and_test_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 130
    install, tests = _first_commands()
    assert "pip install" in install and "ccreport build --home sample_home" in install and "~/.claude" in install
    assert tests == "bash .ci/run"
    # .ci/run ends with the suite run the docs describe
    ci = (ROOT / ".ci" / "run").read_text()
    assert ".venv/bin/pip install -q -e '.[test]'" in ci and ci.rstrip().endswith(".venv/bin/python -m pytest -q")
    assert "docs/gallery.png" in "\n".join(lines[:40])  # a screenshot near the top


@pytest.mark.parametrize("with_claude_home", [False, True])
def test_readme_install_command_works_as_written(tmp_path, with_claude_home):
    """The first command, run in a scratch folder with the venv step replaced by this interpreter."""
    install = _first_commands()[0]
    prefix = "python3 -m venv .venv && .venv/bin/pip install -q . && "
    assert install.startswith(prefix)
    work, home = tmp_path / "clone", tmp_path / "home"
    (work / ".venv" / "bin").mkdir(parents=True)
    home.mkdir()
    (work / "sample_home").symlink_to(SAMPLE_HOME)
    exe = work / ".venv" / "bin" / "ccreport"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} -m ccreport \"$@\"\n")
    exe.chmod(0o755)
    if with_claude_home:
        (home / ".claude").symlink_to(SAMPLE_HOME)
    env = dict(os.environ, HOME=str(home), PYTHONPATH=str(ROOT))
    env.pop("CLAUDE_HOME", None)
    env.pop("CLAUDE_CONFIG_DIR", None)
    res = subprocess.run(["bash", "-c", install[len(prefix):]], cwd=work, env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert (work / "sample-site" / "index.html").is_file()
    assert (work / "claude-site" / "index.html").is_file() == with_claude_home


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves_inside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text and "/work/" not in text
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S)  # code shows Markdown, it does not link
    for target in LINK.findall(prose):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / unquote(path)).resolve() if path else page
        assert dest.is_relative_to(ROOT), (page.name, target)  # nothing outside the repository
        assert dest.exists(), (page.name, target)
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), (page.name, target)
