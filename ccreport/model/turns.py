"""Turns: a prompt a person typed and everything that followed it until the next one. The session
outline lists them (tool counts by name, files changed, sub-agents, errors, duration, cost, the
first lines of the final answer); a transcript page that starts inside one names it.

The summariser is fed the Builder's finished messages page by page, in the same read as the
render. Its state is plain data: every turn before the open one is final, so resuming at a page
start needs only the number of turns and a copy of the open one there (``mark``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson
from datetime import datetime

from ccreport.model.messages import Message, typed_prompt_text
from ccreport.model.prices import cost_units

ANSWER_KEEP = 600  # characters of the final answer kept (the outline shows its first lines)
PROMPT_KEEP = 300
FILES_KEEP = 40  # changed files listed per turn (the count goes on)
CHANGING = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
AGENT_TOOLS = ("Task", "Agent")
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def prompt_of(m: Message) -> str | None:
    """The text of a message that starts a turn: a typed prompt, or a slash command with its
    arguments; None for any other message."""
    if m.kind != "user" or m.sidechain or not m.entry:
        return None
    text = typed_prompt_text(m.entry)
    if text:
        return text
    first = next((p for t, p in m.blocks if t == "text" and isinstance(p, str)), "")
    cmd = _COMMAND.search(first) if "<command-name>" in first and not m.entry.get("isMeta") else None
    if cmd is None:
        return None
    args = _ARGS.search(first)
    name = cmd.group(1) if cmd.group(1).startswith("/") else "/" + cmd.group(1)
    return (name + " " + (args.group(1).strip() if args else "")).strip()


@dataclass
class Figures:
    """What followed one prompt (or the part of it on one page): plain data, kept in the state."""

    responses: int = 0
    tools: dict = field(default_factory=dict)  # tool name → calls, in first-use order
    files: list = field(default_factory=list)  # paths written or edited, first-change order
    files_more: int = 0  # changed files past FILES_KEEP
    agents: list = field(default_factory=list)  # sub-agent calls: [description (or type), agent id or ""]
    errors: int = 0  # failed tool calls and API errors
    usage: dict = field(default_factory=dict)  # token totals
    cost_units: int = 0  # model.prices units, of the priced responses
    unpriced: int = 0  # tokens of responses without a price
    models: list = field(default_factory=list)
    end_ts: str | None = None
    answer: str = ""  # the last text the assistant wrote (the final answer when the turn ended)

    def add(self, m: Message) -> None:
        if m.timestamp:
            self.end_ts = max(self.end_ts or m.timestamp, m.timestamp)
        if m.kind == "result" and m.blocks and getattr(m.blocks[0][1], "is_error", False):
            self.errors += 1
        if m.kind != "assistant" or m.sidechain:
            return
        self.responses += 1
        if m.model and m.model not in self.models and m.model != "<synthetic>":
            self.models.append(m.model)
        if (m.entry or {}).get("isApiErrorMessage"):
            self.errors += 1
        self._usage(m)
        for btype, payload in m.blocks:
            if btype == "text" and isinstance(payload, str) and payload.strip():
                self.answer = payload.strip()[:ANSWER_KEEP]
            elif btype == "tool_use":
                self._call(payload)

    def _usage(self, m: Message) -> None:
        if not m.usage:
            return
        for k, v in m.usage.items():
            self.usage[k] = self.usage.get(k, 0) + v
        units = cost_units(m.model, m.usage)
        if units is None:
            self.unpriced += sum(m.usage.values())
        else:
            self.cost_units += units

    def _call(self, call) -> None:
        self.tools[call.name] = self.tools.get(call.name, 0) + 1
        inp = call.input if isinstance(call.input, dict) else {}
        if call.result is not None and call.result.is_error:
            self.errors += 1
        path = inp.get(CHANGING.get(call.name, ""))
        if isinstance(path, str) and path and path not in self.files:
            if len(self.files) < FILES_KEEP:
                self.files.append(path)
            else:
                self.files_more += 1
        if call.name in AGENT_TOOLS:
            name = inp.get("description") or inp.get("subagent_type") or "sub-agent"
            extra = call.result.extra if call.result is not None and isinstance(call.result.extra, dict) else {}
            aid = extra.get("agentId")  # (its pages: the outline links the name to them)
            self.agents.append([name if isinstance(name, str) else str(name), aid if isinstance(aid, str) else ""])


def changed_paths(messages: list[Message], into: list) -> None:
    """Add the files ``messages`` write or edit to ``into`` (in first-change order, at most FILES_KEEP):
    a sub-agent transcript's changes, which the outline lists under the prompt that started it."""
    for m in messages:
        if m.kind != "assistant":
            continue
        for btype, call in m.blocks:
            if btype == "tool_use" and call.name in CHANGING and isinstance(call.input, dict):
                path = call.input.get(CHANGING[call.name])
                failed = call.result is not None and call.result.is_error
                if isinstance(path, str) and path and path not in into and not failed and len(into) < FILES_KEEP:
                    into.append(path)


@dataclass
class Turn:
    no: int  # 1-based, in the transcript
    line: int  # the prompt's line: its anchor
    page: int
    ts: str | None
    prompt: str
    figures: Figures = field(default_factory=Figures)

    @classmethod
    def from_json(cls, d: dict) -> "Turn":
        return cls(**dict(d, figures=Figures(**d["figures"])))


class Turns:
    """Feed each page's messages in order; ``turns`` holds the turns from the one open at the resume
    point on (the last may go on)."""

    def __init__(self, turns: list[Turn] | None = None, saved: list | None = None, base: int = 0):
        self.turns: list[Turn] = turns or []
        # The plain data of the closed turns resumed: they never change, so they are neither turned
        # back into Turns nor serialized again (an append to a session of thousands of prompts).
        self.saved: list = saved or []
        # Closed turns before ``saved``, kept by the caller elsewhere (site.closedturns): only counted.
        self.base = base

    @property
    def count(self) -> int:
        """Turns so far, those kept elsewhere included (the next one's number is this plus one)."""
        return self.base + len(self.saved) + len(self.turns)

    @classmethod
    def resume(cls, saved: list, mark: dict | None, base: int = 0) -> "Turns":
        """The summariser as it stood at the start of the last page (``mark``, from ``mark()``);
        ``saved``: the turns as saved from number ``base`` + 1 on."""
        if not mark:
            return cls()
        n = mark["count"]
        closed = saved[:max(0, n - 1 - base)]
        return cls([Turn.from_json(mark["open"])] if mark.get("open") else [], closed, base)

    def mark(self) -> dict:
        """Where the summariser stands (taken at a page start, to resume from there)."""
        last = self.turns[-1] if self.turns else None
        return {"count": self.count, "open": orjson.loads(orjson.dumps(last)) if last else None}

    def feed_page(self, messages: list[Message], page_no: int) -> list[tuple[Turn | None, Figures]]:
        """Add one page's messages; returns the page's parts of turns, in order: (turn, the figures
        of its messages on this page). A part before any prompt on the first page has no turn."""
        parts: list[tuple[Turn | None, Figures]] = []
        turn, figs, seen = (self.turns[-1] if self.turns else None), Figures(), False
        for m in messages:
            text = prompt_of(m)
            if text is not None:
                if seen:
                    parts.append((turn, figs))
                turn, figs, seen = Turn(self.count + 1, m.line, page_no, m.timestamp, text[:PROMPT_KEEP]), Figures(), True
                self.turns.append(turn)
                continue
            seen = True
            figs.add(m)
            if turn is not None:
                turn.figures.add(m)
        if seen:
            parts.append((turn, figs))
        return parts

    def to_json(self) -> list:
        """The turns from number ``base`` + 1 on, as plain data."""
        return self.saved + orjson.loads(orjson.dumps(self.turns))


def duration_s(start: str | None, end: str | None) -> float | None:
    """Seconds from one ISO time to another (None when either is missing or unreadable)."""
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return None
    return max(0.0, (b - a).total_seconds())
