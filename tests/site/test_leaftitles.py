"""A legacy summary line titles the session holding its leaf, in pages, rows and search metadata, and
an incremental build keeps that true (site.leaftitles)."""

from __future__ import annotations

import json

from ccreport.site.build import Options, build
from ccreport.site.searchindex import read_units
from ccreport.site.state import State
from incrhelp import append, assert_same_as_cold
from util import assistant, make_home, user

P = "-home-u-proj"
A, B = "aaaaaaaa-0000-0000-0000-000000000001", "bbbbbbbb-0000-0000-0000-000000000002"


def _titles(out) -> dict:
    st = State.load(out)
    return {sid[:8]: brief.info.title for (_p, sid), brief in st.sessions.items()}


def _home(tmp_path):
    return make_home(tmp_path / "home", {P: {
        f"{A}.jsonl": [user("a0", "first prompt of A", sid=A),
                       assistant("a-leaf", [{"type": "text", "text": "done"}], parent="a0", sid=A)],
        f"{B}.jsonl": [{"type": "summary", "summary": "Not B's title", "leafUuid": "nowhere"},
                       user("b0", "first prompt of B", sid=B)]}})


def test_a_new_file_retitles_an_old_session(tmp_path):
    home, out = _home(tmp_path), tmp_path / "site"
    opts = Options(jobs=1)
    assert build(home, out, opts).errors == []
    # B's own summary line names no message of the project: B keeps its prompt, A too
    assert _titles(out) == {"aaaaaaaa": "first prompt of A", "bbbbbbbb": "first prompt of B"}
    # A new session resumes A: its summary names A's last message, so A is retitled, pages and all
    c = "cccccccc-0000-0000-0000-000000000003"
    append(home / "projects" / P / f"{c}.jsonl",
           [{"type": "summary", "summary": "Fixing the widget", "leafUuid": "a-leaf"}, user("c0", "go on", sid=c)])
    res = build(home, out, opts)
    assert _titles(out)["aaaaaaaa"] == "Fixing the widget"
    written = {p.split("/p/")[-1] for p in res.written}
    assert any(w.startswith(f"{P}/{A}/page-0001.html") for w in written)  # (the page heading changed)
    assert "Fixing the widget" in (out / "p" / P / A / "page-0001.html").read_text()
    assert "Fixing the widget" in (out / "p" / P / "index.html").read_text()
    meta = {k: u for f in (out / "search/u").glob("*.js") for k, u in read_units(out, f.stem).items()}
    assert "Fixing the widget" in {u[1] for u in meta.values() if u[3].startswith("aaaaaaaa")}
    assert_same_as_cold(home, out, tmp_path, opts)
    # The summary line is gone again (the file rewritten without it): the prompt is A's title again
    (home / "projects" / P / f"{c}.jsonl").write_text(json.dumps(user("c0", "go on", sid=c)) + "\n")
    build(home, out, opts)
    assert _titles(out)["aaaaaaaa"] == "first prompt of A"
    assert_same_as_cold(home, out, tmp_path, opts)


def test_a_leaf_appended_to_an_old_session_takes_the_title(tmp_path):
    home, out = _home(tmp_path), tmp_path / "site"
    opts = Options(jobs=1)
    build(home, out, opts)
    # B's summary names "nowhere"; a line with that uuid is appended to A: A takes B's summary text
    append(home / "projects" / P / f"{A}.jsonl", [user("nowhere", "one more prompt", parent="a-leaf", sid=A)])
    build(home, out, opts)
    assert _titles(out) == {"aaaaaaaa": "Not B's title", "bbbbbbbb": "first prompt of B"}
    assert_same_as_cold(home, out, tmp_path, opts)


def test_corpus_titles(corpus_site):
    """The 8 corpus sessions holding summary lines are not titled by them; the sessions their
    leaves name are."""
    out, _res = corpus_site
    got = _titles(out)
    assert got["37f83ec9"].startswith("Hey Claude, please have a look at the git diff")
    assert got["aa5c5ada"] == "Cache Version Compatibility Tests Added"
    assert got["4379d1bf"] == "CSS Details Margin Styling"
    assert got["fe869ecb"].startswith("Hey Claude, can you please add a Github Action")
    assert not got["a7da6a22"].startswith("Claude Code")


def test_an_unchanged_home_reads_no_file_again(tmp_path, monkeypatch):
    from ccreport.site import leaftitles
    from ccreport.source import summaries
    from ccreport.source.home import discover

    home = _home(tmp_path)
    opened = []
    real = summaries.open_transcript

    def spy(t):
        opened.append(t.path.name)
        return real(t)

    monkeypatch.setattr(summaries, "open_transcript", spy)
    titles, record = leaftitles.resolve(discover(home), {})
    assert opened and titles == {}
    opened.clear()
    assert leaftitles.resolve(discover(home), record) == (titles, record)
    assert opened == []  # nothing changed: the record answers
    append(home / "projects" / P / f"{A}.jsonl", [user("nowhere", "one more prompt", parent="a-leaf", sid=A)])
    titles, record = leaftitles.resolve(discover(home), record)
    assert titles == {(P, A): "Not B's title"}
    assert set(opened) == {f"{A}.jsonl"}  # only the file that grew
