"""Names from the file system that ccreport cannot carry: a file or folder name that is not UTF-8
arrives from ``os.listdir`` with surrogates (PEP 383), which no JSON, URL or page can hold. Such an
entry is skipped where it is listed, with one line on stderr that shows its name escaped, so the rest
of the home is built and archived (issue 29, point 4). Every other odd name (quotes, controls, bidi
marks, ':' or '%') is valid text: kept, and escaped where it is shown."""

from __future__ import annotations

import os


def not_utf8(name: str | os.PathLike) -> bool:
    """True when ``name`` (a name or a path) holds bytes that are not UTF-8."""
    try:
        os.fspath(name).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def shown(path: str | os.PathLike) -> str:
    """``path`` as printable text: its bytes that are not UTF-8 as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def skipped(path: str | os.PathLike) -> str:
    """The problem line for an entry skipped for its name."""
    return f"{shown(path)}: the name is not UTF-8, skipped"


def unreported(reported: list[str], more: list[str]) -> list[str]:
    """The problem lines of ``more`` about an entry not reported yet: discovery and the copy into the
    store list some folders both (a sub-agent whose name is not UTF-8), and each entry is told once.
    A line about a folder that holds an entry already reported is left out too."""
    paths = {r.split(": ", 1)[0] for r in reported}

    def told(line: str) -> bool:
        path = line.split(": ", 1)[0]
        return path in paths or any(p.startswith(path + "/") for p in paths)

    return [m for m in more if not told(m)]


def quoted(value: str) -> str:
    """``value`` quoted as repr() does, its bytes that are not UTF-8 (a command-line argument's) as
    ``\\xNN``, as they were typed, rather than as the surrogates Python holds them in (``\\udcff``)."""
    if not not_utf8(value):
        return repr(value)
    return repr(shown(value)).replace("\\\\x", "\\x")
