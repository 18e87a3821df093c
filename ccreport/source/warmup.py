"""Warm-up runs, line by line: Claude Code 2.0.x started Explore and Plan sub-agents with a "Warmup"
prompt to warm their cache; the file of such a run holds only that prompt and the reply, or only
the reply. A user or assistant line is "busy" (part of a real run) when it calls a tool, carries a
tool result, a file or a prompt other than "Warmup". A sub-agent file without a busy line is a
warm-up run (model.warmup; source.activity skips sessions made of them alone)."""

from __future__ import annotations

WARMUP = "Warmup"
_WORK = frozenset(("tool_use", "tool_result", "server_tool_use", "image", "document"))


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
        if not isinstance(kind, str):  # (hostile lines: a list or an object where a name belongs)
            continue
        if kind in _WORK:
            return True
        if kind == "text" and obj.get("type") == "user" and str(b.get("text", "")).strip() != WARMUP:
            return True
    return False
