"""Helpers shared by the tests: synthetic homes written line by line, and site readers."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CORPUS = (ROOT.parent / "shared" / "corpus" / "real").resolve()
SAMPLE_HOME = ROOT / "sample_home"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def write_jsonl(path: Path, lines) -> Path:
    """Write entries (dicts → JSON, str/bytes → as they are) one per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        for line in lines:
            if isinstance(line, dict):
                fh.write(json.dumps(line).encode() + b"\n")
            elif isinstance(line, str):
                fh.write(line.encode() + b"\n")
            else:
                fh.write(line)
    return path


def make_home(root: Path, projects: dict) -> Path:
    """projects: {dir_name: {relative file path: [entries]}} → a Claude home under root."""
    for pdir, files in projects.items():
        for rel, lines in files.items():
            write_jsonl(root / "projects" / pdir / rel, lines)
    (root / "projects").mkdir(parents=True, exist_ok=True)
    return root


def user(uuid, text, parent=None, sid="s1", ts="2025-06-01T10:00:00.000Z", **kw):
    e = {"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": sid, "timestamp": ts,
         "cwd": "/home/u/proj", "version": "2.1.0", "isSidechain": False, "userType": "external",
         "message": {"role": "user", "content": text}}
    e.update(kw)
    return e


def assistant(uuid, blocks, parent=None, sid="s1", mid="msg_1", rid="req_1", ts="2025-06-01T10:00:01.000Z",
              usage=None, model="claude-sonnet-4-5-20250929", **kw):
    e = {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": sid, "timestamp": ts,
         "cwd": "/home/u/proj", "version": "2.1.0", "isSidechain": False, "userType": "external", "requestId": rid,
         "message": {"id": mid, "type": "message", "role": "assistant", "model": model, "content": blocks,
                     "stop_reason": None, "usage": usage or {"input_tokens": 10, "output_tokens": 5,
                                                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}
    e.update(kw)
    return e


def tool_result(uuid, tool_use_id, content, parent=None, sid="s1", extra=None, is_error=False, **kw):
    e = user(uuid, [{"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}],
             parent=parent, sid=sid, **kw)
    if extra is not None:
        e["toolUseResult"] = extra
    return e


def page_text(path: Path) -> str:
    """The visible text of a page (tags removed, entities decoded), like fidelity.py reads it."""
    s = path.read_text(encoding="utf-8")
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", s, flags=re.S | re.I)
    s = re.sub(r"<[^>]+>", "", s)
    return re.sub(r"\s+", " ", unescape(s))


def site_text(site: Path) -> str:
    return " ".join(page_text(p) for p in sorted(site.rglob("*.html")))


def saved_states(site: Path) -> dict:
    """(project dir, session id) → the session's saved state as plain data, as a build loads it
    (from the state pack of a full build or from the session's own file: site/state.py)."""
    import orjson

    from ccreport.site.state import State

    state = State.load(site)
    return {key: orjson.loads(orjson.dumps(state.session(key))) for key in sorted(state.sessions)}
