"""`ccreport export --gist` (issue 28.2): publishing through the GitHub CLI, with a stand-in `gh` on PATH
that records what it was asked (its arguments and the files it was given) and prints a gist URL."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from exporthelp import CWD, SID, make_export_home
from planted import SECRETS

URL = "https://gist.github.com/tester/0123456789abcdef0123456789abcdef"
GH = f"""#!{sys.executable}
import json, os, sys
args = sys.argv[1:]
if args[:2] == ["auth", "status"]:
    sys.exit(int(os.environ.get("GH_STUB_AUTH", "0")))
files = {{os.path.basename(a): open(a, encoding="utf-8").read() for a in args if os.path.isfile(a)}}
with open(os.environ["GH_STUB_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"argv": args, "files": files}}) + "\\n")
print("- Creating gist...", file=sys.stderr)
print("{URL}")
"""


@pytest.fixture
def gh(tmp_path):
    """A folder holding the stand-in gh, and the log of its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    return bin_dir, tmp_path / "gh-calls.jsonl"


def _run(home, gh, *args, auth=0, path=None):
    bin_dir, log = gh
    env = {"PATH": path if path is not None else f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "GH_STUB_LOG": str(log), "GH_STUB_AUTH": str(auth)}
    return CliRunner().invoke(cli, ["export", SID, "--home", str(home), "--gist", *args], env=env)


def _calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def test_html_goes_to_a_secret_gist_and_the_url_is_printed(tmp_path, gh):
    home = make_export_home(tmp_path / "h")
    res = _run(home, gh)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == URL
    (call,) = _calls(gh[1])
    argv = call["argv"]
    assert argv[:2] == ["gist", "create"] and "--public" not in argv
    (name, html), = call["files"].items()
    assert name.endswith(".html") and "PROMPT-MARK-1" in html and "FINAL-MARK-6" in html
    # what is published is redacted: no planted secret, no home path
    assert SECRETS["github-token"] not in html and SECRETS["stripe-key"] not in html and CWD not in html
    assert "secret gist" in res.stderr and URL in res.stderr


def test_public_markdown_parts_go_to_one_gist(tmp_path, gh):
    home = make_export_home(tmp_path / "h")
    res = _run(home, gh, "--format", "md", "--max-chars", "2000", "--public")
    assert res.exit_code == 0, res.output
    (call,) = _calls(gh[1])
    assert "--public" in call["argv"]
    names = list(call["files"])
    assert len(names) > 2 and all(n.endswith(".md") for n in names)
    # every part is a file of the same gist, in part order
    parts = [n for n in call["argv"] if n.endswith(".md")]
    assert [int(p.rsplit(".part", 1)[1][:-3]) for p in parts] == list(range(1, len(parts) + 1))
    whole = "".join(call["files"][os.path.basename(p)] for p in parts)
    assert "PROMPT-MARK-1" in whole and "FINAL-MARK-6" in whole and SECRETS["github-token"] not in whole


def test_the_summary_is_one_gist_file(tmp_path, gh):
    res = _run(make_export_home(tmp_path / "h"), gh, "--summary")
    assert res.exit_code == 0, res.output
    (call,) = _calls(gh[1])
    (name, md), = call["files"].items()
    assert name.endswith(".summary.md") and "1. Prompt" in md


def test_gh_missing_says_what_to_do(tmp_path, gh):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    res = _run(make_export_home(tmp_path / "h"), gh, path=str(empty))
    assert res.exit_code != 0 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "install gh" in lines[0] and "gh auth login" in lines[0]


def test_gh_not_logged_in_says_what_to_do(tmp_path, gh):
    res = _run(make_export_home(tmp_path / "h"), gh, auth=1)
    assert res.exit_code != 0 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "not logged in" in lines[0] and "gh auth login" in lines[0]
    assert _calls(gh[1]) == []  # nothing was published


def test_public_without_gist_and_gist_with_out_are_refused(tmp_path, gh):
    home = make_export_home(tmp_path / "h")
    res = CliRunner().invoke(cli, ["export", SID, "--home", str(home), "--public"])
    assert res.exit_code == 2 and "--gist" in res.stderr
    res = _run(home, gh, "-o", str(tmp_path / "x.html"))
    assert res.exit_code == 2 and _calls(gh[1]) == []
