"""Warm-up runs are not sessions (issue 25, point 6): a session of warm-up runs only is not listed
(project page, home totals, `list`), a parent's overview counts its warm-up runs instead of listing
them; their pages stay in the archive."""

from __future__ import annotations

from ccreport.inspect.listing import list_rows
from ccreport.site.build import Options, build
from ccreport.source.activity import latest
from ccreport.source.home import discover
from util import assistant, make_home, user

P = "-home-u-proj"
MAIN, ORPHAN = "aaaaaaaa-0000-0000-0000-000000000001", "bbbbbbbb-0000-0000-0000-000000000002"
SIDE = {"isSidechain": True}


def _warmup(sid: str, aid: str, prompt: bool = True) -> list:
    ts = "2025-06-02T10:00:00.000Z"  # (later than MAIN: the newest session of the home)
    reply = assistant(f"{aid}-r", [{"type": "text", "text": "Ready to explore."}], sid=sid, agentId=aid, ts=ts, **SIDE)
    return ([user(f"{aid}-u", "Warmup", sid=sid, agentId=aid, ts=ts, **SIDE)] if prompt else []) + [reply]


def _home(tmp_path):
    real = [user("r-u", "Investigate the parser", sid=MAIN, agentId="0000real", **SIDE),
            assistant("r-a", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}}],
                      sid=MAIN, agentId="0000real", **SIDE)]
    return make_home(tmp_path / "home", {P: {
        f"{MAIN}.jsonl": [user("m0", "fix the parser", sid=MAIN),
                          assistant("m1", [{"type": "text", "text": "done"}], parent="m0", sid=MAIN)],
        "agent-0000warm.jsonl": _warmup(MAIN, "0000warm"),
        "agent-1111warm.jsonl": _warmup(MAIN, "1111warm", prompt=False),
        "agent-0000real.jsonl": real,
        # the main file of ORPHAN does not exist: its two warm-up runs alone are no session
        "agent-2222warm.jsonl": _warmup(ORPHAN, "2222warm"),
        "agent-3333warm.jsonl": _warmup(ORPHAN, "3333warm", prompt=False),
    }})


def test_warmups_are_counted_not_listed(tmp_path):
    home, out = _home(tmp_path), tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    project = (out / "p" / P / "index.html").read_text()
    assert f"{MAIN}/index.html" in project and "1 sessions" in project
    assert "Not listed: 1 session of sub-agent warm-up runs only" in project  # linked, not a row
    assert project.split("<tbody>")[-1].count("<tr") == 1  # MAIN alone
    overview = (out / "p" / P / MAIN / "index.html").read_text()
    assert "2 warm-up runs" in overview
    assert "Sub-agents <span class=\"dim\">(1)</span>" in overview  # the real run only
    assert (out / "p" / P / ORPHAN / "index.html").exists()  # kept in the archive
    assert "1 session ·" in (out / "index.html").read_text()  # (and singular: model.text.counted)


def test_list_hides_warmup_only_sessions(tmp_path):
    home = _home(tmp_path)
    ordered = list_rows(home)
    rows = {r.id: r for r in ordered}
    assert rows[ORPHAN].warmup and not rows[MAIN].warmup
    assert rows[MAIN].title == "fix the parser"
    # the newest session is warm-up runs only: `latest` (list's first row shown) is MAIN
    assert ordered[0].id == ORPHAN
    assert latest(discover(home)).id == MAIN


def test_corpus_warmups(corpus_site, corpus_home):
    out, _res = corpus_site
    crh = "-Users-dain-workspace-coderabbit-review-helper"
    page = (out / "p" / crh / "index.html").read_text()
    assert "4227a68e-2b1f-4923-b824-6e04a67f77c1/index.html\">4227a68e</a>" in page  # in "Not listed", as a link
    assert '<a href="4227a68e-2b1f-4923-b824-6e04a67f77c1/index.html">(untitled session)' not in page
    assert "2 warm-up runs" in (out / "p" / crh / "4227a68e-2b1f-4923-b824-6e04a67f77c1" / "index.html").read_text()
    listed = [r for r in list_rows(corpus_home) if not r.empty and not r.warmup]
    assert not any(r.id.startswith("4227a68e") for r in listed)
    assert sum(r.warmup for r in list_rows(corpus_home)) == 16
