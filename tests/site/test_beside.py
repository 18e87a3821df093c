"""Work beside the build: a function run in a forked process, what it holds inherited (not pickled),
what it returns or raises brought back; a pooled full build writes its index pages that way."""

from __future__ import annotations

import os
import threading

import pytest

from ccreport.site.beside import Beside
from ccreport.site.build import build
from ccreport.site.options import Options
from util import SAMPLE_HOME


def test_the_work_runs_in_another_process_with_what_this_one_holds():
    lock = threading.Lock()  # (a lock cannot be pickled: it reaches the worker through the fork)
    side = Beside(lambda: (os.getpid(), lock.locked(), ["a"] * 3))
    pid, locked, made = side.result()
    assert pid != os.getpid() and not locked and made == ["a", "a", "a"]


def _fails():
    raise PermissionError(13, "Permission denied", "/site/index.html")


def test_what_the_work_raises_is_raised_by_result():
    with pytest.raises(PermissionError) as exc:
        Beside(_fails).result()
    assert exc.value.filename == "/site/index.html"


def test_a_pooled_full_build_reports_the_index_pages_written_beside_it(tmp_path):
    res = build(SAMPLE_HOME, tmp_path / "two", Options(jobs=2))
    one = build(SAMPLE_HOME, tmp_path / "one", Options(jobs=1))
    assert not res.errors and not one.errors
    assert str(tmp_path / "two" / "index.html") in res.written
    two_pages = sorted(os.path.relpath(p, tmp_path / "two") for p in res.written)
    assert two_pages == sorted(os.path.relpath(p, tmp_path / "one") for p in one.written)
    for name in ("index.html", "p/-home-alice-webshop/index.html"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
