"""history.jsonl, nothing lost (issue 14 point 4): lines that are not prompts of a session are shown
as they are on a page of their own; prompts-only sessions are searched like other prompts and
counted in the build's summary line; both follow the home in incremental builds as a cold build
would."""

from __future__ import annotations

import shutil

import orjson
import pytest

from ccreport.site.build import build
from ccreport.site.options import Options
from ccreport.site.search import unit_key
from ccreport.site.searchindex import read_units
from incrhelp import assert_same_as_cold
from searchhelp import index_terms, unit_docs
from util import SAMPLE_HOME, page_text

BLOG, DRAFT = "-home-dana-blog", "c917d191-3b6e-5ce5-8749-e55d4539b373"  # prompts only (line 10 of history)
STRAY = [b'{"display":"broken <b>bold',  # malformed
         b'[1, 2, "<i>not an object</i>"]',
         b'{"display":"typed in an old version <script>alert(1)</script>","timestamp":1,"project":"/p"}',
         b'{"display":{"text":"another shape"},"sessionId":"4ebd3ba9-3ae8-58e0-b978-920a51c240d3"}',
         b'{"display":"a bad id","sessionId":"../../etc"}']


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, h, ignore=shutil.ignore_patterns("*.py"))
    return h


def test_history_lines_that_are_not_prompts_of_a_session_are_shown_as_they_are(home, tmp_path):
    history = home / "history.jsonl"
    before = history.read_bytes()
    history.write_bytes(before + b"\n".join(STRAY) + b"\n")
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    first = before.count(b"\n") + 1
    raw = (out / "history.html").read_text()
    text = page_text(out / "history.html")
    assert "5 lines of history.jsonl that are not the prompt of a session" in text
    for no, why in enumerate(["malformed line", "not an object", "no usable session id", "no prompt text (display)",
                              "no usable session id"], first):
        assert f'<li id="L{no}"><span class="dim small">history line {no} · {why}' in raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw and "<script>alert" not in raw
    assert "&lt;i&gt;not an object&lt;/i&gt;" in raw and "broken &lt;b&gt;bold" in raw and "another shape" in raw
    assert 'href="history.html">history.jsonl: 5 lines not shown with a session' in (out / "index.html").read_text()
    # The lines go (history rewritten): the page and its link go too, as a cold build has neither.
    history.write_bytes(before)
    assert build(home, out, Options(jobs=1)).errors == []
    assert not (out / "history.html").exists() and "history.html" not in (out / "index.html").read_text()
    assert_same_as_cold(home, out, tmp_path, Options(jobs=1))


def _units(out) -> dict:
    got = {}
    for p in (out / "search/u").glob("*.js"):
        got.update(read_units(out, p.stem))
    return got


def test_prompts_only_sessions_are_searched_and_counted(home, tmp_path):
    out = tmp_path / "site"
    res = build(home, out, Options(jobs=1))
    assert res.errors == [] and res.prompts_only == 2 and "11 sessions (2 sessions with prompts only)" in res.summary_line(out)
    key = unit_key(BLOG, DRAFT, "main")
    docs = unit_docs(out, key)
    assert [d[:2] for d in docs] == [["p", "index.html#L10"]] and docs[0][4] == "Draft the release notes for 1.4"
    assert 'id="L10"' in (out / "p" / BLOG / DRAFT / "index.html").read_text()  # where the hit links
    assert key in index_terms(out)["release"]
    url, title, project, sid = _units(out)[key][:4]
    assert (url, project, sid) == (f"p/{BLOG}/{DRAFT}/", BLOG, DRAFT) and title == "Draft the release notes for 1.4"
    # Its prompt is typed again elsewhere (history rewritten without it): the unit leaves the index,
    # as a cold build never had it; a new prompts-only session comes in, as in a cold build.
    history = home / "history.jsonl"
    lines = history.read_bytes().splitlines(keepends=True)
    new_sid = "0badc0de-0000-4000-8000-000000000001"
    history.write_bytes(b"".join(lines[:9]) + orjson.dumps(
        {"display": "Rotate the TLS certificates", "timestamp": 1761811300000, "project": "/home/dana/blog",
         "sessionId": new_sid}) + b"\n")
    res = build(home, out, Options(jobs=1))
    assert res.errors == [] and res.prompts_only == 2
    terms = index_terms(out)
    assert key not in _units(out) and key not in terms.get("release", {})
    assert unit_key(BLOG, new_sid, "main") in terms["certificates"]
    assert_same_as_cold(home, out, tmp_path, Options(jobs=1))
