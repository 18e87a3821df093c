"""Find one session (and one of its transcripts) from what a person typed or a URL carried: ids
validated first, paths kept inside the home's projects folder (docs/source.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from ccreport.source.activity import latest
from ccreport.source.home import Catalog, Session, Transcript, contained, discover, valid_id


class LocateError(Exception):
    """A SESSION or agent argument that names nothing we can serve. ``status`` is HTTP-like."""

    def __init__(self, message: str, status: int = 404):
        super().__init__(message)
        self.status = status


def check_id(value: str, what: str = "session id") -> None:
    if not valid_id(value):
        raise LocateError(f"not a valid {what}: {value!r}", status=400)


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
    exact = [s for s in sessions if s.id == spec]
    if len(exact) > 1:
        raise LocateError(f"session id {spec} exists in {len(exact)} projects: "
                          + ", ".join(s.project.dir_name for s in exact), status=409)
    pref = exact or [s for s in sessions if s.id.startswith(spec)]
    if len(pref) == 1:
        if not all(contained(t.path, root) for t in pref[0].transcripts):
            raise LocateError(f"no session {pref[0].id} in {root}")
        return pref[0]
    if len(pref) > 1:
        shown = ", ".join(s.id for s in pref[:5]) + (" …" if len(pref) > 5 else "")
        raise LocateError(f"session prefix {spec} is ambiguous ({len(pref)} sessions: {shown})", status=409)
    raise LocateError(f"no session {spec} in {root}")


def find_transcript(session: Session, agent_id: str | None = None) -> Transcript:
    """The main transcript, or the agent transcript with this id (also 'main')."""
    if not agent_id or agent_id == "main":
        if session.main is None:
            raise LocateError(f"session {session.id} has no main transcript (only sub-agent files)")
        return session.main
    check_id(agent_id, "agent id")
    for t in session.agents:
        if t.id == agent_id:
            return t
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
