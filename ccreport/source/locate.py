"""Find one session (and one of its transcripts) from what a person typed or a URL carried: ids
validated first, paths kept inside the home's projects folder (docs/source.md).

An id is never joined to a path: it is looked up among the names discovery found in the home, so
any name a file system allows ('#', '%', '?', spaces, a tab, non-Latin letters) can be asked for
exactly. What could not be one file name ('..', a separator, NUL, over 255 characters) is refused
before the home is even listed; a prefix (an abbreviated id) must be a plain id.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from ccreport.source.activity import latest
from ccreport.source.home import Catalog, Session, Transcript, contained, discover, valid_id
from ccreport.source.names import quoted


class LocateError(Exception):
    """A SESSION or agent argument that names nothing we can serve. ``status`` is HTTP-like."""

    def __init__(self, message: str, status: int = 404):
        super().__init__(message)
        self.status = status


# One file name: 255 bytes on Linux, 255 UTF-16 units on macOS and Windows (where a decomposed
# 'ü' is 3 bytes of UTF-8): either way at most 255 characters.
MAX_NAME_CHARS = 255


def name_like(value: str) -> bool:
    """True when ``value`` could be one file name of the home (what discovery can find): not empty,
    not '.' or '..', no '/', '\\' or NUL, at most 255 characters."""
    if value in ("", ".", "..") or any(c in value for c in "/\\\x00"):
        return False
    return len(value) <= MAX_NAME_CHARS


def check_id(value: str, what: str = "session id") -> None:
    """Refuse what could never name a session or transcript, before any file is touched."""
    if not name_like(value):
        raise LocateError(f"not a valid {what}: {quoted(value)}", status=400)


def _same(a: str, b: str) -> bool:
    # A name typed on one system and stored on another may differ in Unicode form only (macOS
    # stores 'ü' decomposed): the same name either way.
    return a == b or unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def _unknown(spec: str, what: str, where: str) -> LocateError:
    """No exact name matched: a plain id may still be a prefix (404 when nothing has it); anything
    else names nothing (400, as before the names of issue 18)."""
    if valid_id(spec):
        return LocateError(f"no {what} {spec} in {where}")
    return LocateError(f"not a valid {what}: {quoted(spec)} (no {what} has this exact name)", status=400)


def find_session(home: Path, spec: str, catalog: Catalog | None = None) -> Session:
    """SESSION may be an id, a unique id prefix, 'latest', or a path to a .jsonl in the home."""
    catalog = catalog or discover(home)
    root = home / "projects"
    if spec == "latest":
        return _latest(catalog)  # one definition everywhere: source/activity.py
    if spec.endswith(".jsonl") and ("/" in spec or os.sep in spec):
        return _by_path(catalog, root, Path(spec))
    check_id(spec)
    sessions = list(catalog.sessions())
    exact = [s for s in sessions if s.id == spec] or [s for s in sessions if _same(s.id, spec)]
    if len(exact) > 1:
        raise LocateError(f"session id {spec} exists in {len(exact)} projects: "
                          + ", ".join(s.project.dir_name for s in exact), status=409)
    pref = exact or ([s for s in sessions if s.id.startswith(spec)] if valid_id(spec) else [])
    if len(pref) == 1:
        if not all(contained(t.path, root) for t in pref[0].transcripts):
            raise LocateError(f"no session {pref[0].id} in {root}")
        return pref[0]
    if len(pref) > 1:
        shown = ", ".join(s.id for s in pref[:5]) + (" …" if len(pref) > 5 else "")
        raise LocateError(f"session prefix {spec} is ambiguous ({len(pref)} sessions: {shown})", status=409)
    raise _unknown(spec, "session", str(root))


def find_transcript(session: Session, agent_id: str | None = None) -> Transcript:
    """The main transcript, or the agent transcript with this id (also 'main')."""
    if not agent_id or agent_id == "main":
        if session.main is None:
            raise LocateError(f"session {session.id} has no main transcript (only sub-agent files)")
        return session.main
    check_id(agent_id, "agent id")
    found = [t for t in session.agents if t.id == agent_id] or [t for t in session.agents if _same(t.id, agent_id)]
    if found:
        return found[0]
    if not valid_id(agent_id):
        raise _unknown(agent_id, "agent id", f"session {session.id}")
    raise LocateError(f"session {session.id} has no transcript {agent_id}")


def _by_path(catalog: Catalog, root: Path, path: Path) -> Session:
    try:
        resolved = path.expanduser().resolve()
    except (OSError, RuntimeError):
        raise LocateError(f"no transcript at {path}") from None
    if not contained(resolved, root):
        raise LocateError(f"no transcript at {path} inside {root}")
    for s in catalog.sessions():
        for t in s.transcripts:
            if t.path.resolve() == resolved:
                return s
    raise LocateError(f"no transcript at {path}")


def _latest(catalog: Catalog) -> Session:
    s = latest(catalog)
    if s is None:
        raise LocateError(f"no sessions in {catalog.home / 'projects'}")
    return s
