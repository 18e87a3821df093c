"""A SendMessage links forward to the teammate's reply when the reply is on a later page: through a
small page beside the transcript's pages (reply-<hash>.html), written when the call's page closes
(no reply yet) and again when the reply comes (a redirect to it). Incremental builds = cold builds."""

from __future__ import annotations

import re
from pathlib import Path

from ccreport.site.build import Options, build
from incrhelp import PROJECT, SDIR, SID, append, assert_same_as_cold, exchange, main_file
from util import assistant, make_home, tool_result, user, write_jsonl

OPTS = Options(page_size=2, jobs=1)
REPLY = '<teammate-message teammate_id="profiler" color="blue">THE-REPLY</teammate-message>'


def _call_lines() -> list[dict]:
    return [user("u0", "ask the profiler", sid=SID),
            assistant("a0", [{"type": "tool_use", "id": "toolu_send1", "name": "SendMessage",
                              "input": {"to": "profiler", "message": "measure it"}}], parent="u0", sid=SID,
                      mid="m0", rid="r0"),
            tool_result("r0", "toolu_send1", "sent", parent="a0", sid=SID)]


def _forward_href(page: Path) -> str:
    m = re.search(r'href="(reply-[0-9a-f]+\.html)"', page.read_text())
    assert m, "no forward link to the reply"
    return m.group(1)


def test_reply_on_a_later_page_is_linked_from_the_call(tmp_path):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": _call_lines() + exchange(1) + exchange(2)
                                                   + [user("rep", REPLY, sid=SID)]}})
    out = tmp_path / "site"
    assert build(home, out, OPTS).errors == []
    href = _forward_href(out / SDIR / "page-0001.html")
    target = re.search(r'url=([^"]+)"', (out / SDIR / href).read_text()).group(1)
    page, anchor = target.split("#")
    assert page != "page-0001.html" and f'id="{anchor}"' in (out / SDIR / page).read_text()
    assert "THE-REPLY" in (out / SDIR / page).read_text()


def test_forward_link_before_the_reply_comes_then_after_matches_a_cold_build(tmp_path):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": _call_lines() + exchange(1)}})
    out = tmp_path / "site"
    build(home, out, OPTS)
    append(main_file(home), exchange(2) + exchange(3))  # the call's page closes: no reply yet
    build(home, out, OPTS)
    href = _forward_href(out / SDIR / "page-0001.html")
    assert "No reply" in (out / SDIR / href).read_text()  # a page that says so, not a dead link
    assert_same_as_cold(home, out, tmp_path, OPTS)
    append(main_file(home), [user("rep", REPLY, sid=SID)])
    build(home, out, OPTS)
    assert "url=page-" in (out / SDIR / href).read_text()
    assert_same_as_cold(home, out, tmp_path, OPTS)


def test_reply_pages_go_when_the_transcript_is_rewritten(tmp_path):
    home = make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": _call_lines() + exchange(1) + exchange(2)}})
    out = tmp_path / "site"
    build(home, out, OPTS)
    assert list((out / SDIR).glob("reply-*.html"))
    write_jsonl(main_file(home), exchange(5) + exchange(6))  # rewritten without the call
    build(home, out, OPTS)
    assert not list((out / SDIR).glob("reply-*.html"))
    assert_same_as_cold(home, out, tmp_path, OPTS)
