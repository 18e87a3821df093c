"""``ccreport tail``: the last N lines of a session's transcript, in one bounded pass: the id
is checked before any file is opened; see docs/inspect.md."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import orjson

from ccreport.source.home import Catalog, Session, Transcript, contained
from ccreport.inspect.terminal import printable
from ccreport.source import jsonl
from ccreport.source.reading import open_transcript
from ccreport.source.jsonl import PREVIEW, Line, Reader, parse_line
from ccreport.source.lastlines import after_last_newline, count_lines, read_span, spans_backwards
from ccreport.source.locate import LocateError, check_id, find_session, find_transcript

TEXT_SHOWN = 2000  # characters of one text block in the readable form
DETAIL_SHOWN = 300  # characters of a tool input / result in the readable form
FOLLOW_POLL_S = 0.2  # tail -f: how often the file's size is looked at (a stat; cheap)
# What one command may hold (issue 18): a printed entry is at most ENTRY_CAP bytes of JSON (longer
# strings in it cut to STRING_KEEP characters), all of them together at most BUDGET.
ENTRY_CAP = 1024 * 1024
STRING_KEEP = 16 * 1024
BUDGET = 16 * 1024 * 1024
# An entry counts at least this much against BUDGET (a `{}` prints 3 bytes but is a dict in memory),
# and the lines around the entries (path, counts) are kept out of it.
ENTRY_MIN = 64
HEADROOM = 32 * 1024  # (a path of 4 KiB, JSON-escaped, fits)


def locate(home: Path, spec: str, agent: str | None = None,
           catalog: Catalog | None = None) -> tuple[Session, Transcript, Path]:
    """The session, its transcript and the file to read; LocateError for anything else. ``catalog``:
    the home's, or the home's merged with a site's archive (source.archive.merge), whose transcripts
    the home lost are read from the store (the path returned is where the home had it)."""
    check_id(spec)  # what could name a path is refused before any file is touched
    if agent is not None and agent != "main":
        check_id(agent, "agent id")
    session = find_session(home, spec, catalog=catalog)
    t = find_transcript(session, agent)
    root = home / "projects"
    if t.store is not None and contained(t.path, root):
        return session, t, t.path
    resolved = t.path.resolve()
    if not contained(resolved, root) or not resolved.is_file():
        raise LocateError(f"no session {spec} in {root}")
    return session, t, resolved


def tail(home: Path, spec: str, n: int = 200, agent: str | None = None, as_json: bool = True,
         catalog: Catalog | None = None, budget: int | None = None) -> dict:
    """The JSON of `tail --json`: sessionId, agentId, path, totalLines, truncated (fewer entries than
    lines), entries (the parsed lines, oldest → newest; docs/inspect.md): the entries that fit in
    ``budget`` (default ``BUDGET``, less room for the rest) as printed (``as_json``: as JSON, else in
    the readable form). With ``catalog`` (see locate) also a transcript only the archive has
    ("archived": true)."""
    session, t, resolved = locate(home, spec, agent, catalog)
    with _open(t, resolved) as fh:
        total, lines = read_tail(fh, n, as_json, budget)
    return {**_head(session, t, resolved, total, len(lines)), "entries": lines}


def stream_tail(home: Path, spec: str, n: int = 200, agent: str | None = None, as_json: bool = True,
                catalog: Catalog | None = None) -> tuple[dict, int, Iterator[dict]]:
    """tail's answer without its entries, how many there are, and the entries one at a time (the
    command prints them as they come: a few hundred thousand small entries held as objects took
    245 MB). The lines are chosen as tail chooses them, then read again one by one."""
    session, t, resolved = locate(home, spec, agent, catalog)
    with _open(t, resolved) as fh:
        total, spans = _choose(fh, n, as_json, None, keep=False)

    def entries() -> Iterator[dict]:
        with _open(t, resolved) as fh:
            for start, end in spans:
                yield entry_of(read_span(fh, start, end, jsonl.LINE_CAP))

    return _head(session, t, resolved, total, len(spans)), len(spans), entries()


def _open(t: Transcript, resolved: Path):
    return open_transcript(t) if t.store is not None else open(resolved, "rb")


def _head(session: Session, t: Transcript, resolved: Path, total: int, shown: int) -> dict:
    head = {"sessionId": session.id, "agentId": t.id, "path": str(resolved), "totalLines": total,
            "truncated": total > shown}
    if t.store is not None:
        head["archived"] = True
    return head


def json_chunks(head: dict, entries: Iterable[dict]) -> Iterator[str]:
    """``{**head, "entries": [...]}`` as JSON, a piece at a time."""
    yield orjson.dumps(head).decode()[:-1] + ',"entries":['
    for k, e in enumerate(entries):
        yield ("," if k else "") + orjson.dumps(e).decode()
    yield "]}"


# --- tail -f ----------------------------------------------------------------------------------
def line_start(path: Path) -> tuple[int, bool]:
    """(the offset just past the file's last newline, whether an unfinished line follows it): where
    following starts, so a line being written is printed once it is complete."""
    with open(path, "rb") as fh:
        start = after_last_newline(fh)
        return start, start < fh.seek(0, 2)


def follow_lines(path: Path, offset: int, line: int, stop=None, interval: float = FOLLOW_POLL_S):
    """Yield (line number, entry) for each complete line appended at ``offset`` and later, polling
    the file's size; a file that shrank (rewritten) is followed again from its start. ``stop()``
    true ends it (the CLI runs until Ctrl-C)."""
    while stop is None or not stop():
        try:
            size = os.stat(path).st_size
        except FileNotFoundError:
            size = offset  # gone for now (rotated): wait for it
        if size < offset:
            offset, line = 0, 1
        if size > offset:
            with open(path, "rb") as fh:
                reader = Reader(fh, offset, line)
                for e in reader:
                    yield e.line, (e.obj if e.obj is not None else {"malformed": e.raw or ""})
                offset, line = reader.offset, reader.line
        time.sleep(interval)


def readable_entry(line: int, e: dict) -> str:
    return "\n".join(_turn(line, e))


def read_tail(source, n: int, as_json: bool = True, budget: int | None = None) -> tuple[int, list[dict]]:
    """(line count, the entries of the last n lines) with bounded memory: the file (a path, or an
    open seekable binary stream) is read backwards a block at a time, each entry is capped
    (``ENTRY_CAP``) and what they print, together, is at most ``budget`` (default ``BUDGET`` less
    ``HEADROOM``; each counted at least ``ENTRY_MIN``, which bounds how many are held): fewer than n
    come back when the budget is spent. n == 0 asks for every line."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as fh:
            return read_tail(fh, n, as_json, budget)
    return _choose(source, n, as_json, budget, keep=True)


def _choose(fh, n: int, as_json: bool, budget: int | None, keep: bool) -> tuple[int, list]:
    """(line count, the last lines that fit, oldest first: their entries, or only their spans)."""
    measure = _json_size if as_json else _readable_size
    budget = BUDGET - HEADROOM if budget is None else budget
    total = count_lines(fh)
    chosen: list = []
    kept = 0
    for start, end in spans_backwards(fh):
        if n and len(chosen) >= n:
            break
        # One line in memory at a time (at most jsonl.LINE_CAP of it), kept only once capped.
        e = entry_of(read_span(fh, start, end, jsonl.LINE_CAP))
        cost = max(measure(total - len(chosen), e), ENTRY_MIN)
        if chosen and kept + cost > budget:
            break
        chosen.append(e if keep else (start, end))
        kept += cost
    chosen.reverse()
    return total, chosen


def _json_size(line: int, e: dict) -> int:
    return len(orjson.dumps(e)) + 1  # (and the comma after it)


def _readable_size(line: int, e: dict) -> int:
    return len(readable_entry(line, e).encode("utf-8", errors="replace")) + 1  # (and its newline)


def entry_of(ln: Line) -> dict:
    """The entry of one line as ``--json`` prints it: the object, or {"malformed": text}; a line over
    ``ENTRY_CAP`` has its long strings shortened, or, still too long or not JSON, comes back as
    {"malformed": its first bytes, "cut": what was left out}."""
    if not ln.cut:
        n = len(ln.data) - ln.data.endswith(b"\n")
        body = memoryview(ln.data)[: n - (n > 0 and ln.data[n - 1] == 13)]
        obj, _err = parse_line(body)
        if ln.size <= ENTRY_CAP:
            return obj if obj is not None else {"malformed": bytes(body).decode("utf-8", errors="replace")}
        if obj is not None and len(orjson.dumps(shrink(obj))) <= ENTRY_CAP:
            return obj
        del obj
    head = bytes(ln.data[:PREVIEW]).decode("utf-8", errors="replace")
    return {"malformed": head, "cut": f"line of {ln.size:,} bytes, longer than {ENTRY_CAP:,}: only its start is shown"}


def shrink(obj: dict, keep: int | None = None) -> dict:
    """Cut every string longer than ``keep`` (default ``STRING_KEEP``) characters, in place (no
    recursion: JSON may nest deeper than Python's stack allows)."""
    keep = STRING_KEEP if keep is None else keep
    stack: list = [obj]
    while stack:
        c = stack.pop()
        for k, v in list(c.items() if isinstance(c, dict) else enumerate(c)):
            if isinstance(v, str) and len(v) > keep:
                c[k] = v[:keep] + f"… [{len(v) - keep:,} more characters]"
            elif isinstance(v, (dict, list)):
                stack.append(v)
    return obj


# --- the readable form ------------------------------------------------------------------------
def readable(result: dict) -> str:
    return "\n".join(readable_lines(result, result["entries"], len(result["entries"])))


def readable_lines(head: dict, entries: Iterable[dict], shown: int) -> Iterator[str]:
    """The readable form, a line (or a turn) at a time: the header, then each entry's turn."""
    yield (f"{printable(head['path'])} · {head['totalLines']:,} lines"
           + (f" · the last {shown:,}" if head["truncated"] else "")
           + (" · kept by the archive (the home lost it)" if head.get("archived") else ""))
    for line, e in enumerate(entries, head["totalLines"] - shown + 1):
        yield from _turn(line, e)


def _clean(s: str, limit: int) -> str:
    # Terminal control characters from a transcript must not reach the reader's terminal as commands.
    s = printable(s.replace("\r\n", "\n").replace("\t", "    "))
    return s if len(s) <= limit else s[:limit] + f"… [{len(s) - limit:,} more characters]"


def _short(v) -> str:
    # Entries come from orjson.loads, so they always dump back.
    return _clean(v if isinstance(v, str) else orjson.dumps(v).decode(), DETAIL_SHOWN)


def _turn(line: int, e: dict) -> list[str]:
    if "malformed" in e and set(e) <= {"malformed", "cut"}:
        cut = f" ({_clean(e['cut'], 200)})" if "cut" in e else ""
        return [f"── line {line} · malformed line{cut}", "  " + _clean(e["malformed"], DETAIL_SHOWN)]
    etype = e.get("type") if isinstance(e.get("type"), str) else "(no type)"
    msg = e.get("message") if isinstance(e.get("message"), dict) else {}
    head = f"── line {line} · {etype}"
    if etype == "assistant" and isinstance(msg.get("model"), str):
        head += f" ({_clean(msg['model'], 80)})"
    if isinstance(e.get("timestamp"), str) and e["timestamp"]:
        head += f" · {_clean(e['timestamp'].replace('T', ' ')[:19], 40)}"
    body: list[str] = []
    content = msg.get("content") if msg else e.get("content")
    if isinstance(content, str):
        body.append(_clean(content, TEXT_SHOWN))
    elif isinstance(content, list):
        for b in content:
            if not isinstance(b, dict):
                body.append(_short(b))
            elif b.get("type") == "text":
                body.append(_clean(str(b.get("text", "")), TEXT_SHOWN))
            elif b.get("type") == "thinking":
                body.append("[thinking] " + _clean(str(b.get("thinking", "")), DETAIL_SHOWN))
            elif b.get("type") == "tool_use":
                body.append(f"[{_clean(str(b.get('name')), 80)}] {_short(b.get('input'))}")
            elif b.get("type") == "tool_result":
                err = " (error)" if b.get("is_error") else ""
                body.append(f"[result{err}] {_short(b.get('content'))}")
            else:
                body.append(f"[{_clean(str(b.get('type')), 40)}]")
    elif etype not in ("user", "assistant", "system"):
        return [head]  # bookkeeping lines: one line each
    return [head] + ["  " + ln for chunk in body for ln in chunk.split("\n")]
