"""The source store's packs (docs/archive.md): the entries of one project share one data file and
one log; a store written before packs is read as it is and its entries move into their pack when
their files change; a forgotten entry's bytes leave the pack; a killed log append is harmless; the
log is rewritten once it has grown well past what it needs."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import orjson

from ccreport.source import storepack
from ccreport.source.archive import sync
from ccreport.source.home import discover
from ccreport.source.store import Store
from util import SAMPLE_HOME

V1 = Path(__file__).parent / "store_v1"  # written by the store before packs (one pair of files per entry)
REL = "projects/-p/s1.jsonl"


def _lines(n: int, start: int = 0) -> bytes:
    return b"".join(b'{"type":"user","n":%d,"pad":"%s"}\n' % (i, b"x" * (i % 50)) for i in range(start, start + n))


def _store_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_sync_writes_two_files_per_project_not_two_per_home_file(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    root = tmp_path / "store"
    sync(discover(home), Store(root))
    st = Store(root)
    packs = {storepack.pack_key(storepack.pack_name(r)) for r in st.files}
    assert len(st.files) > 3 * len(packs)  # (the sample home has several files per project)
    assert _store_files(root) == sorted(["index.json"] + [f"packs/{k}.log" for k in packs]
                                        + [f"packs/{k}.0.z" for k in packs])
    for r in st.files:
        assert st.read_bytes(r) == (home / r).read_bytes() and st.check(r) is None


def test_a_store_written_before_packs_is_read_and_its_entries_move_when_they_change(tmp_path):
    shutil.copytree(V1, tmp_path / "v1")
    root, home = tmp_path / "v1" / "store", tmp_path / "v1" / "home"
    old = {p: p.read_bytes() for p in (root / "data").rglob("*.z")}
    st = Store(root)
    assert st.read_bytes(REL) == (home / REL).read_bytes() and st.check(REL) is None
    assert st.read_bytes(REL, 0) == (V1 / "first.jsonl").read_bytes()
    assert st.read_bytes("history.jsonl") == (home / "history.jsonl").read_bytes()
    assert "-p/s1" in st.index["sessions"] and set(st.files) == {REL, "history.jsonl"}
    with open(home / REL, "ab") as fh:
        fh.write(_lines(5, 7000))
    assert st.keep(REL, home / REL) == "grown"
    st.save()
    fresh = Store(root)
    assert fresh.read_bytes(REL) == (home / REL).read_bytes() and fresh.check(REL) is None
    assert fresh.read_bytes(REL, 0) == (V1 / "first.jsonl").read_bytes()  # the earlier version came along
    assert fresh.read_bytes("history.jsonl") == (home / "history.jsonl").read_bytes()  # not moved: unchanged
    moved = [p for p in old if not p.exists()]
    assert len(moved) == 1 and not list(moved[0].parent.glob("*.json"))  # its old files are gone
    pack = root / "packs" / (fresh.manifest(REL).data)
    assert pack.read_bytes().startswith(old[moved[0]])  # its frames copied as they were, not compressed again
    assert "history.jsonl" in fresh.files and REL in fresh.files


def test_a_forgotten_entry_leaves_no_byte_in_its_pack(tmp_path):
    rnd = random.Random(5)
    secret, other = (bytes(rnd.getrandbits(8) for _ in range(20000)) for _ in range(2))
    (tmp_path / "a").write_bytes(secret)
    (tmp_path / "b").write_bytes(other)
    st = Store(tmp_path / "store")
    st.keep("projects/-p/a.jsonl", tmp_path / "a")
    st.keep("projects/-p/b.jsonl", tmp_path / "b")
    data = tmp_path / "store" / "packs" / st.manifest("projects/-p/a.jsonl").data
    assert secret[:1000] in data.read_bytes()  # (random bytes stay as they are in a zstandard frame)
    st.drop("projects/-p/a.jsonl")
    st.save()
    fresh = Store(tmp_path / "store")
    assert fresh.manifest("projects/-p/a.jsonl") is None
    assert fresh.read_bytes("projects/-p/b.jsonl") == other and fresh.check("projects/-p/b.jsonl") is None
    packs = list((tmp_path / "store" / "packs").glob("*.z"))
    assert len(packs) == 1 and not data.exists()  # a new data file, the old one deleted
    assert secret[:1000] not in packs[0].read_bytes() and secret[-1000:] not in packs[0].read_bytes()
    assert b"projects/-p/a.jsonl" not in next((tmp_path / "store" / "packs").glob("*.log")).read_bytes()


def test_a_log_line_cut_by_a_kill_is_ignored_then_cut(tmp_path):
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(300))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    log = next((tmp_path / "store" / "packs").glob("*.log"))
    whole = log.read_bytes()
    with open(log, "ab") as fh:
        fh.write(whole[:-40])  # a second line, killed before its end
    with open(st._data(st.manifest(REL)), "ab") as fh:
        fh.write(b"frames the cut line named")  # and the frames it named
    fresh = Store(tmp_path / "store")
    assert fresh.read_bytes(REL) == f.read_bytes() and fresh.problems == []
    with open(f, "ab") as fh:
        fh.write(_lines(10, 5000))
    assert fresh.keep(REL, f) == "grown"
    raw = log.read_bytes()
    assert raw.startswith(whole) and raw.count(b"\n") == 2 and raw.endswith(b"\n")
    assert [orjson.loads(line)["relpath"] for line in raw.splitlines()] == [REL, REL]
    again = Store(tmp_path / "store")
    assert again.read_bytes(REL) == f.read_bytes() and again.check(REL) is None and again.problems == []
    assert b"frames the cut line named" not in again._data(again.manifest(REL)).read_bytes()


def test_a_long_log_is_rewritten_with_its_newest_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(storepack, "_LOG_FLOOR", 2000)
    f = tmp_path / "s1.jsonl"
    f.write_bytes(_lines(50, 900))
    st = Store(tmp_path / "store")
    st.keep(REL, f)
    first = f.read_bytes()
    f.write_bytes(_lines(100))
    for i in range(40):
        with open(f, "ab") as fh:
            fh.write(_lines(2, 1000 + 2 * i))
        os.utime(f, ns=(i + 1, i + 1))
        st.keep(REL, f)
        st.save()
    log = next((tmp_path / "store" / "packs").glob("*.log"))
    line = len(log.read_bytes().splitlines()[-1]) + 1
    assert log.stat().st_size <= storepack._LOG_SLACK * line + 2000 + line
    fresh = Store(tmp_path / "store")
    assert fresh.read_bytes(REL) == f.read_bytes() and fresh.read_bytes(REL, 0) == first
    assert fresh.check(REL) is None and len(fresh.manifest(REL).generations) == 2
