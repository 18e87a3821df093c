"""Large tool outputs Claude Code saved under ``<session>/tool-results/`` (docs/formats.md F3).

A ``<persisted-output>`` note names the file; the first time a page refers to one, it is copied
next to the session's pages so the link works offline. Only plain file names inside the session's
own tool-results folder are accepted: the name comes from transcript text (untrusted). The copy
is named so that no browser runs it (layout.inert_copy_name: ``.txt``), and ``serve`` sends anything
under a ``tool-results`` folder as text/plain with a sandboxing CSP (live/serve.py).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ccreport.layout import inert_copy_name, url_name
from ccreport.source.home import contained

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def copier(src: Path | None, dest_rel: str, dest_url: str, writer, read=Path.read_bytes):
    """A function name → site-relative URL of the copy (None when the file is not there);
    ``dest_rel`` is the folder of the copies, ``dest_url`` its URL (layout.tool_results_url).
    ``read``: how a file is read (source.reading.read_session_file: from the store when gone)."""
    if src is None:
        return None

    @functools.cache
    def copy(name: str) -> str | None:
        f = src / name
        if not (_NAME.fullmatch(name) and contained(f, src)):
            return None
        try:
            writer.write(f"{dest_rel}/{inert_copy_name(name)}", read(f))  # (a folder raises IsADirectoryError)
        except OSError:
            return None
        return f"{dest_url}/{url_name(inert_copy_name(name))}"

    return copy
