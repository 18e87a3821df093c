"""The options of a build that change what is written (state.render_options lists those that
change the bytes of a page), and the build's result."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.model.pages import DEFAULT_PAGE_SIZE
from ccreport.model.text import counted


@dataclass
class Options:
    page_size: int = DEFAULT_PAGE_SIZE
    jobs: int = 1
    # The source store (docs/archive.md): its folder (default: out/.ccreport, the site's database), or none at all.
    store: Path | None = None
    no_store: bool = False
    prune_missing: bool = False  # forget the sessions the home lost, their pages with them
    forget: frozenset = frozenset()  # (project dir, session id) keys to forget (ccreport forget)
    verify_store: bool = False  # read every store entry back (a corrupt one is copied again from the home)
    # The search index (search/): CCREPORT_SEARCH=off builds without it, to measure what it costs
    # (benchmarks/search.py); a site built so has no search box results until a build with it.
    search: bool = field(default_factory=lambda: os.environ.get("CCREPORT_SEARCH", "").lower() != "off")


@dataclass
class BuildResult:
    projects: int = 0
    sessions: int = 0
    transcripts: int = 0
    pages: int = 0
    messages: int = 0
    malformed: int = 0
    seconds: float = 0.0
    written: list = field(default_factory=list)
    deleted: list = field(default_factory=list)  # pages of transcripts that are gone
    archived: int = 0  # sessions kept by the archive: their files are gone from the home
    prompts_only: int = 0  # sessions known from history.jsonl only (counted in ``sessions`` too)
    cleanup: tuple = (0, None)  # (sessions Claude Code deletes within 7 days, its cleanupPeriodDays)
    errors: list = field(default_factory=list)
    # Wall-clock stamps (time.time()) of the build's stages: "start", "sessions" (every session's
    # pages written), "end". serve --watch passes them on so a benchmark can split its latency.
    stamps: dict = field(default_factory=dict)

    def summary_line(self, out: Path) -> str:
        notes = ([f"{self.archived} kept by the archive, source removed"] if self.archived else []) + (
            [f"{counted(self.prompts_only, 'session')} with prompts only"] if self.prompts_only else [])
        kept = f" ({'; '.join(notes)})" if notes else ""
        counts = [counted(self.projects, "project"), counted(self.sessions, "session") + kept,
                  counted(self.transcripts, "transcript"), counted(self.pages, "page"), counted(self.messages, "message"),
                  counted(self.malformed, "malformed line")]
        return f"ccreport: {', '.join(counts)} in {self.seconds:.2f} s → {out / 'index.html'}"

    def count(self, info) -> None:
        """Add one session's row (state.SessionInfo) to the totals."""
        self.sessions += 1
        self.transcripts += info.transcripts
        self.pages += info.pages
        self.messages += info.messages
        self.malformed += info.malformed
