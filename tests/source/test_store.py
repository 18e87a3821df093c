"""The source store (issue 14): byte-exact, appends in new frames only, rewrites kept as generations,
hashes checked on read, corrupt entries reported and copied again, a full disk leaves it intact,
and a build killed at any moment never leaves an entry that reads back wrong."""

from __future__ import annotations

import errno
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from ccreport.source import store as store_mod
from ccreport.source.restore import restore, verify
from ccreport.source.store import FRAME, Store, StoreFull
from ccreport.source.storeio import StoreCorrupt
from util import ROOT, SAMPLE_HOME

REL = "projects/-p/s1.jsonl"


def _lines(n: int, start: int = 0) -> bytes:
    return b"".join(b'{"type":"user","n":%d,"pad":"%s"}\n' % (i, b"x" * (i % 50)) for i in range(start, start + n))


def _manifest(store: Store, rel: str = REL) -> dict:
    """The entry's manifest as its pack's log on disk gives it (what a new Store reads)."""
    return orjson.loads(orjson.dumps(Store(store.root).manifest(rel)))


def _data(store: Store, rel: str = REL) -> Path:
    """The data file of the entry's pack."""
    return store.root / "packs" / _manifest(store, rel)["data"]


def _log(store: Store, rel: str = REL) -> Path:
    return store.root / "packs" / (_manifest(store, rel)["data"].split(".")[0] + ".log")


def test_append_adds_one_frame_of_the_new_bytes_only(tmp_path):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(2000))
    st = Store(tmp_path / "store")
    assert st.keep(REL, f) == "new"
    frames = _manifest(st)["generations"][0]["frames"]
    data_before = _data(st).read_bytes()
    with open(f, "ab") as fh:
        fh.write(_lines(10, 5000))
    assert st.keep(REL, f) == "grown"
    m = _manifest(st)
    assert len(m["generations"]) == 1 and m["generations"][0]["frames"][:len(frames)] == frames
    new = m["generations"][0]["frames"][len(frames):]
    assert len(new) == 1 and new[0][0] == len(_lines(2000)) and new[0][1] == len(_lines(10, 5000))
    # The data file only grew: the earlier frames were not written again.
    assert _data(st).read_bytes().startswith(data_before)
    assert st.read_bytes(REL) == f.read_bytes()
    assert st.keep(REL, f) == "same"


def test_big_file_is_cut_into_frames_and_seeks_read_one(tmp_path):
    f = tmp_path / "big.jsonl"
    rnd = random.Random(1)
    f.write_bytes(bytes(rnd.getrandbits(8) for _ in range(FRAME + 12345)))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    assert len(_manifest(st)["generations"][0]["frames"]) == 2
    with st.open(REL) as fh:
        fh.seek(FRAME - 10)
        assert fh.read(30) == f.read_bytes()[FRAME - 10:FRAME + 20]
    assert st.read_bytes(REL) == f.read_bytes()


def test_a_rewritten_file_keeps_its_earlier_version(tmp_path):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(100))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    old = f.read_bytes()
    f.write_bytes(_lines(50, 900))  # shorter, other bytes
    assert st.keep(REL, f) == "new"
    f.write_bytes(_lines(50, 800))  # same size, other bytes
    os.utime(f, ns=(1, 1))
    assert st.keep(REL, f) == "new"
    assert [len(g["frames"]) for g in _manifest(st)["generations"]] == [1, 1, 1]
    assert st.read_bytes(REL, 0) == old and st.read_bytes(REL) == f.read_bytes()
    os.utime(f, ns=(2, 2))  # touched only: same bytes, no new version
    assert st.keep(REL, f) == "same" and len(_manifest(st)["generations"]) == 3


def test_wrong_hash_is_reported_on_read_and_copied_again_from_the_home(tmp_path):
    home = tmp_path / "home"
    f = home / REL
    f.parent.mkdir(parents=True)
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    st.save()
    m = _manifest(st)
    m["generations"][0]["frames"][0][4] = "0" * 64
    with open(_log(st), "ab") as fh:  # the newest line of the entry names a wrong hash
        fh.write(orjson.dumps(m) + b"\n")
    st = Store(tmp_path / "store")
    with pytest.raises(StoreCorrupt, match="wrong hash"):
        st.read_bytes(REL)
    found = verify(st, home)
    assert len(found) == 1 and "wrong hash" in found[0] and "copied again from the home" in found[0]
    assert Store(tmp_path / "store").read_bytes(REL) == f.read_bytes()


def test_truncated_frame_is_reported_and_copied_again_on_the_next_sync(tmp_path):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    data = _data(st)
    data.write_bytes(data.read_bytes()[:-20])
    with pytest.raises(StoreCorrupt, match="truncated"):
        st.read_bytes(REL)
    assert st.check(REL) and "truncated" in st.check(REL)
    with open(f, "ab") as fh:
        fh.write(_lines(1, 999))
    st.keep(REL, f)  # the grown file is looked at: its entry is found truncated and copied again
    assert any("truncated; what is missing is copied again" in p for p in st.problems)
    assert st.read_bytes(REL) == f.read_bytes() and st.check(REL) is None
    # The pack was cut back to its whole frames (none here) and the copy written after them: no
    # byte of the cut frame is left in the data file.
    assert data.stat().st_size == _manifest(st)["end"] == _manifest(st)["generations"][0]["frames"][0][3]


def test_a_cut_last_frame_costs_only_that_frame(tmp_path):
    """A crash that lost the last frame written (no fsync): the earlier frames and versions stay, the
    missing bytes are copied again from the home."""
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(50, 7000))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    old = f.read_bytes()
    f.write_bytes(_lines(300))  # rewritten: a second version
    st.keep(REL, f)
    with open(f, "ab") as fh:
        fh.write(_lines(10, 5000))
    st.keep(REL, f)  # grown: a third frame, the one the crash loses
    m = _manifest(st)
    data = _data(st)
    last = m["generations"][-1]["frames"][-1]
    data.write_bytes(data.read_bytes()[:last[2] + 3])
    fresh = Store(tmp_path / "store")
    with open(f, "ab") as fh:
        fh.write(_lines(1, 9000))
    assert fresh.keep(REL, f) == "grown"
    assert any("truncated" in p for p in fresh.problems)
    assert fresh.read_bytes(REL, 0) == old and fresh.read_bytes(REL) == f.read_bytes()
    assert fresh.check(REL) is None and data.exists()


def test_full_disk_leaves_the_previous_store_intact(tmp_path, monkeypatch):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    st.save()
    before = {p: p.read_bytes() for p in (tmp_path / "store").rglob("*") if p.is_file()}
    with open(f, "ab") as fh:
        fh.write(_lines(10, 500))

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_mod.zstandard.ZstdCompressor, "compress", lambda self, data: full())
    with pytest.raises(StoreFull, match="no space left for the source store"):
        st.keep(REL, f)
    monkeypatch.undo()
    again = Store(tmp_path / "store")
    assert again.read_bytes(REL) == f.read_bytes()[:len(_lines(300))]  # the previous version, whole
    assert {p: p.read_bytes() for p in before} == before
    assert again.keep(REL, f) == "grown" and again.read_bytes(REL) == f.read_bytes()


def test_full_disk_in_a_build_is_one_clear_error(tmp_path, monkeypatch):
    from ccreport.site.build import Options, build

    import shutil
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_mod.Store, "_append", full)
    res = build(home, tmp_path / "site", Options(jobs=1))
    assert any("no space left for the source store" in e and "left as the last build wrote it" in e for e in res.errors)


_KILLED = """
import sys
from pathlib import Path
from ccreport.site.build import Options, build
build(Path(sys.argv[1]), Path(sys.argv[2]), Options(jobs=1, page_size=5))
"""


@pytest.mark.slow
def test_killed_builds_then_rebuild_and_restore_round_trip(tmp_path):
    """SIGKILL a build at several moments while the home grows; every entry that reads back must be
    right, and a last build then a restore gives every file back byte for byte."""
    import shutil
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home)
    big = home / "projects" / "-p" / "k1.jsonl"
    big.parent.mkdir(parents=True)
    big.write_bytes(_lines(20000))
    out = tmp_path / "site"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for i, delay in enumerate((0.05, 0.3, 0.6, 1.0, 1.5)):
        with open(big, "ab") as fh:
            fh.write(_lines(500, 100000 * (i + 1)))
        p = subprocess.Popen([sys.executable, "-c", _KILLED, str(home), str(out)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        st = Store(out / ".ccreport" / "store")
        for rel in st.files:  # whatever the index names reads back whole and right
            assert st.check(rel) is None
            assert (home / rel).read_bytes().startswith(st.read_bytes(rel))
    subprocess.run([sys.executable, "-c", _KILLED, str(home), str(out)], env=env, check=True)
    st = Store(out / ".ccreport" / "store")
    back = tmp_path / "back"
    for key in st.index["sessions"]:
        restore(st, key.split("/", 1)[1], back)
    originals = {p.relative_to(home).as_posix(): p.read_bytes() for p in (home / "projects").rglob("*") if p.is_file()}
    restored = {p.relative_to(back).as_posix(): p.read_bytes() for p in back.rglob("*") if p.is_file()}
    assert restored == originals


def test_session_folder_files_changed_in_place_are_kept_again(tmp_path):
    """A Workflow journal grows and a custom-title.json is rewritten in place without moving their
    folder's mtime: the store still takes the new bytes (only tool-results/ is write-once)."""
    import shutil

    from ccreport.source.archive import sync
    from ccreport.source.home import discover

    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    sdir = home / "projects" / "-home-dana-atlas" / "90e61059-2a7b-527a-9fe4-7ccd0eb689e0"
    journal = sdir / "subagents" / "workflows" / "wf_3c9e1a27-4b1" / "journal.jsonl"
    title = sdir / "custom-title.json"
    title.write_bytes(b'{"customTitle":"first"}')
    sync(discover(home), Store(tmp_path / "store"))
    stamps = {d: os.stat(d).st_mtime_ns for d in (journal.parent, sdir)}
    with open(journal, "ab") as fh:
        fh.write(b'{"type":"run_end","status":"completed"}\n')
    with open(title, "r+b") as fh:  # in place: same inode, the folder untouched
        fh.write(b'{"customTitle":"again, longer"}')
    for d, ns in stamps.items():
        os.utime(d, ns=(ns, ns))
    sync(discover(home), Store(tmp_path / "store"))
    st = Store(tmp_path / "store")
    for f in (journal, title):
        assert st.read_bytes(f.relative_to(home).as_posix()) == f.read_bytes()
