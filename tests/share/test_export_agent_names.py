"""--agents link with agent ids of any length and characters: each agent file's name fits one file
name (a long one is shortened like the site's folders, layout.site_name) and the main file's links
open exactly those files (issue 18 follow-up)."""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

import pytest

from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from util import assistant, make_home, tool_result, user

SID = "s1"
AGENTS = ["a" * 240, "b#1?x=%20 y", "агент-エージェント"]  # agent-<240 a>.jsonl is 252 bytes: legal


def _home(root):
    calls = [assistant(f"c{i}", [{"type": "tool_use", "id": f"toolu_{i}", "name": "Task",
                                  "input": {"description": "go", "prompt": "go", "subagent_type": "general-purpose"}}],
                       mid=f"m{i}", rid=f"r{i}") for i in range(len(AGENTS))]
    results = [tool_result(f"t{i}", f"toolu_{i}", "done", extra={"agentId": aid, "status": "completed"})
               for i, aid in enumerate(AGENTS)]
    main = [user("u1", "start")] + [x for pair in zip(calls, results) for x in pair]
    files = {f"{SID}.jsonl": main}
    for i, aid in enumerate(AGENTS):
        files[f"{SID}/subagents/agent-{aid}.jsonl"] = [
            user(f"au{i}", f"agent text number {i}", isSidechain=True),
            assistant(f"aa{i}", [{"type": "text", "text": "ok"}], mid=f"am{i}", isSidechain=True)]
    return make_home(root, {"-home-u-proj": files})


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_agent_files_of_long_and_odd_ids_are_written_and_linked(tmp_path, fmt):
    home = _home(tmp_path / "home")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / f"export-of-the-session-{'e' * 30}.{fmt}"  # <out>.agent-<240 a>.<ext> is past 255 bytes
    run_export(home, SID, str(out), ExportOptions(format=fmt, agents="link", redact=False))
    files = {p.name for p in out_dir.iterdir()}
    assert len(files) == 1 + len(AGENTS), files
    assert all(len(n.encode()) <= 255 for n in files)
    main = out.read_text(encoding="utf-8")
    pattern = r'href="([^"#]*\.agent-[^"#]*)"' if fmt == "html" else r"\]\(([^)#\s]*\.agent-[^)#\s]*)\)"
    linked = {unquote(html.unescape(m)) for m in re.findall(pattern, main)}
    assert linked == files - {out.name}, (linked, files)
    for i in range(len(AGENTS)):  # each agent's text is in exactly one of the linked files
        holders = [n for n in linked if f"agent text number {i}" in (out_dir / n).read_text(encoding="utf-8")]
        assert len(holders) == 1, (i, holders)
