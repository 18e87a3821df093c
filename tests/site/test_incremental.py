"""Incremental builds: each run writes only what changed, and the result is the cold build's.

Every test records the files a run wrote (BuildResult.written, from Writer.written) and compares
the site with a cold build of the same input in a fresh folder.
"""

from __future__ import annotations

import json
import sqlite3
import os
import random
import shutil
from pathlib import Path

import pytest

from ccreport.site import build as B
from ccreport.site import session as SESSION
from ccreport.site import transcript as T
from ccreport.site import features
from ccreport.site import state as S
from ccreport.site.build import Options, build
from ccreport.layout import SEARCH_DELTA, search_docs, search_units
from ccreport.site.search import DOCS_PER_CHUNK, unit_key
from ccreport.site.searchindex import units_file
from incrhelp import PROJECT, SDIR, SID, append, assert_same_as_cold, lines_of, main_file, rel_written, site_files
from util import CORPUS, assistant, make_home, page_text, tool_result, user, write_jsonl

@pytest.fixture
def opts():
    return Options(page_size=5, jobs=1)


@pytest.fixture
def home(tmp_path):
    """One project, one session of 12 exchanges (24 lines → 5 pages at 5 messages a page)."""
    return make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12)}})


def test_no_change_rebuild_writes_nothing(home, tmp_path, opts):
    out = tmp_path / "site"
    first = build(home, out, opts)
    assert first.errors == [] and f"{SDIR}/page-0005.html" in rel_written(first, out)
    again = build(home, out, opts)
    assert again.written == [] and again.deleted == []
    assert again.pages == first.pages and again.messages == first.messages


def test_no_change_does_not_open_transcripts(home, tmp_path, opts, monkeypatch):
    out = tmp_path / "site"
    build(home, out, opts)
    opened = []
    monkeypatch.setattr(SESSION, "render_transcript", lambda *a, **k: opened.append(a[1]) or pytest.fail("rendered"))
    build(home, out, opts)
    assert opened == []


def test_one_line_append_writes_at_most_four_files(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    append(main_file(home), [user("late", "one more prompt", ts="2025-06-01T11:00:00.000Z")])
    res = build(home, out, opts)
    written = rel_written(res, out)
    # At most four HTML pages: the open page, the session overview, the project and home indexes.
    assert len({w for w in written if w.endswith(".html")}) <= 4
    # Plus three search files (docs/search.md): the pending delta of the term index (no term
    # shard), the unit's last document chunk and its session's metadata shard (the session's last
    # time changed).
    key = unit_key(PROJECT, SID, "main")
    record = S.State.load(out).session((PROJECT, SID)).transcripts["main"].slices["search"].search
    last_chunk = (record["count"] - 1) // DOCS_PER_CHUNK
    assert written == {f"{SDIR}/page-0005.html", f"{SDIR}/index.html", f"p/{PROJECT}/index.html", "index.html",
                       search_docs(key, last_chunk), search_units(units_file(key)), SEARCH_DELTA}
    # The delta holds the unit's re-read last page: its cut is that page's first document.
    delta = json.loads((out / SEARCH_DELTA).read_text()[len("ccreportSearch.delta("):-3])
    assert delta["cuts"] == {key: record["firsts"][-1][1]} and {u for flat in delta["terms"].values() for u in flat[::2]} == {key}
    assert {"one", "more", "prompt"} <= set(delta["terms"])
    # Nothing beside them: the unit's record (page → first document) is in the session's state.
    assert {Path(p).relative_to(out).as_posix() for p in res.written} == written
    assert "one more prompt" in page_text(out / SDIR / "page-0005.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_append_reads_only_from_the_last_page(home, tmp_path, opts, monkeypatch):
    out = tmp_path / "site"
    build(home, out, opts)
    st = S.State.load(out)
    last = st.sessions[(PROJECT, SID)].transcripts["main"].pages[-1]
    starts = []
    real = T.Reader

    class Spy(real):
        def __init__(self, fh, offset=0, line=1):
            starts.append((offset, line))
            super().__init__(fh, offset, line)

    monkeypatch.setattr(T, "Reader", Spy)
    append(main_file(home), lines_of(1, start=50))
    build(home, out, opts)
    assert starts == [(last[2], last[1])] and last[2] > 0


def test_new_page_rewrites_the_previous_last_page(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    # Page 5 holds the last 4 messages: two more exchanges (4 messages) open page 6.
    append(main_file(home), lines_of(2, start=12))
    res = build(home, out, opts)
    written = rel_written(res, out)
    assert {f"{SDIR}/page-0005.html", f"{SDIR}/page-0006.html", f"{SDIR}/latest.html"} <= written
    assert not any(f"{SDIR}/page-000{k}.html" in written for k in range(1, 5))
    assert 'href="page-0006.html" rel="next"' in (out / SDIR / "page-0005.html").read_text()
    assert_same_as_cold(home, out, tmp_path, opts)


def test_partial_line_waits_until_complete(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    line = (json.dumps(user("p1", "half written prompt", ts="2025-06-01T11:00:00.000Z")) + "\n").encode()
    append(main_file(home), [line[:30]])
    build(home, out, opts)
    assert "half written" not in page_text(out / SDIR / "page-0005.html")
    assert "has no newline yet" in page_text(out / SDIR / "page-0005.html")
    append(main_file(home), [line[30:]])
    build(home, out, opts)
    assert "half written prompt" in page_text(out / SDIR / "page-0005.html")
    assert_same_as_cold(home, out, tmp_path, opts)


# --- one test per invalidation cause ------------------------------------------------------------
def test_truncated_transcript_is_rebuilt_and_extra_pages_pruned(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    write_jsonl(main_file(home), lines_of(3))
    res = build(home, out, opts)
    assert not (out / SDIR / "page-0003.html").exists()
    assert str(out / SDIR / "page-0005.html") in res.deleted
    assert_same_as_cold(home, out, tmp_path, opts)


def test_rewritten_head_is_rebuilt(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    entries = lines_of(14)
    entries[0] = user("u0", "a different first prompt", ts="2025-06-01T10:00:00.000Z")
    write_jsonl(main_file(home), entries)  # larger than before, but not an append
    res = build(home, out, opts)
    assert f"{SDIR}/page-0001.html" in rel_written(res, out)
    assert "a different first prompt" in page_text(out / SDIR / "page-0001.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_replaced_file_same_size_is_rebuilt(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    path = main_file(home)
    data = path.read_bytes().replace(b"answer number 1\"", b"ANSWER NUMBER 1\"")
    tmp = path.with_suffix(".new")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # a rotation: other inode, same size
    build(home, out, opts)
    assert "ANSWER NUMBER 1" in page_text(out / SDIR / "page-0001.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_option_change_rebuilds_all(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    bigger = Options(page_size=10, jobs=1)
    res = build(home, out, bigger)
    assert f"{SDIR}/page-0001.html" in rel_written(res, out)
    assert not (out / SDIR / "page-0004.html").exists()
    assert_same_as_cold(home, out, tmp_path, bigger)


def test_version_change_rebuilds_all(home, tmp_path, opts, monkeypatch):
    out = tmp_path / "site"
    build(home, out, opts)
    rendered = []
    real = SESSION.render_transcript
    monkeypatch.setattr(SESSION, "render_transcript", lambda *a, **k: rendered.append(k.get("resume")) or real(*a, **k))
    monkeypatch.setattr(S, "__version__", "99.0")
    build(home, out, opts)
    assert rendered == [None]  # the one transcript, from line 1


def test_fingerprint_change_rebuilds_all(home, tmp_path, opts, monkeypatch):
    other = tmp_path / "other"
    make_home(other, {"-home-u-other": {"22222222-2222-3333-4444-555555555555.jsonl": lines_of(2, sid="s2")}})
    shutil.copytree(other / "projects" / "-home-u-other", home / "projects" / "-home-u-other")
    out = tmp_path / "site"
    build(home, out, opts)
    rendered = []
    real = SESSION.render_transcript
    monkeypatch.setattr(SESSION, "render_transcript", lambda *a, **k: rendered.append(a[1].path.name) or real(*a, **k))
    monkeypatch.setattr(B, "fingerprint", lambda: "templates-changed")
    build(home, out, opts)
    assert len(rendered) == 2


@pytest.mark.parametrize("name", ["page-0002.html", "page-0005.html", "latest.html", "index.html"])
def test_page_deleted_by_hand_is_rebuilt(home, tmp_path, opts, name):
    out = tmp_path / "site"
    build(home, out, opts)
    before = (out / SDIR / name).read_bytes()
    (out / SDIR / name).unlink()
    res = build(home, out, opts)
    assert rel_written(res, out) == {f"{SDIR}/{name}"}
    assert (out / SDIR / name).read_bytes() == before


def test_index_pages_deleted_by_hand_are_rebuilt(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    (out / "index.html").unlink()
    (out / "p" / PROJECT / "index.html").unlink()
    res = build(home, out, opts)
    assert rel_written(res, out) == {"index.html", f"p/{PROJECT}/index.html"}


def test_transcript_gone_keeps_its_pages(home, tmp_path, opts):
    """Issue 14: what the home loses, the archive keeps (pages, rows, search), marked as such."""
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-a77.jsonl"
    write_jsonl(agent, lines_of(2, start=100))
    keep = home / "projects" / PROJECT / "33333333-2222-3333-4444-555555555555.jsonl"
    write_jsonl(keep, lines_of(1, sid="s3"))
    out = tmp_path / "site"
    first = build(home, out, opts)
    before = site_files(out)
    agent.unlink()
    res = build(home, out, opts)
    assert res.deleted == [] and rel_written(res, out) == set() and site_files(out) == before
    main_file(home).unlink()  # now the whole session
    res = build(home, out, opts)
    assert res.deleted == [] and res.archived == 1 and res.sessions == first.sessions
    assert "1 kept by the archive" in res.summary_line(out)
    assert rel_written(res, out) == {f"{SDIR}/index.html", f"p/{PROJECT}/index.html", "index.html"}
    assert "kept by the archive — source removed, last seen" in page_text(out / SDIR / "index.html")
    assert "kept by the archive — source removed, last seen" in page_text(out / "p" / PROJECT / "index.html")
    assert "1 session kept by the archive" in page_text(out / "index.html")
    assert all(site_files(out)[k] == v for k, v in before.items() if "page-" in k)
    keep.unlink()  # and the project: everything stays
    res = build(home, out, opts)
    assert res.deleted == [] and res.archived == 2 and (out / SDIR / "agent-a77" / "page-0001.html").is_file()
    again = build(home, out, opts)
    assert again.written == [] and again.deleted == []


def test_prune_missing_prunes_the_pages_of_what_is_gone(home, tmp_path, opts):
    """The old behaviour, now explicit only (build --prune-missing)."""
    prune = Options(page_size=opts.page_size, jobs=1, prune_missing=True)
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-a77.jsonl"
    write_jsonl(agent, lines_of(2, start=100))
    keep = home / "projects" / PROJECT / "33333333-2222-3333-4444-555555555555.jsonl"
    write_jsonl(keep, lines_of(1, sid="s3"))
    out = tmp_path / "site"
    build(home, out, opts)
    assert (out / SDIR / "agent-a77" / "page-0001.html").is_file()
    agent.unlink()
    build(home, out, opts)  # kept ...
    assert (out / SDIR / "agent-a77" / "page-0001.html").is_file()
    res = build(home, out, prune)  # ... until pruned
    opts = prune
    assert not (out / SDIR / "agent-a77").exists()
    assert "a77" not in page_text(out / SDIR / "index.html")
    assert f"{SDIR}/index.html" in rel_written(res, out)
    main_file(home).unlink()  # now the whole session
    res = build(home, out, opts)
    assert not (out / SDIR).exists()
    assert f"p/{PROJECT}/index.html" in rel_written(res, out)
    assert_same_as_cold(home, out, tmp_path, opts)
    keep.unlink()  # and the project
    build(home, out, opts)
    assert not (out / "p" / PROJECT).exists()
    assert_same_as_cold(home, out, tmp_path, opts)


def test_new_project_session_and_agent_appear(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    sid2 = "44444444-2222-3333-4444-555555555555"
    write_jsonl(home / "projects" / PROJECT / f"{sid2}.jsonl", lines_of(1, sid=sid2))
    write_jsonl(home / "projects" / "-home-u-new" / "55555555-2222-3333-4444-555555555555.jsonl", lines_of(1))
    write_jsonl(home / "projects" / PROJECT / SID / "subagents" / "agent-b1.jsonl", lines_of(1, start=200))
    res = build(home, out, opts)
    written = rel_written(res, out)
    assert {f"p/{PROJECT}/{sid2}/page-0001.html", f"{SDIR}/agent-b1/page-0001.html",
            "p/-home-u-new/55555555-2222-3333-4444-555555555555/page-0001.html", "p/-home-u-new/index.html",
            "index.html"} <= written
    assert f"{SDIR}/page-0001.html" not in written  # the main transcript was not re-rendered
    assert_same_as_cold(home, out, tmp_path, opts)


def test_agent_back_link_follows_the_main_transcript(home, tmp_path, opts):
    """An agent's pages link back to the Task call in the main transcript: when that call
    arrives in a later append, the agent's pages are redone to carry the link."""
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-c9.jsonl"
    write_jsonl(agent, lines_of(1, start=300))
    out = tmp_path / "site"
    build(home, out, opts)
    assert "back to the call" not in page_text(out / SDIR / "agent-c9" / "page-0001.html")
    call = assistant("t1", [{"type": "tool_use", "id": "toolu_c9", "name": "Task",
                             "input": {"description": "look", "prompt": "look around", "subagent_type": "x"}}],
                     mid="msg_task", rid="req_task", ts="2025-06-01T11:00:00.000Z")
    done = tool_result("t2", "toolu_c9", "found it", extra={"agentId": "c9", "status": "completed"},
                       ts="2025-06-01T11:00:05.000Z")
    append(main_file(home), [call, done])
    build(home, out, opts)
    assert "back to the call" in page_text(out / SDIR / "agent-c9" / "page-0001.html")
    assert 'agent-c9/page-0001.html' in (out / SDIR / "page-0005.html").read_text()
    # The state keeps the link, so an append elsewhere leaves the agent alone and correct.
    append(main_file(home), lines_of(1, start=400))
    res = build(home, out, opts)
    assert not any("agent-c9" in w for w in rel_written(res, out))
    assert_same_as_cold(home, out, tmp_path, opts)


def test_agent_appearing_after_its_result_gets_linked(home, tmp_path, opts):
    """A page that named a sub-agent without a file yet links it once the file appears, even
    when that page is closed by then."""
    call = assistant("t1", [{"type": "tool_use", "id": "toolu_g7", "name": "Task",
                             "input": {"description": "d", "prompt": "p", "subagent_type": "x"}}],
                     mid="msg_task", rid="req_task", ts="2025-06-01T11:00:00.000Z")
    done = tool_result("t2", "toolu_g7", "ok", extra={"agentId": "g7"}, ts="2025-06-01T11:00:05.000Z")
    append(main_file(home), [call, done] + lines_of(4, start=800))  # page 5 closes, page 6 opens
    out = tmp_path / "site"
    build(home, out, opts)
    assert "agent-g7/" not in (out / SDIR / "page-0005.html").read_text()
    write_jsonl(home / "projects" / PROJECT / SID / "subagents" / "agent-g7.jsonl", lines_of(1, start=900))
    res = build(home, out, opts)
    assert "agent-g7/page-0001.html" in (out / SDIR / "page-0005.html").read_text()
    assert f"{SDIR}/page-0005.html" in rel_written(res, out)
    assert_same_as_cold(home, out, tmp_path, opts)


def test_worker_processes_keep_the_state(home, tmp_path):
    write_jsonl(home / "projects" / PROJECT / "66666666-2222-3333-4444-555555555555.jsonl", lines_of(3, sid="s6"))
    out = tmp_path / "site"
    two = Options(page_size=5, jobs=2)
    build(home, out, two)
    assert build(home, out, two).written == []
    append(main_file(home), lines_of(1, start=950))
    append(home / "projects" / PROJECT / "66666666-2222-3333-4444-555555555555.jsonl", lines_of(1, start=960, sid="s6"))
    res = build(home, out, two)
    assert res.errors == [] and not any("page-0001" in w for w in rel_written(res, out) if SID in w)
    assert_same_as_cold(home, out, tmp_path, two)


def test_agent_meta_change_rebuilds_the_agent(home, tmp_path, opts):
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-d4.jsonl"
    write_jsonl(agent, lines_of(1, start=500))
    out = tmp_path / "site"
    build(home, out, opts)
    agent.with_name("agent-d4.meta.json").write_text(json.dumps({"agentType": "Explore", "description": "map it"}))
    res = build(home, out, opts)
    assert f"{SDIR}/agent-d4/page-0001.html" in rel_written(res, out)
    assert "map it" in page_text(out / SDIR / "agent-d4" / "page-0001.html")
    assert_same_as_cold(home, out, tmp_path, opts)


def test_state_file_is_versioned(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)
    db = sqlite3.connect(out / ".ccreport" / "ccreport.sqlite")
    head = json.loads(db.execute("SELECT raw FROM state_head").fetchone()[0])
    assert head["format"] == S.FORMAT and head["options"] == {"page_size": 5} and head["fingerprint"]
    parts = {(tid, f): json.loads(raw) for tid, f, raw in db.execute(
        "SELECT transcript, feature, raw FROM state_parts WHERE project = ? AND session = ?", (PROJECT, SID))}
    t = parts[("main", "")]
    assert t["summary"]["size"] == main_file(home).stat().st_size and t["offset"] == t["summary"]["size"]
    assert [p[0] for p in t["pages"]] == [1, 2, 3, 4, 5] and set(t["hashes"]) == {"1", "2", "3", "4", "5"}
    assert t["carry_last"]["messages"] == 20 and t["summary"]["lines"] == 24
    assert {f for tid, f in parts if tid == "main"} == {""} | set(features.versions())  # each feature's slice its own row
    # A corrupt state only costs a rebuild.
    with db:
        db.execute("UPDATE state_head SET raw = ?", (b"{not json",))
    db.close()
    res = build(home, out, opts)
    assert res.errors == [] and res.written == []


# --- the real corpus, appended to in random steps -----------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("seed", [1])
def test_corpus_grown_in_random_steps_equals_cold_build(tmp_path, seed):
    if not (CORPUS / "projects").is_dir():
        pytest.skip("no shared corpus")
    home = tmp_path / "home"
    shutil.copytree(CORPUS, home)
    rng = random.Random(seed)
    full = {}
    for f in sorted((home / "projects").rglob("*.jsonl")):
        data = f.read_bytes()
        full[f] = data
        cut = rng.randint(0, len(data))  # anywhere, mid-line included
        f.write_bytes(data[:cut])
    opts = Options(page_size=5, jobs=1)
    out = tmp_path / "site"
    build(home, out, opts)
    for step in range(3):
        for f, data in full.items():
            have = f.stat().st_size
            n = rng.randint(0, len(data) - have) if step < 2 else len(data) - have
            with open(f, "ab") as fh:
                fh.write(data[have:have + n])
        res = build(home, out, opts)
        assert res.errors == []
    assert_same_as_cold(home, out, tmp_path, opts)
