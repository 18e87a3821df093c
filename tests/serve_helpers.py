"""Synthetic homes and a running server for the serve / API / tail / live tests."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.request
from pathlib import Path

from ccreport.live.events import Live
from ccreport.live.follow import Follower
from ccreport.live.serve import Running, make_server
from ccreport.site.build import Options, build
from util import assistant, make_home, tool_result, user, write_jsonl

PROJECT = "-home-u-proj"
SID = "11111111-aaaa-4bbb-8ccc-000000000001"
OTHER = "22222222-aaaa-4bbb-8ccc-000000000002"


def conversation(n_turns: int, sid: str = SID, start: int = 0) -> list[dict]:
    """n_turns × (user prompt, assistant reply): 2 × n_turns messages, one line each."""
    out = []
    for i in range(start, start + n_turns):
        ts = f"2025-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        out.append(user(f"u{i}", f"prompt number {i}", parent=f"a{i - 1}" if i else None, sid=sid, ts=ts))
        out.append(assistant(f"a{i}", [{"type": "text", "text": f"reply number {i}"}], parent=f"u{i}", sid=sid,
                             mid=f"msg_{i}", rid=f"req_{i}", ts=ts))
    return out


def make_live_home(root: Path, turns: int = 3) -> Path:
    """One project: session SID (main + a sub-agent + a compaction run) and session OTHER."""
    home = make_home(root, {PROJECT: {
        f"{SID}.jsonl": conversation(turns) + ["this line is not JSON"],
        f"{SID}/subagents/agent-a1b2c3.jsonl": [
            user("su1", "agent task", sid=SID, isSidechain=True),
            assistant("sa1", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
                      parent="su1", sid=SID, mid="msg_s1", isSidechain=True),
            tool_result("sr1", "toolu_1", "file.txt", parent="sa1", sid=SID, isSidechain=True),
        ],
        f"{SID}/subagents/agent-acompact-9f8e7d.jsonl": [user("cu1", "compact please", sid=SID)],
        f"{OTHER}.jsonl": conversation(1, sid=OTHER),
    }})
    meta = home / "projects" / PROJECT / SID / "subagents" / "agent-a1b2c3.meta.json"
    meta.write_text(json.dumps({"agentType": "code-reviewer", "description": "review the code"}))
    return home


def main_file(home: Path, sid: str = SID) -> Path:
    return home / "projects" / PROJECT / f"{sid}.jsonl"


def append(path: Path, entries) -> None:
    with open(path, "ab") as fh:
        for e in entries:
            fh.write((json.dumps(e) if isinstance(e, dict) else e).encode() + b"\n")
        fh.flush()


def page_url(page: int = 1, sid: str = SID) -> str:
    return f"p/{PROJECT}/{sid}/page-{page:04d}.html"


__all__ = ["PROJECT", "SID", "OTHER", "conversation", "make_live_home", "main_file", "append", "page_url", "write_jsonl",
           "watching"]


def watching(site: Path, home: Path, opts) -> Running:
    """What `serve --watch` runs (not started yet): the server, and a Follower telling its pages."""
    live = Live(site)
    return Running(make_server(site, home, port=0, live=live), Follower(home, site, opts, live))


def live_server(tmp_path: Path, turns: int = 3, page_size: int = 50) -> Running:
    """What `serve --watch` runs, started on a built live home (follow.Follower: render cache, early
    push, fragments); ``running.home`` and ``running.site`` say where."""
    home = make_live_home(tmp_path / "home", turns=turns)
    site = tmp_path / "site"
    opts = Options(page_size=page_size, jobs=1)
    build(home, site, opts)
    running = watching(site, home, opts).start()
    assert running.wait_ready()
    running.home, running.site = home, site
    return running


def request(running, path, method="GET"):
    host, port = running.server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request(method, path)  # path sent as it is: no client-side normalisation
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, dict(resp.getheaders()), body


def api(running, path):
    status, _, body = request(running, path)
    return status, json.loads(body)


class Stream:
    """A raw /__events reader (one event at a time, never waiting forever)."""

    def __init__(self, running):
        host, port = running.server.server_address[:2]
        self.sock = socket.create_connection((host, port), timeout=10)
        self.sock.sendall(f"GET /__events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        self.buf = self._until(b"\r\n\r\n")
        assert self.buf is not None and b"text/event-stream" in self.buf.partition(b"\r\n\r\n")[0]
        self.buf = self.buf.partition(b"\r\n\r\n")[2]

    def _until(self, sep, buf=b""):
        while sep not in buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            buf += chunk
        return buf

    def event(self):
        """The data of the next event (comments skipped), or None when the stream ended."""
        while True:
            buf = self._until(b"\n\n", self.buf)
            if buf is None:
                return None
            block, _, self.buf = buf.partition(b"\n\n")
            data = [ln[6:] for ln in block.split(b"\n") if ln.startswith(b"data: ")]
            if data:
                return json.loads(data[0])

    def close(self):
        self.sock.close()


def wait_for_text(page: str, needle: bytes, tries: int = 200) -> None:
    """Until ``page`` (a URL) holds ``needle``: a rebuild is served (its event may have gone to
    streams that left)."""
    for _ in range(tries):
        with urllib.request.urlopen(page, timeout=10) as resp:
            if needle in resp.read():
                return
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} never showed in {page}")
