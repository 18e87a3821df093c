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


# --- export ---
@cli.command()
@click.argument("session")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("-o", "--out", "out", default=None,
              help="Output file ('-' = stdout). Default: <session-id>.html for html, stdout for md.")
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
def export(session, home, out, fmt, agents, no_thinking, no_tools, redact, patterns, max_chars):
    """Export one SESSION (id, unique prefix, 'latest', or path to a .jsonl) to share it."""
    from .export import ExportError, ExportOptions
    from .export_run import run_export
    from .locate import LocateError
    from .redact import compile_patterns

    try:
        pats = compile_patterns(patterns)
    except ValueError as exc:
        _fail(str(exc))
    if fmt is None:
        fmt = "md" if out and out != "-" and out.lower().endswith((".md", ".markdown")) else "html"
    opts = ExportOptions(format=fmt, agents=agents, thinking=not no_thinking, tools=not no_tools, redact=redact,
                         patterns=pats, max_chars=max_chars)
    try:
        messages = run_export(resolve_home(str(home) if home else None), session, out, opts)
    except (HomeError, LocateError, ExportError) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write the export: {exc.strerror or exc}")
    for line in messages:
        click.echo(f"ccreport: {line}", err=True)


# --- list ---
@cli.command("list")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--project", default=None, metavar="TEXT", help="Only projects whose folder or cwd contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
def list_sessions(home, project, as_json):
    """List sessions, newest first: id, project, title, last activity, messages, size."""
    from .listing import format_table, list_rows, rows_json

    try:
        rows = list_rows(resolve_home(str(home) if home else None), project)
    except HomeError as exc:
        _fail(str(exc))
    click.echo(rows_json(rows) if as_json else format_table(rows))
