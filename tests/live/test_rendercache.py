"""The render cache of `serve --watch` (rendercache.py) and the page fragments it makes.

A cached render must be byte for byte what a cold render gives: every test that grows a home
compares the site with a cold build of the same input (test_incremental.assert_same_as_cold) and
checks that the cache was really used (hits), so an equal site is not just a cache left cold.
"""

from __future__ import annotations

import base64
import json
import random
import shutil

import pytest

from ccreport.site.build import Follow, Options, build
from ccreport.source.home import discover
from ccreport.model.messages import Message, ToolCall, ToolResult
from ccreport.render.message import RenderContext, render_message
from ccreport.live.follow import _to_warm
from ccreport.live.rendercache import RenderCache, TranscriptRenders, _Deps, _Lines, _Urls
from ccreport.site.state import State
from incrhelp import PROJECT, SDIR, SID, append, assert_same_as_cold, lines_of, main_file
from util import CORPUS, assistant, make_home, tool_result, user, write_jsonl

PAGE = f"{SDIR}/page-0001.html"


class Follower:
    """What follow.Follower does between appends: one State and one RenderCache for the whole run."""

    def __init__(self, home, out, opts, transcripts: int = 64):
        self.home, self.out, self.opts = home, out, opts
        self.state = State.load(out)
        self.cache = RenderCache(transcripts)

    def update(self, **kw):
        res = build(self.home, self.out, self.opts,
                    follow=Follow(state=self.state, catalog=discover(self.home), render_cache=self.cache, **kw))
        assert res.errors == []
        return res


def hits(cache: RenderCache) -> int:
    """Renders answered from the cache, over every transcript it holds."""
    return sum(t.hits for t in cache._by.values())


@pytest.fixture
def opts():
    return Options(page_size=50, jobs=1)


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(3)}})


def png() -> str:
    # A real 1×1 PNG: the blob store names files by the decoded bytes.
    return base64.b64encode(bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf"
        "c0f01f0005000201a5f1d5d20000000049454e44ae426082")).decode()


# --- byte for byte the cold build ------------------------------------------------------------------
def test_growing_session_through_the_cache_equals_cold_build(home, tmp_path, opts):
    out = tmp_path / "site"
    f = Follower(home, out, opts)
    f.update()
    # A call whose result arrives in the next append (the message grows), an image (a blob),
    # a Task call naming a sub-agent whose file appears only later (its link changes).
    append(main_file(home), [
        user("u10", "run it", sid=SID, ts="2025-06-01T11:00:00.000Z"),
        assistant("a10", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls -la"}}],
                  parent="u10", sid=SID, mid="msg_10", rid="req_10", ts="2025-06-01T11:00:01.000Z"),
    ])
    f.update()
    assert_same_as_cold(home, out, tmp_path, opts)
    append(main_file(home), [
        tool_result("r10", "toolu_1", "total 0\nfile.txt", parent="a10", sid=SID, ts="2025-06-01T11:00:02.000Z"),
        user("u11", [{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                                     "data": png()}}],
             sid=SID, ts="2025-06-01T11:00:03.000Z"),
        assistant("a11", [{"type": "tool_use", "id": "toolu_t", "name": "Task",
                           "input": {"description": "look", "prompt": "look around", "subagent_type": "x"}}],
                  sid=SID, mid="msg_11", rid="req_11", ts="2025-06-01T11:00:04.000Z"),
        tool_result("r11", "toolu_t", "found it", extra={"agentId": "c9", "status": "completed"}, sid=SID,
                    ts="2025-06-01T11:00:05.000Z"),
    ])
    f.update()
    assert_same_as_cold(home, out, tmp_path, opts)
    assert "agent-c9/page-0001.html" not in (out / PAGE).read_text()
    # The sub-agent's file appears: the cached Task message asked for its URL, so it is redone.
    write_jsonl(home / "projects" / PROJECT / SID / "subagents" / "agent-c9.jsonl", lines_of(1, start=300))
    f.update()
    assert "agent-c9/page-0001.html" in (out / PAGE).read_text()
    assert_same_as_cold(home, out, tmp_path, opts)
    # A blob deleted by hand comes back: the cached image message checks its file.
    blob = next((out / "blobs").iterdir())
    blob.unlink()
    append(main_file(home), lines_of(1, start=40))
    f.update()
    assert blob.is_file()
    assert_same_as_cold(home, out, tmp_path, opts)
    assert hits(f.cache) > 10


def test_tool_results_file_appearing_later_is_linked(home, tmp_path, opts):
    """A <persisted-output> note names a file in the session's tool-results/: the cached render
    asked the copier for it, so the file's arrival is a different answer and a fresh render."""
    note = ("<persisted-output>\nOutput too large (12KB). Full output saved to: "
            f"/home/u/.claude/projects/{PROJECT}/{SID}/tool-results/toolu_big.txt\n\nPreview (first 2KB):\nline 1\n"
            "</persisted-output>")
    append(main_file(home), [
        assistant("a20", [{"type": "tool_use", "id": "toolu_big", "name": "Bash", "input": {"command": "cat big"}}],
                  sid=SID, mid="msg_20", rid="req_20", ts="2025-06-01T12:00:00.000Z"),
        tool_result("r20", "toolu_big", note, parent="a20", sid=SID, ts="2025-06-01T12:00:01.000Z"),
    ])
    out = tmp_path / "site"
    f = Follower(home, out, opts)
    f.update()
    append(main_file(home), lines_of(1, start=50))
    f.update()
    assert "not found in this home" in (out / PAGE).read_text()
    saved = home / "projects" / PROJECT / SID / "tool-results" / "toolu_big.txt"
    saved.parent.mkdir(parents=True)
    saved.write_text("line 1\nline 2\n")
    append(main_file(home), lines_of(1, start=51))
    f.update()
    assert "open the full output" in (out / PAGE).read_text()
    assert (out / SDIR / "tool-results" / "toolu_big.txt").read_text() == "line 1\nline 2\n"
    assert_same_as_cold(home, out, tmp_path, opts)


@pytest.mark.slow
def test_corpus_grown_in_random_steps_through_the_cache_equals_cold_build(tmp_path):
    """The real corpus cut anywhere (mid-line too) and grown back in steps, each step built
    with the same cache: the end is the cold build, byte for byte."""
    if not (CORPUS / "projects").is_dir():
        pytest.skip("no shared corpus")
    home = tmp_path / "home"
    shutil.copytree(CORPUS, home)
    rng = random.Random(7)
    full = {}
    for p in sorted((home / "projects").rglob("*.jsonl")):
        data = p.read_bytes()
        full[p] = data
        p.write_bytes(data[:rng.randint(0, len(data))])
    opts = Options(page_size=20, jobs=1)
    out = tmp_path / "site"
    f = Follower(home, out, opts, transcripts=200)  # all 99 transcripts change at every step
    f.update()
    for step in range(3):
        for p, data in full.items():
            have = p.stat().st_size
            n = rng.randint(0, len(data) - have) if step < 2 else len(data) - have
            with open(p, "ab") as fh:
                fh.write(data[have:have + n])
        f.update()
    assert hits(f.cache) > 100
    assert_same_as_cold(home, out, tmp_path, opts)


# --- what a cached render depends on ---------------------------------------------------------------
def task_message(line: int = 7) -> Message:
    call = ToolCall("toolu_9", "Task", {"description": "d", "prompt": "p", "subagent_type": "x"}, line,
                    ToolResult("toolu_9", "done", False, {"agentId": "ab12"}, line + 1))
    return Message("assistant", line, {"type": "assistant", "uuid": "a"}, blocks=[("tool_use", call)],
                   lines=[line, line + 1], timestamp="2025-06-01T10:00:00.000Z", msg_id="msg_9")


def test_a_different_answer_to_a_recorded_lookup_renders_again(tmp_path):
    renders = TranscriptRenders()
    m = task_message()
    without = RenderContext(root="../../../", agent_urls={}, page_lines={7, 8})
    linked = RenderContext(root="../../../", agent_urls={"ab12": "p/x/s/agent-ab12/page-0001.html"}, page_lines={7, 8})
    first = renders.render(m, without, tmp_path)
    assert first == render_message(m, without)
    renders.end_pass()  # what one render pass used is what the next one can reuse
    assert renders.render(m, without, tmp_path) == first and renders.hits == 1
    renders.end_pass()
    second = renders.render(m, linked, tmp_path)
    assert second == render_message(m, linked) and "agent-ab12/page-0001.html" in second and second != first
    assert renders.misses == 2
    # The message itself is part of the key: a new result is a new render.
    m.blocks[0][1].result.content = "done, and more"
    assert "done, and more" in renders.render(m, linked, tmp_path)
    # The fixed context is part of the key too (another folder depth).
    deeper = RenderContext(root="../../../../", agent_urls=linked.agent_urls, page_lines={7, 8})
    assert renders.render(m, deeper, tmp_path) == render_message(m, deeper)
    renders.end_pass()
    misses = renders.misses
    for other in (RenderContext(root="../../../../", agent_urls=linked.agent_urls, page_lines={7, 8}, embed=True),
                  RenderContext(root="../", agent_urls=linked.agent_urls, page_lines={7, 8})):
        assert renders.render(m, other, tmp_path) == render_message(m, other)
    assert renders.misses == misses + 2  # every other context field is in the key


def test_only_the_last_page_of_a_pass_is_kept(tmp_path):
    renders = TranscriptRenders()
    ctx = RenderContext(root="../../../")
    for page in range(3):
        renders.begin_page()
        for i in range(4):
            renders.render(Message("user", page * 10 + i, {"type": "user"}, blocks=[("text", f"hi {page} {i}")],
                                   lines=[page * 10 + i]), ctx, tmp_path)
    renders.end_pass()
    assert len(renders.entries) == 4


def test_uses_the_recorder_cannot_follow_make_a_render_uncacheable():
    deps = _Deps()
    lines, urls = _Lines({1, 2}, deps), _Urls({"a": "u"}, deps)
    assert 1 in lines and "a" in urls and urls["a"] == "u" and urls.get("b") is None
    assert deps.ok and [d[0] for d in deps.items] == ["line", "url", "url", "url"]
    assert sorted(lines) == [1, 2]  # iterating: the answer is right, but nothing says which lines mattered
    assert not deps.ok
    deps2 = _Deps()
    assert list(_Urls({"a": "u"}, deps2).items()) == [("a", "u")]
    assert not deps2.ok


def test_a_message_that_cannot_be_fingerprinted_is_rendered_plainly(tmp_path):
    renders = TranscriptRenders()
    m = Message("user", 3, {"type": "user", "odd": {1, 2}}, blocks=[("text", "a set in the entry")], lines=[3])
    ctx = RenderContext(root="../")
    assert renders.render(m, ctx, tmp_path) == render_message(m, ctx)
    assert renders.render(m, ctx, tmp_path) == render_message(m, ctx)
    assert renders.hits == 0 and renders.entries == {} and renders._used == {}


def test_the_cache_keeps_a_bounded_number_of_transcripts():
    cache = RenderCache(max_transcripts=3)
    for i in range(5):
        cache.transcript(("p", "s", str(i)))
    assert len(cache._by) == 3  # transcripts held
    assert [k[2] for k in cache._by] == ["2", "3", "4"]


# --- fragments -----------------------------------------------------------------------------------
def test_fragment_holds_the_new_and_changed_messages_and_names_the_gone(home, tmp_path, opts):
    out = tmp_path / "site"
    f = Follower(home, out, opts)
    f.update()
    assert f.cache.take_fragments() == {}  # no earlier version of the page in memory: no fragment
    f.update(warm={(PROJECT, SID): {"main"}})  # what serve does for an opened page
    assert f.cache.take_fragments() == {}  # nothing written, nothing to merge
    append(main_file(home), [
        user("u30", "call it <b>now</b>", sid=SID, ts="2025-06-01T13:00:00.000Z"),
        assistant("a30", [{"type": "tool_use", "id": "toolu_30", "name": "Bash", "input": {"command": "date"}}],
                  parent="u30", sid=SID, mid="msg_30", rid="req_30", ts="2025-06-01T13:00:01.000Z"),
    ])
    f.update()
    frag = f.cache.take_fragments()[PAGE]
    # the new prompt, its turn's figures line (render.turns) and the reply
    assert frag["ids"] == ["L7", "turn-L7", "L8"] and frag["removed"] == []
    assert frag["html"].startswith('<main id="main">') and frag["html"].endswith("</main>")
    assert 'id="L7"' in frag["html"] and 'id="L8"' in frag["html"] and 'id="L6"' not in frag["html"]
    assert "call it &lt;b&gt;now&lt;/b&gt;" in frag["html"]  # escaped, as on the page
    assert "lines 1–8" in frag["html"]  # the sub-heading, the pagers and the end note come along
    # The result arrives: the call's message changed, nothing is new.
    append(main_file(home), [tool_result("r30", "toolu_30", "Mon Jun  2", parent="a30", sid=SID,
                                         ts="2025-06-01T13:00:02.000Z")])
    f.update()
    frag = f.cache.take_fragments()[PAGE]
    assert frag["ids"] == ["L8"] and "Mon Jun  2" in frag["html"]
    # An unfinished line is shown on its own; once complete it continues the reply before it
    # (same message id), so its own message is gone.
    more = assistant("a31", [{"type": "text", "text": "first part"}], sid=SID, mid="msg_31", rid="req_31",
                     ts="2025-06-01T13:00:03.000Z")
    cont = json.dumps(assistant("a32", [{"type": "text", "text": "second part"}], parent="a31", sid=SID, mid="msg_31",
                                rid="req_31", ts="2025-06-01T13:00:04.000Z")).encode()
    with open(main_file(home), "ab") as fh:
        fh.write(json.dumps(more).encode() + b"\n" + cont[:40])
    f.update()
    frag = f.cache.take_fragments()[PAGE]
    assert frag["ids"] == ["turn-L7", "L10", "L11"] and "unfinished last line" in frag["html"]
    with open(main_file(home), "ab") as fh:
        fh.write(cont[40:] + b"\n")
    f.update()
    frag = f.cache.take_fragments()[PAGE]
    assert frag["removed"] == ["L11"] and frag["ids"] == ["L10"] and "second part" in frag["html"]
    assert_same_as_cold(home, out, tmp_path, opts)


def test_fragment_of_a_page_that_closes_carries_its_new_pager(tmp_path):
    opts = Options(page_size=5, jobs=1)
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(2)}})
    out = tmp_path / "site"
    f = Follower(home, out, opts)
    f.update()
    f.update(warm={(PROJECT, SID): {"main"}})
    append(main_file(home), lines_of(2, start=10))  # 8 messages: page 1 closes, page 2 opens
    f.update()
    frags = f.cache.take_fragments()
    assert list(frags) == [PAGE]  # page 2 is new: no earlier version, the whole page is the news
    assert 'rel="next"' in frags[PAGE]["html"] and frags[PAGE]["ids"] == ["L5", "turn-L5"]


def test_follow_warms_the_pages_it_is_told_were_viewed(home, tmp_path, opts):
    out = tmp_path / "site"
    build(home, out, opts)  # the catch-up build (serve's first build): nothing in the cache
    f = Follower(home, out, opts)
    f.update()
    catalog = discover(home)
    assert _to_warm([PAGE, "p/../x/page-0001.html", f"p/{PROJECT}/nosuch/page-0001.html", "index.html"],
                    catalog, f.cache) == {(PROJECT, SID): {"main"}}
    res = f.update(warm=_to_warm([PAGE], catalog, f.cache), only_projects={PROJECT})
    assert [p for p in res.written if ".ccreport" not in str(p)] == []  # identical pages: nothing written
    assert f.cache.has((PROJECT, SID, "main"))
    assert _to_warm([PAGE], catalog, f.cache) == {}  # warm already: not again


def test_only_last_pages_are_warmed_and_a_few_at_a_time(tmp_path):
    opts = Options(page_size=5, jobs=1)
    sids = [f"{SID[:-1]}{i}" for i in range(6)]
    home = make_home(tmp_path / "home", {PROJECT: {f"{sid}.jsonl": lines_of(6, sid=sid) for sid in sids}})
    out = tmp_path / "site"
    build(home, out, opts)  # 12 messages a session: pages 1-3, page 3 the last
    state, catalog, cache = State.load(out), discover(home), RenderCache()
    first, last = (f"p/{PROJECT}/{sids[0]}/page-000{n}.html" for n in (1, 3))
    assert _to_warm([first], catalog, cache, state) == {}  # a closed page never changes
    assert _to_warm([last], catalog, cache, state) == {(PROJECT, sids[0]): {"main"}}
    many = _to_warm([f"p/{PROJECT}/{sid}/page-0003.html" for sid in sids], catalog, cache, state, limit=4)
    assert sum(len(v) for v in many.values()) == 4
