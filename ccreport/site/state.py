"""The incremental state: what the last build read and wrote, so the next one does only the rest.

Layout (all JSON, written atomically; ``FORMAT`` is bumped on any incompatible change)::

    out/.ccreport/state.json                     global
    out/.ccreport/sessions/<project-dir>/<session-id>.json   one per session

``state.json``::

    {"format": 4,                 # this layout's version
     "ccreport": "0.1.0",         # the version that wrote it
     "fingerprint": "…",          # resources.fingerprint(): templates, assets and code
     "options": {"page_size": 50},# every option that changes the HTML (render_options())
     "titles": {project_dir: title},   # project titles used in page headings
     "title_sources": {project_dir: {"title": …, "seen": [[path, size, mtime_ns], …]}}}
                                  # the transcripts peeked at for each title: unchanged → not re-read

Any difference in ``format``, ``ccreport``, ``fingerprint`` or ``options`` rebuilds everything; a
different project title rebuilds that project's sessions (the title is in every heading).

A session file::

    {"format": 4, "project": dir, "id": sid, "title": "project title used in its headings",
     "agent_calls": {key: "page-0003.html#L812"},   # main-transcript calls sub-agents link back to
                                                    # (Task/Agent call ids, agentIds, known agents)
     "info": {…},                          # build.session_summary: the session's row in the indexes
     "ledgers": {transcript_id: {…}},      # usage.TranscriptUsage.to_json(): a row per API response
                                           # and running sums, resumed when the transcript grows
     "transcripts": {transcript_id: {      # "main" or the agent id
         # build.render_transcript's summary (what the overview and indexes show) …
         "id", "kind", "label", "agent_type", "description", "messages", "malformed", "counts",
         "usage", "title", "prompt", "cwd", "git_branch", "first_ts", "last_ts", "models", …,
         "size": 123,                      # bytes when it was read (with mtime_ns, inode: the stat)
         "offset": 120000, "lines": 812, "pending": 0,   # consumed bytes/lines, unfinished tail bytes
         "pages": [[no, first_line, first_offset], …],
         "carry_last": {…},                # model state at the last page's first line (model.new_carry)
         "hashes": {"1": "sha256 of page-0001.html", …},
         "agent_refs": {agent_id: [page_no, linked]},   # sub-agent links a page rendered (or could not)
         "agent_keys": [...],              # agent_calls keys this transcript contributes
         # … and what the next run compares against:
         "source": "<project>/<file>.jsonl",   # path under home/projects
         "mtime_ns": 1, "inode": 2,
         "head": "sha256", "head_len": 65536,  # hash of the first head_len (≤ 64 KiB) consumed bytes
         "parent_url": "…" | null,         # the back-link rendered on an agent's pages
         "meta": [agent_type, description]}}}

How the build uses it (build.py): a transcript whose size, mtime_ns and inode match is not opened;
one that grew with the same head is re-read from its last page's first byte with the saved carry;
anything else (smaller, same size but newer, other inode, other head, a closed page missing on
disk, a back-link or sub-agent link that would now render differently) is rebuilt from line 1.
Indexes are rendered from the saved summaries, so no other transcript is read.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import orjson

from ccreport import __version__
from ccreport.fs import atomic_write

FORMAT = 4  # 4: usage ledgers in the session file, search documents read back from the tail script
HEAD_BYTES = 64 * 1024
STATE_DIR = ".ccreport"


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
    if len(data) != length:
        return None
    return hashlib.sha256(data).hexdigest()


def page_hash(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


class State:
    """The state of one output folder, loaded once and kept in memory (watch reuses it)."""

    def __init__(self, out: Path):
        self.out = out
        self.dir = out / STATE_DIR
        self.head: dict = {}
        self.sessions: dict[tuple[str, str], dict] = {}  # (project dir, session id) → session state
        self._saved: dict[tuple[str, str], bytes] = {}  # what is on disk, to skip identical writes
        self._saved_head: bytes | None = None
        self.dirty: set[tuple[str, str]] = set()  # sessions whose state may differ from the file

    # --- loading -------------------------------------------------------------------------
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
        sdir = st.dir / "sessions"
        try:
            projects = os.listdir(sdir)
        except OSError:
            projects = []
        for pdir in projects:
            try:
                names = os.listdir(sdir / pdir)
            except OSError:
                continue
            for name in names:
                if not name.endswith(".json"):
                    continue
                try:
                    raw = (sdir / pdir / name).read_bytes()
                    data = orjson.loads(raw)
                except (OSError, orjson.JSONDecodeError):
                    continue  # unreadable: that session is simply rebuilt
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    key = (pdir, name[: -len(".json")])
                    st.sessions[key] = data
                    st._saved[key] = raw
        return st

    def compatible(self, opts, fingerprint: str) -> bool:
        """False when everything must be rebuilt (no state, other version, code or options)."""
        h = self.head
        return (h.get("format") == FORMAT and h.get("ccreport") == __version__
                and h.get("fingerprint") == fingerprint and h.get("options") == render_options(opts))

    # --- saving --------------------------------------------------------------------------
    def set_head(self, opts, fingerprint: str, titles: dict, title_sources: dict | None = None) -> None:
        self.head = {"format": FORMAT, "ccreport": __version__, "fingerprint": fingerprint,
                     "options": render_options(opts), "titles": titles, "title_sources": title_sources or {}}

    def _session_path(self, key: tuple[str, str]) -> Path:
        return self.dir / "sessions" / key[0] / f"{key[1]}.json"

    def save(self) -> None:
        """Write the session files that changed, drop those of vanished sessions, then the head
        (last: a crash in between leaves an older head, which only costs a rebuild)."""
        for key in self.dirty:
            data = self.sessions.get(key)
            if data is None:
                continue
            raw = orjson.dumps(data)
            if self._saved.get(key) != raw:
                atomic_write(self._session_path(key), raw)
                self._saved[key] = raw
        self.dirty.clear()
        for key in [k for k in self._saved if k not in self.sessions]:
            try:
                self._session_path(key).unlink()
            except OSError:
                pass
            try:
                self._session_path(key).parent.rmdir()
            except OSError:
                pass
            del self._saved[key]
        raw = orjson.dumps(self.head, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        if raw != self._saved_head:
            atomic_write(self.dir / "state.json", raw)
            self._saved_head = raw
