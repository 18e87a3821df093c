"""`ccreport list`: the sessions of a home, newest first, from bounded reads of each transcript's head
and tail (nothing is parsed in full); see docs/inspect.md for where each column comes from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import orjson

from ccreport.source.home import Session, discover, peek_field
from ccreport.source.jsonl import lines
from ccreport.render.markup import human_size
from ccreport.model.messages import typed_prompt_text

HEAD_BYTES = 256 * 1024
TAIL_BYTES = 256 * 1024
_TYPE = re.compile(rb'"type"\s*:\s*"(user|assistant)"')
_TS = re.compile(rb'"timestamp"\s*:\s*"(\d{4}-\d\d-\d\dT[0-9:.]+Z?)"')


@dataclass(slots=True)
class SessionRow:
    """One session of the listing; ``--json`` writes the fields as an object, in this order."""

    id: str
    project: str  # the recorded cwd of the project, else its folder name
    project_dir: str
    title: str
    last_activity: str  # UTC, to the second
    messages: int
    agents: int
    size: int


def _objects(lines):
    for raw in lines:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            yield obj


def _scan_titles(lines, best: dict) -> None:
    for obj in _objects(raw for raw in lines if b"-title" in raw or b'"summary"' in raw):
        for key, field in (("custom-title", "customTitle"), ("ai-title", "aiTitle"), ("summary", "summary")):
            if obj.get("type") == key and isinstance(obj.get(field), str) and obj[field].strip() \
                    and (key != "summary" or key not in best):
                best[key] = obj[field]


def _title_and_last(path: Path) -> tuple[str | None, str | None]:
    """(title, last timestamp) from a bounded read of the head and tail of a transcript."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - TAIL_BYTES))
            tail = fh.read(TAIL_BYTES)
            fh.seek(0)
            head = _head_lines(fh)
    except OSError:
        return None, None
    stamps = _TS.findall(tail)
    last = max(stamps).decode("utf-8", "replace") if stamps else None
    best: dict = {}
    _scan_titles(tail.split(b"\n"), best)
    _scan_titles(head, best)
    title = best.get("custom-title") or best.get("ai-title") or best.get("summary")
    return title or next((prompt for obj in _objects(head) if (prompt := typed_prompt_text(obj))), None), last


def _head_lines(fh) -> list:
    """Whole lines from the start until HEAD_BYTES are read (each held only up to jsonl.LINE_CAP)."""
    head, read = [], 0
    for ln in lines(fh):
        if not ln.cut:
            head.append(ln.data)
        read += ln.size
        if read >= HEAD_BYTES:
            break
    return head


def _count_messages(path: Path) -> int:
    try:
        with open(path, "rb") as fh:
            # The top-level "type" comes first or near the start in Claude Code's lines; nested
            # blocks say "text"/"tool_use"/…, never "user"/"assistant". A line too long to hold is
            # judged by its start.
            return sum(1 for ln in lines(fh, keep=4096)
                       if _TYPE.search(ln.data, 0, 4096) or (len(ln.data) > 4096 and _TYPE.search(ln.data)))
    except OSError:
        return 0


def session_row(s: Session, project: str) -> SessionRow:
    title = last = None
    for t in s.transcripts:  # the main one first; agents only while something is missing
        if title and last:
            break
        t_title, t_last = _title_and_last(t.path)
        title = title or t_title
        last = max(filter(None, (last, t_last)), default=None)
    if last:
        last = last[:19] + "Z"  # transcript stamps are UTC with milliseconds ("…T10:00:00.123Z"): to the second
    else:
        last = datetime.fromtimestamp(s.mtime_ns / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return SessionRow(s.id, project, s.project.dir_name, " ".join((title or "(untitled)").split())[:200], last,
                      _count_messages(s.main.path) if s.main else 0, len(s.agents), s.size)


def list_rows(home: Path, project: str | None = None) -> list[SessionRow]:
    rows = []
    needle = project.lower() if project else None
    for p in discover(home).projects:
        newest = max(p.sessions.values(), key=lambda s: s.mtime_ns)
        name = next((c for t in newest.transcripts if (c := peek_field(t.path, "cwd", limit=64 * 1024))), p.dir_name)
        if needle and needle not in name.lower() and needle not in p.dir_name.lower():
            continue
        rows.extend(session_row(s, name) for s in p.sessions.values())
    rows.sort(key=lambda r: (r.last_activity, r.id), reverse=True)
    return rows


def rows_json(rows: list[SessionRow]) -> str:
    return orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()


def format_table(rows: list[SessionRow], width: int = 60) -> str:
    if not rows:
        return "(no sessions)"
    head = ("ID", "PROJECT", "TITLE", "LAST ACTIVITY (UTC)", "MSGS", "SIZE")
    body = []
    for r in rows:
        proj = r.project if len(r.project) <= 40 else "…" + r.project[-39:]
        title = r.title if len(r.title) <= width else r.title[: width - 1] + "…"
        body.append((r.id, proj, title, r.last_activity.replace("T", " ").rstrip("Z"), f"{r.messages:,}", human_size(r.size)))
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = []
    for row in [head] + body:
        cells = [c.ljust(w) if i not in (4, 5) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
