"""When a session was last active, and which one is "latest": the one definition that `latest` (tail,
export, the API) and `list` share (docs/source.md). Bounded reads only: the tail of each transcript."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from ccreport.source.home import Catalog, Project, Session, Transcript
from ccreport.source.reading import open_transcript, peek, read_transcript
from ccreport.source.warmup import busy

TAIL_BYTES = 256 * 1024
_TS = re.compile(rb'"timestamp"\s*:\s*"(\d{4}-\d\d-\d\dT[0-9:.]+Z?)"')


def _last_stamp(t: Transcript) -> str | None:
    """The newest transcript timestamp in the last TAIL_BYTES of a file (lines are appended in time
    order); from the store when the home lost it."""
    try:
        with open_transcript(t) as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - TAIL_BYTES))
            stamps = _TS.findall(fh.read(TAIL_BYTES))
    except OSError:
        return None
    return max(stamps).decode("ascii", "replace") if stamps else None


def last_activity(s: Session) -> str:
    """UTC to the second ("2025-11-18T00:18:57Z"): the newest timestamp written in any of the session's
    transcripts, else (no timestamps) the newest file mtime. Copied homes have meaningless mtimes,
    so what the lines say wins."""
    stamps = [st for t in s.transcripts if (st := _last_stamp(t))]
    if stamps:
        return max(stamps)[:19] + "Z"
    return datetime.fromtimestamp(s.mtime_ns / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def newest_first(sessions) -> list[Session]:
    """Sessions ordered by last activity, newest first (ties: by id, for a stable order)."""
    return sorted(sessions, key=lambda s: (last_activity(s), s.id), reverse=True)


def has_conversation(s: Session) -> bool:
    """True when any transcript of the session holds a user or assistant line (stops at the first),
    not counting sub-agents' warm-up runs (source.warmup). A session without one (an empty file,
    only a title or snapshots, warm-up runs only) is "empty"."""
    for t in s.transcripts:
        try:
            if any(e.obj is not None and e.obj.get("type") in ("user", "assistant")
                   and (t.kind != "agent" or busy(e.obj)) for e in read_transcript(t)):
                return True
        except OSError:
            continue
    return False


def latest(catalog: Catalog) -> Session | None:
    """THE latest session: the newest by last activity that is not empty nor warm-up runs only
    (else the newest of all);
    the first row of `ccreport list`. None when the home has no session."""
    ordered = newest_first(catalog.sessions())
    return next((s for s in ordered if has_conversation(s)), ordered[0] if ordered else None)


def project_path(p: Project) -> str:
    """The project's real path: the first recorded cwd in its transcripts, newest session first, else
    Claude Code's folder name (the encoding is lossy, so the name cannot be decoded back)."""
    order: list[Transcript] = [t for s in sorted(p.sessions.values(), key=lambda s: -s.mtime_ns) for t in s.transcripts]
    return next((cwd for t in order if (cwd := peek(t, "cwd", limit=64 * 1024))), p.dir_name)
