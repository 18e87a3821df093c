"""Warm-up runs: sub-agent files that hold only a "Warmup" prompt or only the reply to one (Explore
and Plan agents of Claude Code 2.0.x warming their cache; docs/formats.md). They are no
conversation: the site and `list` count them under their session instead of listing them.

A sidechain line makes its file "busy" (a real run) when it calls a tool, carries a tool result or
a prompt other than "Warmup"; a sub-agent file with messages and no busy line is a warm-up run.
"""

from __future__ import annotations

WARMUP = "Warmup"


def busy(obj: dict) -> bool:
    """A user or assistant line that a warm-up run does not have."""
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return obj.get("type") == "user" and content.strip() != WARMUP
    if not isinstance(content, list):
        return False
    for b in content:
        kind = b.get("type") if isinstance(b, dict) else None
        if kind in ("tool_use", "tool_result", "server_tool_use", "image", "document"):
            return True
        if kind == "text" and obj.get("type") == "user" and str(b.get("text", "")).strip() != WARMUP:
            return True
    return False


def note(carry: dict, obj: dict) -> None:
    """Feed one sidechain user or assistant line (model.messages.Builder does)."""
    if not carry.get("busy") and busy(obj):
        carry["busy"] = True


def is_warmup(kind: str, messages: int, carry: dict) -> bool:
    """A sub-agent transcript read whole (its carry) that is a warm-up run."""
    return kind == "agent" and messages > 0 and not carry.get("busy") and carry["counts"].get("assistant", 0) <= 4
