"""The outline's "Changed" line counts what a prompt's sub-agents changed (issue 28.1): session ef958aa1 of
the corpus changed 3 files only through its sub-agents; and an agent transcript that grows after its
prompt's row was written updates that row."""

from __future__ import annotations

import re

from util import assistant, make_home, tool_result, user, write_jsonl

SID = "0a9e0000-0000-4000-8000-000000000001"
AGENT = "a0123456789abcdef"


def _main() -> list:
    kw = {"sid": SID, "cwd": "/w/app"}
    return [user("u1", "Ask a helper to fix the docs", **kw),
            assistant("a1", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {
                "description": "fix the docs", "prompt": "fix the docs", "subagent_type": "general-purpose"}}],
                      parent="u1", mid="m1", **kw),
            tool_result("r1", "t1", "done", parent="a1", extra={"agentId": AGENT, "status": "completed"}, **kw),
            assistant("a2", [{"type": "text", "text": "The helper fixed them."}], parent="r1", mid="m2", **kw)]


def _agent(files: list[str]) -> list:
    kw = {"sid": SID, "cwd": "/w/app", "isSidechain": True, "agentId": AGENT}
    lines, prev = [user("g0", "fix the docs", **kw)], "g0"
    for i, f in enumerate(files):
        lines.append(assistant(f"g{i}", [{"type": "tool_use", "id": f"gt{i}", "name": "Edit", "input": {
            "file_path": f"/w/app/{f}", "old_string": "a", "new_string": "b"}}], parent=prev, mid=f"gm{i}", **kw))
        lines.append(tool_result(f"g{i}r", f"gt{i}", "ok", parent=f"g{i}", **kw))
        prev = f"g{i}r"
    return lines


def _changed(site) -> str:
    html = next(site.glob(f"p/*/{SID}/index.html")).read_text(encoding="utf-8")
    m = re.search(r'<p class="small">Changed (.*?)</p>', html)
    return re.sub(r"<[^>]+>", "", m.group(1)) if m else ""


def test_a_prompts_row_lists_its_sub_agents_changes_and_follows_their_growth(tmp_path, build_site):
    home = make_home(tmp_path / "h", {"-w-app": {f"{SID}.jsonl": _main(),
                                                 f"{SID}/subagents/agent-{AGENT}.jsonl": _agent(["docs/a.md"])}})
    site = tmp_path / "site"
    build_site(home, site)
    assert _changed(site) == "docs/a.md"
    write_jsonl(home / "projects" / "-w-app" / SID / "subagents" / f"agent-{AGENT}.jsonl",
                _agent(["docs/a.md", "docs/b.md"]))  # the agent goes on: an incremental build
    build_site(home, site)
    assert _changed(site) == "docs/a.md, docs/b.md"


def test_corpus_session_counts_its_sub_agents_files(corpus_site):
    out, _ = corpus_site
    html = next(out.glob("p/*/ef958aa1-*/index.html")).read_text(encoding="utf-8")
    rows = re.findall(r'<p class="small">Changed (.*?)</p>', html)
    assert rows, "no Changed line"
    first = re.sub(r"<[^>]+>", "", rows[0])
    for name in ("research-plan-mode.md", "research-teammates.md", "research-beads.md"):
        assert name in first


def test_a_closed_part_page_lists_its_sub_agents_changes_too(tmp_path, monkeypatch):
    """A session of more than PART prompts lists its full blocks on part pages (site.outlineparts):
    their rows list the sub-agents' changes as the session page does. PART is made 2 here."""
    from ccreport.site import closedturns
    from ccreport.site.build import Options, build

    monkeypatch.setattr(closedturns, "PART", 2)
    kw = {"sid": SID, "cwd": "/w/app"}
    later = [line for k in range(2, 7) for line in (
        user(f"u{k}", f"prompt {k}", parent="a2" if k == 2 else f"b{k - 1}", **kw),
        assistant(f"b{k}", [{"type": "text", "text": f"answer {k}"}], parent=f"u{k}", mid=f"bm{k}", **kw))]
    home = make_home(tmp_path / "h", {"-w-app": {f"{SID}.jsonl": _main() + later,
                                                 f"{SID}/subagents/agent-{AGENT}.jsonl": _agent(["docs/a.md"])}})
    site = tmp_path / "site"
    assert build(home, site, Options(page_size=4, jobs=1)).errors == []  # (turns close with their pages)
    part = next(site.glob(f"p/*/{SID}/prompts-0001.html")).read_text(encoding="utf-8")
    changed = re.search(r'<p class="small">Changed (.*?)</p>', part)
    assert changed and re.sub(r"<[^>]+>", "", changed.group(1)) == "docs/a.md"
