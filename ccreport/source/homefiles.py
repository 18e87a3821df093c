"""The home files beside the transcripts (docs/formats.md F5) — ``history.jsonl``, ``plans/*.md``,
``todos/*.json``, ``file-history/<session>/<hash>@v<N>`` — read from the home, or from the source
store when the home lost them (Claude Code deletes them with their session, or on ``TeamDelete``).

Names come from transcript text and from folder listings: each is checked against a strict pattern
and the path must stay inside the home before anything is read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.source.home import contained
from ccreport.source.store import Store
from ccreport.source.store import exists as store_exists

HISTORY = "history.jsonl"
PLAN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.md")
TODO_NAME = re.compile(r"([0-9a-fA-F-]{8,64})(?:-agent-([0-9a-zA-Z_-]{1,80}))?\.json")
BACKUP_NAME = re.compile(r"[0-9a-fA-F]{8,64}@v[0-9]{1,9}")
SESSION_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,127}")
MAX_BYTES = 64 << 20  # a home file bigger than this is not shown (history.jsonl of years is far smaller)


@dataclass
class Prompt:
    """One line of history.jsonl: a prompt as it was typed."""

    line: int
    display: str
    timestamp: int | None  # ms since the epoch
    project: str  # the cwd it was typed in
    session_id: str | None
    pasted: dict = field(default_factory=dict)  # pastedContents: paste id → {type, content…}
    error: str | None = None  # a line that is not a prompt of a session: shown as it is in ``display``


@dataclass
class Todo:
    """One todos/ file: the checklist of a session's agent (the main one when agent == session)."""

    name: str
    session_id: str
    agent: str | None
    items: list
    error: str | None = None


class HomeFiles:
    """Reading the home's own files, the store standing in for what the home lost."""

    def __init__(self, home: Path, store: Path | None):
        self.home = Path(home)
        # (A Store loads nothing until asked: what is kept is found by a query, file by file.)
        self.store = Store(Path(store)) if store is not None and store_exists(store) else None

    def read(self, relpath: str) -> bytes | None:
        """The bytes of ``relpath`` (posix, under the home): the home's file, else the store's copy."""
        parts = relpath.split("/")
        if not relpath or any(p in ("", ".", "..") for p in parts):
            return None
        path = self.home.joinpath(*parts)
        try:
            if contained(path, self.home) and os.stat(path).st_size <= MAX_BYTES:
                return path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError:
            return None
        return self._stored(relpath)

    def _stored(self, relpath: str) -> bytes | None:
        if self.store is None:
            return None
        try:
            return self.store.read_bytes(relpath)
        except OSError:  # (FileNotFoundError: not kept)
            return None  # a corrupt entry: --verify-store reports it

    def names(self, folder: str, pattern: re.Pattern) -> list[str]:
        """File names of ``folder`` (relative to the home) matching ``pattern``, in the home or kept."""
        found = set()
        base = self.home / folder
        try:
            if contained(base, self.home) and not base.is_symlink():
                found.update(e.name for e in os.scandir(base) if e.is_file(follow_symlinks=False))
        except OSError:
            pass
        if self.store is not None:
            prefix = folder + "/"
            found.update(r[len(prefix):] for r in self.store.names(prefix))
        return sorted(n for n in found if "/" not in n and pattern.fullmatch(n))

    def history(self) -> list[Prompt]:
        raw = self.read(HISTORY)
        return parse_history(raw) if raw else []

    def todos(self) -> list[Todo]:
        out = []
        for name in self.names("todos", TODO_NAME):
            m = TODO_NAME.fullmatch(name)
            out.append(_todo(name, m.group(1), m.group(2), self.read(f"todos/{name}")))
        return out

    def plan(self, name: str) -> bytes | None:
        return self.read(f"plans/{name}") if PLAN_NAME.fullmatch(name) else None

    def backup(self, session_id: str, name: str) -> bytes | None:
        if not (SESSION_ID.fullmatch(session_id) and BACKUP_NAME.fullmatch(name)):
            return None
        return self.read(f"file-history/{session_id}/{name}")


def _todo(name: str, sid: str, agent: str | None, raw: bytes | None) -> Todo:
    try:
        items = orjson.loads(raw or b"")
    except orjson.JSONDecodeError as exc:
        return Todo(name, sid, agent, [], f"not JSON ({exc}): {(raw or b'')[:2000].decode('utf-8', 'replace')}")
    if not isinstance(items, list):
        return Todo(name, sid, agent, [], f"not a list: {(raw or b'')[:2000].decode('utf-8', 'replace')}")
    return Todo(name, sid, agent, items)


def _str(v) -> str:
    return v if isinstance(v, str) else ""


def parse_history(raw: bytes) -> list[Prompt]:
    """Every line of history.jsonl. A line that is not a prompt of a session (malformed, not an
    object, no usable session id, no text) is kept with its ``error`` and the line itself as
    ``display``: the pages show it as it is (site.homepages), never drop it."""
    out = []
    for no, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            obj, err = None, f"malformed line ({exc})"
        else:
            err = None if isinstance(obj, dict) else "not an object"
        if err is None:
            sid = obj.get("sessionId")
            if not isinstance(obj.get("display"), str):
                err = "no prompt text (display)"
            elif not (isinstance(sid, str) and SESSION_ID.fullmatch(sid)):
                err = "no usable session id"
        if err is not None:
            out.append(Prompt(no, line[:4000].decode("utf-8", "replace"), None, "", None, error=err))
            continue
        ts = obj.get("timestamp")
        out.append(Prompt(no, obj["display"], ts if isinstance(ts, int) and not isinstance(ts, bool) else None,
                          _str(obj.get("project")), sid,
                          obj["pastedContents"] if isinstance(obj.get("pastedContents"), dict) else {}))
    return out


_PASTE = re.compile(r"\[Pasted text #(\d+)(?: \+\d+ lines)?\]")
_SPACE = re.compile(r"\s+")
KEY_CHARS = 64  # how much of a prompt identifies it (site.extras matches history against transcripts)


def prompt_key(text: str) -> str:
    """What a typed prompt is matched on: its first KEY_CHARS characters, white space collapsed."""
    return _SPACE.sub(" ", text).strip()[:KEY_CHARS]


def expanded(p: Prompt) -> str:
    """The prompt as the transcript has it: pasted texts put back in place of their placeholders."""
    def paste(m: re.Match) -> str:
        item = p.pasted.get(m.group(1))
        return item["content"] if isinstance(item, dict) and isinstance(item.get("content"), str) else m.group(0)

    return _PASTE.sub(paste, p.display)
