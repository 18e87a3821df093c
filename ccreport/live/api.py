"""The read-only transcript API served by ``ccreport serve``: projects, sessions and their messages
as JSON, paged with cursors.

The endpoints and the cursor rules: docs/live.md.
"""

from __future__ import annotations

import os
import time
from collections import deque
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, unquote

from ccreport.live.answers import AnswerCache
from ccreport.source.archive import home_and_archive
from ccreport.source.home import Catalog, HomeError, Transcript
from ccreport.source.reading import open_transcript
from ccreport.source.jsonl import Reader
from ccreport.source.locate import LocateError, check_id, find_session, find_transcript
from ccreport.model.messages import Builder, Message
from ccreport.model.pages import paginate

LIMIT_DEFAULT = 50
LIMIT_MAX = 200
# One string in a message is cut here: a message's text, input or output over 10 KB comes back cut.
TEXT_MAX = 10 * 1024


# --- which sessions exist -------------------------------------------------------------------------
class CatalogCache:
    """Discovery (which costs more than the request), reused while the home's listing is unchanged
    and for at most ``ttl`` seconds (docs/live.md); beside it, the answers read from each transcript,
    reused while that file is unchanged (``answers``). ``site``: the served site, whose archive keeps
    the sessions the home lost (read from it when it has one)."""

    def __init__(self, ttl: float = 2.0, site: Path | None = None):
        self.ttl = ttl
        self.site = site
        self.entry: tuple | None = None  # (home, signature, monotonic time, catalog): replaced whole, no lock
        self.answers = AnswerCache()

    def get(self, home: Path) -> Catalog:
        sig = _signature(home / "projects")
        now = time.monotonic()
        e = self.entry
        if sig is not None and e is not None and e[0] == home and e[1] == sig and now - e[2] < self.ttl:
            return e[3]
        catalog = home_and_archive(home, self.site)
        self.entry = (home, sig, now, catalog)
        return catalog


def _signature(root: Path):
    try:
        parts = [os.stat(root).st_mtime_ns]
        with os.scandir(root) as it:
            for e in it:
                if e.is_dir():
                    parts.append((e.name, e.stat().st_mtime_ns))
    except OSError:
        return None
    return tuple(sorted(parts, key=str))


# --- routing ------------------------------------------------------------------------------------
def handle(home: Path, path: str, query: str, page_size: int, cache: CatalogCache) -> tuple[int, dict]:
    """(status, JSON-able body) for one GET under /api/. Never raises for bad input."""
    # Split before decoding, so an encoded "/" (%2F) stays inside its segment and is refused there.
    parts = path.strip("/").split("/")
    try:
        if len(parts) != 4 or parts[:2] != ["api", "sessions"] or parts[3] not in ("transcripts", "transcript"):
            raise LocateError(f"no such API endpoint: {unquote(path)}")  # (as sent: 'é', not '%C3%A9')
        sid = unquote(parts[2])
        if sid != "latest":
            check_id(sid)
        params = _params(query)
        session = find_session(home, sid, catalog=cache.get(home))
        if parts[3] == "transcripts":
            return 200, {"session_id": session.id,
                         "transcripts": [_describe(t, page_size, cache.answers) for t in session.transcripts]}
        agent = params.get("agent_id")
        if agent is not None and agent != "main":
            check_id(agent, "agent id")
        t = find_transcript(session, agent)
        ask = (_int(params, "limit", LIMIT_DEFAULT, 1), _int(params, "after", None, 0),
               _int(params, "before", None, 0), _int(params, "offset", None, 0), page_size)
        window = cache.answers.get(t.path, ("window",) + ask, lambda: transcript_window(t, *ask))
        return 200, dict(window, session_id=session.id, agent_id=t.id)
    except LocateError as exc:
        return exc.status, {"error": str(exc), "status": exc.status}
    except HomeError as exc:
        return 404, {"error": str(exc), "status": 404}


def _params(query: str) -> dict[str, str]:
    try:
        raw = parse_qs(query, keep_blank_values=True, strict_parsing=False, max_num_fields=20)
    except ValueError:
        raise LocateError("too many query parameters", status=400) from None
    return {k: v[-1] for k, v in raw.items()}


def _int(params: dict, name: str, default, minimum: int):
    value = params.get(name)
    if value is None or value == "":
        return default
    try:
        n = int(value)
    except ValueError:
        raise LocateError(f"{name} must be an integer, not {value!r}", status=400) from None
    if n < minimum:
        raise LocateError(f"{name} must be ≥ {minimum}", status=400)
    return n


# --- the transcripts of a session ---------------------------------------------------------------
def _describe(t: Transcript, page_size: int, answers: AnswerCache) -> dict:
    try:
        count = answers.get(t.path, ("count", page_size), lambda: sum(1 for _ in iter_messages(t, page_size)))
    except OSError:
        count = None
    name = "Main Agent" if t.kind == "main" else (t.agent_type or t.label)
    return {"id": t.id, "name": name, "type": "subagent" if t.kind == "agent" else t.kind, "agent_type": t.agent_type,
            "description": t.description, "message_count": count, "has_transcript": count is not None}


# --- one transcript -------------------------------------------------------------------------------
def iter_messages(t: Transcript, page_size: int) -> Iterator[Message]:
    """Every message of the transcript in order, each final (taken from a finished or the last
    page); from the site's archive when the home lost it."""
    with open_transcript(t) as fh:
        for page in paginate(Reader(fh), Builder(), page_size):
            yield from page.messages
            page.messages = []


def transcript_window(t: Transcript, limit: int, after: int | None, before: int | None, offset: int | None,
                      page_size: int) -> dict:
    """The messages one request asks for, with ``total``, ``has_more`` and the line cursors."""
    if offset is not None and (after is not None or before is not None):
        raise LocateError("offset cannot be combined with after/before", status=400)
    if after is not None and before is not None:
        raise LocateError("after and before cannot be combined", status=400)
    limit = min(limit, LIMIT_MAX)
    total = 0
    matching = 0  # messages that pass the cursor
    # From the start (after, offset): the first ``limit``; otherwise the last ``limit``.
    kept: list | deque = [] if after is not None or offset is not None else deque(maxlen=limit)
    try:
        for m in iter_messages(t, page_size):
            total += 1
            if (after is not None and m.line <= after) or (before is not None and m.line >= before):
                continue
            matching += 1
            if offset is not None and matching <= offset:
                continue
            if isinstance(kept, deque) or len(kept) < limit:
                kept.append(m)
    except FileNotFoundError:
        # A transcript that is not there (any more) is an empty one, not an error (docs/live.md).
        pass
    msgs = [message_json(m) for m in kept]
    has_more = matching > (offset or 0) + len(msgs)
    return {"messages": msgs, "total": total, "has_more": has_more,
            "first_line": msgs[0]["line"] if msgs else 0, "last_line": msgs[-1]["line"] if msgs else 0}


# --- one message as JSON ------------------------------------------------------------------------
def message_json(m: Message) -> dict:
    out: dict[str, Any] = {"type": m.kind, "line": m.line, "lines": list(m.lines), "timestamp": m.timestamp}
    if m.model:
        out["model"] = m.model
    if m.usage:
        out["usage"] = dict(m.usage)
    if m.sidechain:
        out["sidechain"] = True
    if m.kind == "malformed":
        out["content"] = [{"type": "malformed", "text": _cut(m.raw or ""), "error": m.error}]
        return out
    if m.run is not None:  # lines folded into this message, counted (model.folds)
        r = m.run
        out["folded"] = {"lines": r["count"], "first": r["first"], "last": r["last"], "bytes": r["bytes"],
                         "counts": dict(r["names"])}
        if m.kind == "malformed_run":
            out["content"] = [{"type": "malformed", "text": _cut(r["raw"])}]
            return out
        if m.kind == "empty":
            out["content"] = []
            return out
    if m.kind in ("system", "other") and m.entry is not None:
        e = m.entry
        out["subtype"] = e.get("subtype") if m.kind == "system" else e.get("type")
        text = e.get("content")
        out["content"] = [{"type": "text", "text": _cut(text)}] if isinstance(text, str) else [{"type": "entry", "entry": _clip(e)}]
        return out
    if m.late_call:
        out["call"] = dict(m.late_call)
    out["content"] = [_block(kind, payload) for kind, payload in m.blocks]
    return out


def _block(kind: str, payload: Any) -> dict:
    if kind == "text":
        return {"type": "text", "text": _cut(payload)}
    if kind == "thinking":
        return {"type": "thinking", "text": _cut(payload.get("thinking") or "")}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking"}
    if kind == "tool_use":
        b = {"type": "tool_use", "name": payload.name, "id": payload.id, "input": _clip(payload.input)}
        if payload.result is not None:
            b["result"] = _result(payload.result)
        return b
    if kind == "tool_result":
        return dict(_result(payload), type="tool_result")
    if kind in ("image", "document"):
        src = payload.get("source") if isinstance(payload.get("source"), dict) else {}
        return {"type": kind, "media_type": src.get("media_type"), "source_type": src.get("type"),
                "size": len(src.get("data") or "") if isinstance(src.get("data"), str) else None}
    if kind == "entry":
        line, obj, size = payload
        return {"type": "entry", "line": line, "entry_type": obj.get("type"), "size": size}
    return {"type": "unknown", "value": _clip(payload)}


def _result(r) -> dict:
    return {"tool_use_id": r.tool_use_id, "content": _clip(r.content), "is_error": r.is_error, "line": r.line}


def _cut(s: Any) -> Any:
    if isinstance(s, str) and len(s) > TEXT_MAX:
        return s[:TEXT_MAX] + "[truncated]"
    return s


def _clip(v: Any, depth: int = 0) -> Any:
    """JSON value with every long string cut (images and pasted files stay small in the API)."""
    if isinstance(v, str):
        return _cut(v)
    if depth > 20:
        return "[truncated]"
    if isinstance(v, dict):
        return {str(k): _clip(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clip(x, depth + 1) for x in v]
    return v
