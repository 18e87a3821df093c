"""Stores written before the database (issue 26 point 2): both layouts — one manifest and one data
file per entry (store_v1/) and packs (store_v2/, written by the packs code) — are imported on the
first run that writes the store, frames copied as they are, then their files removed; one that
cannot be read whole keeps its files, is reported, and the build still runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
from click.testing import CliRunner

from ccreport.source import database
from ccreport.source.store import Store
from ccreport.source.storeimport import upgrade

HERE = Path(__file__).parent
V1, V2 = HERE / "store_v1", HERE / "store_v2"
REL = "projects/-p/s1.jsonl"


def _only_the_database(folder: Path) -> bool:
    return {p.name for p in folder.iterdir()} <= {database.NAME, database.NAME + "-wal", database.NAME + "-shm", "lock"}


def _old_blobs(old: Path) -> set[bytes]:
    """Every frame's compressed bytes as the old store's manifests name them."""
    blobs = set()
    for log in (old / "packs").glob("*.log"):
        for line in log.read_bytes().splitlines():
            m = orjson.loads(line)
            raw = (old / "packs" / m["data"]).read_bytes()
            blobs.update(raw[f[2]:f[2] + f[3]] for g in m["generations"] for f in g["frames"])
    for path in (old / "data").glob("*/*.json"):
        m = orjson.loads(path.read_bytes())
        raw = (path.parent / m["data"]).read_bytes()
        blobs.update(raw[f[2]:f[2] + f[3]] for g in m["generations"] for f in g["frames"])
    return blobs


def test_a_store_of_per_file_manifests_is_imported(tmp_path):
    shutil.copytree(V1, tmp_path / "v1")
    root, home = tmp_path / "v1" / "store", tmp_path / "v1" / "home"
    blobs = _old_blobs(root)
    st = Store(root)
    upgrade(st)
    assert st.problems == []
    assert _only_the_database(root)
    fresh = Store(root)
    assert fresh.read_bytes(REL) == (home / REL).read_bytes() and fresh.check(REL) is None
    assert fresh.read_bytes(REL, 0) == (V1 / "first.jsonl").read_bytes()  # the earlier version came along
    assert fresh.read_bytes("history.jsonl") == (home / "history.jsonl").read_bytes()
    assert "-p/s1" in fresh.index["sessions"] and set(fresh.files) == {REL, "history.jsonl"}
    assert {b for (b,) in fresh.db.execute("SELECT data FROM store_frames")} == blobs  # copied, not compressed again
    assert fresh.keep(REL, home / REL) == "same"  # (touched by the checkout: the same bytes)


def test_a_store_of_packs_in_the_sites_old_place_is_imported_by_a_build(tmp_path):
    """The default store was SITE/.ccreport/store; it is now the site's database, SITE/.ccreport."""
    from ccreport.site.build import Options, build

    home = tmp_path / "home"
    shutil.copytree(V2 / "home", home)
    site = tmp_path / "site"
    shutil.copytree(V2 / "store", site / ".ccreport" / "store")
    blobs = _old_blobs(site / ".ccreport" / "store")
    res = build(home, site, Options(jobs=1))
    assert res.errors == []
    assert not (site / ".ccreport" / "store").exists()
    left = {p.relative_to(site / ".ccreport").as_posix() for p in (site / ".ccreport").rglob("*")}
    assert not {n for n in left if n.split("/")[0] in ("store", "packs", "data", "index.json") or n.endswith(".z")}
    assert database.NAME in left
    st = Store(site / ".ccreport")
    assert blobs <= {b for (b,) in st.db.execute("SELECT data FROM store_frames")}
    assert st.read_bytes("projects/-p/s2.jsonl") == (V2 / "s2.jsonl").read_bytes()  # only the store had it
    assert st.read_bytes(REL, 0) == (V2 / "first.jsonl").read_bytes() and st.read_bytes(REL) == (home / REL).read_bytes()
    assert [g.size for g in st.generations(REL)] == [len((V2 / "first.jsonl").read_bytes()), (home / REL).stat().st_size]
    assert st.read_bytes("plans/plan-a.md") == b"# A plan\n"
    assert (site / "p" / "-p" / "s2" / "page-0001.html").is_file()  # the lost session has its pages
    assert "kept by the archive" in (site / "p" / "-p" / "s2" / "index.html").read_text()


def test_a_corrupt_old_store_keeps_its_files_and_the_build_says_why(tmp_path):
    from ccreport.cli import cli

    home = tmp_path / "home"
    shutil.copytree(V2 / "home", home)
    store = tmp_path / "store"
    shutil.copytree(V2 / "store", store)
    data = max((store / "packs").glob("*.z"), key=lambda p: p.stat().st_size)
    data.write_bytes(data.read_bytes()[:-100])  # a pack cut short
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    r = CliRunner().invoke(cli, ["build", "--home", str(home), "--out", str(tmp_path / "site"), "--store", str(store), "-q"])
    assert r.exit_code != 0 and "was not imported" in r.stderr and "is truncated" in r.stderr, r.stderr
    assert {p: p.read_bytes() for p in before} == before  # the old files as they were
    assert (tmp_path / "site" / "p" / "-p" / "s1" / "page-0001.html").is_file()  # the build ran
    shutil.copy(V2 / "store" / "packs" / data.name, data)  # mended: the next run imports it
    r = CliRunner().invoke(cli, ["build", "--home", str(home), "--out", str(tmp_path / "site"), "--store", str(store), "-q"])
    assert r.exit_code == 0, r.stderr
    assert _only_the_database(store)
    assert Store(store).read_bytes("projects/-p/s2.jsonl") == (V2 / "s2.jsonl").read_bytes()


def test_an_import_killed_after_its_commit_only_removes_the_leftovers(tmp_path):
    shutil.copytree(V2 / "store", tmp_path / "store")
    root = tmp_path / "store"
    st = Store(root)
    upgrade(st)
    shutil.copytree(V2 / "store" / "packs", root / "packs")  # as if the removal was killed half way
    next((root / "packs").glob("*.z")).unlink()
    st = Store(root)
    upgrade(st)
    assert st.problems == [] and _only_the_database(root)
    assert st.read_bytes("projects/-p/s2.jsonl") == (V2 / "s2.jsonl").read_bytes()


def test_restore_imports_an_old_store_and_list_asks_for_it(tmp_path):
    from ccreport.cli import cli

    store = tmp_path / "store"
    shutil.copytree(V2 / "store", store)
    r = CliRunner().invoke(cli, ["list", "--generations", "s1", "--store", str(store)])
    assert r.exit_code != 0 and "written by an earlier ccreport" in r.stderr, r.stderr
    assert not (store / database.NAME).exists()  # a read writes nothing
    back = tmp_path / "back"
    r = CliRunner().invoke(cli, ["restore", "s2", "--to", str(back), "--out", str(tmp_path / "site"), "--store", str(store)])
    assert r.exit_code == 0, r.stderr
    assert (back / "projects" / "-p" / "s2.jsonl").read_bytes() == (V2 / "s2.jsonl").read_bytes()
    assert _only_the_database(store)


def test_old_stores_in_both_places_are_each_imported(tmp_path):
    """A folder given as --store that held an old store itself, with another in its ``store/`` (the
    site's old default): the first import's mark must not pass the second off as imported (its files
    would be removed unread)."""
    root = tmp_path / "root"
    shutil.copytree(V2 / "store", root)
    shutil.copytree(V1 / "store", root / "store")
    for path in (root / "store" / "data").glob("*/*.json"):  # entries of its own, not the packs' again
        m = orjson.loads(path.read_bytes())
        path.write_bytes(orjson.dumps(dict(m, relpath="v1/" + m["relpath"])))
    upgrade(Store(root))
    fresh = Store(root)
    assert fresh.read_bytes("projects/-p/s2.jsonl") == (V2 / "s2.jsonl").read_bytes()
    assert fresh.read_bytes("v1/" + REL, 0) == (V1 / "first.jsonl").read_bytes()
    assert fresh.read_bytes("v1/" + REL) == (V1 / "home" / REL).read_bytes()
    assert not (root / "store").exists() and _only_the_database(root)
