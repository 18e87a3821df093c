"""``ccreport mcp``: the archive as Model Context Protocol tools over stdio (the ``mcp`` SDK's
MCPServer), read-only. Each tool runs one read of agent/reads.py, then:

- a read that names nothing (a bad or unknown id, a query the search cannot parse, a site without a
  search index) is a tool error with the reason (``ToolError``: the client gets ``isError`` and the
  message, never a traceback);
- the result is redacted (share.redact.Redactor, the export's: keys, tokens, passwords, home paths,
  the account's e-mail and ids) unless the server was started with ``--no-redact``;
- its JSON text is at most ``cap`` bytes (``byteCap`` in every result): a list that does not fit
  keeps what does (a transcript its newest entries) and says how many it left out, one item over a
  quarter of the cap has its long strings cut, and past that is replaced by a note.

Why these shapes and limits: docs/mcp.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import orjson
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ccreport import __version__
from ccreport.agent import reads
from ccreport.inspect.tail import ENTRY_CAP, shrink
from ccreport.share.redact import Redactor, learn_accounts
from ccreport.source.home import HomeError
from ccreport.source.locate import LocateError

CAP_DEFAULT = 256 * 1024
ITEM_SHARE = 4  # one list item may take at most cap / ITEM_SHARE bytes
STRING_KEEP = 2048  # characters an over-sized item's strings are cut to
HEAD_KEEP = 1024  # characters of an item still too big that are shown
REASON_KEEP = 600  # characters of a tool error's sentence (it may quote what the caller sent)
ROOM = 512  # bytes kept for the fields added after fitting (byteCap, redaction, omitted)
# Fields of ccreport's own that name a place rather than hold transcript text: not redacted, so
# ids and site URLs keep working (a home path inside them, as "-home-alice-x", is a folder's name).
KEEP = frozenset({"id", "sessionId", "agentId", "session", "projectDir", "url", "sessionUrl"})
READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
INSTRUCTIONS = ("Read-only access to the user's Claude Code sessions (ccreport's archive): list_sessions to "
                "find a session, session_outline for what each prompt led to, session_transcript for its "
                "last lines as written, search for words across every session (the site's search box).")


@dataclass(frozen=True)
class Served:
    """What the server reads and how: the archive, whether results are redacted, the byte cap."""

    archive: reads.Archive
    redact: bool = True
    cap: int = CAP_DEFAULT


def _item_fitted(item, share: int):
    """An item within ``share`` bytes of JSON: as it is, its long strings cut, else a note."""
    data = orjson.dumps(item)
    if len(data) <= share:
        return item, len(data)
    if isinstance(item, dict):
        item = shrink(item, STRING_KEEP)
        data = orjson.dumps(item)
        if len(data) <= share:
            return item, len(data)
    note = {"malformed": data[:HEAD_KEEP].decode("utf-8", "replace"),
            "cut": f"{len(data):,} bytes of JSON, more than a result's share ({share:,}): only its start is shown"}
    return note, len(orjson.dumps(note))


def fit(result: dict, key: str, cap: int, newest_last: bool = False) -> dict:
    """``result`` with its list ``key`` cut to what fits ``cap`` bytes of JSON: items from the start
    (``newest_last``: from the end, the newest lines of a transcript), each within a share of it."""
    items = result[key]
    used = len(orjson.dumps(dict(result, **{key: []}))) + ROOM
    kept = []
    for item in (reversed(items) if newest_last else items):
        item, size = _item_fitted(item, cap // ITEM_SHARE)
        if used + size + 1 > cap:
            break
        kept.append(item)
        used += size + 1
    result[key] = kept[::-1] if newest_last else kept
    if len(kept) < len(items):
        result["truncated"] = True
        result["omitted"] = result.get("omitted", 0) + len(items) - len(kept)
    if result.get("omitted"):
        result["omittedWhy"] = f"left out to keep this result within byteCap ({cap:,} bytes)"
    return result


def _redactor(result: dict, archive: reads.Archive) -> Redactor:
    r = Redactor()
    path = result.get("path")
    if result.get("archived"):  # the home lost it: its account values are learnt from the archive's copy
        learn_accounts(r, reads.transcript_of(archive, result["sessionId"], result.get("agentId")))
    elif isinstance(path, str) and os.path.isfile(path):  # the account's e-mail and ids, as the export learns them
        learn_accounts(r, Path(path))
    return r


def _path(r: Redactor, path):
    """A transcript's path: the home's own path redacted, the rest (projects/<folder>/<file>, the
    names projectDir and the site's URLs hold too) as it is."""
    head, sep, rest = path.rpartition("/projects/") if isinstance(path, str) else ("", "", path)
    return r.text(head) + sep + rest if sep else r.value(path)


def _redacted(r: Redactor, result: dict, key: str) -> dict:
    """Every string redacted but the KEEP fields of the result and of its list's items (entries of
    a transcript are the lines as written: redacted whole)."""
    def fields(d: dict) -> dict:
        return {k: v if k in KEEP else _path(r, v) if k == "path" else r.value(v) for k, v in d.items()}
    out = fields({k: v for k, v in result.items() if k != key})
    out[key] = [fields(x) if isinstance(x, dict) and key != "entries" else r.value(x) for x in result[key]]
    return out


def _reason(served: Served, exc: Exception) -> str:
    """A tool error's one sentence (redacted too: it may name the home's path)."""
    if isinstance(exc, LocateError):
        text = f"{exc} (list_sessions gives the session ids)"
    elif isinstance(exc, FileNotFoundError) and exc.strerror:
        text = exc.strerror  # (the reads' own: "… has no search index: run `ccreport build …` first")
    elif isinstance(exc, OSError):
        text = f"cannot read it: {exc.strerror or exc}"
    else:
        text = str(exc)
    text = text if len(text) <= REASON_KEEP else text[:REASON_KEEP] + f"… [{len(text) - REASON_KEEP:,} more characters]"
    return Redactor().text(text) if served.redact else text


def answer(served: Served, read, key: str, newest_last: bool = False) -> str:
    """Run one read and return its result as JSON text: redacted, within the cap; a ToolError with
    the reason for a read that names nothing or cannot be done."""
    try:
        result = read()
    except (LocateError, ValueError, HomeError, OSError) as exc:
        raise ToolError(_reason(served, exc)) from None
    note = "off (--no-redact)"
    if served.redact:
        r = _redactor(result, served.archive)
        result = _redacted(r, result, key)
        note = r.summary()
    result = fit(result, key, served.cap, newest_last)
    result["byteCap"] = served.cap
    result["redaction"] = note
    return orjson.dumps(result).decode()


def make_server(served: Served) -> MCPServer:
    a = served.archive

    def list_sessions(project: str | None = None, query: str | None = None, limit: int = 20) -> str:
        """Sessions newest first: id, title, project, start and last activity, prompts, cost in USD at
        list prices, and whether the home still has it (inHome: false = read from the archive).
        project: keep those whose project path contains it; query: whose title or id contains it."""
        return answer(served, lambda: reads.list_sessions(a, project, query, limit), "sessions")

    def session_transcript(session: str, tail: int = 200, agent: str | None = None) -> str:
        """The last `tail` lines of a session's transcript as written (path, totalLines,
        truncated, entries oldest to newest; a line that is not JSON comes back as {"malformed": …}).
        session: an id, a unique id prefix or 'latest'; agent: a sub-agent transcript id. tail=0:
        every line that fits the byte cap."""
        # tail reads lines for a budget of their bytes (each counted up to ENTRY_CAP); enough that,
        # an over-sized one cut to its share, they fill the cap (fit keeps the newest that do)
        budget = served.cap * ITEM_SHARE + ENTRY_CAP
        return answer(served, lambda: reads.session_transcript(a, session, tail, agent, budget),
                      "entries", newest_last=True)

    def session_outline(session: str) -> str:
        """What the session page's outline shows: each prompt of the session, what its turn did
        (tools by count, files changed, sub-agents, errors, cost, duration) and the first lines of
        its answer, with the URL of its place on the site (relative to the site's root); and the
        session's sub-agent transcripts (their ids are session_transcript's agent)."""
        return answer(served, lambda: reads.session_outline(a, session), "turns")

    def search(query: str, limit: int = 20) -> str:
        """The site's search box over every session: words (all must occur in a session), "exact
        phrases", and filters tool:NAME file:NAME project:TEXT session:ID-PREFIX after:YYYY-MM-DD
        before:YYYY-MM-DD kind:prompt|answer|thinking|tool. Hits best first: session, title,
        project, url (the message's anchor on the site), kind, snippet, time."""
        return answer(served, lambda: reads.search(a, query, limit), "hits")

    server = MCPServer("ccreport", instructions=INSTRUCTIONS, version=__version__)
    for tool in (list_sessions, session_transcript, session_outline, search):
        server.add_tool(tool, annotations=READ_ONLY, structured_output=False)
    return server


def serve(served: Served) -> None:
    """Serve on stdin/stdout until the client closes them. A home that cannot be read raises
    HomeError first (the command's one-line error), not on every call."""
    served.archive.catalog()
    make_server(served).run("stdio")
