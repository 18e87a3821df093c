"""A full build's huge unit writes its encoded postings out as spill runs (search.SPILL_CHARS) that
the main process takes over and joins shard by shard (searchindex.Fresh, _fill): the index written
must be the same bytes whatever the bounds, in one process and with the pool, and no spill file
may be left, even when the session fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccreport.site import search, searchfiles, searchindex
from ccreport.site.search import read_doc_file
from util import SAMPLE_HOME, assistant, make_home, user


def _index_files(site: Path) -> dict[str, bytes]:
    """Every search script but the metadata (terms, blocks, document chunks, the delta)."""
    return {str(p.relative_to(site)): p.read_bytes() for p in (site / "search").rglob("*.js")}


def _pages_home(tmp_path: Path) -> Path:
    """One session of many pages whose terms recur across pages (so runs share terms; "alpha" and
    "common" are in every document, "gamma" in most: frequent terms, in blocks)."""
    lines = [user("u0", "first prompt alpha")]
    for i in range(1, 80):
        text = f"answer word{i % 7} common beta{i} alpha" + (" gamma" * (i % 5))
        lines.append(assistant(f"a{i}", [{"type": "text", "text": text}], mid=f"m{i}", rid=f"r{i}"))
    return make_home(tmp_path / "home", {"-p": {"s1.jsonl": lines}})


def _spill_files(site: Path) -> list[str]:
    return [p.name for p in (site / ".ccreport").iterdir() if p.name.startswith(search.SPILL_PREFIX)]


def _spied_runs(monkeypatch) -> dict[str, int]:
    """unit → runs of the spills Fresh takes over (this process's SessionParts)."""
    runs: dict[str, int] = {}
    add = searchindex.Fresh.add

    def spy(self, part):
        runs.update({s.key: len(s.runs) for s in part.spills})
        add(self, part)
    monkeypatch.setattr(searchindex.Fresh, "add", spy)
    return runs


@pytest.mark.parametrize("segment,spill", [(1, 1), (7, 300)])
def test_a_full_build_is_the_same_whatever_the_spill_bound(tmp_path, build_site, monkeypatch, segment, spill):
    """Shards, blocks (BIG made small), document chunks and delta are byte-identical when units
    spill a run per segment of 1 posting, or after a few hundred characters (the sample home's
    small units stay in memory beside spilled ones of their session), with --jobs 1 and 2."""
    monkeypatch.setattr(searchfiles, "BIG", 200)
    homes = {"sample": SAMPLE_HOME, "pages": _pages_home(tmp_path)}
    want = {}
    for name, home in homes.items():
        build_site(home, tmp_path / f"{name}-normal", page_size=3)
        want[name] = _index_files(tmp_path / f"{name}-normal")
        assert any("/b/" in rel for rel in want[name])
    monkeypatch.setattr(search, "SEGMENT_POSTINGS", segment)
    monkeypatch.setattr(search, "SPILL_CHARS", spill)
    runs = _spied_runs(monkeypatch)
    units = {key for name in homes for p in (tmp_path / f"{name}-normal/search/d").glob("*.js")
             for key in read_doc_file(p.read_bytes())}
    for jobs in (1, 2):  # (2: the sample home's sessions go through the pool, their spills pickled)
        runs.clear()
        for name, home in homes.items():
            out = tmp_path / f"{name}-spilled-{jobs}"
            build_site(home, out, page_size=3, jobs=jobs)
            assert _index_files(out) == want[name], (name, jobs)
            assert not _spill_files(out)
        assert runs and max(runs.values()) > 3  # a term's postings crossed runs
        assert set(runs) <= units
        if spill > 1:
            assert set(runs) < units  # some units stayed in memory (beside spilled ones)


def test_a_session_that_fails_leaves_no_spill_file(tmp_path, build_site, monkeypatch):
    """A session whose read fails after its unit spilled reports the error; its spill file (never
    taken over by Fresh) is removed at the end of the build, as are those a killed build left."""
    home = _pages_home(tmp_path)
    out = tmp_path / "site"
    (out / ".ccreport").mkdir(parents=True)
    (out / ".ccreport" / f"{search.SPILL_PREFIX}left").write_bytes(b"from a killed build")
    monkeypatch.setattr(search, "SEGMENT_POSTINGS", 1)
    monkeypatch.setattr(search, "SPILL_CHARS", 1)
    end, spilled = search.SessionIndex.end, []

    def failing_end(self, transcript_id):
        end(self, transcript_id)
        spilled.extend(s.path for s in self.spills)
        assert all(Path(p).exists() for p in spilled)
        raise RuntimeError("the session fails after its unit spilled")
    monkeypatch.setattr(search.SessionIndex, "end", failing_end)
    res = build_site(home, out, page_size=3)
    assert spilled and any("the session fails" in e for e in res.errors)
    assert not _spill_files(out)


def test_fill_joins_a_units_runs_in_its_place():
    """_fill reads shard n's piece of every run, joins each term's postings in run order and puts
    them where the session's fragment has "" for the unit (not at a postings string that happens to
    equal the unit's key)."""
    import tempfile
    import orjson
    from array import array

    key = "abcdef01234567"
    # (a real file: the runs are read at their offsets, os.pread, as a spill file is)
    runs, data = [], tempfile.TemporaryFile()
    for piece in ([["t", "1,2", "u", "5"], []], [["t", "3"], ["v", "9"]]):
        run = array("Q", [data.tell()])
        for flat in piece:
            if flat:
                data.write(orjson.dumps(flat))
            run.append(data.tell())
        runs.append(run)
    data.flush()
    entries = {"t": ["00000000000000", key, key, "", "ffffffffffffff", "7"], "u": [key, ""]}
    searchindex._fill(entries, search.UnitSpill(key, "", runs), 0, data)
    assert entries == {"t": ["00000000000000", key, key, "1,2,3", "ffffffffffffff", "7"], "u": [key, "5"]}
    entries = {"v": [key, ""]}
    searchindex._fill(entries, search.UnitSpill(key, "", runs), 1, data)
    assert entries == {"v": [key, "9"]}
    data.close()
