"""The writer: atomic writes, identical files skipped, written files recorded."""

from __future__ import annotations

import os

import pytest

from ccreport.fs import atomic_write
from ccreport.site.write import Writer


def test_write_records_and_skips_identical(tmp_path):
    w = Writer(tmp_path)
    assert w.write("a/b/page.html", "Grüße") is True
    p = tmp_path / "a/b/page.html"
    assert p.read_bytes() == "Grüße".encode()
    assert w.written == [p]
    mtime = p.stat().st_mtime_ns
    assert w.write("a/b/page.html", "Grüße".encode()) is False  # same bytes, str or bytes
    assert w.skipped == 1 and w.written == [p] and p.stat().st_mtime_ns == mtime
    assert w.write("a/b/page.html", "Grüße!") is True
    assert p.read_text() == "Grüße!" and w.written == [p, p]


def test_same_size_different_bytes_is_rewritten(tmp_path):
    w = Writer(tmp_path)
    w.write("x.txt", "abc")
    assert w.write("x.txt", "abd") is True and (tmp_path / "x.txt").read_text() == "abd"


def test_no_temporary_files_are_left(tmp_path):
    w = Writer(tmp_path)
    for i in range(5):
        w.write(f"d/f{i}.html", f"{i}" * 1000)
    assert sorted(os.listdir(tmp_path / "d")) == [f"f{i}.html" for i in range(5)]


def test_failed_write_leaves_old_file_and_no_temp(tmp_path):
    target = tmp_path / "keep.html"
    target.write_text("old")
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(OSError):
        atomic_write(tmp_path / "dir.html", b"new")  # cannot replace a folder by a file
    assert target.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["dir.html", "keep.html"]
