"""A full disk (ENOSPC, simulated) leaves nothing half-made and is called a write failure (issue
18, point 6); once there is room again, the next build is the cold build."""

from __future__ import annotations

import shutil

import pytest

import ccreport.fs
from ccreport.fs import WriteError
from ccreport.render.context import BlobStore
from ccreport.site.build import Options, build
from ccreport.site.searchindex import read_units
from faults import FullDisk, temporary_files
from incrhelp import assert_same_as_cold
from util import SAMPLE_HOME, assistant, user, write_jsonl

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


def full(monkeypatch, left: int, only: str = "") -> FullDisk:
    disk = FullDisk(left, only)
    monkeypatch.setattr(ccreport.fs, "open", disk.open, raising=False)
    return disk


def test_a_blob_that_cannot_be_written_leaves_no_temporary_file(tmp_path, monkeypatch):
    """The finding: a 0-byte blobs/….tmp stayed behind."""
    full(monkeypatch, 0)
    with pytest.raises(WriteError) as caught:
        BlobStore(tmp_path).save_base64(PNG, "image/png")
    assert caught.value.filename.endswith(".png") and "No space" in caught.value.strerror
    assert temporary_files(tmp_path) == [] and list((tmp_path / "blobs").iterdir()) == []


@pytest.fixture(scope="module")
def cold_bytes(tmp_path_factory) -> int:
    """What a cold build of the sample home writes through fs.py."""
    disk = FullDisk(1 << 40)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ccreport.fs, "open", disk.open, raising=False)
        build(SAMPLE_HOME, tmp_path_factory.mktemp("count"), Options(jobs=1))
    return (1 << 40) - disk.left


@pytest.mark.parametrize("share", [0, 0.02, 0.3, 0.6, 0.9, 0.995])
def test_a_build_on_a_full_disk_leaves_no_temporary_file(tmp_path, monkeypatch, cold_bytes, share):
    site = tmp_path / "site"
    disk = full(monkeypatch, int(cold_bytes * share))
    try:
        res = build(SAMPLE_HOME, site, Options(jobs=1))
        errors = res.errors
    except WriteError as exc:  # the assets, the indexes: the build stops (the CLI says "cannot write")
        errors = [f"cannot write {exc.filename}: {exc.strerror}"]
    assert disk.failures > 0 and errors
    assert temporary_files(site) == []
    assert all("cannot write" in e or "cannot save" in e for e in errors), errors
    assert not any("cannot read" in e for e in errors), errors
    monkeypatch.undo()  # room again: the next build finishes the site
    assert build(SAMPLE_HOME, site, Options(jobs=1)).errors == []
    assert_same_as_cold(SAMPLE_HOME, site, tmp_path, Options(jobs=1))


def test_an_incremental_build_on_a_full_disk_says_it_cannot_write(tmp_path, monkeypatch):
    """The finding: "cannot read …jsonl" when the page could not be written."""
    home, site = tmp_path / "home", tmp_path / "site"
    shutil.copytree(SAMPLE_HOME, home)
    build(home, site, Options(jobs=1))
    f = next((home / "projects" / "-Users-chika-dev-dotfiles").glob("*.jsonl"))
    with open(f, "ab") as fh:
        for i in range(3):
            fh.write(ccreport_line(user(f"nu{i}", f"more {i}")) + ccreport_line(
                assistant(f"na{i}", [{"type": "text", "text": f"reply {i}"}], parent=f"nu{i}", mid=f"nm{i}")))
    full(monkeypatch, 0, only="page-")  # the pages fail; the rest is written, so the build reports
    res = build(home, site, Options(jobs=1))
    assert res.errors and all("cannot write" in e for e in res.errors), res.errors
    assert any("page-" in e and "No space left" in e for e in res.errors), res.errors
    assert not any("cannot read" in e for e in res.errors)
    assert temporary_files(site) == []
    monkeypatch.undo()
    assert build(home, site, Options(jobs=1)).errors == []
    assert_same_as_cold(home, site, tmp_path, Options(jobs=1))


def ccreport_line(entry: dict) -> bytes:
    import json

    return json.dumps(entry).encode() + b"\n"


def test_a_blob_in_a_build_on_a_full_disk(tmp_path, monkeypatch):
    home = tmp_path / "home"
    write_jsonl(home / "projects" / "-p" / "s1.jsonl", [
        user("u1", [{"type": "text", "text": "see"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}])])
    site = tmp_path / "site"
    build(home, site, Options(jobs=1))  # assets and folders in place
    shutil.rmtree(site / "blobs")
    (site / ".ccreport").rename(tmp_path / "state-gone")  # a full build again, on a full disk
    full(monkeypatch, 0)
    with pytest.raises(WriteError):
        build(home, site, Options(jobs=1))
    assert temporary_files(site) == []
    assert not (site / "blobs").exists() or list((site / "blobs").iterdir()) == []


def test_a_session_that_cannot_be_written_keeps_its_search_data_and_is_redone(tmp_path, monkeypatch):
    """A session whose update fails (its overview cannot be written: no new state) stays in its
    project's search data and index from its previous state, and the next build renders it whole
    even though its transcript did not change."""
    import builtins

    from ccreport.layout import segment

    home, site = tmp_path / "home", tmp_path / "site"
    shutil.copytree(SAMPLE_HOME, home)
    pdir, sid = "-home-dana-atlas", "50908f5f-1fe8-5bcf-9f16-68ece4f2400c"
    build(home, site, Options(jobs=1))
    disk = FullDisk(0, only="index.html")
    # Only this session's overview fails, in a full rebuild (another page size): its pages are
    # written, its transcript is unchanged.
    monkeypatch.setattr(ccreport.fs, "open", lambda path, *a, **kw: (disk.open if sid in str(path) else builtins.open)(
        path, *a, **kw), raising=False)
    opts = Options(jobs=1, page_size=7)
    res = build(home, site, opts)
    assert disk.failures and res.errors and all(f"{sid}: cannot write" in e for e in res.errors), res.errors
    units = [u for p in (site / "search" / "u").glob("*.js") for u in read_units(site, p.stem).values()]
    assert any(u[3] == sid for u in units)  # still searched (the units of its previous state)
    assert segment(sid) in (site / "p" / pdir / "index.html").read_text(encoding="utf-8")  # still listed
    monkeypatch.undo()
    assert build(home, site, opts).errors == []
    assert_same_as_cold(home, site, tmp_path, opts)  # rendered whole again: no page of the old state left
