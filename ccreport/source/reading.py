"""Reading a transcript or a session's file wherever it is: in the home, or in the source store
when the home lost it (Transcript.store / Session.store are set by source.archive.merge)."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Iterator

from ccreport.source.home import Session, Transcript, contained, peek_field
from ccreport.source.jsonl import READ_BUFFER, Entry, Reader
from ccreport.source.store import Store
from ccreport.source.store import exists as store_exists


def open_transcript(t: Transcript) -> BinaryIO:
    """A binary stream of the transcript's bytes (seekable; from the store frame by frame)."""
    if t.store is None:
        return open(t.path, "rb", buffering=READ_BUFFER)
    return Store(Path(t.store)).open(t.store_key)


def read_transcript(t: Transcript, offset: int = 0, line: int = 1) -> Iterator[Entry]:
    with open_transcript(t) as fh:
        yield from Reader(fh, offset, line)


def peek(t: Transcript, key: str, limit: int = 64 * 1024) -> str | None:
    """peek_field, for a transcript the home may have lost."""
    if t.store is None:
        return peek_field(t.path, key, limit)
    try:
        with open_transcript(t) as fh:
            for e in Reader(fh):
                if isinstance(e.obj, dict) and isinstance(e.obj.get(key), str) and e.obj[key]:
                    return e.obj[key]
                if e.end >= limit:
                    break
    except OSError:
        return None
    return None


def read_session_file(s: Session, path: Path, limit: int | None = None) -> bytes:
    """A file of the session's folder (a tool result, a Workflow journal): from the home, else from
    the store. ``limit``: at most that many bytes are read."""
    try:
        with open(path, "rb") as fh:
            return fh.read(-1 if limit is None else limit)
    except FileNotFoundError:
        if s.store is None:
            raise
    home = s.project.home
    with Store(Path(s.store)).open(path.relative_to(home).as_posix()) as fh:
        return fh.read(-1 if limit is None else limit)


def read_home_file(home: Path, store: Path | None, relpath: str) -> bytes:
    """A file of the home by its path under it ("history.jsonl", "plans/x.md",
    "teams/t/config.json", …): the home's copy when it has one, else the store's (FileNotFoundError
    when neither has it). For the views of what the store keeps beside the transcripts."""
    path = home / relpath
    if contained(path, home):
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
    if store is None or not store_exists(store):
        raise FileNotFoundError(2, f"not in the home: {relpath}")
    return Store(store).read_bytes(relpath)


def kept_home_files(home: Path, store: Path | None, prefix: str = "") -> list[str]:
    """The home paths under ``prefix`` (e.g. "plans/") the home or the store has, sorted."""
    found = set(Store(store).names(prefix)) if store is not None and store_exists(store) else set()
    base = home / prefix if prefix else home
    if base.is_dir() and contained(base, home):
        found.update(p.relative_to(home).as_posix() for p in base.rglob("*") if p.is_file() and not p.is_symlink())
    return sorted(r for r in found if r.startswith(prefix))
