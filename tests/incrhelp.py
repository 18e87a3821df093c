"""Helpers shared by the incremental, watch and render-cache tests: a growing synthetic session and
the comparison of an updated site with a cold build."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
from pathlib import Path

from ccreport.layout import SEARCH_DELTA
from ccreport.site import closedturns
from ccreport.site.build import Options, build
from ccreport.site.state import State
from searchhelp import index_terms
from util import assistant, user

PROJECT = "-home-u-proj"
SID = "11111111-2222-3333-4444-555555555555"
SDIR = f"p/{PROJECT}/{SID}"


def exchange(i: int, sid: str = SID) -> list[dict]:
    """One prompt and its answer (two lines), numbered so every line is unique."""
    return [user(f"u{i}", f"prompt number {i}", sid=sid, ts=f"2025-06-01T10:{i // 60:02d}:{i % 60:02d}.000Z"),
            assistant(f"a{i}", [{"type": "text", "text": f"answer number {i}"}], parent=f"u{i}", sid=sid,
                      mid=f"msg_{i}", rid=f"req_{i}", ts=f"2025-06-01T10:{i // 60:02d}:{i % 60:02d}.500Z")]


def lines_of(n: int, start: int = 0, sid: str = SID) -> list[dict]:
    return [e for i in range(start, start + n) for e in exchange(i, sid)]


def append(path: Path, entries) -> None:
    with open(path, "ab") as fh:
        for e in entries:
            fh.write((json.dumps(e) + "\n").encode() if isinstance(e, dict) else e)


def rel_written(res, out: Path) -> set[str]:
    """The site files a run wrote: files under .ccreport/ are the build's state (the incremental
    state, search page parts, usage ledgers), not pages a reader or a server sees."""
    rels = {Path(p).relative_to(out).as_posix() for p in res.written}
    return {r for r in rels if not r.startswith(".ccreport/")}


def site_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
            if p.is_file() and ".ccreport" not in p.parts}


def assert_same_as_cold(home: Path, out: Path, tmp_path: Path, opts: Options) -> None:
    cold = tmp_path / f"cold-{random.random()}"
    res = build(home, cold, opts)
    assert res.errors == []
    a, b = site_files(out), site_files(cold)
    # The term index: an update puts its changes in the pending delta (search/delta.js) that the
    # page applies to the shards, so the index the page sees is compared, not the shards' bytes.
    assert index_terms(out) == index_terms(cold)
    a, b = ({k: v for k, v in files.items() if not _term_index(k)} for files in (a, b))
    assert sorted(a) == sorted(b)
    assert [k for k in a if a[k] != b[k]] == [], [k for k in a if a[k] != b[k]]
    # The state is the cold build's too (so the next run behaves the same either way), but for
    # the output folders' own mtimes: the head, and every session as it loads back.
    ha, hb = State.load(out).head, State.load(cold).head
    assert ha == hb, {k: (ha.get(k), hb.get(k)) for k in ha.keys() | hb.keys() if ha.get(k) != hb.get(k)}
    sa, sb = _sessions(out), _sessions(cold)
    assert sorted(sa) == sorted(sb)
    assert [k for k in sa if sa[k] != sb[k]] == [], _first_difference(sa, sb)
    assert _closed_turns(out) == _closed_turns(cold)


def _closed_turns(out: Path) -> dict:
    """The closed turns' rows (site.closedturns), as far as the state vouches for them (a build that
    failed may leave a block after those, which the next one writes over)."""
    got = {}
    state = State.load(out)
    for pdir, sid in state.sessions:
        for tid, ts in state.session((pdir, sid)).transcripts.items():
            turns = ts.slices["turns"]
            if turns.closed_turns:
                blocks = closedturns.blocks(out, pdir, sid, tid, turns, set(range(1, turns.closed_turns["count"] + 1)))
                got[(pdir, sid, tid)] = list(blocks)
    return got


def _term_index(rel: str) -> bool:
    return rel == SEARCH_DELTA or rel.startswith(("search/t/", "search/b/"))


def _sessions(out: Path) -> dict:
    got = {}
    state = State.load(out)
    for key in state.sessions:
        data = dataclasses.asdict(state.session(key))
        for t in data["transcripts"].values():
            t.pop("dir_mtime_ns", None)
        got[key] = data
    return got


def main_file(home: Path) -> Path:
    return home / "projects" / PROJECT / f"{SID}.jsonl"


def change_head(out: Path, **fields) -> None:
    """Change fields of the saved state's head (in the site's database), as another ccreport would."""
    db = sqlite3.connect(out / ".ccreport" / "ccreport.sqlite", isolation_level=None)
    try:
        head = json.loads(db.execute("SELECT raw FROM state_head").fetchone()[0])
        db.execute("UPDATE state_head SET raw = ?", (json.dumps(dict(head, **fields)).encode(),))
    finally:
        db.close()


def state_saved(out: Path) -> bool:
    """Whether a build saved its state in the site's database (its head is there)."""
    path = out / ".ccreport" / "ccreport.sqlite"
    if not path.exists():
        return False
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT 1 FROM state_head").fetchone() is not None
    except sqlite3.OperationalError:  # no such table yet
        return False
    finally:
        db.close()


def _first_difference(sa: dict, sb: dict) -> str:
    """Where the first session whose state is not the cold build's differs (for the message)."""
    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for f in sorted(a.keys() | b.keys(), key=str):
                if a.get(f) != b.get(f):
                    return walk(a.get(f), b.get(f), f"{path}.{f}")
        return f"{path}: {a!r:.300} != {b!r:.300}"
    return next((walk(sa[k], sb[k], str(k)) for k in sa if sa[k] != sb[k]), "")
