"""What of a home goes into the source store, and the sessions the store keeps that the home lost.

``sync`` copies every file ccreport reads (transcripts, sub-agent meta, tool results) and the home
files of agent work (history.jsonl, plans, todos, teams, tasks, file-history), and records each
session's transcripts; ``merge`` gives back a catalog where the sessions and transcripts the home no
longer has are read from the store (``Session.gone``: the date they were last seen). Deleting from
the store is explicit only (``prune``, ``forget``). The store itself: source/store.py.
"""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from ccreport.layout import STATE_DIR
from ccreport.source.home import Catalog, Project, Session, Transcript, agent_order, contained, custom_title, discover
from ccreport.source.names import not_utf8, skipped
from ccreport.source.store import Store
from ccreport.source.store import exists as store_exists

# Home files kept beside the transcripts (docs/formats.md F6): a folder and how deep its files lie.
HOME_FILES = (("plans", 1), ("todos", 1), ("teams", 3), ("tasks", 2), ("file-history", 2))
HISTORY = "history.jsonl"


def rel(home: Path, path: Path) -> str:
    return path.relative_to(home).as_posix()


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino) if stat_mod.S_ISREG(st.st_mode) else None


# <session>/subagents/workflows/wf_<id>/journal.jsonl: the deepest file Claude Code writes there
SESSION_DEPTH = 4


def _keep_file(store: Store, home: Path, path: Path, files: list | None = None) -> None:
    if not_utf8(path):  # (the store's records are JSON and its names text: they cannot hold such a name)
        store.problems.append(skipped(path))
        return
    st = _stat(path)  # regular files only: a symlink is never followed out of the home
    if st is not None and store.keep(rel(home, path), path, st) != "gone" and files is not None:
        files.append(rel(home, path))


def _keep_session(store: Store, home: Path, s: Session, today: str) -> None:
    key = f"{s.project.dir_name}/{s.id}"
    rec = store.index["sessions"].get(key) or {"transcripts": {}, "files": [], "tool_results": None}
    files = set(rec["files"])
    for t in s.transcripts:
        if t.store is not None:
            continue  # read from the store already
        r = rel(home, t.path)
        if store.keep(r, t.path, (t.size, t.mtime_ns, t.inode)) == "gone":
            continue
        rec["transcripts"][t.id] = [t.kind, r, t.layout, t.agent_type, t.description, t.tool_use_id,
                                    t.parent_agent_id, t.spawn_depth, t.workflow_run]
        files.add(r)
        if t.layout == "subagents":
            found: list = []
            _keep_file(store, home, t.path.with_name(f"agent-{t.id}.meta.json"), found)
            files.update(found)
    if s.tool_results_dir is not None and s.store is None:
        rec["tool_results"] = rel(home, s.tool_results_dir)
    folder = s.folder
    if s.store is None and folder.is_dir() and not folder.is_symlink():
        # Everything else of the session's folder too: custom-title.json, Workflow summaries,
        # scripts and journals, tool results — restore gives the folder back whole.
        files.update(_keep_tree(store, home, folder, SESSION_DEPTH))
    rec["files"] = sorted(files)
    rec["seen"] = today  # a day: the index is not rewritten by every build
    store.index["sessions"][key] = rec


def _keep_folder(store: Store, home: Path, folder: Path, write_once: bool = True) -> list[str]:
    """Every regular file of a folder, listed again only when the folder's mtime moved. In a folder
    of write-once files (tool results, file-history backups) that is all; elsewhere (journals that
    grow, summaries and titles rewritten in place, which leave the folder's mtime alone) each known
    file is kept again by its stat."""
    r = rel(home, folder)
    try:
        stamp = os.stat(folder).st_mtime_ns
    except OSError:
        return []
    dirs = store.index["dirs"]
    if r in dirs and dirs[r][0] == stamp and len(dirs[r]) > 2:
        if not write_once:
            for f in dirs[r][1]:
                _keep_file(store, home, home / f)
        return dirs[r][1]
    found: list = []
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        store.problems.append(f"{folder}: cannot list: {exc.strerror or exc}")
        return dirs.get(r, [None, []])[1]
    subdirs = []
    for name in names:
        if not_utf8(name):
            store.problems.append(skipped(folder / name))
        elif (folder / name).is_dir() and not (folder / name).is_symlink():
            subdirs.append(name)
        else:
            _keep_file(store, home, folder / name, found)
    dirs[r] = [stamp, found, subdirs]
    return found


def _keep_tree(store: Store, home: Path, folder: Path, depth: int) -> list[str]:
    """``_keep_folder`` of a session's folder and of its sub-folders ``depth`` levels down."""
    found = list(_keep_folder(store, home, folder, write_once=folder.name == "tool-results"))
    entry = store.index["dirs"].get(rel(home, folder))
    if depth > 1 and entry is not None and len(entry) > 2:
        for name in entry[2]:
            found += _keep_tree(store, home, folder / name, depth - 1)
    return found


def _keep_home_files(store: Store, home: Path) -> None:
    _keep_file(store, home, home / HISTORY)
    for top, depth in HOME_FILES:
        base = home / top
        if not base.is_dir() or base.is_symlink() or not contained(base, home):
            continue
        _walk(store, home, base, depth)


def _walk(store: Store, home: Path, folder: Path, depth: int) -> None:
    if folder.parent.name == "file-history":
        _keep_folder(store, home, folder)  # one backup folder per session, written once
        return
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        store.problems.append(f"{folder}: cannot list: {exc.strerror or exc}")
        return
    for e in entries:
        if not_utf8(e.name):
            store.problems.append(skipped(e.path))
        elif e.is_file(follow_symlinks=False):
            _keep_file(store, home, Path(e.path))
        elif depth > 1 and e.is_dir(follow_symlinks=False):
            _walk(store, home, Path(e.path), depth - 1)


def sync(catalog: Catalog, store: Store, only: set | None = None) -> None:
    """Copy into ``store`` what changed in the home (the projects in ``only`` when given, and the
    other home files on a whole build). Problems go to ``store.problems``; a full disk raises
    store.StoreFull after the entry being written is left as it was."""
    today = _today()
    for p in catalog.projects:
        if only is None or p.dir_name in only:
            for s in p.sessions.values():
                _keep_session(store, catalog.home, s, today)
    if only is None:
        _keep_home_files(store, catalog.home)
    store.save()


def _today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def _stored(store: Store, home: Path, tid: str, row: list) -> Transcript | None:
    kind, r, layout, agent_type, description, tool_use_id = row[:6]
    stat = store.files.get(r)
    if stat is None:
        return None
    # What the home's listing read of a sub-agent (meta.json, its folder) and the pages show; records
    # written before these were kept have six fields.
    parent, depth, run = (list(row[6:9]) + [None, None, None])[:3]
    return Transcript(tid, kind, home / r, stat[0], stat[1], stat[2], agent_type, description, tool_use_id,
                      layout, parent, depth, run, store=str(store.root), store_key=r)


def _merged_session(store: Store, catalog: Catalog, project: Project, sid: str, rec: dict,
                    present: set) -> Session | None:
    home = catalog.home
    have = project.sessions.get(sid)
    s = replace(have, agents=list(have.agents)) if have else Session(sid, project)
    s.store = str(store.root)
    known = {t.id for t in s.transcripts}
    for tid, row in sorted(rec["transcripts"].items()):
        # A file still in the home under another session (a legacy agent file that named its
        # session only once it grew) has moved, not gone.
        if tid in known or row[1] in present or (t := _stored(store, home, tid, row)) is None:
            continue
        if tid == "main":
            s.main = t
        else:
            s.agents.append(t)
    if not s.transcripts:
        return None
    s.agents.sort(key=agent_order)  # as discovery orders them
    if s.tool_results_dir is None and rec.get("tool_results"):
        s.tool_results_dir = home / rec["tool_results"]
    s.kept = tuple(rec["files"])
    if s.custom_title is None:
        s.custom_title = _kept_title(store, project, sid, s.kept)
    if have is None and project.dir_name not in catalog.unlisted:
        s.gone = rec.get("seen") or "an unknown date"
    return s


def _kept_title(store: Store, project: Project, sid: str, kept: tuple[str, ...]) -> str | None:
    """The /rename title of a session whose custom-title.json the home lost."""
    r = f"projects/{project.dir_name}/{sid}/custom-title.json"
    if r not in kept:
        return None
    try:
        return custom_title(store.read_bytes(r))
    except OSError as exc:  # a corrupt entry (StoreCorrupt): reported, the session keeps its other title
        store.problems.append(f"store entry {r}: {exc}")
        return None


def home_files(catalog: Catalog) -> set[str]:
    """The home paths (relative to the home) of every transcript the home has now."""
    return {rel(catalog.home, t.path) for s in catalog.sessions() for t in s.transcripts if t.store is None}


def merge(catalog: Catalog, store: Store) -> Catalog:
    """The catalog plus what only the store still has: whole sessions (``gone`` set, unless their
    project could not be listed this time) and single transcripts. ``catalog`` is not changed."""
    by_name = {p.dir_name: replace(p, sessions=dict(p.sessions)) for p in catalog.projects}
    present = home_files(catalog)
    for key, rec in store.index["sessions"].items():
        pdir, sid = key.split("/", 1)
        project = by_name.get(pdir) or Project(pdir, catalog.home / "projects" / pdir)
        s = _merged_session(store, catalog, project, sid, rec, present)
        if s is not None:
            project.sessions[sid] = s
            by_name[pdir] = project
    return replace(catalog, projects=[by_name[n] for n in sorted(by_name)])


def site_store(site: Path) -> Path:
    """Where a site keeps its archive (the default of build's --store): its own folder, so that the
    store shares the site's one database (source/database.py)."""
    return site / STATE_DIR


def with_archive(catalog: Catalog, store: Path | None) -> Catalog:
    """The home's catalog merged with the archive at ``store`` (``merge``); the catalog as it is when
    there is no archive there (no site, or one built with --no-store): the reads that take --site
    behave as with the home alone then, without an error."""
    if store is None or not store_exists(store):
        return catalog
    return merge(catalog, Store(store))


def home_and_archive(home: Path, site: Path | None) -> Catalog:
    """The home's sessions, plus those only ``site``'s archive still has (when it has one): what
    ``tail``, ``list``, ``export``, ``stats``, the API and the MCP reads take as their catalog."""
    return with_archive(discover(home), site_store(site) if site is not None else None)


def drop_session(store: Store, key: str) -> list[str]:
    """Remove a session's record, the listings of its folder and every entry of its files; returns
    their relpaths."""
    rec = store.index["sessions"].pop(key, None) or {"files": []}
    folder = f"projects/{key}"
    dirs = store.index["dirs"]
    for d in [d for d in dirs if d == folder or d.startswith(folder + "/")]:
        del dirs[d]
    for r in rec["files"]:
        store.drop(r)
    return rec["files"]


def prune(catalog: Catalog, store: Store) -> list[str]:
    """``build --prune-missing``: forget the sessions and transcripts the home no longer has (not
    those of a project that could not be listed). Returns the session keys dropped whole."""
    here = {(p.dir_name, sid): s for p in catalog.projects for sid, s in p.sessions.items()}
    dropped = []
    for key in list(store.index["sessions"]):
        pdir, sid = key.split("/", 1)
        if pdir in catalog.unlisted:
            continue
        s = here.get((pdir, sid))
        if s is None:
            drop_session(store, key)
            dropped.append(key)
            continue
        rec = store.index["sessions"][key]
        for tid in [tid for tid in rec["transcripts"] if tid not in {t.id for t in s.transcripts}]:
            r = rec["transcripts"].pop(tid)[1]
            store.drop(r)
            rec["files"] = [f for f in rec["files"] if f != r]
    store.save()
    return dropped
