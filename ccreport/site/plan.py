"""What an incremental build must do for each transcript, decided from the saved state and a few
stats: nothing, resume at its last page, or render it from line 1, and why (docs/site.md). Nothing
here writes the saved state: the caller decides to remember a folder stamp a plan saw.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ccreport.layout import INDEX, LATEST, depth_root, outline_part, page_name, session_dir, session_url
from ccreport.layout import transcript_dir
from ccreport.layout import transcript_url
from ccreport.model.teams import merge_facts
from ccreport.site import closedturns
from ccreport.site.features import Search, Teams, TurnLines, Workflows
from ccreport.site.state import SessionState, TranscriptState, head_hash
from ccreport.source.home import Session, Transcript
from ccreport.source.sidefiles import session_stamp, team_stamp

SAME, GROW, FULL = "same", "grow", "full"


@dataclass(frozen=True)
class Plan:
    mode: str  # SAME (nothing to do), GROW (resume at the last page) or FULL (from line 1)
    reason: str
    dir_stamp: int | None = None  # the output folder's mtime, seen with every page present


def agent_urls(s: Session) -> dict:
    """Sub-agent id → site-relative URL of its first page."""
    return {t.id: f"{transcript_url(s.project.dir_name, s.id, t.id)}/{page_name(1)}" for t in s.agents}


def parent_url(s: Session, t: Transcript, agent_calls: dict) -> str | None:
    """The link from an agent's pages back to the call that started it in the main transcript."""
    call = agent_calls.get(t.id) or (agent_calls.get(t.tool_use_id) if t.tool_use_id else None)
    if not call:
        return None
    return f"{depth_root(transcript_dir(s.project.dir_name, s.id, t.id))}{session_url(s.project.dir_name, s.id)}/{call}"


def rel_source(s: Session, t: Transcript) -> str:
    """The transcript's path under projects/ (discovery builds it from the project's path)."""
    return str(t.path.relative_to(s.project.path.parent))


def dir_stamp(folder: Path) -> int | None:
    """The folder's mtime: it changes when a file in it is created, renamed or deleted, so an
    unchanged stamp saves a stat per page on a run where nothing changed."""
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None


def _stale(s: Session, t: Transcript, prev: TranscriptState | None, parent: str | None) -> str | None:
    """Why the saved pages cannot be continued at all (None when they can)."""
    if prev is None:
        return "not built before"
    if prev.summary.error or not prev.pages or prev.carry_last is None:
        return "nothing to resume from"
    if prev.source != rel_source(s, t) or prev.inode != t.inode:
        return "another file"
    if prev.parent_url != parent:
        return "the call it links back to moved"
    if prev.meta != [t.agent_type, t.description]:
        return "its meta.json changed"
    return None


def _pages_on_disk(t: Transcript, prev: TranscriptState, folder: Path) -> Plan:
    """Check the written pages when the folder changed since the build."""
    stamp = dir_stamp(folder)
    if stamp is not None and stamp == prev.dir_mtime_ns:
        return Plan(SAME, "unchanged")
    for no, _, _ in prev.pages[:-1]:
        if not (folder / page_name(no)).exists():
            return Plan(FULL, "a closed page was deleted")  # only a read from line 1 restores it
    if not (folder / page_name(prev.last_page)).exists() or not (folder / LATEST).exists():
        return Plan(GROW, "the last page was deleted")
    if t.kind == "main" and not (folder / INDEX).exists():
        return Plan(GROW, "the session overview was deleted")  # written with the main transcript's update
    parts = closedturns.full_blocks(prev.slice_of(TurnLines)) if t.kind == "main" else 0
    if any(not (folder / outline_part(k)).exists() for k in range(1, parts + 1)):
        return Plan(GROW, "a part of the outline was deleted")  # (site.outlineparts: written with the overview)
    return Plan(SAME, "unchanged", stamp)  # all there: the folder as it is now can be remembered


def _refs_changed(prev: TranscriptState, agents: dict, cards: dict | None) -> Plan | None:
    """A sub-agent link or a Workflow run card its pages show that would now render differently:
    FULL when on a closed page, GROW on the last one (None: none changed). ``cards`` None: not checked
    (the run files' stats are, by session_unchanged)."""
    found = None
    refs = [(no, "a sub-agent link") for aid, (no, linked) in prev.agent_refs.items() if (aid in agents) != linked]
    if cards is not None:
        refs += [(no, "a workflow run card") for rid, (no, card) in prev.slice_of(Workflows).run_refs.items()
                 if cards.get(rid) != card]
    for no, what in refs:
        if no < prev.last_page:
            return Plan(FULL, f"{what} on a closed page changed")
        found = Plan(GROW, f"{what} on the last page changed")
    return found


def plan_transcript(s: Session, t: Transcript, prev: TranscriptState | None, parent: str | None,
                    agents: dict, out: Path, cards: dict | None = None) -> Plan:
    """How to bring one transcript's pages up to date. Costs stats, plus a ≤ 64 KiB read when grown."""
    why = _stale(s, t, prev, parent)
    if why:
        return Plan(FULL, why)
    if not closedturns.intact(out, s.project.dir_name, s.id, t.id, prev.slice_of(TurnLines)):
        return Plan(FULL, "its closed turns are missing")  # (site.closedturns: only a read from line 1 restores them)
    mode, reason = SAME, "unchanged"
    refs = _refs_changed(prev, agents, cards)
    if refs is not None and refs.mode == FULL:
        return refs
    if refs is not None:
        mode, reason = refs.mode, refs.reason
    disk = _pages_on_disk(t, prev, out / transcript_dir(s.project.dir_name, s.id, t.id))
    if disk.mode == FULL:
        return disk
    if disk.mode == GROW:
        mode, reason = GROW, disk.reason
    if prev.slice_of(Search).search is None:
        return Plan(FULL, "its search record is missing")  # which documents it has is not known
    if t.size == prev.summary.size and t.mtime_ns == prev.mtime_ns:
        return Plan(mode, reason, disk.dir_stamp)
    if t.size <= prev.summary.size:
        return Plan(FULL, "shrunk, or rewritten at the same size")
    if head_hash(t.path, prev.head_len) != prev.head:
        return Plan(FULL, "its start changed: a new file under the old name")
    return Plan(GROW, "grown", disk.dir_stamp)


def session_plans(s: Session, old: SessionState | None, out: Path,
                  cards: dict | None = None) -> tuple[dict[str, Plan], dict]:
    """Plans for every transcript of ``s`` (id → Plan) and the agent_calls they rest on; ``cards``:
    the Workflow run cards as they would render now (site.workflows.run_cards)."""
    prev = old.transcripts if old else {}
    agents = agent_urls(s)
    plans = {}
    if s.main:
        plans["main"] = plan_transcript(s, s.main, prev.get("main"), None, agents, out, cards)
    main_kept = old is not None and "main" in plans and plans["main"].mode in (SAME, GROW)
    calls = dict(old.agent_calls) if main_kept else {}
    for t in s.agents:
        plans[t.id] = plan_transcript(s, t, prev.get(t.id), parent_url(s, t, calls), agents, out, cards)
    return plans, calls


def team_names(teams) -> list:
    """The teams a session's transcripts name (their files are read from the home's root); ``teams``:
    each transcript's model.teams facts (its teams slice, or its brief's), None for none."""
    return merge_facts([team for team in teams if team])["teams"]


def side_stamp(s: Session, old: SessionState) -> list:
    """What source.sidefiles stamps of the session now, for the teams its saved state names."""
    return session_stamp(s) + team_stamp(s.project.home, team_names(ts.slice_of(Teams).team for ts in old.transcripts.values()))


def session_unchanged(s: Session, old: SessionState | None, out: Path) -> tuple[bool, dict[str, int]]:
    """Whether nothing of the session needs reading or writing (stats only), and the folder stamps
    seen on the way (transcript id → stamp) that the state may remember."""
    if not old or set(old.transcripts) != {t.id for t in s.transcripts}:
        return False, {}
    if old.side != side_stamp(s, old):
        return False, {}  # a run file, the custom title or a team file changed: read again
    plans, _ = session_plans(s, old, out)
    stamps = {tid: p.dir_stamp for tid, p in plans.items() if p.dir_stamp is not None}
    if not all(p.mode == SAME for p in plans.values()):
        return False, stamps
    unchanged = s.main is not None or (out / session_dir(s.project.dir_name, s.id) / INDEX).exists()
    return unchanged, stamps
