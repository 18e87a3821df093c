"""Issue 29, points 4 and 5: a name that is not UTF-8 (in every place a home lists) and a looping,
dangling or self-linked symlink inside a project skip that entry only, told once on stderr; the rest
of the home is built, listed and archived, on a fresh site and on an existing one; `serve` starts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ccreport.site.build import Options, build
from nameshome import ALICE, ALICE_SID, add_broken_links, add_undecodable_names
from util import SAMPLE_HOME, assistant, user, write_jsonl

CLI = [sys.executable, "-m", "ccreport"]


def _sample(tmp: Path) -> Path:
    home = tmp / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    return home


def _archived(site: Path) -> set[str]:
    from ccreport.source.store import Store

    return set(Store(site / ".ccreport").index["sessions"])


def _listed(site: Path) -> set[str]:
    """The session folders the site's project pages link."""
    return {p.parent.name for p in (site / "p").glob("*/*/index.html")}


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clean")
    build(SAMPLE_HOME, tmp / "site", Options(jobs=1))
    return _archived(tmp / "site"), _listed(tmp / "site")


def _path(line: str) -> str:
    """The entry a line of stderr is about ('ccreport: error: <path>: <what>')."""
    return line.split(": ")[2]


def _cli_build(home: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + ["build", "--home", str(home), "--out", str(site), "--quiet", "--jobs", "1"],
                          capture_output=True, text=True, errors="strict", timeout=600)


def test_names_that_are_not_utf8_are_told_once_and_the_rest_is_built_and_archived(tmp_path, clean):
    home = _sample(tmp_path)
    odd = add_undecodable_names(home)
    run = _cli_build(home, tmp_path / "site")
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr and "surrogates" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == len(set(lines)), "a problem told twice"
    for path in odd:
        shown = path.decode("utf-8", "backslashreplace")
        told = [ln for ln in lines if shown == _path(ln) or shown.startswith(_path(ln) + "/")]  # it, or its folder
        assert len(told) == 1, (shown, told)
        assert "not UTF-8, skipped" in told[0]
    archived, listed = clean
    assert _archived(tmp_path / "site") == archived and _listed(tmp_path / "site") == listed
    assert (tmp_path / "site" / "search" / "manifest.js").stat().st_size > 100
    # An incremental build tells them again, but for folders the store's copy skips as unchanged.
    again = _cli_build(home, tmp_path / "site")
    assert again.returncode == 1 and set(again.stderr.splitlines()) <= set(lines)
    assert any("sess-\\xfe.jsonl" in ln for ln in again.stderr.splitlines())
    assert _archived(tmp_path / "site") == archived and _listed(tmp_path / "site") == listed


def test_a_home_of_good_names_still_exits_0(tmp_path):
    run = _cli_build(_sample(tmp_path), tmp_path / "site")
    assert run.returncode == 0 and run.stderr == ""


def test_serve_starts_on_a_home_with_such_names(tmp_path):
    home = _sample(tmp_path)
    add_undecodable_names(home)
    add_broken_links(home / "projects" / ALICE)
    proc = subprocess.Popen(CLI + ["serve", "--home", str(home), "--out", str(tmp_path / "site"), "--port", "0",
                                   "--jobs", "1"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 120
        line = ""
        while "serving" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "serve stopped"
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.status == 200 and b"webshop" in resp.read()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _new_session(home: Path, sid: str) -> None:
    write_jsonl(home / "projects" / ALICE / f"{sid}.jsonl", [
        user("nu1", "a prompt after the links", sid=sid),
        assistant("na1", [{"type": "text", "text": "an answer after the links"}], parent="nu1", sid=sid)])


@pytest.mark.parametrize("existing", [False, True], ids=["fresh site", "existing site"])
def test_broken_symlinks_skip_only_themselves(tmp_path, clean, existing):
    home = _sample(tmp_path)
    site = tmp_path / "site"
    if existing:
        assert _cli_build(home, site).returncode == 0
    names = add_broken_links(home / "projects" / ALICE)
    _new_session(home, "new-after-links")
    run = _cli_build(home, site)
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    for name in names:
        told = [ln for ln in lines if f"/{ALICE}/{name}:" in ln]
        assert len(told) == 1 and told[0].endswith("skipped"), (name, lines)
    assert len(lines) == len(names), lines
    archived, listed = clean
    assert _archived(site) == archived | {f"{ALICE}/new-after-links"}
    assert _listed(site) == listed | {"new-after-links"}
    assert ALICE_SID in _listed(site)
    listing = subprocess.run(CLI + ["list", "--home", str(home), "--all"], capture_output=True, text=True, timeout=120)
    assert "new-after-links" in listing.stdout and ALICE_SID in listing.stdout


def test_names_that_are_not_utf8_added_to_an_existing_site(tmp_path, clean):
    home = _sample(tmp_path)
    site = tmp_path / "site"
    assert _cli_build(home, site).returncode == 0
    odd = add_undecodable_names(home)
    _new_session(home, "new-beside-odd-names")
    run = _cli_build(home, site)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert len(run.stderr.splitlines()) == len(set(run.stderr.splitlines())) >= len(odd) - 2  # (folders told once)
    archived, listed = clean
    assert _archived(site) == archived | {f"{ALICE}/new-beside-odd-names"}
    assert _listed(site) == listed | {"new-beside-odd-names"}
