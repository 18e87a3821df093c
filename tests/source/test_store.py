"""The source store in the site's database (issues 14 and 26): byte-exact, appends in new frames
only, rewrites kept as generations, hashes checked on read, corrupt entries reported and copied
again, a full disk leaves it intact, a process killed at any moment leaves a store the next build
continues from, and a forgotten entry leaves no byte in the folder."""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccreport.source import database
from ccreport.source import store as store_mod
from ccreport.source.restore import restore, verify
from ccreport.source.store import FRAME, Store, StoreCorrupt, StoreFull
from util import ROOT, SAMPLE_HOME

REL = "projects/-p/s1.jsonl"


def _lines(n: int, start: int = 0) -> bytes:
    return b"".join(b'{"type":"user","n":%d,"pad":"%s"}\n' % (i, b"x" * (i % 50)) for i in range(start, start + n))


def _frames(st: Store, rel: str = REL) -> list[tuple]:
    """(generation, start, length, compressed bytes) of every frame of an entry, as the database has them."""
    return st.db.execute("SELECT fr.n, fr.start, fr.length, fr.data FROM store_frames fr JOIN store_files f "
                         "ON fr.file = f.id WHERE f.relpath = ? ORDER BY fr.n, fr.start", (rel,)).fetchall()


def _rows(st: Store) -> dict:
    """Everything the store's tables hold."""
    return {t: sorted(st.db.execute(f"SELECT * FROM {t}").fetchall())  # noqa: S608
            for t in ("store_files", "store_generations", "store_frames", "store_sessions", "store_dirs")}


def test_append_adds_one_frame_of_the_new_bytes_only(tmp_path):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(2000))
    st = Store(tmp_path / "store")
    assert st.keep(REL, f) == "new"
    before = _frames(st)
    with open(f, "ab") as fh:
        fh.write(_lines(10, 5000))
    assert st.keep(REL, f) == "grown"
    after = _frames(st)
    assert after[:len(before)] == before  # the earlier frames untouched, not written again
    assert [(n, start, length) for n, start, length, _ in after[len(before):]] == [
        (0, len(_lines(2000)), len(_lines(10, 5000)))]
    assert Store(st.root).read_bytes(REL) == f.read_bytes()
    assert st.keep(REL, f) == "same" and len(st.generations(REL)) == 1


def test_big_file_is_cut_into_frames_and_seeks_read_one(tmp_path):
    f = tmp_path / "big.jsonl"
    rnd = random.Random(1)
    f.write_bytes(rnd.randbytes(FRAME + 12345))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    assert [(start, length) for _, start, length, _ in _frames(st)] == [(0, FRAME), (FRAME, 12345)]
    with st.open(REL) as fh:
        fh.seek(FRAME - 10)
        assert fh.read(30) == f.read_bytes()[FRAME - 10:FRAME + 20]
        assert fh.raw._cur[0] == FRAME  # (one frame in memory: the one read last)
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
    assert [n for n, *_ in _frames(st)] == [0, 1, 2]
    fresh = Store(st.root)
    assert fresh.read_bytes(REL, 0) == old and fresh.read_bytes(REL) == f.read_bytes()
    assert fresh.read_bytes(REL, 1) == _lines(50, 900)
    os.utime(f, ns=(2, 2))  # touched only: same bytes, no new version
    assert st.keep(REL, f) == "same" and [g.size for g in Store(st.root).generations(REL)] == [len(old)] + [len(_lines(50, 900))] * 2


def test_wrong_hash_is_reported_on_read_and_copied_again_from_the_home(tmp_path):
    home = tmp_path / "home"
    f = home / REL
    f.parent.mkdir(parents=True)
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    with database.transaction(st.db):
        st.db.execute("UPDATE store_frames SET sha256 = zeroblob(32)")
    st = Store(tmp_path / "store")
    with pytest.raises(StoreCorrupt, match="wrong hash"):
        st.read_bytes(REL)
    found = verify(st, home)
    assert len(found) == 1 and "wrong hash" in found[0] and "copied again from the home" in found[0]
    assert Store(tmp_path / "store").read_bytes(REL) == f.read_bytes() and st.check(REL) is None


def test_a_frame_that_does_not_decompress_is_reported(tmp_path):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    with database.transaction(st.db):
        st.db.execute("UPDATE store_frames SET data = substr(data, 1, length(data) - 20)")
    with pytest.raises(StoreCorrupt, match="does not decompress"):
        st.read_bytes(REL)
    assert "does not decompress" in st.check(REL)
    assert verify(st, tmp_path / "no-home")[0].endswith("the home no longer has it: that copy is lost")


def test_full_disk_leaves_the_previous_store_intact(tmp_path):
    """A full disk, made by capping the database's pages at what it has: the entry keeps the version
    it had, every row as it was; once there is room the next copy goes on."""
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    st.save()
    before = _rows(st)
    with open(f, "ab") as fh:
        fh.write(random.Random(3).randbytes(300_000))  # (incompressible: it needs new pages)
    pages = st.db.execute("PRAGMA page_count").fetchone()[0]
    st.db.execute(f"PRAGMA max_page_count = {pages}")
    try:
        with pytest.raises(StoreFull, match="no space left for the source store"):
            st.keep(REL, f)
    finally:
        st.db.execute("PRAGMA max_page_count = 1073741823")
    again = Store(tmp_path / "store")
    assert _rows(again) == before
    assert again.read_bytes(REL) == _lines(300)  # the previous version, whole
    assert again.keep(REL, f) == "grown" and again.read_bytes(REL) == f.read_bytes()


def test_full_disk_in_a_build_is_one_clear_error(tmp_path, monkeypatch):
    from ccreport.site.build import Options, build

    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_mod.Store, "_append", full)
    res = build(home, tmp_path / "site", Options(jobs=1))
    assert any("no space left for the source store" in e and "left as the last build wrote it" in e for e in res.errors)


_KEEPING = """
import sys
from pathlib import Path
from ccreport.source.store import Store
st = Store(Path(sys.argv[1]))
files = [Path(a) for a in sys.argv[2:]]
while True:
    for i, f in enumerate(files):
        with open(f, "ab") as fh:
            fh.write(b'{"type":"user","n":%d,"pad":"%s"}\\n' % (i, b"y" * 3000) * 50)
        st.keep(f"projects/-p/k{i}.jsonl", f)
    if len(files) > 1:  # one file rewritten each round: new generations too
        files[-1].write_bytes(files[-1].read_bytes()[::-1][:5000])
        st.keep(f"projects/-p/k{len(files) - 1}.jsonl", files[-1])
    print("round", flush=True)
"""


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2, 0.5, 1.0])
def test_a_store_killed_while_writing_is_continued_by_the_next_one(tmp_path, delay):
    """SIGKILL a process keeping files at several moments (opening, mid-frame, mid-commit…): every
    entry the database has reads back whole and as a prefix of its file's bytes, and a new Store
    brings each up to date."""
    files = [tmp_path / f"k{i}.jsonl" for i in range(3)]
    for i, f in enumerate(files):
        f.write_bytes(_lines(2000 * (i + 1)))
    root = tmp_path / "store"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", _KEEPING, str(root), *map(str, files)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if delay:
        p.stdout.readline()  # (once the first round is written)
        time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait()
    st = Store(root)
    for rel in st.files:
        assert st.check(rel) is None
    for i, f in enumerate(files[:2]):  # only grown: what is kept is the start of the file
        rel = f"projects/-p/k{i}.jsonl"
        if st.has(rel):
            assert f.read_bytes().startswith(st.read_bytes(rel))
    for i, f in enumerate(files):
        st.keep(f"projects/-p/k{i}.jsonl", f)
        assert Store(root).read_bytes(f"projects/-p/k{i}.jsonl") == f.read_bytes()


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
        if not (out / ".ccreport" / database.NAME).is_file():
            continue
        st = Store(out / ".ccreport")
        for rel in st.files:  # whatever the database names reads back whole and right
            assert st.check(rel) is None
            assert (home / rel).read_bytes().startswith(st.read_bytes(rel))
    subprocess.run([sys.executable, "-c", _KILLED, str(home), str(out)], env=env, check=True)
    st = Store(out / ".ccreport")
    back = tmp_path / "back"
    for key in st.index["sessions"]:
        restore(st, key.split("/", 1)[1], back)
    originals = {p.relative_to(home).as_posix(): p.read_bytes() for p in (home / "projects").rglob("*") if p.is_file()}
    restored = {p.relative_to(back).as_posix(): p.read_bytes() for p in back.rglob("*") if p.is_file()}
    assert restored == originals


def test_a_forgotten_entry_leaves_no_byte_in_the_folder(tmp_path):
    rnd = random.Random(5)
    secret, other = rnd.randbytes(20000), rnd.randbytes(20000)  # (random bytes stay as they are in a frame)
    (tmp_path / "a").write_bytes(secret)
    (tmp_path / "b").write_bytes(other)
    root = tmp_path / "store"
    st = Store(root)
    st.keep("projects/-p/a-secret-name.jsonl", tmp_path / "a")
    st.keep("projects/-p/b.jsonl", tmp_path / "b")
    st.save()

    def everything() -> bytes:
        return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())

    assert secret[:1000] in everything() and b"a-secret-name" in everything()
    st.drop("projects/-p/a-secret-name.jsonl")
    st.save()
    assert secret[:1000] not in everything() and secret[-1000:] not in everything()
    assert b"a-secret-name" not in everything()
    fresh = Store(root)
    assert not fresh.has("projects/-p/a-secret-name.jsonl")
    assert fresh.read_bytes("projects/-p/b.jsonl") == other and fresh.check("projects/-p/b.jsonl") is None


def test_session_folder_files_changed_in_place_are_kept_again(tmp_path):
    """A Workflow journal grows and a custom-title.json is rewritten in place without moving their
    folder's mtime: the store still takes the new bytes (only tool-results/ is write-once)."""
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
    names = {p.name for p in (tmp_path / "store").iterdir()}  # the database (and its WAL while it is open)
    assert database.NAME in names <= {database.NAME, database.NAME + "-wal", database.NAME + "-shm"}
