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

# 11: closed turns past a block of site.turnfile.PART in their own file (TranscriptState.turns_file);
# 10: the search unit record per transcript (was a file per transcript);
# 9: a session's side files (source.sidefiles), the Workflow cards and reply pages of a transcript;
# 8: typed prompts per transcript (home files); 7: turns (model.turns) per transcript, the task board
# and Claude Code's own cost (cost-state) in carry and ledgers; 5: typed session state (nested
# summary); 4: usage ledgers in the session file
FORMAT = 11
HEAD_BYTES = 64 * 1024
PACK = "sessions.json"
# From this many sessions a full build packs their states into one file (State.save). Below it the
# files cost little, and one file per session stays easy to look at.
PACK_MIN = 32


def _known(cls, data: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


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
    size: int = 0  # bytes when read
    lines: int = 0  # complete lines read, plus the unfinished last one
    error: str | None = None  # the file could not be read
    counts: dict = field(default_factory=dict)  # entry type → lines
    fork: dict | None = None  # a forked transcript: {"parent": session id, "until": uuid, "line", "page"}


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

    @property
    def last_page(self) -> int:
        return self.pages[-1][0] if self.pages else 0

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


@dataclass
class SessionState:
    """What the last build knew of one session (``.ccreport/sessions/<project>/<id>.json``)."""

    project: str
    id: str
    info: SessionInfo
    transcripts: dict = field(default_factory=dict)  # transcript id ("main" or agent id) → TranscriptState
    agent_calls: dict = field(default_factory=dict)  # main-transcript calls sub-agents link back to
    ledgers: dict = field(default_factory=dict)  # transcript id → model.usage.TranscriptUsage.to_json()
    side: list = field(default_factory=list)  # source.sidefiles rows: run files, custom title, team files
    format: int = FORMAT
    home_digest: str = ""  # of the home-file section its overview shows (site.extras): rewritten when it moves

    @classmethod
    def from_json(cls, data: dict) -> "SessionState":
        return cls(project=data["project"], id=data["id"],
                   info=SessionInfo(**_known(SessionInfo, data["info"])),
                   transcripts={k: TranscriptState.from_json(t) for k, t in data["transcripts"].items()},
                   agent_calls=data.get("agent_calls") or {}, ledgers=data.get("ledgers") or {},
                   home_digest=data.get("home_digest") or "", side=data.get("side") or [])


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
    """The state of one output folder, loaded once and kept in memory (watch reuses it)."""

    def __init__(self, out: Path):
        self.dir = out / STATE_DIR
        self.head: dict = {}
        self.sessions: dict[tuple[str, str], SessionState] = {}  # (project dir, session id) → its state
        self._saved: dict[tuple[str, str], bytes] = {}  # what is on disk, to skip identical writes
        self._saved_head: bytes | None = None
        self.dirty: set[tuple[str, str]] = set()  # sessions whose state may differ from the file
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
                    key = (path.parent.name, path.stem)
                    st.sessions[key], st._saved[key] = SessionState.from_json(data), raw
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
                    self.sessions[key], self._saved[key] = SessionState.from_json(data), orjson.dumps(data)
                    self._packed.add(key)

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
        for key in self.dirty:
            data = self.sessions.get(key)
            if data is None:
                continue
            # orjson writes the dataclasses field for field itself: no copy of a big session's
            # pages, hashes and ledger rows on every save (dataclasses.asdict deep-copies them).
            raw = orjson.dumps(data)
            if self._saved.get(key) != raw:
                atomic_write(self._session_path(key), raw)
                self._saved[key] = raw
        self.dirty.clear()
        gone = [k for k in self._saved if k not in self.sessions]
        for key in gone:
            with suppress(OSError):
                self._session_path(key).unlink()
            with suppress(OSError):
                self._session_path(key).parent.rmdir()
            self._drop_turns(key)
            del self._saved[key]
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
        """Every session's state into the pack; the session files it replaces go (after it, so a
        crash in between leaves states that are all there, some older: the head, written last,
        is then older too, and the next build is a full one again)."""
        raws = {key: orjson.dumps(data) for key, data in self.sessions.items()}
        with atomic_file(self.dir / PACK) as fh:  # (streamed: the pack is never held twice)
            fh.write(b"[")
            for i, raw in enumerate(raws.values()):
                fh.write(b"," + raw if i else raw)
            fh.write(b"]")
        shutil.rmtree(self.dir / "sessions", ignore_errors=True)
        self._saved, self._packed = raws, set(raws)
        self.dirty.clear()
