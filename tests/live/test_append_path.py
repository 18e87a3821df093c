"""An append under watch costs the append (site.grown, live.follow): a line appended to a known
transcript is built without discovering the home, merging the archive or reading the home files
again, writes only the files whose bytes changed, and leaves a site and a store equal to a cold
build's. Anything else (a new file, a home file) still shows up.

The follower is driven here without its watcher thread: ``update`` is given the changes watchfiles
would report, so every step is deterministic.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from watchfiles import Change

import ccreport.live.follow as FOLLOW
import ccreport.site.build as BUILD
import ccreport.site.grown as GROWN
from ccreport.live.follow import Follower
from ccreport.site.build import Options
from ccreport.source.store import Store
from incrhelp import PROJECT, SDIR, SID, append, assert_same_as_cold, lines_of, main_file
from util import make_home, page_text, user, write_jsonl

OTHER = "22222222-2222-3333-4444-555555555555"


class Quiet(Follower):
    """A follower that keeps each update's result."""

    def __init__(self, home: Path, out: Path, opts: Options):
        super().__init__(home, out, opts)
        self.results = []

    def built(self, res) -> None:
        self.results.append(res)

    def failed(self, message: str) -> None:
        raise AssertionError(message)


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12),
                                                   f"{OTHER}.jsonl": lines_of(3, sid=OTHER)}})


def started(home: Path, out: Path, opts: Options) -> Quiet:
    f = Quiet(home, out, opts)
    assert f.catch_up()
    return f


def files_of(out: Path) -> dict[str, tuple[int, int]]:
    """Every file of the site, its state included: (mtime_ns, size)."""
    return {p.relative_to(out).as_posix(): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in out.rglob("*") if p.is_file()}


def state_rows(out) -> dict:
    """(project, session, transcript, feature) → the bytes of that part of the site's state."""
    conn = sqlite3.connect(out / ".ccreport" / "ccreport.sqlite")
    try:
        return {tuple(r[:4]): r[4] for r in conn.execute("SELECT project, session, transcript, feature, raw FROM state_parts")}
    finally:
        conn.close()


def counting(monkeypatch, module, name: str) -> list:
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(a) or real(*a, **k))
    return calls


def test_an_append_takes_the_fast_path_and_writes_only_what_changed(home, tmp_path, monkeypatch):
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    # What the whole incremental way does and the append must not: discover or rescan the home,
    # open and merge the archive, add the saved sessions, read the home files.
    slow = [counting(monkeypatch, FOLLOW, "discover"), counting(monkeypatch, FOLLOW, "rescan"),
            counting(monkeypatch, BUILD, "keep_sources"), counting(monkeypatch, GROWN, "load")]
    before, rows_before = files_of(out), state_rows(out)
    append(main_file(home), [user("w1", "an appended prompt", ts="2025-06-01T11:00:00.000Z")])
    f.update({(Change.modified, str(main_file(home)))}, None)
    assert slow == [[], [], [], []]
    after = files_of(out)
    changed = {k for k in after if before.get(k) != after[k]}
    # The other session of the project: not one of its files (pages, overview, state) rewritten.
    assert not [k for k in changed if OTHER in k]
    pages = {k for k in changed if not k.startswith((".ccreport/", "search/"))}
    assert pages == {f"{SDIR}/page-0005.html", f"{SDIR}/index.html", f"p/{PROJECT}/index.html", "index.html"}
    # The site's database (state and store): only the grown session's state rows are rewritten.
    assert {k for k in changed if k.startswith(".ccreport/")} <= {".ccreport/ccreport.sqlite", ".ccreport/ccreport.sqlite-wal"}
    rows_after = state_rows(out)
    rewritten = {k for k in rows_after.keys() | rows_before.keys() if rows_before.get(k) != rows_after.get(k)}
    assert rewritten and {(project, session) for project, session, _, _ in rewritten} == {(PROJECT, SID)}
    assert "an appended prompt" in page_text(out / SDIR / "page-0005.html")
    assert f.results[-1].errors == []
    assert_same_as_cold(home, out, tmp_path, opts)


def test_the_store_keeps_the_appended_bytes(home, tmp_path):
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    for i in range(3):  # one Store kept open between appends: each sees the last one's entries
        append(main_file(home), [user(f"w{i}", f"prompt {i}", ts=f"2025-06-01T11:00:0{i}.000Z")])
        f.update({(Change.modified, str(main_file(home)))}, None)
    rel = f"projects/{PROJECT}/{SID}.jsonl"
    assert Store(out / ".ccreport").read_bytes(rel) == main_file(home).read_bytes()
    assert_same_as_cold(home, out, tmp_path, opts)


@pytest.mark.parametrize("how", [Change.added, Change.modified])
def test_a_new_sub_agent_file_still_appears(home, tmp_path, how):
    """A file the last build did not know goes the whole way, however watchfiles names the change."""
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-e7.jsonl"
    write_jsonl(agent, lines_of(1, start=700))
    f.update({(how, str(agent))}, None)
    assert "prompt number 700" in page_text(out / SDIR / "agent-e7" / "page-0001.html")
    # … and the next append to it is a fast one again.
    append(agent, [user("w9", "later agent prompt", ts="2025-06-01T12:00:00.000Z")])
    f.update({(Change.modified, str(agent))}, None)
    assert "later agent prompt" in page_text(out / SDIR / "agent-e7" / "page-0001.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_new_session_still_appears(home, tmp_path):
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    sid = "33333333-2222-3333-4444-555555555555"
    path = home / "projects" / PROJECT / f"{sid}.jsonl"
    write_jsonl(path, lines_of(2, sid=sid))
    f.update({(Change.added, str(path)), (Change.modified, str(path))}, None)
    assert (out / "p" / PROJECT / sid / "index.html").exists()
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_home_file_that_moved_is_read_again(home, tmp_path):
    """history.jsonl is not watched: the append that follows a typed prompt shows it."""
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    line = {"display": "typed but never sent", "pastedContents": {}, "timestamp": 1748776000000,
            "project": "/home/u/proj", "sessionId": OTHER}
    (home / "history.jsonl").write_text(json.dumps(line) + "\n")
    append(main_file(home), [user("w1", "an appended prompt", ts="2025-06-01T11:00:00.000Z")])
    f.update({(Change.modified, str(main_file(home)))}, None)
    assert "typed but never sent" in page_text(out / "p" / PROJECT / OTHER / "index.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_rewritten_transcript_is_rendered_again(home, tmp_path):
    """Same inode, fewer bytes: not an append (the whole way, which renders it from line 1)."""
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    with open(main_file(home), "r+b") as fh:
        fh.truncate(0)
    append(main_file(home), lines_of(2, start=900))
    f.update({(Change.modified, str(main_file(home)))}, None)
    assert "prompt number 900" in page_text(out / SDIR / "page-0001.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_appends_to_a_fork_and_its_parent(tmp_path):
    """A fork's redirect to its fork point rests on its parent's pages: both grow on the fast path."""
    ref = {"type": "fork-context-ref", "parentSessionId": SID, "parentLastUuid": "u3", "sessionId": OTHER}
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12),
                                                   f"{OTHER}.jsonl": [ref] + lines_of(4, sid=SID) + lines_of(2, 40, OTHER)}})
    out, opts = tmp_path / "site", Options(page_size=5)
    f = started(home, out, opts)
    fork = home / "projects" / PROJECT / f"{OTHER}.jsonl"
    assert (out / "p" / PROJECT / OTHER / "fork-point.html").exists()
    for i, path in enumerate([main_file(home), fork, main_file(home)]):
        append(path, lines_of(3, start=100 + 10 * i, sid=path.stem))
        f.update({(Change.modified, str(path))}, None)
        assert_same_as_cold(home, out, tmp_path, opts)


def test_a_todo_list_rewritten_in_place_is_read_again(home, tmp_path):
    """A todo file written over in place leaves its folder's stat alone: its own stat is looked at."""
    out, opts = tmp_path / "site", Options(page_size=5)
    todo = home / "todos" / f"{OTHER}-agent-{OTHER}.json"
    todo.parent.mkdir()
    todo.write_text(json.dumps([{"content": "first item", "status": "pending", "activeForm": "doing it"}]))
    f = started(home, out, opts)
    with open(todo, "r+") as fh:  # (the same inode)
        fh.write(json.dumps([{"content": "second item", "status": "completed", "activeForm": "done it"}]))
        fh.truncate()
    append(main_file(home), [user("w1", "an appended prompt", ts="2025-06-01T11:00:00.000Z")])
    f.update({(Change.modified, str(main_file(home)))}, None)
    assert "second item" in page_text(out / "p" / PROJECT / OTHER / "index.html")
    assert_same_as_cold(home, out, tmp_path, opts)
