"""The state in the site's database (site.statedb): rows a session part, a transcript part and a
feature slice; an update writes only the rows whose bytes changed; a build killed at any point, or a
full disk, leaves a state the next build continues from; a slice of another version renders only
its transcripts again."""

from __future__ import annotations

import dataclasses
import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from ccreport.site import features
from ccreport.site import state as S
from ccreport.site import statedb
from ccreport.site.build import Options, build
from ccreport.source import database
from incrhelp import append, assert_same_as_cold, lines_of, rel_written, site_files
from util import ROOT, make_home

OTHER = "-home-u-other"
PROJ = "-home-u-proj"
A, B, C = (f"{c * 8}-2222-3333-4444-555555555555" for c in "abc")


@pytest.fixture
def opts():
    return Options(page_size=5, jobs=1)


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "home", {PROJ: {f"{A}.jsonl": lines_of(3, sid=A), f"{B}.jsonl": lines_of(4, sid=B)},
                                         OTHER: {f"{C}.jsonl": lines_of(2, sid=C)}})


def _rows(out) -> dict:
    db = sqlite3.connect(out / ".ccreport" / database.NAME)
    try:
        return {tuple(r[:4]): r[4] for r in db.execute("SELECT project, session, transcript, feature, raw FROM state_parts")}
    finally:
        db.close()


def _same_but_search(home, out, tmp_path, opts) -> None:
    """The pages and the state of a cold build, the search index left out: a build stopped after its
    pages and before its state (killed, or a full disk) leaves a search index that differs, with the
    code before the database too (noted for the search's owners)."""
    cold = tmp_path / "cold"
    assert build(home, cold, opts).errors == []
    a, b = ({k: v for k, v in site_files(o).items() if not k.startswith("search/")} for o in (out, cold))
    assert sorted(a) == sorted(b) and [k for k in a if a[k] != b[k]] == []
    sa, sb = _loaded(out), _loaded(cold)
    for got in (sa, sb):
        for data in got.values():
            for t in data["transcripts"].values():
                t["slices"].pop("search")
    assert sa == sb


def _loaded(out) -> dict:
    got = {}
    state = S.State.load(out)
    for key in state.sessions:
        data = dataclasses.asdict(state.session(key))
        for t in data["transcripts"].values():
            t.pop("dir_mtime_ns")
        got[key] = data
    return got


def test_the_state_is_rows_and_an_append_rewrites_only_what_changed(home, tmp_path, opts, monkeypatch):
    out = tmp_path / "site"
    assert build(home, out, opts).errors == []
    assert sorted(p.name for p in (out / ".ccreport").iterdir() if p.is_file() and not p.name.startswith(database.NAME)) == []
    before = _rows(out)
    assert {k[:2] for k in before} == {(PROJ, A), (PROJ, B), (OTHER, C)}
    written = []
    real = statedb.write
    monkeypatch.setattr(statedb, "write", lambda conn, path, head, changed, *rest: (
        written.extend(changed), real(conn, path, head, changed, *rest))[1])
    append(home / "projects" / PROJ / f"{A}.jsonl", lines_of(2, start=3, sid=A))
    assert build(home, out, opts).errors == []
    after = _rows(out)
    assert written and {(p, s) for p, s, *_ in written} == {(PROJ, A)}  # the other sessions' rows are left alone
    assert all(before.get(tuple(w[:4])) != w[5] for w in written)  # and of A, the rows whose bytes changed
    assert ((PROJ, A, "main", "teams") not in {tuple(w[:4]) for w in written})  # (a slice that did not change)
    assert {k: v for k, v in after.items() if k[1] != A} == {k: v for k, v in before.items() if k[1] != A}
    written.clear()
    assert build(home, out, opts).written == [] and written == []  # nothing changed: nothing written
    cold = tmp_path / "cold"
    build(home, cold, opts)
    assert _loaded(out) == _loaded(cold) and _loaded(out)[(PROJ, A)]["info"]["messages"] == 10


def test_a_vanished_session_leaves_its_rows(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    (home / "projects" / OTHER / f"{C}.jsonl").unlink()
    opts.prune_missing = True
    assert build(home, out, opts).errors == []
    assert {k[:2] for k in _rows(out)} == {(PROJ, A), (PROJ, B)}
    assert build(home, out, opts).written == []


def test_a_pruned_session_leaves_no_byte_in_the_database(tmp_path, opts):
    secret = "zanzibar-" + os.urandom(8).hex()
    home = make_home(tmp_path / "home", {PROJ: {f"{A}.jsonl": lines_of(2, sid=A)},
                                         OTHER: {f"{C}.jsonl": [dict(e, message={"role": "user", "content": secret})
                                                                if e["type"] == "user" else e for e in lines_of(3, sid=C)]}})
    out = tmp_path / "site"
    build(home, out, opts)
    files = lambda: b"".join(p.read_bytes() for p in (out / ".ccreport").glob(database.NAME + "*"))  # noqa: E731
    assert secret.encode() in files()
    (home / "projects" / OTHER / f"{C}.jsonl").unlink()
    opts.prune_missing = True
    assert build(home, out, opts).errors == []
    assert secret.encode() not in files()


def test_a_slice_of_another_version_renders_only_its_transcripts_again(home, tmp_path, opts, monkeypatch):
    out = tmp_path / "site"
    build(home, out, opts)
    monkeypatch.setattr(features.Teams, "VERSION", features.Teams.VERSION + 1)
    res = build(home, out, opts)
    assert res.errors == [] and {r for r in rel_written(res, out) if not r.startswith("search/")} == set()  # the same pages
    assert {k[3] for k in _rows(out)} == {""} | set(features.versions())
    assert build(home, out, opts).written == []
    assert_same_as_cold(home, out, tmp_path, opts)


def test_another_layout_of_the_tables_is_made_again(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    conn = statedb.connect(out)
    with database.transaction(conn):
        database.set_schema_version(conn, "state", statedb.STATE_SCHEMA + 1)
    database.close(statedb.db_path(out))  # (as another process would find it)
    res = build(home, out, opts)
    assert res.errors == [] and database.schema_version(statedb.connect(out), "state") == statedb.STATE_SCHEMA
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_full_disk_keeps_the_previous_state(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    before = _rows(out)
    conn = statedb.connect(out)
    append(home / "projects" / PROJ / f"{A}.jsonl", lines_of(40, start=3, sid=A))
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    res = build(home, out, opts)
    assert any("cannot save the incremental state" in e for e in res.errors), res.errors
    assert _rows(out) == before
    conn.execute("PRAGMA max_page_count = 1073741823")  # room again
    assert build(home, out, opts).errors == []
    _same_but_search(home, out, tmp_path, opts)


# Kill the build process with SIGKILL at one point of the state's writes: before or after the
# closed turns' commit, in the first transaction before its COMMIT, or after the state's.
_KILLER = """
import os, signal, sys
from pathlib import Path
from ccreport.site import closedturns, statedb
from ccreport.source import database
from ccreport.site.build import Options, build
point = sys.argv[3]
def die():
    os.kill(os.getpid(), signal.SIGKILL)
real_spill, real_write, real_tx = closedturns.spill, statedb.write, database.transaction
def spill(*a):
    got = real_spill(*a)
    if got and point == "after-turns":
        die()
    return got
def write(conn, *a):
    if point == "before-state":
        die()
    real_write(conn, *a)
    if point == "after-state":
        die()
class Killing:
    def __init__(self, conn, path=None):
        self.inner = real_tx(conn, path)
    def __enter__(self):
        return self.inner.__enter__()
    def __exit__(self, *exc):
        if point == "in-a-transaction":
            die()
        return self.inner.__exit__(*exc)
closedturns.spill, statedb.write = spill, write
if point == "in-a-transaction":
    statedb.database.transaction = Killing
build(Path(sys.argv[1]), Path(sys.argv[2]), Options(page_size=4, jobs=1))
"""


@pytest.mark.parametrize("point", ["after-turns", "before-state", "in-a-transaction", "after-state"])
def test_a_build_killed_at_any_point_of_the_state_leaves_one_the_next_continues_from(tmp_path, point, monkeypatch):
    from ccreport.site import closedturns
    monkeypatch.setattr(closedturns, "PART", 3)
    opts = Options(page_size=4, jobs=1)
    home = make_home(tmp_path / "home", {PROJ: {f"{A}.jsonl": lines_of(5, sid=A), f"{B}.jsonl": lines_of(2, sid=B)}})
    out = tmp_path / "site"
    assert build(home, out, opts).errors == []
    database.close(statedb.db_path(out))
    append(home / "projects" / PROJ / f"{A}.jsonl", lines_of(7, start=5, sid=A))  # closes blocks of turns
    script = "import ccreport.site.closedturns as c; c.PART = 3\n" + _KILLER
    proc = subprocess.run([sys.executable, "-c", script, str(home), str(out), point], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert build(home, out, opts).errors == []
    _same_but_search(home, out, tmp_path, opts)
