"""Runs of lines with nothing to show one by one, folded into ONE counted message (issue 29 point 6):
a file of two million ``{}`` lines would otherwise be two million messages, 40,000 pages and a site
a hundred times its size. What is folded, by what the builder (model.messages) calls it:

* a run of lines without content — ``{}`` (an object with no field at all), blank lines, and lines
  that are not a JSON object — is one message: ``empty`` while it holds only the first two kinds,
  ``malformed_run`` once it holds a malformed line. A malformed line that comes after a message
  keeps its own message (the reason, the raw text) unless the ``MALFORMED_SHOWN`` messages before
  it are malformed ones too: then it begins a run. A run keeps its lines' text as in the file
  (``{}`` for an empty object), joined, up to ``RAW_KEEP`` characters;
* bookkeeping and context notes (kinds ``meta``, ``context``) already fold a run into one message;
  past ``FOLD_ROWS`` rows the further lines are counted in it (``Message.run``), not kept.

Nothing is dropped: every folded line is counted in its message (``run["count"]``, its last line,
its bytes, its reasons or types). A fold is one message for pagination, so a run never spreads over
pages; it depends only on the lines from the page's first one, so resuming at a page start
reproduces it (docs/model.md).
"""

from __future__ import annotations

from ccreport.source.jsonl import Entry

EMPTY = "empty"
MALFORMED_RUN = "malformed_run"
MALFORMED_SHOWN = 8  # malformed lines in a row shown each as its own message before a run folds them
RAW_KEEP = 64 * 1024  # characters of a run's text kept for display
FOLD_ROWS = 200  # rows a bookkeeping or context note lists; the lines past them are counted
NAMES_KEPT = 12  # distinct reasons (or line types) named in a fold's counts; the rest as "other"
NAME_KEEP = 80  # characters of one such name (a line's type is transcript text: any length)


def empty_line(e: Entry) -> bool:
    """``{}`` or a blank line: a line with nothing in it (the caller knows ``e.obj`` is falsy)."""
    return e.obj is not None or e.error == "blank line"


def new_run(e: Entry) -> dict:
    """The counts of a fold that starts at ``e`` (plain data: JSON-able, like the rest of a message)."""
    return {"count": 0, "first": e.line, "last": e.line, "bytes": 0, "names": {}, "raw": "", "raw_lines": 0}


def count(run: dict, e: Entry, name: str) -> None:
    """Count one more line in the fold, under ``name`` (its reason, or its type)."""
    run["count"] += 1
    run["last"] = e.line
    run["bytes"] += e.size
    names = run["names"]
    name = name[:NAME_KEEP]
    if name not in names and len(names) >= NAMES_KEPT:
        name = "other"
    names[name] = names.get(name, 0) + 1


def add(run: dict, e: Entry) -> None:
    """One more line without content in a run: counted by kind, its text kept while there is room."""
    if e.obj is not None:
        name, text = "{}", "{}"
    elif e.error == "blank line":
        name, text = "blank", e.raw or ""
    else:  # (a reason without its position: orjson says where in the line)
        name, text = (e.error or "?").split(": line ", 1)[0], e.raw or ""
    count(run, e, name)
    if len(run["raw"]) < RAW_KEEP:
        piece = ("\n" if run["raw_lines"] else "") + text
        run["raw"] += piece[: RAW_KEEP - len(run["raw"])]
        run["raw_lines"] += 1


def line_type(obj: dict) -> str:
    """A bookkeeping or context line by what it is: its attachment's type, else its own type."""
    att = obj.get("attachment")
    t = att.get("type") if isinstance(att, dict) else None
    if not isinstance(t, str):
        t = obj.get("type")
    return t if isinstance(t, str) else "?"
