"""Driving `ccreport mcp` the way an agent does: the mcp SDK's own stdio client and ClientSession,
spawning `python -m ccreport mcp …` and calling its tools, one server for a list of calls."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from urllib.parse import unquote

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOOLS = {"list_sessions", "session_transcript", "session_outline", "search"}


@dataclass
class Reply:
    """One tool call's result as the client got it."""

    error: bool
    text: str

    @property
    def data(self) -> dict:
        assert not self.error, self.text
        return json.loads(self.text)


def exchange(home: Path, site: Path, calls: list[tuple[str, dict]], *flags: str) -> tuple[set, list[Reply]]:
    """(the tool names the server lists, a Reply per call), from one server started with ``flags``."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "ccreport", "mcp", "--home", str(home), "--site", str(site), *flags])

    async def run():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            replies = []
            for name, args in calls:
                res = await session.call_tool(name, args)
                replies.append(Reply(bool(res.is_error), "".join(c.text for c in res.content if c.type == "text")))
            return names, replies

    return anyio.run(run)


def resolves(site: Path, url: str) -> bool:
    """A result's site URL opens a page of the built site that holds its anchor."""
    path, _, anchor = url.partition("#")
    page = site / unquote(path)
    return page.is_file() and (not anchor or f'id="{anchor}"' in page.read_text(encoding="utf-8"))
