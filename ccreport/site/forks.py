"""The way from a forked transcript to its parent at the fork point: a redirect ``fork-point.html``
in the fork's folder to the parent's page and line holding ``parentLastUuid``. Written after every
session of the build is done, since the parent's pages may be made by another worker."""

from __future__ import annotations

import mmap

from ccreport.layout import FORK_POINT, LATEST, depth_root, page_name, session_url, transcript_dir
from ccreport.render.resources import env
from ccreport.site.state import SessionBrief
from ccreport.source.home import Catalog


def uuid_line(path, uuid: str) -> int | None:
    """The line number of the first line holding ``"uuid":"<uuid>"`` (None when not found)."""
    needle = f'"uuid":"{uuid}"'.encode()
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            at = mm.find(needle)
            if at < 0:
                return None
            line, pos = 1, 0
            while True:  # count the newlines before it, a block at a time
                nl = mm.find(b"\n", pos, at)
                if nl < 0:
                    return line
                line, pos = line + 1, nl + 1
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None


def _target(catalog_sessions: dict, states: dict, project: str, fork: dict) -> str | None:
    """The parent's page and anchor (relative to the parent's session folder) for one fork."""
    parent = states.get((project, fork.get("parent")))
    s = catalog_sessions.get((project, fork.get("parent")))
    if parent is None or s is None or s.main is None or "main" not in parent.transcripts:
        return None
    pages = parent.transcripts["main"].pages
    line = uuid_line(s.main.path, fork["until"]) if fork.get("until") else None
    if line is None or not pages:
        return LATEST
    no = max((p[0] for p in pages if p[1] <= line), default=pages[0][0])
    return f"{page_name(no)}#L{line}"


def write_fork_points(catalog: Catalog, states: dict[tuple, SessionBrief], writer) -> None:
    """A redirect for every forked transcript whose parent session is in the home."""
    by_key = {(s.project.dir_name, s.id): s for s in catalog.sessions()}
    for (project, sid), st in states.items():
        for tid, ts in st.transcripts.items():
            fork = ts.summary.fork
            if not fork or (project, fork.get("parent")) not in by_key:
                continue
            target = _target(by_key, states, project, fork)
            if target is None:
                continue
            rel = transcript_dir(project, sid, tid)
            url = f"{depth_root(rel)}{session_url(project, fork['parent'])}/{target}"
            writer.write(f"{rel}/{FORK_POINT}", env().get_template("redirect.html").render(
                target=url, label="Fork point", what="parent session at the fork point"))
