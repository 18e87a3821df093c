"""A forked transcript (docs/formats.md F6 ``fork-context-ref``): the lines Claude Code copied from the
parent, with the parent's uuids, before the fork's own. The builder folds them and the usage ledger
skips them (the parent session counts those responses). State is a plain dict, kept in a carry.

A line is taken as copied while the prefix is open when it has a uuid, carries the parent's
``sessionId`` and is not a sidechain line; the line whose uuid is ``parentLastUuid`` is the last one
copied, and the first line of the fork's own closes the prefix.
"""

from __future__ import annotations


def fork_ref(obj: dict) -> dict | None:
    """The fork state a ``fork-context-ref`` line starts (None when it names no parent)."""
    parent = obj.get("parentSessionId")
    if not isinstance(parent, str) or not parent:
        return None
    until = obj.get("parentLastUuid")
    length = obj.get("contextLength")
    return {"parent": parent, "until": until if isinstance(until, str) else None,
            "agent": obj.get("agentId") if isinstance(obj.get("agentId"), str) else None,
            "length": length if isinstance(length, int) and not isinstance(length, bool) else None,
            "open": True, "copied": 0}


def copied(state: dict | None, obj: dict) -> bool:
    """Whether ``obj`` is a line copied from the parent; updates ``state`` (closes the prefix)."""
    if not state or not state.get("open") or not isinstance(obj.get("uuid"), str):
        return False
    if obj.get("sessionId") != state["parent"] or obj.get("isSidechain") is True:
        state["open"] = False
        return False
    if obj["uuid"] == state.get("until"):
        state["open"] = False
    state["copied"] += 1
    return True
