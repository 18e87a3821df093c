"""Issue 29, point 7: temporary files a killed build left (with its mark, .ccreport/building) (``fs.atomic_write``'s
``.<name>.<pid>.<thread>.tmp`` anywhere in the site, ``.ccreport/`` and its store included, and the
search index's spill files) are removed by the next build, incremental or full; a temporary file of
a writer still running is not touched."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccreport.fs import atomic_write
from util import SAMPLE_HOME

CLI = [sys.executable, "-m", "ccreport"]


def _build(home: Path, site: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + ["build", "--home", str(home), "--out", str(site), "--quiet", "--jobs", "1", *extra],
                          capture_output=True, text=True, timeout=600)


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _temps(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*")
            if p.is_file() and (p.name.endswith(".tmp") or p.name.startswith("search-spill-"))}


def _plant(site: Path, pid: int) -> set[str]:
    """Temporary names of a writer ``pid`` in every kind of place of a built site."""
    page = next(site.glob("p/*/*/page-0001.html"))
    places = [page.parent / f".{page.name}.{pid}.140213.tmp", site / f".index.html.{pid}.1.tmp",
              site / "search" / f".manifest.js.{pid}.7.tmp", next(site.glob("assets/*")).parent / f".app.js.{pid}.2.tmp",
              site / ".ccreport" / f".state.json.{pid}.3.tmp", site / ".ccreport" / f".index.json.{pid}.4.tmp",
              page.parent / f".{'0' * 32}.{pid}.5.tmp",  # (a long name's temporary file is its hash)
              site / ".ccreport" / "search-spill-x1y2z3"]
    for p in places:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"half a page")
    return {p.relative_to(site).as_posix() for p in places}


@pytest.fixture
def built(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    assert _build(home, tmp_path / "site").returncode == 0
    return home, tmp_path / "site"


@pytest.mark.parametrize("how", ["incremental", "full"])
def test_the_next_build_removes_what_a_killed_writer_left(built, how):
    home, site = built
    assert _temps(site) == set()
    left = _plant(site, _dead_pid())
    (site / ".ccreport" / "building").touch()  # what a killed build leaves beside them (site.sweep)
    running = site / "p" / f".busy.html.{os.getpid()}.9.tmp"  # this test process runs: its file stays
    running.write_bytes(b"being written")
    run = _build(home, site, *(["--page-size", "40"] if how == "full" else []))
    assert run.returncode == 0, run.stderr
    assert _temps(site) == {running.relative_to(site).as_posix()}, f"left: {left & _temps(site)}"
    assert not (site / ".ccreport" / "building").exists()


def test_the_temporary_name_is_what_the_sweep_knows(tmp_path, monkeypatch):
    """fs.atomic_write's temporary file (seen as it is written) matches fs.TMP_NAME with this pid."""
    from ccreport import fs

    seen = []
    real = fs._open_new
    monkeypatch.setattr(fs, "_open_new", lambda tmp, path, **kw: (seen.append(tmp), real(tmp, path, **kw))[1])
    atomic_write(tmp_path / ("x" * 200 + ".html"), b"a")
    atomic_write(tmp_path / "page-0001.html", b"b")
    assert len(seen) == 2
    for tmp in seen:
        m = fs.TMP_NAME.fullmatch(tmp.name)
        assert m is not None and int(m.group(1)) == os.getpid(), tmp.name


def test_a_build_killed_mid_way_leaves_nothing_after_the_next(built, tmp_path):
    home, site = built
    shutil.rmtree(site)
    for delay in (0.3, 0.8, 1.5):
        proc = subprocess.Popen(CLI + ["build", "--home", str(home), "--out", str(site), "--quiet", "--jobs", "2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert _build(home, site).returncode == 0
        assert _temps(site) == set()
