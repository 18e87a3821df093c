"""A unit's postings are encoded a segment at a time (search.SEGMENT_POSTINGS), so that a huge
transcript's are never all held as numbers: the index written must be the same bytes whatever the
bound, in a full build and in an incremental one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccreport.layout import SEARCH_DELTA
from ccreport.site import search, searchfiles
from util import SAMPLE_HOME, assistant, make_home, user


def _index_files(site: Path) -> dict[str, bytes]:
    """Every search script but the metadata (terms, blocks, document chunks, the delta)."""
    return {str(p.relative_to(site)): p.read_bytes() for p in (site / "search").rglob("*.js")}


def _pages_home(tmp_path: Path) -> Path:
    """One session of many pages whose terms recur across pages (so segments share terms)."""
    lines = [user("u0", "first prompt alpha")]
    for i in range(1, 60):
        text = f"answer word{i % 7} common beta{i} alpha" + (" gamma" * (i % 5))
        lines.append(assistant(f"a{i}", [{"type": "text", "text": text}], mid=f"m{i}", rid=f"r{i}"))
    return make_home(tmp_path / "home", {"-p": {"s1.jsonl": lines}})


@pytest.mark.parametrize("bound", [1, 7])
def test_a_full_build_is_the_same_whatever_the_segment_bound(tmp_path, build_site, monkeypatch, bound):
    """Sample home and a 20-page session: shards, blocks (BIG made small so that some terms go to
    blocks), document chunks and delta are byte-identical with segments of 1 or 7 postings."""
    monkeypatch.setattr(searchfiles, "BIG", 200)
    pages = _pages_home(tmp_path)
    want = {}
    for name, home in (("sample", SAMPLE_HOME), ("pages", pages)):
        build_site(home, tmp_path / f"{name}-normal", page_size=3)
        want[name] = _index_files(tmp_path / f"{name}-normal")
        assert any("/b/" in rel for rel in want[name])
    monkeypatch.setattr(search, "SEGMENT_POSTINGS", bound)
    for name, home in (("sample", SAMPLE_HOME), ("pages", pages)):
        build_site(home, tmp_path / f"{name}-small", page_size=3)
        assert _index_files(tmp_path / f"{name}-small") == want[name], name


def test_an_incremental_build_is_the_same_whatever_the_segment_bound(tmp_path, build_site, monkeypatch):
    """The delta of appends (resumed at the last page) and of a read from line 1 (a rewritten
    file) is the same with a segment bound of one posting."""
    sites: dict[int, list] = {}
    normal = search.SEGMENT_POSTINGS
    for bound in (normal, 1):
        monkeypatch.setattr(search, "SEGMENT_POSTINGS", bound)
        home = _pages_home(tmp_path / f"h{bound}")
        path = home / "projects/-p/s1.jsonl"
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[:20]))
        out = tmp_path / f"site{bound}"
        build_site(home, out, page_size=3)
        path.write_text("".join(lines[:41]))  # an append: resumed at the last page
        build_site(home, out, page_size=3)
        sites.setdefault(bound, []).append(_index_files(out))
        path.write_text("".join(lines[1:]))  # the first line gone: read again from line 1
        build_site(home, out, page_size=3)
        sites[bound].append(_index_files(out))
        assert json.loads((out / SEARCH_DELTA).read_text()[len("ccreportSearch.delta("):-3])["cuts"]
    assert sites[1] == sites[normal]
