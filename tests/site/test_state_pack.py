"""The state pack: a full build of many sessions keeps their states in one file, later builds
override it session by session, and what loads back is what a cold build would save."""

from __future__ import annotations

import dataclasses

import orjson
import pytest

from ccreport.site import state as S
from ccreport.site.build import Options, build
from incrhelp import append, lines_of
from util import make_home

OTHER = "-home-u-other"
A, B, C = (f"{c * 8}-2222-3333-4444-555555555555" for c in "abc")


@pytest.fixture
def opts():
    return Options(page_size=5, jobs=1)


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "home", {"-home-u-proj": {f"{A}.jsonl": lines_of(3, sid=A), f"{B}.jsonl": lines_of(4, sid=B)},
                                         OTHER: {f"{C}.jsonl": lines_of(2, sid=C)}})


def _loaded(out) -> dict:
    """Each session's saved state as plain data, the output folders' own mtimes left out."""
    got = {}
    state = S.State.load(out)
    for key in state.sessions:
        data = dataclasses.asdict(state.session(key))
        for t in data["transcripts"].values():
            t.pop("dir_mtime_ns")
        got[key] = data
    return got


def _pack_ids(out) -> set[str]:
    return {d["id"] for d in orjson.loads((out / ".ccreport" / S.PACK).read_bytes())}


def test_a_full_build_of_many_sessions_writes_one_pack(home, tmp_path, opts, monkeypatch):
    monkeypatch.setattr(S, "PACK_MIN", 2)
    out = tmp_path / "site"
    assert build(home, out, opts).errors == []
    assert _pack_ids(out) == {A, B, C}
    assert not (out / ".ccreport" / "sessions").exists()
    assert {k[1]: v["info"]["messages"] for k, v in _loaded(out).items()} == {A: 6, B: 8, C: 4}


def test_fewer_sessions_keep_a_file_each(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    assert not (out / ".ccreport" / S.PACK).exists()
    assert sorted(p.stem for p in (out / ".ccreport" / "sessions").rglob("*.json")) == sorted([A, B, C])


def test_later_builds_override_the_pack_and_load_as_a_cold_build(home, tmp_path, opts, monkeypatch):
    monkeypatch.setattr(S, "PACK_MIN", 2)
    out = tmp_path / "site"
    build(home, out, opts)
    append(home / "projects" / "-home-u-proj" / f"{A}.jsonl", lines_of(2, start=3, sid=A))
    assert build(home, out, opts).errors == []
    files = [p.relative_to(out / ".ccreport").as_posix() for p in (out / ".ccreport" / "sessions").rglob("*.json")]
    assert files == [f"sessions/-home-u-proj/{A}.json"]  # only the session that changed
    cold = tmp_path / "cold"
    build(home, cold, opts)
    assert _loaded(out) == _loaded(cold) and _loaded(out)[("-home-u-proj", A)]["info"]["messages"] == 10


def test_a_vanished_session_leaves_the_pack(home, tmp_path, opts, monkeypatch):
    monkeypatch.setattr(S, "PACK_MIN", 2)
    out = tmp_path / "site"
    build(home, out, opts)
    (home / "projects" / OTHER / f"{C}.jsonl").unlink()
    opts.prune_missing = True  # the archive forgets a session only when told (issue 14)
    assert build(home, out, opts).errors == []
    assert _pack_ids(out) == {A, B}
    assert set(_loaded(out)) == {("-home-u-proj", A), ("-home-u-proj", B)}
    assert build(home, out, opts).written == []  # and nothing comes back


def test_the_state_keeps_each_session_as_its_json_and_a_brief(home, tmp_path, opts, monkeypatch):
    monkeypatch.setattr(S, "PACK_MIN", 2)
    out = tmp_path / "site"
    build(home, out, opts)
    pack = orjson.loads((out / ".ccreport" / S.PACK).read_bytes())
    st = S.State.load(out)
    for data in pack:
        key = (data["project"], data["id"])
        whole = st.session(key)  # decoded again each time, from the JSON the pack holds
        assert orjson.dumps(whole) == orjson.dumps(data) == orjson.dumps(st.session(key))
        brief = st.sessions[key]
        assert brief.info == whole.info and set(brief.transcripts) == set(whole.transcripts)
        assert all(b.summary == whole.transcripts[tid].summary and b.pages == whole.transcripts[tid].pages
                   and b.last_page == whole.transcripts[tid].last_page for tid, b in brief.transcripts.items())
        st.put(S.PackedState.of(whole))  # the same state again: nothing to write
    before = {p: p.stat().st_mtime_ns for p in (out / ".ccreport").rglob("*.json")}
    st.save()
    assert not (out / ".ccreport" / "sessions").exists()
    assert {p: p.stat().st_mtime_ns for p in (out / ".ccreport").rglob("*.json")} == before
    whole = st.session(("-home-u-proj", A))
    whole.info.title = "renamed"
    st.put(S.PackedState.of(whole))  # a changed state: its own file, over the pack
    assert st.sessions[("-home-u-proj", A)].info.title == "renamed"
    st.save()
    assert orjson.loads((out / ".ccreport" / "sessions" / "-home-u-proj" / f"{A}.json").read_bytes())["info"]["title"] == "renamed"
    assert S.State.load(out).session(("-home-u-proj", A)).info.title == "renamed"
