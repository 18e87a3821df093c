"""Warm-up runs: sub-agent files that hold only a "Warmup" prompt or only the reply to one (what a
busy line is: source.warmup). They are no conversation: the site and `list` count them under their
session instead of listing them (docs/formats.md)."""

from __future__ import annotations

from ccreport.source.warmup import busy


def note(carry: dict, obj: dict) -> None:
    """Feed one user or assistant line (model.messages.Builder does); cheap once the file is busy."""
    if not carry.get("busy") and busy(obj):
        carry["busy"] = True


def is_warmup(kind: str, messages: int, carry: dict) -> bool:
    """A sub-agent transcript read whole (its carry) that is a warm-up run."""
    return kind == "agent" and messages > 0 and not carry.get("busy")
