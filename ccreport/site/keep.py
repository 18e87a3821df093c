"""The build's side of the source store (docs/archive.md): copy what changed in the home into it, then
build from a catalog that still holds what the home lost. Sessions the store does not know either
(a site built with --no-store, or before the store existed) keep their pages and saved rows as they
are. Deleting is explicit only: Options.prune_missing, Options.forget.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ccreport.site.options import Options
from ccreport.site.state import State
from ccreport.source.archive import drop_session, home_files, merge, prune, site_store, sync
from ccreport.source.home import Catalog, Project, Session, Transcript
from ccreport.source.restore import due_for_cleanup, verify
from ccreport.source.store import Store, StoreFull
from ccreport.source.storeimport import upgrade


@dataclass
class Kept:
    catalog: Catalog  # the home's, plus what only the store or the saved state still has
    frozen: set = field(default_factory=set)  # keys known only from the saved state: never re-rendered
    errors: list = field(default_factory=list)
    cleanup: tuple = (0, None)  # restore.due_for_cleanup of the home
    copying: threading.Thread | None = None  # the copy into the store, beside the rendering (start_copy, finish)


def store_dir(out: Path, opts: Options) -> Path | None:
    if opts.no_store:
        return None
    return opts.store if opts.store is not None else site_store(out)


def keep_sources(catalog: Catalog, out: Path, opts: Options, state: State, only: set | None) -> Kept:
    """The catalog to build from; the copy of what changed in the home runs in a thread beside the
    rendering (compression and hashing release the GIL), started by ``start_copy`` and joined by
    ``finish`` before the state is saved. What the merge needs — the records of sessions the home
    lost — is not what it writes."""
    root = store_dir(out, opts)
    kept = Kept(catalog)
    if root is not None:
        store = Store(root)
        guarded(kept, store, lambda: upgrade(store))  # (a store written before the database)
        guarded(kept, store, lambda: _explicit(store, catalog, opts, kept))
        kept.catalog = merge(catalog, store)
        copy_later(kept, store, catalog, only)
    if not opts.prune_missing:
        _add_saved(kept, state, opts.forget)
    if only is None:
        kept.cleanup = due_for_cleanup(catalog)
    return kept


def _explicit(store: Store, catalog: Catalog, opts: Options, kept: Kept) -> None:
    """What the user asked the store to do (before the merge, which must see its result)."""
    if opts.prune_missing:
        prune(catalog, store)
    for pdir, sid in sorted(opts.forget):
        drop_session(store, f"{pdir}/{sid}")
    if opts.verify_store:
        kept.errors.extend(verify(store, catalog.home))
    store.save()


def guarded(kept: Kept, store: Store, work) -> None:
    try:
        work()
    except StoreFull as exc:
        kept.errors.append(f"{exc.strerror}: the store is left as the last build wrote it; "
                           "free some space and build again")
    kept.errors.extend(store.problems)
    store.problems.clear()


def copy_later(kept: Kept, store: Store, catalog: Catalog, only: set | None) -> None:
    """The copy of ``catalog``'s home files (of the projects in ``only`` when given) into ``store``,
    made ready as ``kept.copying``: a thread that ``start_copy`` starts beside the rendering."""
    kept.copying = threading.Thread(target=guarded, args=(kept, store, lambda: sync(catalog, store, only)),
                                    name="ccreport-store", daemon=True)


def start_copy(kept: Kept) -> None:
    """Start the copy into the store: once the build's worker processes are forked, which would
    otherwise each inherit (and count in their memory) the copy's buffers and compressor, ~15 MB a
    worker on a 300 MB home; a fork beside a running thread is unsafe besides."""
    if kept.copying is not None and kept.copying.ident is None:
        kept.copying.start()


def finish(kept: Kept) -> list[str]:
    """Wait for the copy into the store (started now if it was not: no session was rendered); its
    problems."""
    start_copy(kept)
    if kept.copying is not None:
        kept.copying.join()
        kept.copying = None
    return kept.errors


def _add_saved(kept: Kept, state: State, forget: frozenset) -> None:
    """Sessions of the saved state that neither the home nor the store has: kept as they are."""
    cat = kept.catalog
    present = home_files(cat)
    by_name = {p.dir_name: p for p in cat.projects}
    have = {(p.dir_name, sid) for p in cat.projects for sid in p.sessions}
    for key, old in sorted(state.sessions.items()):
        if key in have or key in forget or any(f"projects/{ts.source}" in present for ts in old.transcripts.values()):
            continue  # (a transcript of it is in the home under another session: moved, not gone)
        pdir, sid = key
        if pdir not in by_name:
            by_name[pdir] = Project(pdir, cat.home / "projects" / pdir)
        elif by_name[pdir] in cat.projects:
            by_name[pdir] = replace(by_name[pdir], sessions=dict(by_name[pdir].sessions))
        s = Session(sid, by_name[pdir])
        for tid, ts in old.transcripts.items():
            t = Transcript(tid, ts.summary.kind, cat.home / "projects" / (ts.source or ""), ts.summary.size,
                           ts.mtime_ns or 0, ts.inode or 0, ts.summary.agent_type, ts.summary.description)
            if tid == "main":
                s.main = t
            else:
                s.agents.append(t)
        if pdir not in cat.unlisted:
            s.gone = datetime.fromtimestamp((s.mtime_ns or 0) / 1e9, timezone.utc).strftime("%Y-%m-%d")
        by_name[pdir].sessions[sid] = s
        kept.frozen.add(key)
    kept.catalog = replace(cat, projects=[by_name[n] for n in sorted(by_name)])


def gone_keys(catalog: Catalog) -> dict:
    """"project/session" → the date last seen, of every session kept by the archive only."""
    return {f"{s.project.dir_name}/{s.id}": s.gone for s in catalog.sessions() if s.gone}
