"""A home whose project folders and session files carry every awkward name a file system allows
(issue 18, point 5): '#', '%', '?', a tab, spaces, non-Latin letters, and names of 250 characters
and more. Shared by the site tests (links, long names) and the search tests (find and open each)."""

from __future__ import annotations

import os
from pathlib import Path

from util import assistant, make_home, tool_result, user

LONG_PROJECT = "-home-u-" + "p" * 242  # 250 characters
LONG_SESSION = "s" * 249  # the file name "<id>.jsonl" is 255 bytes, the most ext4 allows
LONG_AGENT = "a" * 200  # agent-<id>.jsonl: 212 bytes, under a 249-byte session folder
NON_LATIN = "日本語のプロジェクト-проект"

# (project folder, session id): each session's text holds the word "needle-<n>" for the search tests.
NAMES = [
    ("-home-u-a#b", "s#1"),
    ("-home-u-100%-sure", "s%20x"),
    ("-home-u-what?", "s?q=1&r=2"),
    ("-home-u-tab\there", "s\tt"),
    ("-home-u-with spaces", "s p a c e"),
    (f"-home-u-{NON_LATIN}", "セッション-сессия"),
    (LONG_PROJECT, LONG_SESSION),
    ("-home-u-" + "ü" * 120, "ü" * 120),  # 248 and 240 bytes: long in bytes, not in characters
    ("-home-u-plain", "x" * 230),
]


def needle(n: int) -> str:
    return f"needle{n}word"


def _session(n: int, sid: str, agent: str | None) -> list[dict]:
    big = ("<persisted-output>\nOutput too large (2KB). Full output saved to: /h/.claude/projects/x/"
           f"{sid}/tool-results/toolu_big{n}.txt\n\nPreview (first 2KB):\nhead of it\n</persisted-output>")
    task = {"type": "tool_use", "id": f"toolu_t{n}", "name": "Task",
            "input": {"description": "look around", "prompt": "go", "subagent_type": "general-purpose"}}
    lines = [
        user(f"u{n}", f"first prompt {needle(n)} in {sid!r}", sid=sid),
        assistant(f"a{n}", [{"type": "tool_use", "id": f"toolu_b{n}", "name": "Bash",
                             "input": {"command": "cat big"}}], parent=f"u{n}", sid=sid, mid=f"m{n}", rid=f"r{n}"),
        tool_result(f"r{n}", f"toolu_b{n}", big, parent=f"a{n}", sid=sid),
        assistant(f"a{n}b", [task], parent=f"r{n}", sid=sid, mid=f"m{n}b", rid=f"r{n}b"),
        tool_result(f"t{n}", f"toolu_t{n}", "done", parent=f"a{n}b", sid=sid,
                    extra={"agentId": agent, "status": "completed"} if agent else None),
        assistant(f"a{n}c", [{"type": "text", "text": f"all done for {needle(n)}"}], parent=f"t{n}", sid=sid,
                  mid=f"m{n}c", rid=f"r{n}c"),
    ]
    return lines


def make_names_home(root: Path) -> Path:
    """The home: one project per entry of NAMES, each with its session, a sub-agent (the long
    session's has a 200-character id) linked from a Task call, and a saved tool result."""
    projects = {}
    for n, (pdir, sid) in enumerate(NAMES):
        agent = LONG_AGENT if sid == LONG_SESSION else f"ag{n}"
        projects[pdir] = {
            f"{sid}.jsonl": _session(n, sid, agent),
            f"{sid}/subagents/agent-{agent}.jsonl": [
                user(f"su{n}", f"agent task {needle(n)}", sid=sid, isSidechain=True),
                assistant(f"sa{n}", [{"type": "text", "text": "agent answer"}], parent=f"su{n}", sid=sid,
                          mid=f"ms{n}", rid=f"rs{n}", isSidechain=True),
            ],
        }
    home = make_home(root, projects)
    for n, (pdir, sid) in enumerate(NAMES):
        saved = home / "projects" / pdir / sid / "tool-results" / f"toolu_big{n}.txt"
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(f"the whole output {n}\n" * 100)
    return home


# --- names ccreport cannot carry, and links that lead nowhere (issue 29, points 4 and 5) ------------
ALICE = "-home-alice-webshop"  # a sample_home project with a session folder (sub-agent, tool results)
ALICE_SID = "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"


def add_undecodable_names(home: Path) -> list[bytes]:
    """Put a file or folder whose name is not UTF-8 in every place a home lists (a copy of
    sample_home): a project, a session file and folder, a sub-agent, a Workflow run folder, a tool
    result, a plan, a todo list, a file-history backup, a team, a task list. Returns the paths (bytes)."""
    root = os.fsencode(home)
    proj = root + b"/projects/" + ALICE.encode()
    sdir = proj + b"/" + ALICE_SID.encode()
    session_lines = (home / "projects" / ALICE / f"{ALICE_SID}.jsonl").read_bytes()
    made = {
        b"/projects/-bad-\xff-project/" + ALICE_SID.encode() + b".jsonl": session_lines,
        proj[len(root):] + b"/sess-\xfe.jsonl": session_lines,
        proj[len(root):] + b"/sess-\xfd/subagents/agent-a1.jsonl": session_lines,
        sdir[len(root):] + b"/subagents/agent-\xfc.jsonl": session_lines,
        sdir[len(root):] + b"/subagents/workflows/wf_\xfb/agent-w1.jsonl": session_lines,
        sdir[len(root):] + b"/tool-results/out-\xfa.txt": b"output\n",
        b"/plans/plan-\xf9.md": b"# a plan\n",
        b"/todos/\xf8-agent-x.json": b"[]",
        b"/file-history/" + ALICE_SID.encode() + b"/\xf7@v1": b"before\n",
        b"/teams/team-\xf6/config.json": b"{}",
        b"/tasks/list-\xf5/1.json": b"{}",
    }
    for rel, data in made.items():
        os.makedirs(os.path.dirname(root + rel), exist_ok=True)
        with open(root + rel, "wb") as fh:
            fh.write(data)
    return [root + rel for rel in made]


def add_broken_links(project: Path) -> list[str]:
    """Entries of a project folder that are links to nowhere: a loop on itself, a loop of two, a
    dangling link, a folder linked to itself. Returns their names."""
    links = {"x.jsonl": "x.jsonl", "a.jsonl": "b.jsonl", "b.jsonl": "a.jsonl", "gone.jsonl": "nowhere.jsonl",
             "loopdir": "loopdir"}
    for name, target in links.items():
        os.symlink(target, project / name)
    return list(links)
