"""A home whose project links out of it (to a folder carrying a secret), and ids no command may accept."""

from __future__ import annotations

import pytest

from util import assistant, make_home, user

PROJECT = "-home-u-proj"
SECRET = "TOP-SECRET-OUTSIDE-THE-HOME-7f3a"

BAD_IDS = [
    "..", ".", "../x", "..\\x", "a/b", "a\\b", "/etc/passwd", "\\\\server\\share", "C:\\Windows", "C:/x",
    "%2e%2e", "%2e%2e%2fx", "..%2f..%2fetc", "%2f", "%5c", "..%5cx", "%252e%252e", "a/../b", "./a", "-rf", "",
    " ", "a b", "x\x00y", "\x00", "a\nb", "ａ／ｂ", "‥", "．．", "a" * 300, "~", "~root", "$HOME", "a;b", "a|b", "*", "?",
    "sess-1/../../../../etc/passwd", "file:///etc/passwd", "http://x/", "javascript:alert(1)",
]


def good_session(sid):
    return [user(f"{sid}-u", f"hello from {sid}", sid=sid),
            assistant(f"{sid}-a", [{"type": "text", "text": f"reply in {sid}"}], sid=sid, mid=f"m-{sid}")]


@pytest.fixture
def linked_home(tmp_path):
    """A home whose project holds symlinks to a folder outside it that carries a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret_line = user("x-u", SECRET, sid="sess-secret")
    (outside / "secret.jsonl").write_text(__import__("json").dumps(secret_line) + "\n")
    (outside / "meta.json").write_text('{"agentType": "%s", "description": "%s"}' % (SECRET, SECRET))
    (outside / "proj").mkdir()
    (outside / "proj" / "sess-outproj.jsonl").write_text(__import__("json").dumps(secret_line) + "\n")
    (outside / "sessdir" / "subagents").mkdir(parents=True)
    (outside / "sessdir" / "subagents" / "agent-out.jsonl").write_text(__import__("json").dumps(secret_line) + "\n")
    home = make_home(tmp_path / "home", {PROJECT: {"sess-1.jsonl": good_session("sess-1"),
                                                   "sess-1/subagents/agent-a1.jsonl": good_session("sess-1")}})
    p = home / "projects" / PROJECT
    (p / "sess-link.jsonl").symlink_to(outside / "secret.jsonl")  # a transcript pointing outside
    (p / "agent-legacylink.jsonl").symlink_to(outside / "secret.jsonl")  # a legacy agent pointing outside
    (p / "sess-1" / "subagents" / "agent-a1.meta.json").symlink_to(outside / "meta.json")  # meta.json outside
    (p / "sess-1" / "subagents" / "agent-a2.jsonl").symlink_to(outside / "secret.jsonl")
    (p / "sess-dirlink").symlink_to(outside / "sessdir")  # a session folder pointing outside
    (home / "projects" / "-linked-project").symlink_to(outside / "proj")  # a project pointing outside
    (p / "sess-dangling.jsonl").symlink_to(outside / "nothing-here.jsonl")
    return home, outside
