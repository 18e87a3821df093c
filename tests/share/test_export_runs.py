"""The single-file HTML export has no run pages and no parent session's pages: a Workflow call shows
its run's summary inline (status, journal steps, agents), a fork note names its parent without a
dead reference (issue 15, after its first pass)."""

from __future__ import annotations

import json

from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from util import assistant, make_home, tool_result, user

SID = "5e55a0e1-0000-4000-8000-0000000000aa"
PARENT = "5e55a0e1-0000-4000-8000-0000000000bb"
RUN = "wf_abcd1234-001"
AGENT = "a77"


def _home(tmp_path):
    lines = [
        {"type": "fork-context-ref", "parentSessionId": PARENT, "parentLastUuid": "p1", "contextLength": 1,
         "sessionId": SID, "uuid": "f0"},
        user("u0", "run it", sid=SID),
        assistant("a0", [{"type": "tool_use", "id": "t0", "name": "Workflow", "input": {"script": "x"}}],
                  parent="u0", sid=SID, mid="m0", rid="r0"),
        tool_result("r0", "t0", f"Started {RUN}", parent="a0", sid=SID, extra={"runId": RUN}),
    ]
    agent = [user("x1", "AGENT-PROMPT", sid=SID, isSidechain=True, agentId=AGENT)]
    h = make_home(tmp_path / "home", {"-p": {f"{SID}.jsonl": lines, f"{PARENT}.jsonl": [user("p1", "hi", sid=PARENT)]}})
    sdir = h / "projects" / "-p" / SID
    wdir = sdir / "subagents" / "workflows" / RUN
    wdir.mkdir(parents=True)
    (wdir / "journal.jsonl").write_text(json.dumps({"type": "step", "step": "a", "status": "done"}) + "\n"
                                        + json.dumps({"type": "step", "step": "b", "status": "done"}) + "\n")
    (wdir / f"agent-{AGENT}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in agent))
    (sdir / "workflows").mkdir()
    (sdir / "workflows" / f"{RUN}.json").write_text(json.dumps({"status": "completed"}))
    return h


def test_export_shows_the_run_inline_and_no_dead_reference(tmp_path):
    h = _home(tmp_path)
    out = tmp_path / "x.html"
    run_export(h, SID, str(out), ExportOptions(format="html"))
    html = out.read_text()
    assert "not in this home" not in html
    start = html.index('class="wf-card')
    card = html[start:html.index("</div>", start)]
    assert RUN in card and "completed" in card and "2 journal steps" in card and "1 agent" in card
    assert f'href="#agent-{AGENT}"' in card  # its agent, exported in the same file
    assert "Open the workflow run" not in html and "page-0" not in html
    assert PARENT in html and "Forked from" in html


def test_a_reply_links_back_by_anchor_in_an_export():
    """An export is one document: the reply's link to its SendMessage is an anchor, never a page."""
    from ccreport.render.context import RenderContext
    from ccreport.render.teammates import reply_note

    html = reply_note({"id": "t1", "line": 5, "page": None, "to": "profiler"}, RenderContext(root="", embed=True))
    assert 'href="#L5"' in html and "page-" not in html
