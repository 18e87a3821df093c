"""The home files beside the transcripts, shown (docs/archive.md, "History, plans, todos and file
history"): what each session's overview adds — the prompts of history.jsonl its transcripts never
got ("typed, never answered") and its todos/ checklists —, the plan pages, and the links pages make
to them. Everything is read through source.homefiles: from the home, else from the source store.

The section a session's overview shows is summed up in ``SessionState.home_digest``: a session
whose transcripts did not change gets its overview rewritten only when that section moved.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import orjson
from markupsafe import Markup

from ccreport.layout import plan_page
from ccreport.render.message import local_date
from ccreport.render.tools.tasks import checklist
from ccreport.site.features import Typed
from ccreport.source.homefiles import PLAN_NAME, HomeFiles, Prompt, Todo, expanded, prompt_key

# History lines that are commands to Claude Code itself, never a prompt the model answers.
NOT_PROMPTS = ("/", "!", "#")
PLACEHOLDERS = ("[Pasted text #", "[Image #")


@dataclass
class HomeExtras:
    """What one build reads of the home files (cheap: one history file, the todos and plans listed)."""

    home: Path
    store: Path | None
    history: dict = field(default_factory=dict)  # session id → [Prompt]
    stray: list = field(default_factory=list)  # [Prompt] of history lines that are not prompts of a session
    todos: dict = field(default_factory=dict)  # session id → [Todo] (non-empty lists, and broken files)
    plan_urls: dict = field(default_factory=dict)  # plan file name → site-relative URL of its page


@dataclass
class SessionHome:
    """A session's share of the home files, as a worker needs it (plain data)."""

    home: Path
    store: Path | None
    prompts: list = field(default_factory=list)
    todos: list = field(default_factory=list)
    plan_urls: dict = field(default_factory=dict)

    def files(self) -> HomeFiles:
        return HomeFiles(self.home, self.store)


def load(home: Path, store: Path | None) -> HomeExtras:
    files = HomeFiles(home, store)
    ex = HomeExtras(home, store)
    for p in files.history():
        if p.error is None:
            ex.history.setdefault(p.session_id, []).append(p)
        else:
            ex.stray.append(p)
    for t in files.todos():
        if t.items or t.error:
            ex.todos.setdefault(t.session_id, []).append(t)
    ex.plan_urls = {n: plan_page(n) for n in files.names("plans", PLAN_NAME)}
    return ex


def for_session(ex: HomeExtras | None, sid: str) -> SessionHome | None:
    if ex is None:
        return None
    return SessionHome(ex.home, ex.store, ex.history.get(sid, []), ex.todos.get(sid, []), ex.plan_urls)


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    except (OverflowError, OSError, ValueError):
        return None


def _answered(p: Prompt, typed: set[str]) -> bool:
    """Whether a transcript holds the prompt: the same first characters, pasted texts put back (a
    placeholder whose text history does not keep: the characters before it)."""
    key = prompt_key(expanded(p))
    if key in typed:
        return True
    cut = min((i for i in (key.find(ph) for ph in PLACEHOLDERS) if i >= 0), default=-1)
    if cut >= 0:
        key = key[:cut].strip()
        return not key or any(t.startswith(key) for t in typed)
    return False


def unanswered(prompts: list[Prompt], states: list) -> list[Prompt]:
    if not prompts:
        return []
    typed = {k for ts in states for _, k in ts.slice_of(Typed).typed}
    return [p for p in prompts if p.error is None and p.display.strip()
            and not p.display.lstrip().startswith(NOT_PROMPTS) and not _answered(p, typed)]


def prompt_rows(prompts: list[Prompt]) -> list[dict]:
    """Prompts as the pages list them: time, text (pasted texts put back), history line."""
    return [{"time": local_date(iso(p.timestamp)), "text": expanded(p), "line": p.line} for p in prompts]


def _todo_label(t: Todo, sid: str) -> str:
    return "of the session" if t.agent in (None, sid) else f"of agent {t.agent}"


def section(sh: SessionHome | None, sid: str, states: list) -> dict:
    """The template data of an overview's home-file section ({} when there is none)."""
    if sh is None:
        return {}
    rows = prompt_rows(unanswered(sh.prompts, states))
    todos = []
    for t in sh.todos:
        html = checklist(t.items)[0] if not t.error else ""
        todos.append({"label": _todo_label(t, sid), "file": f"todos/{t.name}", "html": Markup(html), "error": t.error})
    return {"unanswered": rows, "todos": todos} if rows or todos else {}


def digest(data: dict) -> str:
    return hashlib.sha256(orjson.dumps(data, default=str)).hexdigest()[:16] if data else ""
