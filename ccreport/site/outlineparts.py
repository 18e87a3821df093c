"""The session outline's closed parts: once a session has more than site.closedturns.PART prompts, each
full block of them (the blocks site.closedturns moves out of the state) gets a page of its own,
``prompts-0001.html`` … in the session folder, and the session's page lists only the prompts after
the last full block, below links to the parts. A part never changes once written (its turns are
closed), so an append rewrites the session's page with at most PART rows, not every prompt of the
session (4 MB of HTML for the 501 MB session's 4,800 prompts)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ccreport.layout import INDEX, depth_root, outline_part, project_url, session_dir
from ccreport.render.resources import env
from ccreport.site import closedturns
from ccreport.site.features import TurnLines
from ccreport.site.indexes import page_args
from ccreport.site.agentpages import agent_links
from ccreport.site.outline import part_html
from ccreport.site.state import TranscriptState
from ccreport.site.write import Writer
from ccreport.source.home import Session


@dataclass
class PartsView:
    """What every part page of a session shows around its rows."""

    project_title: str
    cwd: str | None  # the session's: paths are shown relative to it
    agent_files: dict = field(default_factory=dict)  # sub-agent id → the files it changed (site.outline)


def write_parts(s: Session, main: TranscriptState | None, closed: list[list], writer: Writer, view: PartsView,
                rewrite: bool) -> None:
    """Write the part pages that need it: those that just closed (``closed``, the last blocks, in
    memory), and the others that are missing, or all when ``rewrite`` (their rows' paths are shown
    from another folder: the session's cwd moved), those from the turns' file. One block at a time:
    those from the file are read as they are written, and each of ``closed`` is taken out of it
    once its page is written (a cold build of a 1 GB session closes 38 blocks of 250 turns: held
    until the session's end, they were ~30 MB of its peak)."""
    turns = main.slice_of(TurnLines) if main is not None else TurnLines.SLICE()
    total = closedturns.full_blocks(turns)
    new_from = total - len(closed) + 1
    rel = session_dir(s.project.dir_name, s.id)
    stale = {k for k in range(1, new_from) if rewrite or not (writer.out / rel / outline_part(k)).exists()}
    for k, block in closedturns.blocks(writer.out, s.project.dir_name, s.id, "main", turns, stale) if stale else ():
        writer.write(f"{rel}/{outline_part(k)}", _page(s, k, block, view))
    for k in range(new_from, total + 1):
        writer.write(f"{rel}/{outline_part(k)}", _page(s, k, closed.pop(0), view))


def _page(s: Session, no: int, turns: list, view: PartsView) -> str:
    rel = session_dir(s.project.dir_name, s.id)
    root = depth_root(rel)
    base = (no - 1) * closedturns.PART
    title = f"Prompts {base + 1}–{base + len(turns)} of session {s.id[:8]}"
    crumbs = [{"label": view.project_title, "url": f"{root}{project_url(s.project.dir_name)}/{INDEX}"},
              {"label": s.id[:8], "url": INDEX}, {"label": f"prompts {base + 1}–{base + len(turns)}", "url": None}]
    return env().get_template("outline_part.html").render(
        **page_args(root, title, crumbs, "session"), sid=s.id, overview=INDEX, part=closedturns.PART,
        prev=outline_part(no - 1) if no > 1 else None,
        outline=part_html(turns, view.cwd, base, agent_links(t.id for t in s.agents), view.agent_files))
