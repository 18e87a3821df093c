"""Agent teams (docs/formats.md F5, F7): messages from teammates inside user text, and what a
session's calls say of its team — members and task board — for when ``teams/`` and ``tasks/`` are gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

_MSG_RE = re.compile(r"<teammate-message\b([^>]*)>(.*?)(?:</teammate-message>|\Z)", re.S)
_ATTR_RE = re.compile(r'([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"')
# Task ids and member names kept per transcript: a hostile file cannot grow the state without end.
KEEP = 500


@dataclass
class TeammateMessage:
    sender: str
    color: str | None
    summary: str | None
    body: str
    protocol: dict | None  # a JSON protocol message (idle_notification, shutdown_request, …)


def has_teammate_message(text: str) -> bool:
    """A line of teammate messages starts with one (after at most a short lead-in sentence)."""
    return "<teammate-message" in text[:300]


def teammate_messages(text: str) -> list[TeammateMessage]:
    out = []
    for m in _MSG_RE.finditer(text):
        attrs = dict(_ATTR_RE.findall(m.group(1)))
        body = m.group(2).strip()
        proto = None
        if body.startswith("{") and body.endswith("}"):
            try:
                obj = orjson.loads(body)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict) and isinstance(obj.get("type"), str):
                proto = obj
        out.append(TeammateMessage(attrs.get("teammate_id") or attrs.get("from") or "teammate",
                                   attrs.get("color"), attrs.get("summary"), body, proto))
    return out


def protocol_note(p: dict) -> str:
    """A protocol message in a few words."""
    kind = str(p.get("type"))
    task = p.get("taskId") or p.get("task_id")
    reason = p.get("reason") or p.get("content") or p.get("message")
    words = {
        "idle_notification": "is idle" + (f" ({p['idleReason']})" if isinstance(p.get("idleReason"), str) else ""),
        "shutdown_request": "asks to shut down",
        "shutdown_response": "answers the shutdown request" + (" (approved)" if p.get("approve") else ""),
        "shutdown_approved": "agreed to shut down",
        "task_assignment": f"assigned task #{task}" if task is not None else "assigned a task",
        "teammate_terminated": "has stopped",
        "plan_approval_request": "asks for plan approval",
    }.get(kind, kind.replace("_", " "))
    if isinstance(reason, str) and reason.strip():
        words += f": {reason.strip()[:200]}"
    return words


class TeamFacts:
    """A transcript's team as its lines and calls tell it (plain data in ``data``, saved in its state).
    Re-reading lines already fed gives the same result, so a resumed read may feed a page again."""

    def __init__(self, data: dict | None = None):
        self.data = data if isinstance(data, dict) else {"teams": [], "members": {}, "tasks": {}}

    def _member(self, name: str) -> dict:
        members = self.data["members"]
        if name not in members and len(members) >= KEEP:
            return {}
        return members.setdefault(name, {})

    def _team(self, name) -> None:
        if isinstance(name, str) and name and name not in self.data["teams"] and len(self.data["teams"]) < 20:
            self.data["teams"].append(name)

    def entry(self, obj: dict) -> None:
        self._team(obj.get("teamName"))

    def message(self, tm: TeammateMessage) -> None:
        if tm.sender and tm.color:
            self._member(tm.sender)["color"] = tm.color

    def call(self, name: str, inp, extra) -> None:
        inp = inp if isinstance(inp, dict) else {}
        extra = extra if isinstance(extra, dict) else {}
        if name == "TeamCreate":
            self._team(inp.get("team_name") or inp.get("name"))
        elif name in ("Agent", "Task") and isinstance(inp.get("name"), str) and inp.get("team_name"):
            self._team(inp.get("team_name"))
            m = self._member(inp["name"])
            for key, src in (("agentType", inp.get("subagent_type")), ("model", inp.get("model")),
                             ("agentId", extra.get("agentId"))):
                if isinstance(src, str):
                    m[key] = src
        elif name == "TaskCreate":
            task = extra.get("task") if isinstance(extra.get("task"), dict) else {}
            tid = task.get("id")
            if isinstance(tid, (str, int)):
                self._task(str(tid), {"subject": task.get("subject") or inp.get("subject"), "status": "pending"})
        elif name == "TaskUpdate" and isinstance(inp.get("taskId"), (str, int)):
            change = {k: inp[k] for k in ("status", "owner", "subject") if isinstance(inp.get(k), str)}
            if isinstance(inp.get("addBlockedBy"), list):
                change["blockedBy"] = [str(x) for x in inp["addBlockedBy"]]
            self._task(str(inp["taskId"]), change)

    def _task(self, tid: str, change: dict) -> None:
        tasks = self.data["tasks"]
        if tid in tasks or len(tasks) < KEEP:
            t = tasks.setdefault(tid, {"id": tid})
            if change.get("blockedBy"):
                change = dict(change, blockedBy=sorted(set(t.get("blockedBy", [])) | set(change["blockedBy"])))
            t.update({k: v for k, v in change.items() if v is not None})


def merge_facts(facts: list[dict]) -> dict:
    """One session's team from its transcripts' facts (the main transcript first)."""
    out = TeamFacts()
    for f in facts:
        if not isinstance(f, dict):
            continue
        for name in f.get("teams") or []:
            out._team(name)
        for name, m in (f.get("members") or {}).items():
            out._member(name).update(m)
        for tid, t in (f.get("tasks") or {}).items():
            out._task(tid, t)
    return out.data
