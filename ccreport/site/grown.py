"""The fast path of an append under watch (docs/live.md, "An append costs the append"): what a
long-running caller keeps of the last build (``Memo``), so that a build told which known transcripts
only grew (``Follow.grown``) does not discover the home, merge the archive, re-read the saved
sessions or the home files again. Everything else — a new file, a deleted one, a home file that
moved — goes the ordinary incremental way, which refreshes the memo.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from ccreport.site import leaftitles
from ccreport.site.extras import HomeExtras, load
from ccreport.site.keep import Kept, copy_later
from ccreport.source.archive import HISTORY
from ccreport.source.home import Catalog
from ccreport.source.store import Store

# The home files site.extras reads (history, todos, plans): their stats say when to read them again.
EXTRAS = (HISTORY, "todos", "plans")


@dataclass
class Memo:
    """What the last build learnt that an append does not change (kept in memory by live.follow)."""

    fingerprint: str | None = None  # of templates, assets and code: the running process's code
    catalog: Catalog | None = None  # the merged catalog (home + archive + saved sessions: site.keep)
    frozen: set = field(default_factory=set)  # site.keep.Kept.frozen of that build
    paths: dict = field(default_factory=dict)  # transcript path → [(key, Transcript)] of both catalogs
    titles: dict | None = None  # (project, session) → summary title (site.leaftitles)
    extras: HomeExtras | None = None
    extras_stamp: list | None = None  # the home files' stats when ``extras`` was read
    store: Store | None = None  # the source store, kept open between appends
    keys: list = field(default_factory=list)  # (project, session) of every session of ``catalog``

    def remember(self, home_catalog: Catalog | None, kept: Kept) -> None:
        """After a whole incremental build: its merged catalog, and where each transcript is. The
        store it wrote through another handle is opened again by the next append."""
        self.catalog, self.frozen, self.paths, self.store = kept.catalog, kept.frozen, {}, None
        self.keys = [(s.project.dir_name, s.id) for s in kept.catalog.sessions()]
        for cat in (home_catalog, kept.catalog):
            for s in cat.sessions() if cat is not None else ():
                for t in s.transcripts:  # (not those read from the store, nor of sessions kept as saved)
                    if t.store is None and (s.project.dir_name, s.id) not in kept.frozen:
                        self.paths.setdefault(str(t.path), []).append(((s.project.dir_name, s.id), t))

    def same_extras(self, home: Path) -> bool:
        """The home files (history, todos, plans) are as the memo's view read them: no session's
        home-file section, plan page or prompts-only session moved."""
        return self.extras is not None and _extras_stamp(home) == self.extras_stamp

    def grown(self, paths) -> set | None:
        """The sessions of ``paths`` (changed files) when each is a known transcript that only grew
        (same inode, not smaller): their catalog entries take the new stats. None: the whole way."""
        if self.catalog is None or not paths:
            return None
        found, news = set(), []
        for path in paths:
            held = self.paths.get(path)
            try:
                st = os.stat(path)
            except OSError:
                return None
            if not held or any(st.st_ino != t.inode or st.st_size < t.size for _, t in held):
                return None
            news.append((held, st))
        for held, st in news:
            for key, t in held:
                t.size, t.mtime_ns = st.st_size, st.st_mtime_ns
                found.add(key)
        return found


def extras(memo: Memo | None, home: Path, store: Path | None) -> HomeExtras:
    """The home files' view (site.extras), read; the memo keeps it with the stats it was read at."""
    if memo is None:
        return load(home, store)
    stamp = _extras_stamp(home)  # (before the read: a change meanwhile is seen next time)
    memo.extras, memo.extras_stamp = load(home, store), stamp
    return memo.extras


def _extras_stamp(home: Path) -> list:
    """history.jsonl's stat, and every todo and plan file's (their folders' stats say nothing of a
    file rewritten in place)."""
    out = []
    for name in EXTRAS:
        path = home / name
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append([name, st.st_size, st.st_mtime_ns, st.st_ino])
        if name != HISTORY:
            try:
                with os.scandir(path) as it:
                    out.append(sorted([e.name, e.stat().st_size, e.stat().st_mtime_ns, e.inode()] for e in it))
            except OSError:
                out.append(None)
    return out


def keep_grown(memo: Memo, root: Path | None, keys: set) -> Kept:
    """The fast path's side of the source store: the last build's merged catalog, and a copy of
    the grown sessions only (in a thread beside the rendering, as site.keep does)."""
    kept = Kept(memo.catalog, frozen=set(memo.frozen))
    if root is None:
        return kept
    if memo.store is None or memo.store.root != root:
        memo.store = Store(root)
    store = memo.store
    only = {pdir for pdir, _ in keys}
    part = replace(memo.catalog, projects=[replace(p, sessions={sid: s for sid, s in p.sessions.items()
                                                                if (p.dir_name, sid) in keys})
                                           for p in memo.catalog.projects if p.dir_name in only])
    copy_later(kept, store, part, only)
    return kept


def summary_titles(memo: Memo | None, catalog: Catalog, saved: dict, only: set | None) -> tuple[dict, dict]:
    """site.leaftitles.resolve, for the projects in ``only`` when the memo holds the others'."""
    if memo is None or only is None or memo.titles is None:
        titles, record = leaftitles.resolve(catalog, saved)
    else:
        part = replace(catalog, projects=[p for p in catalog.projects if p.dir_name in only])
        mine, changed = leaftitles.resolve(part, saved)
        titles = {k: v for k, v in memo.titles.items() if k[0] not in only} | mine
        record = dict(saved) | changed
    if memo is not None:
        memo.titles = titles
    return titles, record

