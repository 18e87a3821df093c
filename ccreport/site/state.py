"""The incremental state: what the last build read and wrote, so the next one does only the rest.

All JSON, written atomically; ``FORMAT`` is bumped on any incompatible change (a site of another
format is rebuilt whole)::

    out/.ccreport/state.json             {"format": 8, "ccreport": version, "fingerprint": of
                                          templates, assets and code, "options": render_options(),
                                          "titles": {project dir: title in its headings},
                                          "title_sources": {project dir: {"title", "seen": [[path,
                                          size, mtime_ns], …]}}}   (State.set_head)
    out/.ccreport/sessions/<project-dir>/<session-id>.json    a SessionState: the dataclasses
                                          below, field for field (orjson writes them as they are)
    out/.ccreport/sessions.json           [SessionState, …]: a full build of PACK_MIN sessions or
                                          more writes them all here, one file, not a file per
                                          session and a folder per project; the files above,
                                          written by later builds, override it
    out/.ccreport/turns/<project-dir>/<session-id>/<transcript>.jsonl   the closed turns moved out
                                          of a TranscriptState in blocks (site/turnfile.py)

Another ``format``, ``ccreport``, ``fingerprint`` or ``options`` rebuilds everything; another project
title rebuilds that project's sessions. How the build reads a session's state: site/plan.py.

In memory (State) a session is its JSON, the bytes its file or its pack entry holds, and its
SessionBrief, the part the main process reads across sessions (rows, search metadata, fork points,
the archive's saved sessions, live's warm-up); the whole SessionState is decoded only for a session
the build looks into (State.session). A session's update sends both back (PackedState). On a 300 MB
home of 895 sessions the objects of every state were the main process's biggest growth (38 MiB for
10 MB of JSON); as bytes and briefs they are about 18 MiB.
"""

from __future__ import annotations

import hashlib
import shutil
from contextlib import suppress
from dataclasses import dataclass, field, fields
from pathlib import Path

import orjson

from ccreport import __version__
from ccreport.fs import atomic_file, atomic_write
from ccreport.layout import STATE_DIR, turns_state_dir

# 13: search documents in files shared by units (a site of 12 has one file per transcript);
# 12: a sub-agent's task (the description its parent's Task/Agent call gave it: TranscriptSummary.task,
# SessionState.agent_titles), the files a sub-agent transcript changed (TranscriptState.changed) and
# its agent id per turn's sub-agent call; warm-up runs (TranscriptSummary.warmup, SessionInfo.warmups);
# a session's summary title (SessionInfo.summary_title; the head's "leaves": site.leaftitles);
# search documents hold whole texts and a failed call's flag (the records' digests change);
# 11: closed turns past a block of site.turnfile.PART in their own file (TranscriptState.turns_file);
# 10: the search unit record per transcript (was a file per transcript);
# 9: a session's side files (source.sidefiles), the Workflow cards and reply pages of a transcript;
# 8: typed prompts per transcript (home files); 7: turns (model.turns) per transcript, the task board
# and Claude Code's own cost (cost-state) in carry and ledgers; 5: typed session state (nested
# summary); 4: usage ledgers in the session file
FORMAT = 13
HEAD_BYTES = 64 * 1024
PACK = "sessions.json"
# From this many sessions a full build packs their states into one file (State.save). Below it the
# files cost little, and one file per session stays easy to look at.
PACK_MIN = 32


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
    team: dict | None = None  # model.teams.TeamFacts of its lines: team names, members, task board
    turns: list = field(default_factory=list)  # model.turns.Turn of every prompt, as plain data
    turns_mark: dict | None = None  # model.turns.Turns.mark() at the last page's first line
    typed: list = field(default_factory=list)  # [line, source.homefiles.prompt_key] of each typed prompt (main)
    run_refs: dict = field(default_factory=dict)  # Workflow run id → [page no, its card as rendered]
    replies: dict = field(default_factory=dict)  # reply page name (layout.reply_page) → last page that wrote it
    search: dict | None = None  # its search unit's record (site.search.SessionIndex.end); None: not indexed
    # The closed turns moved out of ``turns`` (site.turnfile): {"count", "bytes", "first"}; None: none
    turns_file: dict | None = None
    changed: list = field(default_factory=list)  # a sub-agent's: the files it wrote or edited (model.turns.changed_paths)

    @property
    def last_page(self) -> int:
        return _last_page(self.pages)

    @classmethod
    def from_json(cls, data: dict) -> "TranscriptState":
        return cls(**dict(_known(cls, data), summary=TranscriptSummary(**_known(TranscriptSummary, data["summary"]))))


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
    """What the last build knew of one session (``.ccreport/sessions/<project>/<id>.json``)."""

    project: str
    id: str
    info: SessionInfo
    transcripts: dict = field(default_factory=dict)  # transcript id ("main" or agent id) → TranscriptState
    agent_calls: dict = field(default_factory=dict)  # main-transcript calls sub-agents link back to
    agent_titles: dict = field(default_factory=dict)  # sub-agent id → its call's description (its pages' title)
    ledgers: dict = field(default_factory=dict)  # transcript id → model.usage.TranscriptUsage.to_json()
    side: list = field(default_factory=list)  # source.sidefiles rows: run files, custom title, team files
    format: int = FORMAT
    home_digest: str = ""  # of the home-file section its overview shows (site.extras): rewritten when it moves

    @classmethod
    def from_json(cls, data: dict) -> "SessionState":
        return cls(project=data["project"], id=data["id"],
                   info=SessionInfo(**_known(SessionInfo, data["info"])),
                   transcripts={k: TranscriptState.from_json(t) for k, t in data["transcripts"].items()},
                   agent_calls=data.get("agent_calls") or {},
                   agent_titles=data.get("agent_titles") or {}, ledgers=data.get("ledgers") or {},
                   home_digest=data.get("home_digest") or "", side=data.get("side") or [])


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
            tid: TranscriptBrief(ts.summary, ts.pages, ts.source, ts.inode, ts.mtime_ns, ts.team)
            for tid, ts in state.transcripts.items()}, state.home_digest)


@dataclass
class PackedState:
    """A session's new state as the session's update hands it back (from a worker process, too) and
    the State keeps it: its JSON, which its file or its entry in the pack will hold, and its brief.
    Bytes cross the process boundary and stay bytes: the unpickled objects of every session were
    the main process's biggest growth (38 MiB for 895 sessions whose states are 10 MB of JSON)."""

    raw: bytes
    brief: SessionBrief

    @classmethod
    def of(cls, state: SessionState) -> "PackedState":
        return cls(_encoded(state), SessionBrief.of(state))


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
    session is kept as its brief, which the build reads across sessions, and its JSON: the whole
    state is decoded only for a session the build looks into (``session``)."""

    def __init__(self, out: Path):
        self.dir = out / STATE_DIR
        self.head: dict = {}
        self.sessions: dict[tuple[str, str], SessionBrief] = {}  # (project dir, session id) → its brief
        # Each session's whole state as JSON: what its file (or the pack) holds, or the next save writes.
        self._raw: dict[tuple[str, str], bytes] = {}
        # The states load decoded (it needs them for the briefs), until the build's plan takes them:
        # an incremental build looks into every session, and would otherwise decode each twice.
        self._decoded: dict[tuple[str, str], SessionState] = {}
        self._saved_head: bytes | None = None
        self._dirty: set[tuple[str, str]] = set()  # sessions whose JSON is not on disk
        self._on_disk: set[tuple[str, str]] = set()  # sessions with a file or an entry in the pack
        # Sessions whose last update failed (a full disk): their saved state is the one before it,
        # but some of their pages may be newer, so the next build renders them whole.
        self.redo: set[tuple[str, str]] = set()
        self._packed: set[tuple[str, str]] = set()  # sessions in the pack file (a session file may override)

    @classmethod
    def load(cls, out: Path) -> "State":
        st = cls(out)
        try:
            raw = (st.dir / "state.json").read_bytes()
            head = orjson.loads(raw)
        except (OSError, orjson.JSONDecodeError):
            return st
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            return st
        st.head, st._saved_head = head, raw
        st.redo = {tuple(k) for k in head.get("redo", ()) if isinstance(k, list) and len(k) == 2}
        st._load_pack()
        for path in (st.dir / "sessions").glob("*/*.json"):
            # A session file unreadable or of another format: that session is simply rebuilt.
            with suppress(OSError, orjson.JSONDecodeError, KeyError, TypeError):
                raw = path.read_bytes()
                data = orjson.loads(raw)
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    st._loaded((path.parent.name, path.stem), SessionState.from_json(data), raw)
        return st

    def _load_pack(self) -> None:
        try:
            items = orjson.loads((self.dir / PACK).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return
        for data in items if isinstance(items, list) else []:
            with suppress(KeyError, TypeError):
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    key = (data["project"], data["id"])
                    # (orjson gives back the bytes it wrote: the skip of identical writes holds)
                    self._loaded(key, SessionState.from_json(data), _encoded(data))
                    self._packed.add(key)

    def _loaded(self, key: tuple[str, str], state: SessionState, raw: bytes) -> None:
        self.sessions[key], self._raw[key], self._decoded[key] = SessionBrief.of(state), raw, state
        self._on_disk.add(key)

    def session(self, key: tuple[str, str]) -> SessionState | None:
        """The whole saved state of a session (None: none), decoded from its JSON: a new object
        each time (but the one load decoded, the first time), the caller's to change and ``put``."""
        state = self._decoded.pop(key, None)
        if state is None and key in self._raw:
            state = SessionState.from_json(orjson.loads(self._raw[key]))
        return state

    def done_planning(self) -> None:
        """The states load decoded and the plan did not take (sessions it did not look into) go."""
        self._decoded.clear()

    def put(self, packed: PackedState) -> None:
        """A session's new state; written by the next save unless its JSON is the one on disk."""
        key = (packed.brief.project, packed.brief.id)
        self.sessions[key] = packed.brief
        self._decoded.pop(key, None)
        if self._raw.get(key) != packed.raw:
            self._raw[key] = packed.raw
            self._dirty.add(key)

    def drop(self, key: tuple[str, str]) -> None:
        """A session that is gone: its file, its entry in the pack and its closed turns go at the save."""
        for held in (self.sessions, self._raw, self._decoded):
            held.pop(key, None)
        self._dirty.discard(key)

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

    def _session_path(self, key: tuple[str, str]) -> Path:
        return self.dir / "sessions" / key[0] / f"{key[1]}.json"

    def save(self, full: bool = False) -> None:
        """Write the session files that changed, drop those of vanished sessions, then the head
        (last: a crash in between leaves an older head, which only costs a rebuild). ``full``:
        every session was rendered again (a full build): from PACK_MIN sessions, one pack file."""
        if full and len(self.sessions) >= PACK_MIN:
            self._write_pack()
        for key in sorted(self._dirty):
            atomic_write(self._session_path(key), self._raw[key])
            self._dirty.discard(key)
            self._on_disk.add(key)
        gone = [k for k in self._on_disk if k not in self.sessions]
        for key in gone:
            with suppress(OSError):
                self._session_path(key).unlink()
            with suppress(OSError):
                self._session_path(key).parent.rmdir()
            self._drop_turns(key)
            self._on_disk.discard(key)
        if self._packed.intersection(gone):  # (it would come back from the pack)
            self._write_pack()
        raw = orjson.dumps(self.head, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        if raw != self._saved_head:
            atomic_write(self.dir / "state.json", raw)
            self._saved_head = raw

    def _drop_turns(self, key: tuple[str, str]) -> None:
        """The closed turns of a session that is gone (site.turnfile)."""
        shutil.rmtree(self.dir.parent / turns_state_dir(*key), ignore_errors=True)

    def _write_pack(self) -> None:
        """Every session's state into the pack, streamed from the JSON kept; the session files it
        replaces go (after it, so a crash in between leaves states that are all there, some older:
        the head, written last, is then older too, and the next build is a full one again)."""
        with atomic_file(self.dir / PACK) as fh:
            fh.write(b"[")
            for i, key in enumerate(self.sessions):
                if i:
                    fh.write(b",")
                fh.write(self._raw[key])
            fh.write(b"]")
        shutil.rmtree(self.dir / "sessions", ignore_errors=True)
        self._on_disk, self._packed = set(self.sessions), set(self.sessions)
        self._dirty.clear()
