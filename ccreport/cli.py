"""The command line: parse options, call one function, report. No logic of its own."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import click

from . import __version__
from .home import HomeError, resolve_home

HOME_HELP = "Claude home (holds projects/). Default: $CLAUDE_HOME, else $CLAUDE_CONFIG_DIR, else ~/.claude."


def _fail(msg: str, code: int = 2):
    click.echo(f"ccreport: {msg}", err=True)
    sys.exit(code)


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
        self._ticker = None
        if self.enabled:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
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
        if self._ticker is not None:
            self._ticker.join()
        if self.shown:
            sys.stderr.write("\n")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccreport")
def cli():
    """Turn Claude Code transcripts into a fast, faithful, offline static site."""


@cli.command()
# readable=False: an unreadable home is reported by discovery in one line, not by click with a usage block.
@click.option("--home", type=click.Path(path_type=Path, readable=False), help=HOME_HELP)
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="Output folder of the site.")
@click.option("--page-size", type=click.IntRange(5, 10_000), default=50, show_default=True,
              help="Messages per transcript page.")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None,
              help="Worker processes (default: the CPU count).")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors.")
def build(home, out, page_size, jobs, quiet):
    """Build (or refresh) the offline HTML archive of a Claude home."""
    from .build import Options, build as run_build

    home = resolve_home(str(home) if home else None)
    opts = Options(page_size=page_size, jobs=jobs or os.cpu_count() or 1, quiet=quiet)
    progress = _Progress(not quiet)
    try:
        res = run_build(home, out, opts, progress=progress)
    except HomeError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write the site to {out}: {exc.strerror or exc}")
    progress.close()
    for err in res.errors:
        click.echo(f"ccreport: error: {err}", err=True)
    if not quiet:
        click.echo(res.summary_line(out), err=True)
    sys.exit(1 if res.errors else 0)


def main():
    cli(prog_name="ccreport")
