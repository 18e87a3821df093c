"""Synthetic homes and a running server for the serve / API / tail / live tests."""

from __future__ import annotations

import json
from pathlib import Path

from util import assistant, make_home, tool_result, user, write_jsonl

PROJECT = "-home-u-proj"
SID = "11111111-aaaa-4bbb-8ccc-000000000001"
OTHER = "22222222-aaaa-4bbb-8ccc-000000000002"


def conversation(n_turns: int, sid: str = SID, start: int = 0) -> list[dict]:
    """n_turns × (user prompt, assistant reply): 2 × n_turns messages, one line each."""
    out = []
    for i in range(start, start + n_turns):
        ts = f"2025-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        out.append(user(f"u{i}", f"prompt number {i}", parent=f"a{i - 1}" if i else None, sid=sid, ts=ts))
        out.append(assistant(f"a{i}", [{"type": "text", "text": f"reply number {i}"}], parent=f"u{i}", sid=sid,
                             mid=f"msg_{i}", rid=f"req_{i}", ts=ts))
    return out


def make_live_home(root: Path, turns: int = 3) -> Path:
    """One project: session SID (main + a sub-agent + a compaction run) and session OTHER."""
    home = make_home(root, {PROJECT: {
        f"{SID}.jsonl": conversation(turns) + ["this line is not JSON"],
        f"{SID}/subagents/agent-a1b2c3.jsonl": [
            user("su1", "agent task", sid=SID, isSidechain=True),
            assistant("sa1", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
                      parent="su1", sid=SID, mid="msg_s1", isSidechain=True),
            tool_result("sr1", "toolu_1", "file.txt", parent="sa1", sid=SID, isSidechain=True),
        ],
        f"{SID}/subagents/agent-acompact-9f8e7d.jsonl": [user("cu1", "compact please", sid=SID)],
        f"{OTHER}.jsonl": conversation(1, sid=OTHER),
    }})
    meta = home / "projects" / PROJECT / SID / "subagents" / "agent-a1b2c3.meta.json"
    meta.write_text(json.dumps({"agentType": "code-reviewer", "description": "review the code"}))
    return home


def main_file(home: Path, sid: str = SID) -> Path:
    return home / "projects" / PROJECT / f"{sid}.jsonl"


def append(path: Path, entries) -> None:
    with open(path, "ab") as fh:
        for e in entries:
            fh.write((json.dumps(e) if isinstance(e, dict) else e).encode() + b"\n")
        fh.flush()


def page_url(page: int = 1, sid: str = SID) -> str:
    return f"p/{PROJECT}/{sid}/page-{page:04d}.html"


__all__ = ["PROJECT", "SID", "OTHER", "conversation", "make_live_home", "main_file", "append", "page_url", "write_jsonl"]
