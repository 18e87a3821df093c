"""Where the templates and assets are, installed or in a source checkout, and the shared assets
written with content-hashed names (a changed stylesheet gets a new URL, so no stale cache)."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
from markupsafe import Markup

import ccreport
from ccreport.model.text import counted
from ccreport.render import markup

# The package's own folder, however deep this module sits in it.
_PKG = Path(ccreport.__file__).resolve().parent


def _find(name: str) -> Path:
    # In a wheel the folders are shipped inside the package; in a checkout they sit beside it.
    for candidate in (_PKG / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"ccreport's {name}/ folder is missing (broken installation?)")


def assets_dir() -> Path:
    return _find("assets")


class _CompiledTemplates(FileSystemBytecodeCache):
    """jinja's cache of compiled templates between processes, as Python keeps compiled modules:
    compiling them cost every build process ~70 ms (a tenth of the real corpus's build, paid again
    by each worker). Its default folder (``_jinja2-cache-<uid>`` in the temporary folder) is made
    private to the user and refused otherwise; an entry is used only when its template's source and
    the Python version match. The cache is a help, never a failure: an entry that cannot be read or
    written means the template is compiled, as without it."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # (a torn or foreign file: pickle/marshal errors)
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:  # (a full or read-only temporary folder)
            pass


def _compiled_templates() -> FileSystemBytecodeCache | None:
    if os.environ.get("CCREPORT_TEMPLATE_CACHE", "").lower() == "off":
        return None
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):  # no private folder to be had: each process compiles
        return None


@lru_cache(maxsize=1)
def env() -> Environment:
    """One compiled template environment per process."""
    # finalize: a title or a name with a control character shows it as a symbol (markup.show_controls);
    # Markup is HTML made here (messages are checked by render_message, or page by page in
    # site.transcript.write_page; the export's body marker)
    # auto_reload off: templates are part of the code (its fingerprint), so none is looked at on
    # disk again; with it on, every page render stat()ed each template it extends or includes.
    e = Environment(loader=FileSystemLoader(str(_find("templates"))), autoescape=True, auto_reload=False,
                    undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, finalize=shown,
                    bytecode_cache=_compiled_templates())
    e.filters["counted"] = counted  # {{ n|counted("session") }}: "1 session", "3 sessions"
    return e


def shown(value):
    """A template value as the templates print it, before autoescaping (their finalize)."""
    return markup.show_controls(value) if isinstance(value, str) and not isinstance(value, Markup) else value


@lru_cache(maxsize=1)
def asset_files() -> dict[str, bytes]:
    """name → bytes of every shared asset (the pygments rules are appended to style.css)."""
    files = {}
    for p in sorted(assets_dir().rglob("*")):
        if p.is_file():
            files[p.relative_to(assets_dir()).as_posix()] = p.read_bytes()
    if "style.css" in files:
        files["style.css"] += b"\n/* pygments */\n" + markup.stylesheet().encode()
    return files


@lru_cache(maxsize=1)
def asset_names() -> dict[str, str]:
    """name → site-relative hashed URL ("assets/style.3f2a1b9c.css")."""
    names = {}
    for name, data in asset_files().items():
        stem, dot, ext = name.rpartition(".")
        digest = hashlib.sha256(data).hexdigest()[:10]
        names[name] = f"assets/{stem}.{digest}.{ext}" if dot else f"assets/{name}.{digest}"
    return names


def fingerprint() -> str:
    """A hash of templates, assets and the renderer's code: any change means rebuild all."""
    h = hashlib.sha256()
    for p in sorted(_find("templates").rglob("*")):
        if p.is_file():
            h.update(p.name.encode() + p.read_bytes())
    for name, data in sorted(asset_files().items()):
        h.update(name.encode() + data)
    for p in sorted(_PKG.rglob("*.py")):  # every stage package, not only the top folder
        h.update(p.relative_to(_PKG).as_posix().encode() + p.read_bytes())
    return h.hexdigest()[:16]
