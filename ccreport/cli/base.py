"""What every command shares: the click group, the home and page-size options, one-line failures,
the site's lock, the progress bar."""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import click

from ccreport import __version__
from ccreport.source.home import HomeError, resolve_home

HOME_HELP = "Claude home (holds projects/). Default: $CLAUDE_HOME, else $CLAUDE_CONFIG_DIR, else ~/.claude."
_page_size = click.option("--page-size", type=click.IntRange(5, 10_000), default=50, show_default=True,
                          help="Messages per transcript page.")


def printable(text: str) -> str:
    """A line from a home (a name in an error) safe for the terminal: inspect/terminal.py."""
    if text.isprintable():
        return text
    from ccreport.inspect.terminal import printable as shown

    return shown(text)


def _report(res, out: Path, quiet: bool) -> None:
    """The first build's errors, then its summary line unless quiet."""
    for err in res.errors:
        click.echo(f"ccreport: error: {printable(err)}", err=True)
    if not quiet:
        click.echo(res.summary_line(out), err=True)


def _fail(msg: str, code: int = 2):
    click.echo(f"ccreport: {printable(msg)}", err=True)
    sys.exit(code)


@contextmanager
def _errors(cannot: str | None = None, code: int = 2):
    """A home that cannot be used (or, given ``cannot``, a file): one line, no traceback."""
    try:
        yield
    except HomeError as exc:
        _fail(str(exc))
    except OSError as exc:
        if cannot is None:
            raise
        _fail(f"{cannot}: {exc.strerror or exc}", code)


LIST_HINT = "run `ccreport list` to see the sessions"


def _no_session(exc) -> None:
    """An unknown, ambiguous or malformed SESSION: a usage error (exit 2) that says where ids are."""
    _fail(f"{exc} ({LIST_HINT})")


class _SessionCommand(click.Command):
    """A command that takes SESSION: its usage errors (exit 2) also say where the ids are."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            exc.message += f"\n({LIST_HINT}; SESSION is an id, a unique id prefix or 'latest')"
            raise


def default_site() -> Path:
    """Where `serve` builds when not told: the user's cache folder, never the current one."""
    cache = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(cache) if Path(cache).is_absolute() else Path.home() / ".cache") / "ccreport" / "site"


def _lock_site(out: Path, command: str, store: Path | None = None):
    """The site's lock (site/lock.py), and an outside store's too, held: another writer still at
    work after a short wait → exit 2, naming it."""
    from ccreport.site.lock import SiteLock, SiteLocked, StoreLock
    from ccreport.source.archive import site_store

    name = f"ccreport {command} " + " ".join(sys.argv[2:])[:200]

    def say(msg: str) -> None:
        click.echo(f"ccreport: {msg}", err=True)

    if store is not None and os.path.abspath(store) == os.path.abspath(site_store(out)):
        store = None  # (the site's own folder, given by name: its lock is the site's)
    locks = [SiteLock(out, name, on_wait=say)] + ([StoreLock(store, name, on_wait=say)] if store is not None else [])
    for n, lock in enumerate(locks):
        try:
            lock.acquire()
        except (SiteLocked, OSError) as exc:
            for held in locks[:n]:
                held.release()
            if isinstance(exc, SiteLocked):
                _fail(str(exc))
            _fail(f"cannot write {'the site to ' if n == 0 else ''}{lock.what}: {exc.strerror or exc}")
    return _Held(locks)


class _Held:
    """Locks taken in order, let go in the reverse order."""

    def __init__(self, locks: list):
        self.locks = locks

    def release(self) -> None:
        for lock in reversed(self.locks):
            lock.release()


@contextmanager
def _one_writer(out: Path, command: str, store: Path | None = None):
    lock = _lock_site(out, command, store)
    try:
        yield
    finally:
        lock.release()


class _Progress:
    """A progress bar on stderr (a terminal only), shown once the build has taken more than a second.

    Sessions report when they finish; a small ticker thread redraws the bar meanwhile, so it also
    appears (with the time spent) while one big session is still being built.
    """

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.state: tuple[int, int] | None = None  # (done, total) as last reported by the build
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True)
        if self.enabled:
            self._ticker.start()

    def _tick(self):
        while not self._stop.wait(0.5):
            if self.state is not None:
                self._draw(*self.state, force=True)

    def __call__(self, done: int, total: int):
        self.state = (done, total)
        if self.enabled:
            self._draw(done, total)

    def _draw(self, done: int, total: int, force: bool = False):
        with self._lock:
            if self._stop.is_set():
                return
            now = time.monotonic()
            if now - self.t0 < 1.0 or (not force and now - self.last < 0.1 and done < total):
                return
            self.last = now
            width = 30
            fill = int(width * done / max(total, 1))
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} sessions · {now - self.t0:.0f} s")
            sys.stderr.flush()
            self.shown = True

    def close(self):
        with self._lock:
            self._stop.set()
        if self.enabled:
            self._ticker.join()
        if self.shown:
            sys.stderr.write("\n")


def _store_options(f):
    f = click.option("--no-store", is_flag=True, help="Keep no archive of the home's files (pages of sessions "
                     "the home loses stay, but cannot be rendered again).")(f)
    return click.option("--store", type=click.Path(path_type=Path), default=None,
                        help="Folder of the archive of the home's files (its database). Default: OUT/.ccreport.")(f)


def _site_option(f):
    """--site: whose archive a read takes the sessions the home lost from (no site or no archive
    there: the home alone, as without the option)."""
    return click.option("--site", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
                        help="Also read the sessions the home lost from this site's archive (when it has one).")(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccreport")
def cli():
    """Turn Claude Code transcripts into a fast, faithful, offline static site."""


def _store_of(out: Path, store: Path | None, writes: bool = False) -> Path:
    """The store folder a command reads (``writes``: or imports, source.storeimport)."""
    from ccreport.source.archive import site_store
    from ccreport.source.store import exists
    from ccreport.source.storeimport import old_folders

    root = store if store is not None else site_store(out)
    if not exists(root):
        if not old_folders(root):
            _fail(f"no archive at {root} (build a site first, or give --store)")
        if not writes:
            _fail(f"the archive at {root} was written by an earlier ccreport: `ccreport build` imports it")
    return root
