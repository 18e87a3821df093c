"""A pooled full build writes its term shards in two processes (site.searchsplit): what the forked
child writes must be the bytes one process writes, recorded in the build as if written there (the
written and deleted files, the shards and blocks kept), and a failure on either side must fail the
build as it fails a one-process build, leaving no child and no spill file behind."""

from __future__ import annotations

import errno
import os
import shutil
import signal
from collections import defaultdict
from pathlib import Path

import orjson
import pytest

from ccreport.fs import WriteError
from ccreport.layout import search_shard
from ccreport.site import search, searchfiles, searchindex, searchsplit
from ccreport.site.build import Options, build
from ccreport.site.search import SHARDS, SPILL_PREFIX, SessionPart, shard_of
from ccreport.site.searchfiles import IndexOut
from ccreport.site.searchindex import Fresh
from ccreport.site.write import Writer
from incrhelp import rel_written, site_files, state_saved
from util import SAMPLE_HOME


@pytest.fixture
def split_always(monkeypatch):
    """The split taken for the small homes of the tests too (the sample home's shards: ~0.1 MB)."""
    monkeypatch.setattr(searchsplit, "SPLIT_BYTES", 0)
    monkeypatch.setattr(searchsplit, "SPLIT_MAX_RESIDENT", 1 << 62)  # (pytest's process is large)
    monkeypatch.setattr(searchfiles, "BIG", 200)  # frequent terms in blocks, written by both sides
    joined = []
    record = Writer.joined

    def spy(self, written, skipped):
        joined.append((list(written), skipped))
        record(self, written, skipped)
    monkeypatch.setattr(Writer, "joined", spy)
    return joined


def _children() -> list[int]:
    """This process's child processes, zombies included (/proc)."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (OSError, ValueError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == me:
            found.append(int(entry))
    return found


@pytest.fixture
def new_children():
    """The child processes of this one started during the test (other tests may leave theirs)."""
    before = set(_children())
    return lambda: sorted(set(_children()) - before)


def _spill_files(site: Path) -> list[str]:
    return [p.name for p in (site / ".ccreport").iterdir() if p.name.startswith(SPILL_PREFIX)]


def _built(home: Path, out: Path, jobs: int, **opts):
    res = build(home, out, Options(jobs=jobs, **opts))
    assert res.errors == []
    return res


@pytest.mark.parametrize("spilled", [False, True])
def test_a_split_build_writes_and_records_what_one_process_does(tmp_path, monkeypatch, split_always, spilled):
    """``spilled``: every unit's postings in its worker's spill file, every part in the main
    process's (both sides read them at their own offsets)."""
    if spilled:
        monkeypatch.setattr(search, "SEGMENT_POSTINGS", 1)
        monkeypatch.setattr(search, "SPILL_CHARS", 1)
        monkeypatch.setattr(searchindex, "SPILL_BYTES", 1)
    one, two = tmp_path / "one", tmp_path / "two"
    a, b = _built(SAMPLE_HOME, one, 1), _built(SAMPLE_HOME, two, 2)
    assert len(joined := split_always) == 1  # (the --jobs 1 build did not split)
    assert site_files(one) == site_files(two)  # every page and search file, byte for byte
    assert list((one / "search" / "b").iterdir())  # blocks among them
    assert rel_written(a, one) == rel_written(b, two) and sorted(a.deleted) == sorted(b.deleted) == []
    assert len(b.written) == len(set(b.written))  # none recorded twice
    again = _built(SAMPLE_HOME, two, 2)  # nothing changed: nothing written, no split
    assert again.written == [] and again.deleted == [] and len(joined) == 1


def test_a_split_build_over_an_older_site_keeps_and_removes_what_one_process_does(tmp_path, split_always):
    """A full build over another build's site (another page size): the shards and blocks neither
    process produced are removed, those either produced kept, identical files skipped."""
    old = tmp_path / "old"
    _built(SAMPLE_HOME, old, 1, page_size=3)
    res = {}
    for jobs in (1, 2):
        shutil.copytree(old, tmp_path / f"over-{jobs}")
        res[jobs] = _built(SAMPLE_HOME, tmp_path / f"over-{jobs}", jobs)
    one, two = tmp_path / "over-1", tmp_path / "over-2"
    assert split_always and res[1].deleted
    assert site_files(one) == site_files(two)
    assert rel_written(res[1], one) == rel_written(res[2], two)
    assert ({Path(p).relative_to(one) for p in res[1].deleted} == {Path(p).relative_to(two) for p in res[2].deleted})


def _fresh(spill_dir: Path, budget: int | None) -> Fresh:
    """Two sessions' parts of 600 terms over 60 shards (budget 0: every part spilled to its file)."""
    fresh = Fresh(spill_dir, budget)
    for session in ("0000000a", "0000000b"):
        key, flats = session + "000001", defaultdict(list)
        for i in range(600):
            term = f"w{i % 60:02d}{i}"
            flats[shard_of(term)] += [term, [key, ",".join(f"{j:x}" for j in range(i % 90))]]
        fresh.add(SessionPart([(n, orjson.dumps(flat)) for n, flat in sorted(flats.items())], {key: 600}))
    return fresh


@pytest.mark.parametrize("budget", [None, 0])
def test_the_child_alone_writes_the_shards_one_process_writes(tmp_path, monkeypatch, budget, new_children):
    monkeypatch.setattr(searchfiles, "BIG", 200)
    one = IndexOut(tmp_path / "one", Writer(tmp_path / "one"), [])
    _fresh(tmp_path / "a", budget).write(one)
    two = IndexOut(tmp_path / "two", Writer(tmp_path / "two"), [])
    split = searchsplit.Split(two, _fresh(tmp_path / "b", budget), list(range(SHARDS)))
    split.join()  # (this process took no shard: the child wrote them all)
    assert len(one.keep) > 60 and two.keep == one.keep  # shards and blocks
    assert sorted(p.relative_to(two.out) for p in two.writer.written) == sorted(
        p.relative_to(one.out) for p in one.writer.written)
    assert site_files(two.out) == site_files(one.out)
    assert new_children() == []


def test_a_failure_in_the_child_is_raised_in_the_parent_as_in_one_process(tmp_path, new_children):
    n = shard_of("w05")
    failed = {}
    for name in ("one", "two"):
        (tmp_path / name / search_shard(n)).mkdir(parents=True)  # (a folder where the shard goes)
        o = IndexOut(tmp_path / name, Writer(tmp_path / name), [])
        fresh = _fresh(tmp_path / f"{name}-spill", None)
        with pytest.raises(WriteError) as caught:
            fresh.write(o) if name == "one" else searchsplit.Split(o, fresh, list(range(SHARDS))).join()
        failed[name] = caught.value
    one, two = failed["one"], failed["two"]
    assert (two.errno, two.strerror) == (one.errno, one.strerror) == (errno.EISDIR, os.strerror(errno.EISDIR))
    assert Path(two.filename).relative_to(tmp_path / "two") == Path(one.filename).relative_to(tmp_path / "one")
    assert new_children() == []


def test_a_shard_that_cannot_be_written_fails_a_split_build_as_one_process(tmp_path, split_always, new_children):
    """Whichever process takes the shard: the build raises the write error, saves no state, and
    leaves no child, spill file or temporary file."""
    n = shard_of("the")  # (a shard the sample home has)
    failed = {}
    for jobs in (1, 2):
        out = tmp_path / f"site-{jobs}"
        (out / search_shard(n)).mkdir(parents=True)
        with pytest.raises(WriteError) as caught:
            build(SAMPLE_HOME, out, Options(jobs=jobs))
        failed[jobs] = caught.value
        assert not state_saved(out) and _spill_files(out) == [] and new_children() == []
        assert not [p for p in out.rglob("*.tmp")]
    assert (failed[2].errno, failed[2].filename) == (failed[1].errno, failed[1].filename.replace("site-1", "site-2"))


def test_a_failure_in_the_parent_stops_the_child(tmp_path, split_always, new_children):
    """The home page cannot be written (the parent's side): the build raises as a one-process build
    does, and the child is killed and reaped."""
    failed = {}
    for jobs in (1, 2):
        out = tmp_path / f"site-{jobs}"
        (out / "index.html").mkdir(parents=True)
        with pytest.raises(WriteError) as caught:
            build(SAMPLE_HOME, out, Options(jobs=jobs))
        failed[jobs] = caught.value
        assert not state_saved(out) and _spill_files(out) == [] and new_children() == []
    assert failed[2].errno == failed[1].errno == errno.EISDIR
    assert split_always == []  # (the child's record was never joined)


def test_a_fork_that_fails_leaves_the_shards_to_this_process(tmp_path, monkeypatch):
    """No process to spare (EAGAIN): no split, no pipe left open; the shards are written here."""
    tried = []

    def no_fork():
        tried.append(True)
        raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
    monkeypatch.setattr(searchsplit, "SPLIT_BYTES", 0)
    monkeypatch.setattr(searchsplit, "SPLIT_MAX_RESIDENT", 1 << 62)
    fresh = _fresh(tmp_path / "spill", None)
    o = IndexOut(tmp_path / "site", Writer(tmp_path / "site"), [])
    fds = sorted(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", no_fork)
    assert searchsplit.start(o, fresh, 2) is None and tried
    assert sorted(os.listdir("/proc/self/fd")) == fds


def test_a_child_killed_fails_the_build(tmp_path, new_children):
    """A child that dies without a word (killed, out of memory) fails the build: the shards it was
    to write may be missing."""
    o = IndexOut(tmp_path / "site", Writer(tmp_path / "site"), [])
    # (every shard a hundred times over: the kill finds the child still at work)
    split = searchsplit.Split(o, _fresh(tmp_path / "spill", 0), list(range(SHARDS)) * 100)
    os.kill(split.pid, signal.SIGKILL)
    with pytest.raises(ChildProcessError, match="status -9"):
        split.join()
    assert new_children() == [] and o.writer.written == []


def test_a_process_too_large_to_copy_writes_the_shards_itself(tmp_path, monkeypatch):
    """A fork of a large process (one 1 GB session: ~200 MB) is counted at nearly its size: above
    SPLIT_MAX_RESIDENT no child is forked, whatever the shards' bytes."""
    tried = []

    def forked():
        # (a stub that returned 0 would make pytest's own process run the child's side and exit)
        tried.append(True)
        raise AssertionError("a child was forked")
    monkeypatch.setattr(searchsplit, "SPLIT_BYTES", 0)
    monkeypatch.setattr(os, "fork", forked)
    fresh = _fresh(tmp_path / "spill", None)
    o = IndexOut(tmp_path / "site", Writer(tmp_path / "site"), [])
    resident = searchsplit.resident()
    assert 10 << 20 < resident < 64 << 30  # (this process, read from /proc)
    monkeypatch.setattr(searchsplit, "SPLIT_MAX_RESIDENT", resident // 2)
    assert searchsplit.start(o, fresh, 2) is None and tried == []
    fresh.write(o)
    assert len(o.keep) == 60  # (_fresh's 60 shards, written here)
    fresh.close()
