"""Commands that write a site: build, serve, watch."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import click

from ccreport.source.home import resolve_home
from ccreport.cli.base import HOME_HELP, _Progress, _errors, _fail, _lock_site, _one_writer, _page_size, _report, _store_options, cli, default_site


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
    _empty_note(res, home)
    sys.exit(1 if res.errors else 0)


def _empty_note(res, home: Path) -> None:
    """A home without a single session builds an empty site (a start for a new machine), but the
    likelier cause is the wrong folder: said even with --quiet. The exit status stays 0: the build
    did what it was asked."""
    if res.sessions == 0:
        click.echo(f"ccreport: no sessions found in {home / 'projects'} — is this the Claude home? Give it with --home "
                   f"(or CLAUDE_HOME); the site built is empty", err=True)


def _cleanup_note(res, no_store: bool) -> None:
    """Once per build: what Claude Code's own cleanup is about to delete (docs/archive.md)."""
    due, days = res.cleanup
    if due:
        keeps = ("build without --no-store to keep them" if no_store
                 else "the archive keeps them (run `ccreport build` regularly: docs/archive.md)")
        click.echo(f"ccreport: Claude Code will delete {due} session{'s' if due != 1 else ''} of this home within "
                   f"7 days (cleanupPeriodDays = {days:g}); {keeps}", err=True)


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
