"""The command line: parse options, call one function, report. No logic of its own."""

from __future__ import annotations

import os
import sys
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
    """A progress bar on stderr, shown only once the build has taken more than a second."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int):
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.t0 < 1.0 or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        width = 30
        fill = int(width * done / max(total, 1))
        sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} sessions")
        sys.stderr.flush()
        self.shown = True

    def close(self):
        if self.shown:
            sys.stderr.write("\n")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccreport")
def cli():
    """Turn Claude Code transcripts into a fast, faithful, offline static site."""


@cli.command()
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
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


# --- stats ---
@cli.command()
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (per home, project, session, model and day).")
def stats(home, as_json):
    """Token usage and cost per project, model and day (the figures the site shows)."""
    from .stats import collect, render_json, render_text

    home = resolve_home(str(home) if home else None)
    try:
        data = collect(home)
    except HomeError as exc:
        _fail(str(exc))
    for problem in data["problems"]:
        click.echo(f"ccreport: warning: {problem}", err=True)
    click.echo(render_json(data) if as_json else render_text(data), nl=False)
