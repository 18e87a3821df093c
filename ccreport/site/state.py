"""The incremental state: what the last build read and wrote, so the next one does only the rest.

It lives in the site's database (``out/.ccreport/ccreport.sqlite``, source.database) as rows of its
own, written in one transaction at the end of a build (site.statedb)::

    state_head     the head: {"format": 13, "ccreport": version, "fingerprint": of templates,
                   assets and code, "options": render_options(), "titles": {project dir: title in
                   its headings}, "title_sources": …, "gone", "leaves", "redo"}   (State.set_head)
    state_parts    a session's own part (its SessionState but its transcripts), a part per
                   transcript (its TranscriptState but its features' slices), and a part per
                   transcript and feature: that feature's slice (site.features: each feature's
                   NAME, VERSION and slice type), with the slice's version
    turns          the closed turns moved out of a TranscriptState in blocks (site.closedturns)

Another ``format``, ``ccreport``, ``fingerprint`` or ``options`` rebuilds everything; another project
title rebuilds that project's sessions; a slice of another version (or none) renders its transcript
from line 1. How the build reads a session's state: site/plan.py. A state of the files of the code
before the database is imported on the first load (site.stateimport).

In memory (State) a session is its parts, the bytes its rows hold, and its SessionBrief, the part the
main process reads across sessions (rows, search metadata, fork points, the archive's saved sessions,
live's warm-up); the whole SessionState is decoded only for a session the build looks into
(State.session). A session's update sends both back (PackedState); only the parts whose bytes
changed are written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from pathlib import Path

import orjson

from ccreport import __version__
from ccreport.layout import STATE_DIR
from ccreport.site.features import SLICE_TYPES, Teams, versions
from ccreport.source import database

# 14: search documents in files shared by units (a site of 13 has one file per transcript);
# 13: in the database, in parts (site.statedb); the closed turns as rows (TranscriptState.closed_turns);
# 12: a sub-agent's task (the description its parent's Task/Agent call gave it: TranscriptSummary.task,
# SessionState.agent_titles), the files a sub-agent transcript changed (TranscriptState.changed) and
# its agent id per turn's sub-agent call; warm-up runs (TranscriptSummary.warmup, SessionInfo.warmups);
# a session's summary title (SessionInfo.summary_title; the head's "leaves": site.leaftitles);
# search documents hold whole texts and a failed call's flag (the records' digests change);
# 11: closed turns past a block of site.closedturns.PART in their own file (TranscriptState.closed_turns);
# 10: the search unit record per transcript (was a file per transcript);
# 9: a session's side files (source.sidefiles), the Workflow cards and reply pages of a transcript;
# 8: typed prompts per transcript (home files); 7: turns (model.turns) per transcript, the task board
# and Claude Code's own cost (cost-state) in carry and ledgers; 5: typed session state (nested
# summary); 4: usage ledgers in the session file
FORMAT = 14
HEAD_BYTES = 64 * 1024


def _known(cls, data: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _last_page(pages: list) -> int:
    return pages[-1][0] if pages else 0


@dataclass(kw_only=True)
class Figures:
    """What a transcript, or a whole session, adds up to: shown in the overview and the indexes."""

    title: str | None = None
    prompt: str | None = None  # the first typed prompt
    messages: int = 0
    malformed: int = 0
    usage: dict = field(default_factory=dict)  # token totals (model.messages.usage_totals)
    models: list = field(default_factory=list)
    cwd: str | None = None
    git_branch: str | None = None
    first_ts: str | None = None
    last_ts: str | None = None


@dataclass(kw_only=True)
class TranscriptSummary(Figures):
    """One transcript's figures and what names it: the render's result."""

    id: str
    kind: str
    label: str
    agent_type: str | None = None
    description: str | None = None
    task: str | None = None  # a sub-agent: the description its parent's Task/Agent call gave it
    size: int = 0  # bytes when read
    lines: int = 0  # complete lines read, plus the unfinished last one
    error: str | None = None  # the file could not be read
    counts: dict = field(default_factory=dict)  # entry type → lines
    fork: dict | None = None  # a forked transcript: {"parent": session id, "until": uuid, "line", "page"}
    warmup: bool = False  # a sub-agent's warm-up run (model.warmup): counted, not listed


@dataclass
class TranscriptState:
    """One transcript as the last build left it: what it shows, where its reading stopped, the
    pages it wrote, and the file it read (to tell next time whether it changed)."""

    summary: TranscriptSummary
    pages: list = field(default_factory=list)  # [page no, first line, first byte offset]
    hashes: dict = field(default_factory=dict)  # page no (str) → sha256 of its HTML
    agent_refs: dict = field(default_factory=dict)  # sub-agent id → [page no, linked]: links a page rendered
    agent_keys: list = field(default_factory=list)  # agent_calls keys this transcript contributes
    offset: int = 0  # bytes consumed (complete lines)
    carry_last: dict | None = None  # model state at the last page's first line (model.messages.Builder.carry)
    source: str | None = None  # path under home/projects
    inode: int | None = None
    mtime_ns: int | None = None
    head_len: int = 0
    head: str | None = None  # sha256 of the first head_len (≤ 64 KiB) consumed bytes
    parent_url: str | None = None  # the back-link rendered on an agent's pages
    meta: list | None = None  # [agent_type, description] from its meta.json
    dir_mtime_ns: int | None = None  # its output folder's mtime after the build (site/plan.py)
    slices: dict = field(default_factory=dict)  # feature NAME → its slice (site.features), each a row of its own

    @property
    def last_page(self) -> int:
        return _last_page(self.pages)

    def slice_of(self, feature):
        """The slice of ``feature`` (a site.features class): the one it ended with, else its empty one."""
        got = self.slices.get(feature.NAME)
        return got if got is not None else feature.SLICE()

    @classmethod
    def from_json(cls, data: dict) -> "TranscriptState":
        """``data["slices"]``: feature NAME → its slice's row."""
        return cls(**dict(_known(cls, data), summary=TranscriptSummary(**_known(TranscriptSummary, data["summary"])),
                          slices={name: kind.from_row(data["slices"][name]) for name, kind in SLICE_TYPES.items()}))


@dataclass(kw_only=True)
class SessionInfo(Figures):
    """A session's row in the indexes (and the head of its overview), made from its transcripts."""

    id: str
    title: str
    transcripts: int = 0
    pages: int = 0
    usage_report: dict | None = None  # model.usage: totals, by model, by day
    first_turn: str | None = None  # the first prompt, from the session folder ("page-0001.html#L3")
    summary_title: str | None = None  # the summary line that titles it, as rendered (site.leaftitles)
    warmups: int = 0  # its sub-agents' warm-up runs (model.warmup)
    warmup_only: bool = False  # nothing but warm-up runs (and empty files): not listed as a session
    prompts: int = 0  # the main transcript's prompts (its outline's turns), for the home's recent sessions


@dataclass
class SessionState:
    """What the last build knew of one session (its rows in the database: site.statedb)."""

    project: str
    id: str
    info: SessionInfo
    transcripts: dict = field(default_factory=dict)  # transcript id ("main" or agent id) → TranscriptState
    agent_calls: dict = field(default_factory=dict)  # main-transcript calls sub-agents link back to
    agent_titles: dict = field(default_factory=dict)  # sub-agent id → its call's description (its pages' title)
    side: list = field(default_factory=list)  # source.sidefiles rows: run files, custom title, team files
    format: int = FORMAT
    home_digest: str = ""  # of the home-file section its overview shows (site.extras): rewritten when it moves

    @classmethod
    def from_json(cls, data: dict) -> "SessionState":
        return cls(**dict(_known(cls, data), format=FORMAT, info=SessionInfo(**_known(SessionInfo, data["info"])),
                          transcripts={k: TranscriptState.from_json(t) for k, t in data["transcripts"].items()}))


@dataclass
class TranscriptBrief:
    """What the main process reads of a transcript's state while the whole of it is kept as JSON
    (State): its figures (the indexes, the search metadata), its pages (fork points, live's warm-up),
    the file it was read from (the archive's saved sessions: site.keep) and the teams it names
    (live.follow). Its objects are the state's own, not copies."""

    summary: TranscriptSummary
    pages: list = field(default_factory=list)  # as TranscriptState.pages
    source: str | None = None
    inode: int | None = None
    mtime_ns: int | None = None
    team: dict | None = None

    @property
    def last_page(self) -> int:
        return _last_page(self.pages)


@dataclass
class SessionBrief:
    """What the main process reads of a session's state between two reads of the session: its row
    (``info``) and its transcripts' briefs. The rest (turns, ledgers, carries, page hashes: three
    quarters of it) only the session's next update reads, from the JSON (State.session)."""

    project: str
    id: str
    info: SessionInfo
    transcripts: dict[str, TranscriptBrief] = field(default_factory=dict)
    home_digest: str = ""  # as SessionState.home_digest ("": no home-file section)

    @classmethod
    def of(cls, state: SessionState) -> "SessionBrief":
        return cls(state.project, state.id, state.info, {
            tid: TranscriptBrief(ts.summary, ts.pages, ts.source, ts.inode, ts.mtime_ns, ts.slice_of(Teams).team)
            for tid, ts in state.transcripts.items()}, state.home_digest)


Part = tuple[str, str]  # (transcript id, feature): ("", "") the session's own, (tid, "") a transcript's


@dataclass
class PackedState:
    """A session's new state as the session's update hands it back (from a worker process, too) and
    the State keeps it: its parts as JSON, which its rows hold, and its brief. Bytes cross the
    process boundary and stay bytes: the unpickled objects of every session were the main process's
    biggest growth (38 MiB for 895 sessions whose states are 10 MB of JSON)."""

    parts: dict[Part, bytes]
    brief: SessionBrief

    @classmethod
    def of(cls, state: SessionState) -> "PackedState":
        return cls(encode_parts(state), SessionBrief.of(state))


_CORE_FIELDS = tuple(f.name for f in fields(TranscriptState) if f.name != "slices")


def encode_parts(state: SessionState) -> dict[Part, bytes]:
    """A session's state as its parts: the session's own, each transcript's core and its slices."""
    own = {f.name: getattr(state, f.name) for f in fields(SessionState) if f.name != "transcripts"}
    parts = {("", ""): _encoded(own)}
    for tid, ts in state.transcripts.items():
        parts[(tid, "")] = _encoded({name: getattr(ts, name) for name in _CORE_FIELDS})
        for name, kind in SLICE_TYPES.items():  # (a feature that did not run: its empty slice)
            parts[(tid, name)] = _encoded((ts.slices.get(name) or kind()).to_row())
    return parts


def decode_parts(parts: dict[Part, bytes]) -> SessionState:
    """The SessionState of its parts. A transcript missing a slice (of another version: not loaded)
    is left out: it is rendered from line 1, as a new one."""
    data = orjson.loads(parts[("", "")])
    data["transcripts"] = {}
    for (tid, feature), raw in parts.items():
        if tid and not feature and all((tid, name) in parts for name in SLICE_TYPES):
            data["transcripts"][tid] = dict(orjson.loads(raw), slices={
                name: orjson.loads(parts[(tid, name)]) for name in SLICE_TYPES})
    return SessionState.from_json(data)


def _encoded(data) -> bytes:
    """``data`` as JSON. orjson writes the dataclasses field for field itself (dataclasses.asdict
    would deep-copy a big session's pages, hashes and ledger rows). Its bytes keep the spare room of
    its buffer (about half their length again): a State keeps an exact copy."""
    return bytes(memoryview(orjson.dumps(data)))


def render_options(opts) -> dict:
    """The options that change the bytes of a page. Add any new render option here."""
    return {"page_size": opts.page_size}


def head_hash(path: Path, length: int) -> str | None:
    """sha256 of the first ``length`` bytes of ``path`` (None when unreadable or shorter)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(length)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) == length else None


class State:
    """The state of one output folder, loaded once and kept in memory (watch reuses it). Each
    session is kept as its brief, which the build reads across sessions, and its parts' JSON: the
    whole state is decoded only for a session the build looks into (``session``)."""

    def __init__(self, out: Path):
        self.dir = out / STATE_DIR
        self.head: dict = {}
        self.sessions: dict[tuple[str, str], SessionBrief] = {}  # (project dir, session id) → its brief
        # Each session's parts as JSON: what its rows hold, or the next save writes.
        self._raw: dict[tuple[str, str], dict[Part, bytes]] = {}
        # The states load decoded (it needs them for the briefs), until the build's plan takes them:
        # an incremental build looks into every session, and would otherwise decode each twice.
        self._decoded: dict[tuple[str, str], SessionState] = {}
        self._saved_head: bytes | None = None
        self._dirty: dict[tuple[str, str], set[Part]] = {}  # parts whose JSON is not in the database
        self._removed: dict[tuple[str, str], set[Part]] = {}  # parts in the database no longer there
        self._saved: set[tuple[str, str]] = set()  # sessions with rows in the database
        # Sessions whose last update failed (a full disk): their saved state is the one before it,
        # but some of their pages may be newer, so the next build renders them whole.
        self.redo: set[tuple[str, str]] = set()
        self.problems: list[str] = []  # what load could not do (an import of the old state files)

    @classmethod
    def load(cls, out: Path) -> "State":
        from ccreport.site import stateimport, statedb
        st = cls(out)
        conn = statedb.connect(out)
        st.problems.extend(stateimport.run(out, conn, FORMAT, versions(),
                                           lambda data: encode_parts(SessionState.from_json(data))))
        raw, sessions = statedb.read(conn, versions())
        try:
            head = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            head = None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            if raw or sessions:  # rows of another format: everything is rebuilt
                statedb.clear(conn, statedb.db_path(out))
            return st
        st.head, st._saved_head = head, raw
        st.redo = {tuple(k) for k in head.get("redo", ()) if isinstance(k, list) and len(k) == 2}
        for key, parts in sessions.items():
            st._saved.add(key)
            if ("", "") in parts:
                state = decode_parts(parts)
                st.sessions[key], st._raw[key], st._decoded[key] = SessionBrief.of(state), parts, state
        return st

    def session(self, key: tuple[str, str]) -> SessionState | None:
        """The whole saved state of a session (None: none), decoded from its JSON: a new object
        each time (but the one load decoded, the first time), the caller's to change and ``put``."""
        state = self._decoded.pop(key, None)
        if state is None and key in self._raw:
            state = decode_parts(self._raw[key])
        return state

    def done_planning(self) -> None:
        """The states load decoded and the plan did not take (sessions it did not look into) go."""
        self._decoded.clear()

    def put(self, packed: PackedState) -> None:
        """A session's new state; the next save writes the parts whose JSON changed."""
        key = (packed.brief.project, packed.brief.id)
        self.sessions[key] = packed.brief
        self._decoded.pop(key, None)
        before = self._raw.get(key, {})
        changed = {p for p, raw in packed.parts.items() if before.get(p) != raw}
        if changed:
            self._dirty.setdefault(key, set()).update(changed)
        gone = set(before) - set(packed.parts)
        if gone:
            self._removed.setdefault(key, set()).update(gone)
        self._raw[key] = packed.parts

    def drop(self, key: tuple[str, str]) -> None:
        """A session that is gone: its rows and its closed turns go at the save."""
        for held in (self.sessions, self._raw, self._decoded, self._dirty, self._removed):
            held.pop(key, None)

    def compatible(self, opts, fingerprint: str) -> bool:
        """False when everything must be rebuilt (no state, other version, code or options)."""
        h = self.head
        return (h.get("format") == FORMAT and h.get("ccreport") == __version__
                and h.get("fingerprint") == fingerprint and h.get("options") == render_options(opts))

    def set_head(self, opts, fingerprint: str, titles: dict, title_sources: dict, gone: dict | None = None) -> None:
        """``gone``: "project/session" → last seen, of the sessions kept by the archive only."""
        self.head = {"format": FORMAT, "ccreport": __version__, "fingerprint": fingerprint,
                     "options": render_options(opts), "titles": titles, "title_sources": title_sources,
                     "gone": gone or {}}
        self.redo = {k for k in self.redo if k in self.sessions}  # a failed new session is new again anyway
        if self.redo:  # absent when there is nothing to redo: a clean state's bytes are unchanged
            self.head["redo"] = sorted(list(k) for k in self.redo)

    def fold_log(self) -> None:
        """The database's log folded into it (the end of a build that is not an append's)."""
        from ccreport.site import statedb
        database.checkpoint(statedb.connect(self.dir.parent))

    def save(self) -> None:
        """Write the parts that changed, drop the rows of vanished sessions, and the head, in one
        transaction (a crash or a full disk leaves the state before it)."""
        from ccreport.site import statedb
        slices = versions()
        changed = [(k[0], k[1], tid, f, slices.get(f, 0) if f else 0, self._raw[k][(tid, f)])
                   for k, parts in sorted(self._dirty.items()) for tid, f in sorted(parts) if (tid, f) in self._raw[k]]
        removed = [(k[0], k[1], tid, f) for k, parts in self._removed.items() for tid, f in parts
                   if (tid, f) not in self._raw.get(k, {})]
        gone = [k for k in self._saved if k not in self.sessions]
        raw = orjson.dumps(self.head, option=orjson.OPT_SORT_KEYS)
        if not changed and not removed and not gone and raw == self._saved_head:
            return
        out = self.dir.parent
        conn = statedb.connect(out)
        statedb.write(conn, statedb.db_path(out), raw if raw != self._saved_head else None, changed, removed, gone)
        if gone:  # (secure_delete zeroed their rows in the database; the log's older copies go too)
            database.checkpoint(conn)
        self._saved = set(self.sessions)
        self._dirty.clear()
        self._removed.clear()
        self._saved_head = raw
