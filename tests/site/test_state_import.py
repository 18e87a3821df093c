"""A site whose state is in the files of the code before the database (tests/oldstate/: a file per
session with a turn file, and a pack) carries on: the first load imports it into the database and
removes the files; another format is rebuilt; a failed import keeps the files and says why."""

from __future__ import annotations

import shutil

import orjson
import pytest

from ccreport.site import stateimport
from ccreport.site.build import Options, build
from ccreport.site.state import State
from ccreport.source import database
from incrhelp import append, assert_same_as_cold, lines_of, rel_written
from oldstatehelp import FIXTURES, LONG, PAGE_SIZE, PROJECT, old_home

OLD_FILES = ("state.json", "sessions.json", "sessions", "turns")


def _old_site(tmp_path, layout: str):
    """A home, its site as the new code builds it, and in the site's .ccreport the fixture's old
    state files (the database gone), their stamps of the home (inodes, mtimes) and of the code
    patched in as the old code would have written them here."""
    home = old_home(tmp_path / "home", layout)
    out = tmp_path / "site"
    assert build(home, out, Options(page_size=PAGE_SIZE, jobs=1)).errors == []
    new = State.load(out)
    folder = out / ".ccreport"
    database.close(folder / database.NAME)
    for p in folder.glob(database.NAME + "*"):
        p.unlink()
    shutil.copytree(FIXTURES / layout, folder, dirs_exist_ok=True)
    head = orjson.loads((folder / "state.json").read_bytes())
    head.update({k: new.head[k] for k in ("fingerprint", "ccreport", "leaves", "title_sources")})
    (folder / "state.json").write_bytes(orjson.dumps(head))
    for path in [folder / "sessions.json"] + sorted(folder.glob("sessions/*/*.json")):
        if path.exists():
            data = orjson.loads(path.read_bytes())
            for d in data if isinstance(data, list) else [data]:
                brief = new.sessions[(d["project"], d["id"])]
                # (the pages' hashes too: the old code's pages named other asset files, which the
                # fingerprint patched in above stands for)
                hashes = {tid: t.hashes for tid, t in new.session((d["project"], d["id"])).transcripts.items()}
                for tid, t in d["transcripts"].items():
                    t.update(inode=brief.transcripts[tid].inode, mtime_ns=brief.transcripts[tid].mtime_ns, dir_mtime_ns=None,
                             hashes=hashes[tid])
            path.write_bytes(orjson.dumps(data))
    return home, out


def _left(out) -> list[str]:
    return sorted(p.name for p in (out / ".ccreport").iterdir() if p.name in OLD_FILES)


@pytest.mark.parametrize("layout", ["files", "pack"])
def test_an_old_state_is_imported_and_its_files_go(tmp_path, layout):
    home, out = _old_site(tmp_path, layout)
    opts = Options(page_size=PAGE_SIZE, jobs=1)
    res = build(home, out, opts)
    assert res.errors == [] and _left(out) == []
    assert rel_written(res, out) <= {"index.html"}  # nothing rendered again: the imported state was used
    main = State.load(out).session((PROJECT, LONG)).transcripts["main"].slices["turns"]
    if layout == "files":
        assert main.closed_turns["count"] == 250 and main.closed_turns["first"] == [1, 1]
    append(home / "projects" / PROJECT / f"{LONG}.jsonl", lines_of(3, start=400, sid=LONG))
    assert build(home, out, opts).errors == []  # resumed from the imported state (and its closed turns)
    assert_same_as_cold(home, out, tmp_path, opts)


def test_an_old_state_of_another_format_is_rebuilt_and_its_files_go(tmp_path):
    home, out = _old_site(tmp_path, "files")
    head = orjson.loads((out / ".ccreport" / "state.json").read_bytes())
    (out / ".ccreport" / "state.json").write_bytes(orjson.dumps(dict(head, format=stateimport.OLD_FORMAT - 1)))
    opts = Options(page_size=PAGE_SIZE, jobs=1)
    res = build(home, out, opts)
    assert res.errors == [] and _left(out) == []
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_failed_import_keeps_the_files_and_says_why(tmp_path, monkeypatch):
    home, out = _old_site(tmp_path, "files")

    def full(*args, **kw):
        raise database.DatabaseFull(out / ".ccreport" / database.NAME)

    monkeypatch.setattr(stateimport.statedb, "write", full)
    opts = Options(page_size=PAGE_SIZE, jobs=1)
    res = build(home, out, opts)
    assert any("cannot import the state of an earlier ccreport" in e and "no space" in e for e in res.errors), res.errors
    assert _left(out) == ["sessions", "state.json", "turns"]
    monkeypatch.undo()
    assert build(home, out, opts).errors == [] and _left(out) == []
    assert_same_as_cold(home, out, tmp_path, opts)
