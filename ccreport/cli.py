"""The command line: parse options, call one function, report. No logic of its own."""

from __future__ import annotations

import os
from contextlib import contextmanager
import sys
import threading
import time
from pathlib import Path

import click
import orjson

from ccreport import __version__
from ccreport.source.home import HomeError, resolve_home

HOME_HELP = "Claude home (holds projects/). Default: $CLAUDE_HOME, else $CLAUDE_CONFIG_DIR, else ~/.claude."
_page_size = click.option("--page-size", type=click.IntRange(5, 10_000), default=50, show_default=True,
                          help="Messages per transcript page.")


def _report(res, out: Path, quiet: bool) -> None:
    """The first build's errors, then its summary line unless quiet."""
    for err in res.errors:
        click.echo(f"ccreport: error: {err}", err=True)
    if not quiet:
        click.echo(res.summary_line(out), err=True)


def _fail(msg: str, code: int = 2):
    click.echo(f"ccreport: {msg}", err=True)
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

    name = f"ccreport {command} " + " ".join(sys.argv[2:])[:200]
    def say(msg: str) -> None:
        click.echo(f"ccreport: {msg}", err=True)

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
                        help="Folder of the archive of the home's files. Default: OUT/.ccreport/store.")(f)


def _site_option(f):
    """--site: whose archive a read takes the sessions the home lost from (no site or no archive
    there: the home alone, as without the option)."""
    return click.option("--site", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
                        help="Also read the sessions the home lost from this site's archive (when it has one).")(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccreport")
def cli():
    """Turn Claude Code transcripts into a fast, faithful, offline static site."""


@cli.command()
# readable=False: an unreadable home is reported by discovery in one line, not by click with a usage block.
@click.option("--home", type=click.Path(path_type=Path, readable=False), help=HOME_HELP)
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="Output folder of the site.")
@_page_size
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None,
              help="Worker processes (default: the CPU count).")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors.")
@_store_options
@click.option("--prune-missing", is_flag=True,
              help="Forget the sessions the home no longer has: their pages and their archived files.")
@click.option("--verify-store", is_flag=True,
              help="Read every archived file back; a corrupt one is copied again from the home.")
def build(home, out, page_size, jobs, quiet, store, no_store, prune_missing, verify_store):
    """Build (or refresh) the offline HTML archive of a Claude home."""
    from ccreport.site.build import Options, build as run_build

    home = resolve_home(str(home) if home else None)
    opts = Options(page_size=page_size, jobs=jobs or os.cpu_count() or 1, store=store, no_store=no_store,
                   prune_missing=prune_missing, verify_store=verify_store)
    progress = _Progress(not quiet)
    try:
        with _one_writer(out, "build", None if no_store else store), _errors(f"cannot write the site to {out}"):
            res = run_build(home, out, opts, progress=progress)
    except KeyboardInterrupt:
        progress.close()
        _fail("interrupted; the pages written so far are complete, the next build finishes the rest", 130)
    progress.close()
    _report(res, out, quiet)
    _cleanup_note(res, no_store)
    sys.exit(1 if res.errors else 0)


def _cleanup_note(res, no_store: bool) -> None:
    """Once per build: what Claude Code's own cleanup is about to delete (docs/archive.md)."""
    due, days = res.cleanup
    if due:
        keeps = ("build without --no-store to keep them" if no_store
                 else "the archive keeps them (run `ccreport build` regularly: docs/archive.md)")
        click.echo(f"ccreport: Claude Code will delete {due} session{'s' if due != 1 else ''} of this home within "
                   f"7 days (cleanupPeriodDays = {days:g}); {keeps}", err=True)


def main():
    cli(prog_name="ccreport")


@cli.command()
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder of the site (built first, then served). Default: $XDG_CACHE_HOME/ccreport/site, "
                   "else ~/.cache/ccreport/site.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback exposes your transcripts to the network.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port (the next free one is used if it is taken; 0 = any free port).")
@click.option("--watch", is_flag=True, help="Rebuild when transcripts change and update open pages live.")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a browser.")
@_page_size
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None, help="Worker processes for the first build.")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors.")
@click.option("--verbose", "-v", is_flag=True, help="Log every request on stderr.")
def serve(home, out, host, port, watch, open_browser, page_size, jobs, quiet, verbose):
    """Build the site, then serve it (and the transcript API) over HTTP."""
    from ccreport.site.build import Options, build as run_build
    from ccreport.live.events import Live
    from ccreport.live.follow import Follower
    from ccreport.live.serve import PortError, Running, is_loopback, make_server

    home = resolve_home(str(home) if home else None)
    out = out or default_site()
    opts = Options(page_size=page_size, jobs=jobs or os.cpu_count() or 1)
    # Live, the follower writes the site as long as the server runs: the lock is held until then.
    lock = _lock_site(out, "serve")
    try:
        with _errors(f"cannot write the site to {out}"):
            res = run_build(home, out, opts)
    finally:
        if not watch:
            lock.release()
    _report(res, out, quiet)
    if not is_loopback(host):
        click.echo(f"ccreport: warning: listening on {host}, not loopback: anyone who can reach this address can "
                   "read every transcript, and transcripts may hold secrets (keys, tokens, file contents).", err=True)
    live = Live(out) if watch else None
    try:
        server = make_server(out, home, host, port, live, page_size=page_size, quiet=not verbose)
    except PortError as exc:
        _fail(str(exc))
    if port and server.server_address[1] != port:
        click.echo(f"ccreport: port {port} is in use; serving on port {server.server_address[1]} instead.", err=True)
    follower = Follower(home, out, Options(page_size=page_size, jobs=1), live,
                        log=lambda m: click.echo(f"ccreport: {m}", err=True)) if watch else None
    running = Running(server, follower)
    running.start()
    click.echo(f"ccreport: serving {out} at {running.url}" + (" (live: watching for changes)" if watch else "")
               + " · Ctrl-C to stop", err=True)
    if open_browser:
        import webbrowser

        threading.Thread(target=webbrowser.open, args=(running.url,), daemon=True).start()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        click.echo("ccreport: stopping", err=True)
    finally:
        running.stop()
        lock.release()


@cli.command(cls=_SessionCommand)
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.argument("session")
@click.option("-n", "lines", type=click.IntRange(0, None), default=200, show_default=True,
              help="How many of the last lines to show (0 = all).")
@click.option("--agent", default=None, help="A sub-agent transcript id of the session (default: the main one).")
@click.option("--json", "as_json", is_flag=True,
              help="Print seed-003's JSON shape instead of readable turns (with -f: then one JSON line per new entry).")
@click.option("-f", "--follow", is_flag=True, help="Keep printing lines as they are appended (Ctrl-C stops).")
@_site_option
def tail(home, session, lines, agent, as_json, follow, site):
    """The last lines of a session's transcript. SESSION: an id, a unique id prefix, or 'latest'."""
    from ccreport.source.archive import home_and_archive
    from ccreport.source.locate import LocateError
    from ccreport.inspect.tail import follow_lines, line_start, locate, readable, readable_entry, tail as run_tail

    home = resolve_home(str(home) if home else None)
    with _errors("cannot read the transcript", code=1):
        try:
            catalog = home_and_archive(home, site)
            _, t, path = locate(home, session, agent, catalog)
            # Where following starts is taken before the tail is read: a line written meanwhile shows
            # twice, never not. A transcript the home lost does not grow: nothing to follow.
            start = line_start(path) if follow and t.store is None else None
            result = run_tail(home, session, lines, agent, catalog=catalog)
        except LocateError as exc:
            _no_session(exc)
    click.echo(orjson.dumps(result).decode() if as_json else readable(result))
    if follow and result.get("archived"):
        click.echo("ccreport: the home lost this transcript (read from the archive): nothing to follow", err=True)
    if start is None:
        return
    offset, unfinished = start
    try:
        with _errors("cannot read the transcript", code=1):
            for line, entry in follow_lines(Path(result["path"]), offset, result["totalLines"] + (not unfinished)):
                click.echo(orjson.dumps(entry).decode() if as_json else readable_entry(line, entry))
    except KeyboardInterrupt:
        pass


@cli.command()
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="Output folder of the site.")
@_page_size
@click.option("--quiet", "-q", is_flag=True, help="Print only errors.")
def watch(home, out, page_size, quiet):
    """Keep the site current while sessions are written (Ctrl-C stops)."""
    from ccreport.site.build import Options
    from ccreport.live.follow import run_watch as run

    home = resolve_home(str(home) if home else None)
    with _one_writer(out, "watch"), _errors(f"cannot write the site to {out}"):
        code = run(home, out, Options(page_size=page_size, jobs=os.cpu_count() or 1), quiet=quiet)
    sys.exit(code)


@cli.command(cls=_SessionCommand)
@click.argument("session")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("-o", "--out", "out", default=None,
              help="Output file: .html or .md ('-' = stdout). Default: <session-id>.html for html, stdout for md.")
@click.option("--format", "fmt", type=click.Choice(["html", "md"]), default=None,
              help="html (one self-contained file) or md (GitHub Markdown). Default: from -o's suffix, else html.")
@click.option("--agents", type=click.Choice(["inline", "link", "none"]), default="inline", show_default=True,
              help="Sub-agent transcripts: appended to the document, written as files beside it, or left out.")
@click.option("--no-thinking", is_flag=True, help="Leave out thinking blocks.")
@click.option("--no-tools", is_flag=True, help="Leave out tool calls and their results.")
@click.option("--redact/--no-redact", default=True, show_default=True,
              help="Replace keys, tokens, passwords and home paths before rendering.")
@click.option("--redact-pattern", "patterns", multiple=True, metavar="REGEX",
              help="Also redact matches of this regular expression (repeatable).")
@click.option("--max-chars", type=click.IntRange(2_000, 10_000_000), default=65_000, show_default=True,
              help="md: split into numbered parts of at most this many characters (GitHub takes 65,536).")
@click.option("--summary", is_flag=True,
              help="md: one comment-sized summary (prompts, final answers, a line per tool call, files changed).")
@click.option("--gist", is_flag=True,
              help="Publish the export as a secret GitHub Gist with the GitHub CLI (gh) and print its URL.")
@click.option("--public", is_flag=True, help="With --gist: make the gist public (listed and searchable).")
@_site_option
def export(session, home, out, fmt, agents, no_thinking, no_tools, redact, patterns, max_chars, summary, gist, public,
           site):
    """Export one SESSION (id, unique prefix, 'latest', or path to a .jsonl) to share it."""
    from ccreport.share.export import ExportError, ExportOptions
    from ccreport.share.gist import export_gist
    from ccreport.share.run import run_export
    from ccreport.source.archive import home_and_archive
    from ccreport.source.locate import LocateError
    from ccreport.share.redact import compile_patterns

    try:
        pats = compile_patterns(patterns)
    except ValueError as exc:
        _fail(str(exc))
    if public and not gist:
        _fail("--public is for --gist (a gist is secret unless --public)")
    if gist and out is not None:
        _fail("--gist publishes the export: leave out -o (or export to a file without --gist)")
    fmt = _export_format(out, fmt, summary)
    opts = ExportOptions(format=fmt, agents=agents, thinking=not no_thinking, tools=not no_tools, redact=redact,
                         patterns=pats, max_chars=max_chars, summary=summary)
    with _errors("cannot write the export"):
        home = resolve_home(str(home) if home else None)
        try:
            catalog = home_and_archive(home, site)
            url, messages = (export_gist(home, session, opts, public, catalog) if gist
                             else (None, run_export(home, session, out, opts, catalog=catalog)))
        except LocateError as exc:
            _no_session(exc)
        except ExportError as exc:
            _fail(str(exc))
    for line in messages:
        click.echo(f"ccreport: {line}", err=True)
    if url:
        click.echo(url)


_FORMAT_OF = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}


def _export_format(out: str | None, fmt: str | None, summary: bool) -> str:
    """The format asked for, checked against -o's extension: a name that says .pdf is refused rather
    than quietly given HTML. A name without an extension takes --format (default html)."""
    suffix = Path(out).suffix.lower() if out and out != "-" else ""
    if suffix and suffix not in _FORMAT_OF:
        _fail(f"-o {out}: cannot write {suffix} files; export writes .html or .md (give --format with '-' for stdout)")
    want = fmt or _FORMAT_OF.get(suffix) or ("md" if summary else "html")
    if suffix and _FORMAT_OF[suffix] != want:
        _fail(f"-o {out} names a {_FORMAT_OF[suffix]} file but the format is {want}")
    if summary and want != "md":
        _fail("--summary writes Markdown: use --format md or an -o name ending in .md")
    return want


@cli.command("list")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--project", default=None, metavar="TEXT", help="Only projects whose folder or cwd contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
@click.option("--all", "-a", "show_empty", is_flag=True, help="Also list empty sessions (no prompt and no answer).")
@click.option("--generations", metavar="SESSION", default=None,
              help="List the versions the archive keeps of each file of SESSION instead (for restore --generation).")
@click.option("--site", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site whose archive is read: the sessions the home lost are listed too, marked "
                   "(when it has one); with --generations, the versions it keeps.")
@click.option("--store", type=click.Path(path_type=Path), default=None,
              help="With --generations: the archive folder (default: SITE/.ccreport/store).")
def list_sessions(home, project, as_json, show_empty, generations, site, store):
    """List sessions, newest first: id, project, title, last activity, messages, size."""
    if generations is not None:
        _list_generations(generations, _store_of(site, store), as_json)
        return
    from ccreport.inspect.listing import format_table, list_rows, rows_json

    with _errors():
        rows = list_rows(resolve_home(str(home) if home else None), project, site)
    shown = rows if show_empty else [r for r in rows if not r.empty]
    click.echo(rows_json(shown) if as_json else format_table(shown))
    if len(shown) < len(rows) and not as_json:
        click.echo(f"ccreport: {len(rows) - len(shown)} empty sessions not shown (--all lists them)", err=True)


def _list_generations(session: str, root: Path, as_json: bool) -> None:
    from ccreport.source.restore import RestoreError, generations
    from ccreport.source.store import Store

    try:
        files = generations(Store(root), session)
    except RestoreError as exc:
        _fail(str(exc), 1)
    if as_json:
        click.echo(orjson.dumps([{"file": f.relpath, "generations": [{"generation": n, "size": size, "seen": seen}
                                 for n, (size, seen) in enumerate(f.generations, 1)]} for f in files],
                                option=orjson.OPT_INDENT_2).decode())
        return
    for f in files:
        click.echo(f.relpath)
        for n, (size, seen) in enumerate(f.generations, 1):
            when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(seen))
            click.echo(f"  generation {n}: {size:,} bytes, last seen {when} UTC")


@cli.command()
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (per home, project, session, model and day).")
@_site_option
@click.option("--store", type=click.Path(path_type=Path, exists=True, file_okay=False), default=None,
              help="The archive folder to read instead of SITE/.ccreport/store.")
def stats(home, as_json, site, store):
    """Token usage and cost per project, model and day (the figures the site shows)."""
    from ccreport.inspect.stats import collect, render_json, render_text
    from ccreport.source.archive import site_store

    home = resolve_home(str(home) if home else None)
    with _errors():
        data = collect(home, store if store is not None else site_store(site))
    for problem in data["problems"]:
        click.echo(f"ccreport: warning: {problem}", err=True)
    click.echo(render_json(data) if as_json else render_text(data), nl=False)


def _store_of(out: Path, store: Path | None) -> Path:
    root = store if store is not None else out / ".ccreport" / "store"
    if not (root / "index.json").is_file():
        _fail(f"no archive at {root} (build a site first, or give --store)")
    return root


@cli.command()
@click.argument("session")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--to", "to", type=click.Path(path_type=Path), default=None,
              help="Write into this Claude home instead (default: --home).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site whose archive holds the session.")
@click.option("--store", type=click.Path(path_type=Path), default=None, help="The archive folder (default: OUT/.ccreport/store).")
@click.option("--generation", type=click.IntRange(1), default=None,
              help="Write version N of each file (1 = the oldest; `list --generations SESSION` lists them); "
                   "default: the newest.")
def restore(session, home, to, out, store, generation):
    """Write a session's files back from the archive, byte-exact (claude --resume works again)."""
    from ccreport.source.restore import RestoreError, restore as run_restore
    from ccreport.source.store import Store

    dest = to if to is not None else resolve_home(str(home) if home else None)
    root = _store_of(out, store)
    try:
        with _one_writer(out, "restore", store), _errors(f"cannot write into {dest}", 1):
            res = run_restore(Store(root), session, dest, generation)
    except RestoreError as exc:
        _fail(str(exc), 1)
    for path in res.written:
        click.echo(f"restored {path}")
    click.echo(f"ccreport: {len(res.written)} files written, {len(res.same)} already there and identical", err=True)


@cli.command()
@click.argument("session")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site to forget it from (its pages go too).")
@click.option("--store", type=click.Path(path_type=Path), default=None, help="The archive folder (default: OUT/.ccreport/store).")
@_page_size
def forget(session, home, out, store, page_size):
    """Delete a session the home no longer has from the archive: its archived files and its pages."""
    from ccreport.site.build import Options, build as run_build
    from ccreport.source.home import discover
    from ccreport.source.restore import RestoreError, forget as run_forget
    from ccreport.source.store import Store

    home = resolve_home(str(home) if home else None)
    root = _store_of(out, store)
    with _errors():
        catalog = discover(home)
    # One writer: a running `serve --watch` or build of this site (or of another site on the same
    # store) would otherwise write the store and the pages while they are being forgotten.
    with _one_writer(out, "forget", store):
        try:
            keys = run_forget(Store(root), session, catalog)
        except RestoreError as exc:
            _fail(str(exc), 1)
        with _errors(f"cannot write the site to {out}"):
            res = run_build(home, out, Options(page_size=page_size, jobs=1, store=store, forget=frozenset(keys)))
    _report(res, out, False)
    click.echo(f"ccreport: forgot {', '.join(sid for _, sid in keys)} ({len(res.deleted)} pages deleted)", err=True)


@cli.command()
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--site", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site whose archive (sessions the home lost) and search index are read.")
@_page_size
@click.option("--redact/--no-redact", default=True, show_default=True,
              help="Replace keys, tokens, passwords and home paths in every result (as export does).")
@click.option("--max-bytes", type=click.IntRange(16_384, 16 << 20), default=256 << 10, show_default=True,
              help="The most bytes of JSON one tool result may hold.")
def mcp(home, site, page_size, redact, max_bytes):
    """Serve the archive to an agent: a read-only MCP server on stdin/stdout (docs/mcp.md)."""
    from ccreport.agent.mcpserver import Served, serve
    from ccreport.agent.reads import Archive

    home = resolve_home(str(home) if home else None)
    with _errors():
        serve(Served(Archive(home, site.absolute(), page_size), redact=redact, cap=max_bytes))
