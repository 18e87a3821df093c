"""``ccreport serve``: the built site over HTTP (http.py), the transcript API (api.py) and, with
``--watch``, live pages: a Follower (follow.py) keeps the site current and tells the open pages
through events.Live. This module binds the port and runs both on background threads.
"""

from __future__ import annotations

import errno
import ipaddress
import threading
from pathlib import Path

from ccreport.live.events import Live
from ccreport.live.follow import Follower
from ccreport.live.http import SiteServer
from ccreport.model.pages import DEFAULT_PAGE_SIZE

PORT_TRIES = 20  # port in use → try the next ones, and say so


class PortError(Exception):
    pass


def is_loopback(host: str) -> bool:
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def make_server(site: Path, home: Path | None, host: str = "127.0.0.1", port: int = 8000, live: Live | None = None,
                page_size: int = DEFAULT_PAGE_SIZE, quiet: bool = True) -> SiteServer:
    """Bind ``port`` or one of the next PORT_TRIES - 1 (port 0: any free port). PortError when none is free."""
    last: OSError | None = None
    for p in ([port] if port == 0 else range(port, port + PORT_TRIES)):
        if p > 65535:
            break
        try:
            return SiteServer((host, p), site, home, live, page_size, quiet)
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise PortError(f"cannot listen on {host}:{p}: {exc.strerror or exc}") from None
            last = exc
    raise PortError(f"ports {port}–{port + PORT_TRIES - 1} on {host} are all in use "
                    f"({last.strerror if last else 'busy'}); pass a free one with --port")


class Running:
    """A server (and its follower, if live) on background threads: the CLI uses it, and the tests."""

    def __init__(self, server: SiteServer, follower: Follower | None = None):
        self.server = server
        self.follower = follower
        self.threads = [threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                         name="ccreport-http", daemon=True)]
        if follower is not None:
            self.threads.append(threading.Thread(target=self._follow, name="ccreport-follow", daemon=True))

    def _follow(self) -> None:
        try:
            self.follower.run()
        except Exception as exc:  # the server goes on with the last good site and says why
            self.follower.failed(f"the watcher stopped: {exc}")
            self.follower.ready.set()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def start(self) -> "Running":
        for t in self.threads:
            t.start()
        return self

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """True once the follower (if any) watches."""
        return self.follower.ready.wait(timeout) if self.follower is not None else True

    def stop(self) -> None:
        if self.follower is not None:
            self.follower.stop.set()
        if self.server.live:
            self.server.live.close()
        self.server.shutdown()
        self.server.server_close()
        for t in self.threads:
            t.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
