"""The shape of a session's agents: nested agents (meta.json ``parentAgentId``/``spawnDepth``,
docs/formats.md F4) as a tree under the main session, and an agent's line of ancestors."""

from __future__ import annotations

from ccreport.source.home import Transcript


def ancestry(t: Transcript, by_id: dict[str, Transcript]) -> list[Transcript]:
    """The agents above ``t``, outermost first (not ``t`` itself); a loop or a missing parent ends it."""
    chain: list[Transcript] = []
    seen = {t.id}
    pid = t.parent_agent_id
    while pid and pid in by_id and pid not in seen:
        seen.add(pid)
        chain.append(by_id[pid])
        pid = by_id[pid].parent_agent_id
    return chain[::-1]


def agent_tree(agents: list[Transcript]) -> list[tuple[int, Transcript]]:
    """(depth, agent) in tree order: each agent after its parent, depth 0 for those the main session
    (or a workflow run) started. Agents whose parent is unknown are roots."""
    by_id = {t.id: t for t in agents}
    children: dict[str | None, list[Transcript]] = {}
    for t in agents:
        parent = t.parent_agent_id if t.parent_agent_id in by_id and t.parent_agent_id != t.id else None
        children.setdefault(parent, []).append(t)
    out: list[tuple[int, Transcript]] = []
    seen: set[str] = set()
    stack = [(0, t) for t in reversed(children.get(None, []))]
    while stack:  # depth first, without recursion (a home may hold a long chain of agents)
        depth, t = stack.pop()
        if t.id in seen:
            continue
        seen.add(t.id)
        out.append((depth, t))
        stack.extend((depth + 1, c) for c in reversed(children.get(t.id, [])))
    out.extend((0, t) for t in agents if t.id not in seen)  # parents in a loop: still listed
    return out
