"""Find every project, session and transcript in a Claude home: list and stat, never read (the
layouts handled are in docs/source.md).
"""

from __future__ import annotations

import os
import stat as stat_mod
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import orjson

from ccreport.source.jsonl import lines, parse_line
from ccreport.source.names import not_utf8, skipped

AGENT_KINDS = (
    ("acompact", "compaction"),
    ("aside_question", "side_question"),
    ("aprompt_suggestion", "prompt_suggestion"),
)
KIND_LABELS = {
    "main": "Main session",
    "agent": "Sub-agent",
    "compaction": "Compaction run",
    "side_question": "Side question",
    "prompt_suggestion": "Prompt suggestion",
}
# Session and agent ids come from file names; when they come from a command line or a URL they must
# look like one before any path is built from them.
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$")  # a file name holds at most 255 bytes


class HomeError(Exception):
    """The home cannot be used at all (missing, not a folder, unreadable)."""


def valid_id(value: str) -> bool:
    """True when ``value`` can name a session or agent: no separators, no '..', no oddities."""
    return bool(value) and ".." not in value and bool(_ID_RE.match(value))


def encode_cwd(cwd: str) -> str:
    """Claude Code's folder name for a working directory: every non-alphanumeric → '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def resolve_home(option: str | None = None) -> Path:
    """--home, else CLAUDE_HOME, else CLAUDE_CONFIG_DIR, else ~/.claude."""
    for value in (option, os.environ.get("CLAUDE_HOME"), os.environ.get("CLAUDE_CONFIG_DIR")):
        if value:
            return Path(value).expanduser()
    return Path.home() / ".claude"


def contained(path: Path, root: Path) -> bool:
    """True when ``path`` (symlinks resolved) lies inside ``root`` (resolved)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def agent_kind(agent_id: str) -> str:
    return next((kind for prefix, kind in AGENT_KINDS if agent_id.startswith(prefix)), "agent")


@dataclass
class Transcript:
    id: str  # "main" or the agent id from the file name ("a1b2c3", "acompact-…")
    kind: str  # main | agent | compaction | side_question | prompt_suggestion
    path: Path
    size: int = 0
    mtime_ns: int = 0
    inode: int = 0
    agent_type: str | None = None  # from agent-*.meta.json
    description: str | None = None
    tool_use_id: str | None = None
    layout: str = "main"  # main | subagents | root
    parent_agent_id: str | None = None  # meta.json parentAgentId: a nested agent (2.1.172+) names its parent
    spawn_depth: int | None = None  # meta.json spawnDepth (1: started by the main session)
    workflow_run: str | None = None  # "wf_<id>" when the file sits under subagents/workflows/wf_<id>/
    store: str | None = None  # the source store to read it from: its file is gone from the home
    store_key: str | None = None  # its path under the home, the store's name for it

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


@dataclass
class Session:
    id: str
    project: "Project"
    main: Transcript | None = None
    agents: list[Transcript] = field(default_factory=list)
    tool_results_dir: Path | None = None
    custom_title: str | None = None  # <session>/custom-title.json (written by /rename, 2.1.2xx)
    store: str | None = None  # the source store keeping its files (tool results are read there when gone)
    gone: str | None = None  # "kept by the archive": no file left in the home; the date it was last seen
    # The home paths of the session's files the store keeps (set by archive.merge): its side files
    # (custom-title.json, Workflow runs) are found there when the home lost them.
    kept: tuple[str, ...] = ()

    @property
    def folder(self) -> Path:
        """The session's own folder beside its transcript: sub-agents, tool results, Workflow files."""
        return self.project.path / self.id

    @property
    def transcripts(self) -> list[Transcript]:
        return ([self.main] if self.main else []) + self.agents

    @property
    def mtime_ns(self) -> int:
        return max((t.mtime_ns for t in self.transcripts), default=0)

    @property
    def size(self) -> int:
        return sum(t.size for t in self.transcripts)


@dataclass
class Project:
    dir_name: str
    path: Path
    sessions: dict[str, Session] = field(default_factory=dict)

    def session(self, sid: str) -> Session:
        return self.sessions.setdefault(sid, Session(sid, self))

    @property
    def home(self) -> Path:
        """The Claude home the project folder lies in (``<home>/projects/<dir>``)."""
        return self.path.parent.parent


@dataclass
class Catalog:
    home: Path
    projects: list[Project]
    problems: list[str]  # files that could not be listed or read, for stderr
    # Project folders that could not be listed (permissions, a symlink loop, I/O): their sessions
    # are unknown this time, which is not the same as gone.
    unlisted: set = field(default_factory=set)

    def sessions(self):
        for p in self.projects:
            yield from p.sessions.values()


def _read_meta(meta: Path, t: Transcript, root: Path) -> None:
    # A meta.json linked to a file outside the home is not read (its text would end up on a page).
    if not contained(meta, root):
        return
    try:
        data = orjson.loads(meta.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return
    if isinstance(data, dict):
        for key, attr in (("agentType", "agent_type"), ("description", "description"), ("toolUseId", "tool_use_id"),
                          ("parentAgentId", "parent_agent_id")):
            if isinstance(data.get(key), str):
                setattr(t, attr, data[key])
        if isinstance(data.get("spawnDepth"), int) and not isinstance(data["spawnDepth"], bool):
            t.spawn_depth = data["spawnDepth"]


def peek_field(path: Path, key: str, limit: int = 256 * 1024) -> str | None:
    """The first string value of ``key`` among the first lines of a transcript (bounded read: lines up
    to ``limit`` bytes in all, each held only up to jsonl.LINE_CAP; the default is what a legacy agent
    file gets to name its session)."""
    try:
        with open(path, "rb") as fh:
            read = 0
            for ln in lines(fh):
                read += ln.size
                obj = None if ln.cut else parse_line(ln.data)[0]
                if obj is not None and isinstance(obj.get(key), str) and obj[key]:
                    return obj[key]
                if read >= limit:
                    break
    except OSError:
        return None
    return None


def agent_order(t: Transcript) -> tuple:
    """A session's agents in the order they are rendered: parents before the agents they started
    (spawnDepth), then by id. Not by mtime: a checkout sets the mtimes in whatever order it writes
    the files, and the pages must not depend on it."""
    return (t.kind != "agent", t.spawn_depth or 1, t.id)


def discover(home: Path) -> Catalog:
    """List the home's projects, sessions and transcripts. Raises HomeError if unusable."""
    root = home / "projects"
    try:
        if not home.exists():
            raise HomeError(f"Claude home not found: {home}")
        if not home.is_dir():
            raise HomeError(f"Claude home is not a folder: {home}")
        if not root.is_dir():
            raise HomeError(f"no projects/ folder in the Claude home {home} (is this a Claude home? "
                            "give the right one with --home or CLAUDE_HOME)")
    except OSError as exc:
        # Path.is_dir() raises (rather than answering False) when a folder may not be entered.
        raise HomeError(f"cannot read the Claude home {home}: {exc.strerror or exc}") from None
    try:
        names = os.listdir(root)
    except OSError as exc:
        raise HomeError(f"cannot read {root}: {exc.strerror or exc}") from None
    return rescan(Catalog(home, [], []), names)


def rescan(catalog: Catalog, names: Iterable[str]) -> Catalog:
    """The catalog with the project folders ``names`` listed again (added, changed or gone): discovery
    lists every folder this way, a watch only those a change touched. ``problems`` are this listing's."""
    inside = _Inside(catalog.home / "projects")
    by_name = {p.dir_name: p for p in catalog.projects}
    unlisted = set(catalog.unlisted) - set(names)
    for name in sorted(names):
        by_name.pop(name, None)
        pdir = inside.root / name
        if not_utf8(name):
            inside.problems.append(skipped(pdir))
            continue
        if not pdir.is_dir():
            if os.path.islink(pdir) and os.path.lexists(pdir) and not os.path.exists(pdir):
                inside.problems.append(f"{pdir}: cannot list: a broken or looping symlink; its sessions are kept")
                unlisted.add(name)
            continue
        if not inside.dir_ok(pdir):
            inside.problems.append(f"{pdir}: symlink out of the home, skipped")
            continue
        project = Project(name, pdir)
        try:
            _scan_project(project, inside)
        except OSError as exc:
            inside.problems.append(f"{pdir}: cannot list: {exc.strerror or exc}; its sessions are kept as they were")
            unlisted.add(name)
            continue
        if project.sessions:
            by_name[name] = project
    return Catalog(catalog.home, [by_name[name] for name in sorted(by_name)], inside.problems, unlisted)


class _Inside:
    """One discovery run: its containment checks, at the cost of one lstat per file (folders are
    resolved once each, only symlinks pay for a full resolve: docs/source.md), and the problems met."""

    def __init__(self, root: Path):
        self.root = root
        self.real_root = root.resolve()
        self.dirs: dict[str, bool] = {}
        self.problems: list[str] = []

    def dir_ok(self, folder: Path) -> bool:
        key = str(folder)
        if key not in self.dirs:
            self.dirs[key] = contained(folder, self.real_root)
        return self.dirs[key]

    def add(self, t: Transcript) -> bool:
        """Stat ``t``'s file into it when the file lies inside the home; False, with the problem
        noted, when it is a link out of it or cannot be read."""
        try:
            st = os.lstat(t.path)
            if stat_mod.S_ISLNK(st.st_mode):
                st = os.stat(t.path) if contained(t.path, self.root) else None
            elif not self.dir_ok(t.path.parent):
                st = None
        except OSError as exc:
            self.problems.append(f"{t.path}: {exc.strerror or exc}")
            return False
        if st is None:
            self.problems.append(f"{t.path}: symlink out of the home, skipped")
            return False
        t.size, t.mtime_ns, t.inode = st.st_size, st.st_mtime_ns, st.st_ino
        return True


def _entry_kind(e: os.DirEntry, inside: _Inside) -> str | None:
    """"file", "dir" or None (nothing to list: the problem noted when it is a name ccreport cannot
    carry, or a broken or looping symlink — that entry only, the rest of the project is listed)."""
    if not_utf8(e.name):
        inside.problems.append(skipped(e.path))
        return None
    try:
        if e.is_file():
            return "file"
        if e.is_dir():
            return "dir"
        broken = e.is_symlink()
    except OSError as exc:  # ELOOP: x.jsonl -> x.jsonl, a -> b -> a
        inside.problems.append(f"{e.path}: {exc.strerror or exc} (a looping symlink), skipped")
        return None
    if broken:
        inside.problems.append(f"{e.path}: a broken symlink, skipped")
    return None


def _scan_project(project: Project, inside: _Inside) -> None:
    legacy_agents = []
    for e in sorted(os.scandir(project.path), key=lambda e: e.name):
        kind = _entry_kind(e, inside)
        if e.name.endswith(".jsonl") and kind == "file":
            stem = e.name[: -len(".jsonl")]
            if stem in ("", ".", ".."):
                # ".jsonl", "..jsonl", "...jsonl": the session folder would be the project's own
                # folder or its parent, and its pages would overwrite other pages.
                inside.problems.append(f"{e.path}: file name {e.name!r} cannot name a session, skipped")
                continue
            if stem.startswith("agent-"):
                legacy_agents.append(Path(e.path))
            else:
                t = Transcript("main", "main", Path(e.path))
                if inside.add(t):
                    project.session(stem).main = t
        elif kind == "dir":
            _scan_session_dir(project, Path(e.path), inside)
    for f in legacy_agents:
        aid = f.name[len("agent-") : -len(".jsonl")]
        t = Transcript(aid, agent_kind(aid), f, layout="root")
        if not inside.add(t):
            continue
        sid = peek_field(f, "sessionId")
        # A legacy agent file names its parent session inside; an empty one cannot, so it is kept
        # as a session of its own rather than dropped.
        if not sid or not valid_id(sid):
            sid = f"agent-{aid}"
        project.session(sid).agents.append(t)
    for s in project.sessions.values():
        # Parents before the agents they started (spawnDepth): a nested agent's back-link is the
        # parent's call, noted as the parent renders.
        s.agents.sort(key=agent_order)
    # Sessions whose folder held only tool-results and no transcript are not sessions.
    project.sessions = {sid: s for sid, s in project.sessions.items() if s.transcripts}


def _scan_session_dir(project: Project, sdir: Path, inside: _Inside) -> None:
    """A session folder: its sub-agents (subagents/, 2.1.2+) and its tool-results/ folder."""
    sub = sdir / "subagents"
    if not inside.dir_ok(sub):
        # A session folder (or its subagents/) linked out of the home is not even listed.
        inside.problems.append(f"{sdir}: symlink out of the home, skipped")
        return
    if sub.is_dir():
        for f in sorted(sub.rglob("agent-*.jsonl")):
            if not_utf8(f):
                inside.problems.append(skipped(f))
                continue
            aid = f.name[len("agent-") : -len(".jsonl")]
            t = Transcript(aid, agent_kind(aid), f, layout="subagents")
            if f.parent.parent.name == "workflows" and f.parent.name.startswith("wf_"):
                t.workflow_run = f.parent.name  # one agent of a Workflow run (docs/formats.md F4)
            _read_meta(f.with_name(f"agent-{aid}.meta.json"), t, inside.root)
            if inside.add(t):
                project.session(sdir.name).agents.append(t)
    if (sdir / "tool-results").is_dir():
        project.session(sdir.name).tool_results_dir = sdir / "tool-results"
    title = _read_custom_title(sdir / "custom-title.json", inside.root)
    if title:
        project.session(sdir.name).custom_title = title


def _read_custom_title(path: Path, root: Path) -> str | None:
    """The title a /rename left in custom-title.json (None: no file, unreadable, or linked out of the home)."""
    if not contained(path, root):
        return None
    try:
        return custom_title(path.read_bytes()) if path.stat().st_size < TITLE_MAX else None
    except OSError:
        return None


TITLE_MAX = 64 * 1024


def custom_title(data: bytes) -> str | None:
    """The title in a custom-title.json's bytes (None: not JSON, or no title in it)."""
    try:
        obj = orjson.loads(data) if len(data) < TITLE_MAX else None
    except orjson.JSONDecodeError:
        return None
    title = obj.get("customTitle") if isinstance(obj, dict) else None
    return title.strip()[:300] if isinstance(title, str) and title.strip() else None
