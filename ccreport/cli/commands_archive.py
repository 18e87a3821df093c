"""Commands of the archive: restore and forget."""

from __future__ import annotations

from pathlib import Path

import click

from ccreport.model.text import counted
from ccreport.source.home import resolve_home
from ccreport.cli.base import HOME_HELP, _errors, _fail, _one_writer, _page_size, _report, _store_of, cli


@cli.command()
@click.argument("session")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--to", "to", type=click.Path(path_type=Path), default=None,
              help="Write into this Claude home instead (default: --home).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site whose archive holds the session.")
@click.option("--store", type=click.Path(path_type=Path), default=None, help="The archive folder (default: OUT/.ccreport).")
@click.option("--generation", type=click.IntRange(1), default=None,
              help="Write version N of each file (1 = the oldest; `list --generations SESSION` lists them); "
                   "default: the newest.")
def restore(session, home, to, out, store, generation):
    """Write a session's files back from the archive, byte-exact (claude --resume works again)."""
    from ccreport.source.restore import RestoreError, restore as run_restore

    dest = to if to is not None else resolve_home(str(home) if home else None)
    root = _store_of(out, store, writes=True)
    try:
        with _one_writer(out, "restore", store), _errors(f"cannot write into {dest}", 1):
            res = run_restore(_opened(root), session, dest, generation)
    except RestoreError as exc:
        _fail(str(exc), 1)
    for path in res.written:
        click.echo(f"restored {path}")
    click.echo(f"ccreport: {counted(len(res.written), 'file')} written, {len(res.same)} already there and identical", err=True)


@cli.command()
@click.argument("session")
@click.option("--home", type=click.Path(path_type=Path), help=HOME_HELP)
@click.option("--out", type=click.Path(path_type=Path), default=Path("ccreport-site"), show_default=True,
              help="The site to forget it from (its pages go too).")
@click.option("--store", type=click.Path(path_type=Path), default=None, help="The archive folder (default: OUT/.ccreport).")
@_page_size
def forget(session, home, out, store, page_size):
    """Delete a session the home no longer has from the archive: its archived files and its pages."""
    from ccreport.site.build import Options, build as run_build
    from ccreport.source.home import discover
    from ccreport.source.restore import RestoreError, forget as run_forget

    home = resolve_home(str(home) if home else None)
    root = _store_of(out, store, writes=True)
    with _errors():
        catalog = discover(home)
    # One writer: a running `serve --watch` or build of this site (or of another site on the same
    # store) would otherwise write the store and the pages while they are being forgotten.
    with _one_writer(out, "forget", store):
        try:
            keys = run_forget(_opened(root), session, catalog)
        except RestoreError as exc:
            _fail(str(exc), 1)
        with _errors(f"cannot write the site to {out}"):
            res = run_build(home, out, Options(page_size=page_size, jobs=1, store=store, forget=frozenset(keys)))
    _report(res, out, False)
    click.echo(f"ccreport: forgot {', '.join(sid for _, sid in keys)} ({counted(len(res.deleted), 'page')} deleted)", err=True)


def _opened(root: Path):
    """The store at ``root``, a store written before the database imported into it first (under the
    site's lock: only writers import)."""
    from ccreport.source.store import Store
    from ccreport.source.storeimport import upgrade

    store = Store(root)
    upgrade(store)
    for problem in store.problems:
        click.echo(f"ccreport: {problem}", err=True)
    return store
