"""Legacy summary lines title the session holding their leaf (source.summaries), not their own file."""

from __future__ import annotations

import json

from ccreport.source.home import discover
from ccreport.source.summaries import held_leaves, project_titles, summary_lines
from util import assistant, make_home, user

P = "-home-u-proj"
A, B, C = ("aaaaaaaa-0000-0000-0000-000000000001", "bbbbbbbb-0000-0000-0000-000000000002",
           "cccccccc-0000-0000-0000-000000000003")


def _summary(text: str, leaf: str) -> dict:
    return {"type": "summary", "summary": text, "leafUuid": leaf}


def _home(tmp_path):
    copied = user("c1", "a prompt that quotes another line", sid=C)
    copied["toolUseResult"] = {"uuid": "a-leaf"}  # a uuid inside the line, not the line's own
    return make_home(tmp_path, {P: {
        f"{A}.jsonl": [user("a0", "first prompt of A", sid=A), assistant("a-leaf", [{"type": "text", "text": "done"}],
                                                                        parent="a0", sid=A)],
        # B resumes A: its summary lines name A's leaf and a leaf that is nowhere
        f"{B}.jsonl": [_summary("What A was about", "a-leaf"), _summary("Lost conversation", "nowhere"),
                       user("b0", 'a prompt mentioning "summary" and {"type":"summary"}', sid=B)],
        f"{C}.jsonl": [copied],
    }})


def test_summary_lines_are_read_with_their_leaf(tmp_path):
    home = _home(tmp_path)
    s = discover(home).projects[0].sessions[B]
    assert summary_lines(s.main) == [["a-leaf", "What A was about"], ["nowhere", "Lost conversation"]]
    assert summary_lines(discover(home).projects[0].sessions[A].main) == []


def test_a_summary_titles_the_session_holding_its_leaf_only(tmp_path):
    p = discover(_home(tmp_path)).projects[0]
    # A holds the leaf; B (the file of the summary lines) and C (which only quotes the uuid) do not
    assert project_titles(p) == {A: "What A was about"}
    assert held_leaves(p.sessions[C].main, {"a-leaf"}) == []
    assert held_leaves(p.sessions[A].main, {"a-leaf", "nowhere"}) == ["a-leaf"]


def test_a_grown_file_is_read_from_its_old_end(tmp_path):
    p = discover(_home(tmp_path)).projects[0]
    t = p.sessions[B].main
    size = t.path.stat().st_size
    with open(t.path, "a") as fh:
        fh.write(json.dumps(_summary("Later summary", "a0")) + "\n")
    assert summary_lines(t, size) == [["a0", "Later summary"]]


def test_corpus_summary_titles(corpus_home):
    """FORMAT: most summary lines point into another session; the 8 sessions that hold summary lines
    are not titled by them (37f83ec9 is about a combined-transcript link, not its first summary)."""
    by_dir = {p.dir_name: p for p in discover(corpus_home).projects}
    sample = project_titles(by_dir["-Users-dain-workspace-claude-code-log-sample"])
    assert {k[:8]: v for k, v in sample.items()} == {"aa5c5ada": "Cache Version Compatibility Tests Added"}
    me = project_titles(by_dir["-Users-dain-workspace-danieldemmel-me-next"])
    assert {k[:8]: v for k, v in me.items()} == {
        "4379d1bf": "CSS Details Margin Styling",
        "f852ad25": "Tokenizer App Documentation: Technical Details and Usage",
        "b25638d7": "HTML Ruby Tokenizer Conversion for Better Browser Support"}
    assert project_titles(by_dir["-src-deep-manifest"]) == {}


def test_the_quoted_find_and_the_uuid_regex_hold_the_same_leaves(tmp_path, monkeypatch):
    """A few real-length leaves are looked for with bytes.find, more (or short ones) with the regex:
    both give the lines whose own uuid is a leaf, whatever else quotes it (a copied result, the
    next line's parentUuid, twice on one line)."""
    from ccreport.source import summaries

    leaf, other = "11111111-2222-3333-4444-555555555555", "66666666-7777-8888-9999-000000000000"
    quoting = user("q1", f"quotes {leaf} and {leaf} again", sid=A)
    quoting["toolUseResult"] = {"uuid": leaf, "also": [leaf, other]}
    home = make_home(tmp_path, {P: {f"{A}.jsonl": [
        user("a0", "first", sid=A), quoting, assistant(leaf, [{"type": "text", "text": leaf}], parent="a0", sid=A),
        user("a2", "after the leaf", sid=A) | {"parentUuid": leaf}]}})
    t = discover(home).projects[0].sessions[A].main
    wanted = {leaf, other, "nowhere-but-long-enough-0000000000"}
    by_find = held_leaves(t, wanted)
    monkeypatch.setattr(summaries, "FIND_MAX", 0)
    assert by_find == held_leaves(t, wanted) == [leaf]
