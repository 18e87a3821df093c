"""The outline's closed parts (site.outlineparts) and the closed turns' rows beside the state
(site.closedturns): a session of more than PART prompts lists its full blocks of prompts on part pages,
its page only the rest; an append neither reads nor writes the closed turns; a build that failed
or crashed half-way leaves nothing that reads back wrong. PART is made 3 here."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from ccreport.layout import outline_part
from ccreport.site import closedturns
from ccreport.site.build import Options, build
from ccreport.site.state import State
from incrhelp import PROJECT, SDIR, SID, append, assert_same_as_cold, lines_of, main_file, rel_written
from util import make_home

PART = 3


@pytest.fixture(autouse=True)
def small_parts(monkeypatch):
    monkeypatch.setattr(closedturns, "PART", PART)


@pytest.fixture
def opts():
    return Options(page_size=4, jobs=1)


def _main(out):
    """The main transcript's turns slice (site.features.TurnsSlice)."""
    return State.load(out).session((PROJECT, SID)).transcripts["main"].slices["turns"]


def _db(out):
    return sqlite3.connect(out / ".ccreport" / "ccreport.sqlite", isolation_level=None)


def _rows(out) -> dict[int, bytes]:
    """The main transcript's rows of closed turns: block → its JSON."""
    db = _db(out)
    try:
        return dict(db.execute("SELECT block, raw FROM turns WHERE project = ? AND session = ? AND transcript = 'main'",
                               (PROJECT, SID)))
    finally:
        db.close()


def _change(out, sql: str, *args) -> None:
    db = _db(out)
    try:
        db.execute(sql, args)
    finally:
        db.close()


def test_parts_close_as_the_session_grows_and_match_a_cold_build(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(2)}})
    out = tmp_path / "site"
    build(home, out, opts)
    assert _main(out).closed_turns is None and not (out / SDIR / outline_part(1)).exists()
    n = 2
    for step in (1, 3, 2, 5, 1):
        append(main_file(home), lines_of(step, n))
        n += step
        res = build(home, out, opts)
        assert res.errors == []
        st = _main(out)
        closed = (st.turns_mark["count"] - 1) // PART * PART
        assert (st.closed_turns or {}).get("count", 0) == closed
        # the state keeps only the turns after the file's: the open one and those after it
        assert [t["no"] for t in st.turns] == list(range(closed + 1, n + 1))
        assert sorted(p.name for p in (out / SDIR).glob("prompts-*.html")) == [outline_part(k) for k in range(1, closed // PART + 1)]
        assert_same_as_cold(home, out, tmp_path, opts)
    index = (out / SDIR / "index.html").read_text()
    assert f'Prompts <span class="dim">({n})</span>' in index
    base = _main(out).closed_turns["count"]
    assert f'<ol class="turns" start="{base + 1}">' in index
    assert [f"prompts-{k:04d}.html" for k in range(1, base // PART + 1)] == re.findall(r'href="(prompts-\d+\.html)"', index)
    listed = re.search(r'<section class="outline".*?</section>', index, re.S).group(0)
    assert re.findall(r"prompt number \d+", listed) == [f"prompt number {i}" for i in range(base, n)]
    part = (out / SDIR / outline_part(2)).read_text()
    assert "Prompts 4–6" in part and '<ol class="turns" start="4">' in part and 'href="prompts-0001.html"' in part
    assert [f"prompt number {i}" for i in (3, 4, 5)] == re.findall(r"prompt number \d+", part)
    # "Read from the first prompt" still finds it, now on no page of the state's turns
    assert 'href="page-0001.html#L1">Read from the first prompt' in index


def test_an_append_writes_the_closed_parts_only_when_they_close(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(8)}})
    out = tmp_path / "site"
    build(home, out, opts)
    closes = 0
    for n in range(8, 16):
        parts, before = _main(out).closed_turns["count"] // PART, _rows(out)
        append(main_file(home), lines_of(1, n))
        res = build(home, out, opts)
        now = _main(out).closed_turns["count"] // PART
        assert [r for r in rel_written(res, out) if "/prompts-" in r] == [f"{SDIR}/{outline_part(k)}" for k in range(parts + 1, now + 1)]
        after = _rows(out)
        assert after == before if now == parts else sorted(after) == list(range(1, now + 1)) and \
            all(after[k] == before[k] for k in before)
        closes += now > parts
    assert closes >= 2


def test_a_block_left_by_a_crash_is_written_over(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(8)}})
    out = tmp_path / "site"
    build(home, out, opts)
    # a block added by a build whose state was never saved
    _change(out, "INSERT INTO turns VALUES (?, ?, 'main', 3, ?)", PROJECT, SID, b'[{"no": 7, "pa')
    append(main_file(home), lines_of(1, 8))
    assert build(home, out, opts).errors == []
    assert_same_as_cold(home, out, tmp_path, opts)
    append(main_file(home), lines_of(3, 9))  # the next block goes in its place
    assert build(home, out, opts).errors == []
    assert [t["no"] for t in json.loads(_rows(out)[3])] == [7, 8, 9]
    assert_same_as_cold(home, out, tmp_path, opts)


@pytest.mark.parametrize("damage", ["all", "one"])
def test_a_lost_closed_turns_renders_the_transcript_whole(tmp_path, opts, damage):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12)}})
    out = tmp_path / "site"
    build(home, out, opts)
    assert sorted(_rows(out)) == [1, 2, 3]
    _change(out, "DELETE FROM turns" + (" WHERE block = 2" if damage == "one" else ""))
    append(main_file(home), lines_of(1, 12))
    res = build(home, out, opts)
    assert res.errors == [] and sorted(_rows(out)) == [1, 2, 3]  # read from line 1, written anew
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_deleted_part_page_comes_back(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(8)}})
    out = tmp_path / "site"
    build(home, out, opts)
    want = (out / SDIR / outline_part(1)).read_bytes()
    (out / SDIR / outline_part(1)).unlink()
    res = build(home, out, opts)
    assert f"{SDIR}/{outline_part(1)}" in rel_written(res, out)
    assert (out / SDIR / outline_part(1)).read_bytes() == want
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_shorter_rewritten_session_drops_its_extra_parts(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12)}})
    out = tmp_path / "site"
    build(home, out, opts)
    assert (out / SDIR / outline_part(3)).exists()
    main_file(home).write_text("")
    append(main_file(home), lines_of(5, 100))
    res = build(home, out, opts)
    assert res.errors == []
    assert not (out / SDIR / outline_part(2)).exists() and (out / SDIR / outline_part(1)).exists()
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_pruned_session_takes_its_parts_and_closed_turns(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(8)}})
    out = tmp_path / "site"
    build(home, out, opts)
    assert (out / SDIR / outline_part(1)).exists() and _rows(out)
    main_file(home).unlink()
    res = build(home, out, Options(page_size=4, jobs=1, prune_missing=True))
    assert res.errors == []
    assert not (out / SDIR).exists() and _rows(out) == {}


def test_blocks_read_only_the_wanted_ones_and_check_the_rows_first(tmp_path, opts):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12)}})
    out = tmp_path / "site"
    build(home, out, opts)
    st = _main(out)
    assert st.closed_turns["count"] == 3 * PART
    got = list(closedturns.blocks(out, PROJECT, SID, "main", st, {1, 3}))
    assert [no for no, _ in got] == [1, 3]
    assert [[t["no"] for t in block] for _, block in got] == [[1, 2, 3], [7, 8, 9]]
    assert list(closedturns.blocks(out, PROJECT, SID, "main", st, set())) == []
    # rows missing a block the state vouches for: nothing is given
    _change(out, "DELETE FROM turns WHERE block = 2")
    with pytest.raises(ValueError, match="fewer closed turns than the state counts"):
        next(closedturns.blocks(out, PROJECT, SID, "main", st, {2}))


def test_the_part_pages_leave_the_row_cache_alone(tmp_path, opts, monkeypatch):
    from ccreport.site import outline
    monkeypatch.setattr(outline, "_ROWS", type(outline._ROWS)())
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(11)}})
    out = tmp_path / "site"
    assert build(home, out, opts).errors == []
    st = _main(out)
    assert st.closed_turns["count"] == 3 * PART and (out / SDIR / outline_part(3)).exists()
    assert len(outline._ROWS) == len(st.turns)  # the session page's rows only
    assert all(isinstance(k, bytes) and len(k) == 16 for k in outline._ROWS)  # digests, not the turns' JSON
