"""Commands that read a home (and a site's archive): tail, export, list, stats, mcp."""

from __future__ import annotations

import time
from pathlib import Path

import click
import orjson

from ccreport.source.home import resolve_home
from ccreport.cli.base import HOME_HELP, _site_option, _SessionCommand, _errors, _fail, _no_session, _page_size, _store_of, cli, printable


@cli.command(cls=_SessionCommand)
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.argument("session")
@click.option("-n", "lines", type=click.IntRange(0, None), default=200, show_default=True,
              help="How many of the last lines to show (0 = all).")
@click.option("--agent", default=None, help="A sub-agent transcript id of the session (default: the main one).")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON instead of readable turns: {sessionId, agentId, path, totalLines, truncated, entries} "
                   "with the entries oldest first (with -f: then one JSON line per new entry).")
@click.option("-f", "--follow", is_flag=True, help="Keep printing lines as they are appended (Ctrl-C stops).")
@_site_option
def tail(home, session, lines, agent, as_json, follow, site):
    """The last lines of a session's transcript. SESSION: an id, a unique id prefix, or 'latest'."""
    from ccreport.source.locate import LocateError
    from ccreport.inspect.tail import follow_lines, json_chunks, line_start, locate, readable_entry, readable_lines
    from ccreport.inspect.tail import stream_tail
    from ccreport.source.archive import home_and_archive

    home = resolve_home(str(home) if home else None)
    with _errors("cannot read the transcript", code=1):
        try:
            catalog = home_and_archive(home, site)
            _, t, path = locate(home, session, agent, catalog)
            # Where following starts is taken before the tail is read: a line written meanwhile shows
            # twice, never not. A transcript the home lost does not grow: nothing to follow.
            start = line_start(path) if follow and t.store is None else None
            head, shown, entries = stream_tail(home, session, lines, agent, as_json, catalog)
            # (printed as they are read again: the entries are never all held at once)
            for chunk in json_chunks(head, entries) if as_json else readable_lines(head, entries, shown):
                click.echo(chunk, nl=not as_json)
        except LocateError as exc:
            _no_session(exc)
    if as_json:
        click.echo()
    if follow and head.get("archived"):
        click.echo("ccreport: the home lost this transcript (read from the archive): nothing to follow", err=True)
    if start is None:
        return
    offset, unfinished = start
    try:
        with _errors("cannot read the transcript", code=1):
            for line, entry in follow_lines(Path(head["path"]), offset, head["totalLines"] + (not unfinished)):
                click.echo(orjson.dumps(entry).decode() if as_json else readable_entry(line, entry))
    except KeyboardInterrupt:
        pass


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
@click.option("--all", "-a", "show_empty", is_flag=True,
              help="Also list empty sessions (no prompt and no answer) and those of sub-agent warm-up runs only.")
@click.option("--generations", metavar="SESSION", default=None,
              help="List the versions the archive keeps of each file of SESSION instead (for restore --generation).")
@click.option("--site", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site whose archive is read: the sessions the home lost are listed too, marked "
                   "(when it has one); with --generations, the versions it keeps.")
@click.option("--store", type=click.Path(path_type=Path), default=None,
              help="With --generations: the archive folder (default: SITE/.ccreport).")
def list_sessions(home, project, as_json, show_empty, generations, site, store):
    """List sessions, newest first: id, project, title, last activity, messages, size."""
    if generations is not None:
        _list_generations(generations, _store_of(site, store), as_json)
        return
    from ccreport.inspect.listing import format_table, list_rows, rows_json

    with _errors():
        rows = list_rows(resolve_home(str(home) if home else None), project, site)
    shown = rows if show_empty else [r for r in rows if not r.empty and not r.warmup]
    click.echo(rows_json(shown) if as_json else format_table(shown))
    if len(shown) < len(rows) and not as_json:
        warm = sum(1 for r in rows if r.warmup and not r.empty)
        what = f"{len(rows) - len(shown) - warm} empty sessions" + (f" and {warm} of warm-up runs only" if warm else "")
        click.echo(f"ccreport: {what} not shown (--all lists them)", err=True)


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
              help="The archive folder to read instead of SITE/.ccreport.")
def stats(home, as_json, site, store):
    """Token usage and cost per project, model and day (the figures the site shows)."""
    from ccreport.inspect.stats import collect, render_json, render_text
    from ccreport.source.archive import site_store

    home = resolve_home(str(home) if home else None)
    with _errors():
        data = collect(home, store if store is not None else site_store(site))
    for problem in data["problems"]:
        click.echo(f"ccreport: warning: {printable(problem)}", err=True)
    click.echo(render_json(data) if as_json else render_text(data), nl=False)


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
