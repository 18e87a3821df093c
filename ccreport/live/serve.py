"""``ccreport serve``: the built site over HTTP, the transcript API (api.py) and, with ``--watch``,
live pages: a Follower (follow.py) keeps the site current and tells the open pages through
events.Live. Both run on background threads (Running). What is refused and why no request hangs:
docs/live.md.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import mimetypes
import os
import queue
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from ccreport.live import api
from ccreport.live.events import Live
from ccreport.live.guard import Policy, refusal
from ccreport.live.follow import Follower
from ccreport.model.pages import DEFAULT_PAGE_SIZE

HEARTBEAT_S = 15.0  # an idle event stream still sends a comment this often (proxies, dead peers)
SOCKET_TIMEOUT_S = 30.0  # a client that stops sending mid-request is dropped after this
PORT_TRIES = 20  # port in use → try the next ones, and say so
GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)  # the client went away
# Browsers ask every server for /favicon.ico; a site without one gets this (an SVG: Chromium and Firefox
# take it under that name too) instead of a 404 in the log and the console.
FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" '
           b'fill="#c15f3c"/><path d="M9 10h14M9 16h14M9 22h9" stroke="#fff" stroke-width="3" '
           b'stroke-linecap="round"/></svg>')
# Every answer carries a CSP (docs/security.md). A ccreport page gets the policy of its <meta> tag (and
# what a <meta> cannot say: no framing); anything else (a copied home file, an asset, data, an error)
# is sandboxed: opened as a document, it runs nothing and has no origin to read the API with.
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
OTHER_CSP = "sandbox; default-src 'none'; frame-ancestors 'none'"
# Folders of files copied from the home as they are (tool outputs, files before an edit): plain text.
COPIED_DIRS = {"tool-results", "file-history"}


# --- which file a URL names -----------------------------------------------------------------------
def resolve_static(root: Path, url_path: str) -> Path | None:
    """The file inside ``root`` that ``url_path`` names, or None (→ 404)."""
    try:
        rel = unquote(url_path, errors="strict").removeprefix("/")
    except UnicodeDecodeError:
        return None
    parts = rel.split("/")
    # No dot file or folder ("..", ".ccreport" with the state, the lock and the raw store, ".git"…).
    if "\x00" in rel or "\\" in rel or any(p.startswith(".") for p in parts):
        return None
    # What is left must be relative: "//etc/passwd" or "/%2Fetc" decode to an absolute path.
    if rel.startswith("/") or rel[1:2] == ":":
        return None
    base = root.resolve()
    try:
        real = base.joinpath(*[p for p in parts if p]).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if real.is_dir():
        real = real / "index.html"
    real = real.resolve()
    if not real.is_relative_to(base) or any(p.startswith(".") for p in real.relative_to(base).parts):
        return None  # a symlink out of the site, or into a dot folder
    return real if real.is_file() else None


def as_sent(target: str) -> str:
    """The request target as the client sent it. http.server reads the request line as Latin-1, so a
    client that sent 'é' as raw UTF-8 (not percent-encoded) arrives as 'Ã©', and every error message
    quoting it is garbled. Its bytes, read as UTF-8; bytes that are not UTF-8 stay percent-encoded
    (then refused as any bad escape is)."""
    if target.isascii():
        return target
    raw = target.encode("latin-1", "replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(chr(b) if b < 0x80 else f"%{b:02X}" for b in raw)


# --- HTTP ---------------------------------------------------------------------------------------
class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a port that is in use must say so, not be shared

    def __init__(self, addr, site: Path, home: Path | None, live: Live | None, page_size: int, quiet: bool):
        self.site = site.resolve()
        self.home = home
        self.live = live
        self.page_size = page_size
        self.quiet = quiet
        self.catalogs = api.CatalogCache(site=self.site)
        super().__init__(addr, Handler)
        self.policy = Policy.bound(addr[0], self.server_address[1])

    def handle_error(self, request, client_address):
        # A client that went away (a closed tab, a dropped event stream) is not an error: no traceback.
        if isinstance(sys.exc_info()[1], GONE):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    server: SiteServer
    timeout = SOCKET_TIMEOUT_S
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, a keep-alive client's delayed ACK
    # stalls every response by ~40 ms.
    disable_nagle_algorithm = True
    # Buffered: headers and a small body leave in one send (handle_one_request flushes after each
    # request; the event stream flushes each event itself). Unbuffered, the body followed as a
    # second packet, a few ms later when the follower thread held the GIL.
    wbufsize = 64 * 1024

    def version_string(self):
        return "ccreport"

    def handle(self):
        try:
            super().handle()
        except GONE:
            # A keep-alive client that went away (a closed tab resets its idle connections):
            # nothing to answer, and not an error worth a traceback on the console.
            self.close_connection = True

    def finish(self):
        # The buffered answer is flushed once more on the way out; to a client that left, that fails.
        try:
            super().finish()
        except GONE:
            pass

    def log_message(self, fmt, *args):  # noqa: D401 - quiet unless asked
        if not self.server.quiet:
            sys.stderr.write("ccreport serve: " + (fmt % args) + "\n")

    def do_GET(self):  # (and HEAD: the answers below leave out the body for it)
        try:
            self.path = as_sent(self.path)
            parts = urlsplit(self.path)
            path = parts.path or "/"
            refused = refusal(self.server.policy, self.headers, path)
            if refused is not None:  # before any file or API work (guard.py: rebinding, other origins)
                self.close_connection = True
                return self._json(refused[0], {"error": refused[1], "status": refused[0]})
            if path == "/__live":
                live = self.server.live
                return self._json(200, {"live": live is not None, "error": live.error if live else None})
            if path == "/__events":
                return self._events()
            if path == "/__fragment":
                return self._fragment(parts.query)
            if path in ("/favicon.ico", "/favicon.svg") and resolve_static(self.server.site, path) is None:
                return self._reply(200, "image/svg+xml", FAVICON)
            if path == "/api" or path.startswith("/api/"):
                if self.server.home is None:
                    return self._json(404, {"error": "no Claude home: the API is off", "status": 404})
                status, body = api.handle(self.server.home, path, parts.query, self.server.page_size,
                                          self.server.catalogs)
                return self._json(status, body)
            return self._static(path)
        except GONE:
            self.close_connection = True
        except Exception as exc:  # one bad request must never take the server down
            try:
                self._json(500, {"error": f"internal error: {exc!r}", "status": 500})
            except OSError:
                self.close_connection = True

    do_HEAD = do_GET

    # --- answers -------------------------------------------------------------------------------
    def _send(self, status: int, ctype: str, length: int, cache: str):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", cache)
        self.end_headers()

    def end_headers(self):
        """Every answer (the base class's own errors too): no other origin may embed or frame it, no
        browser may guess its type, and only a ccreport page may run (its own) scripts."""
        self.send_header("Content-Security-Policy", PAGE_CSP if getattr(self, "page", False) else OTHER_CSP)
        self.page = False  # (per answer: a keep-alive connection asks again)
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def _reply(self, status: int, ctype: str, raw: bytes):
        self._send(status, ctype, len(raw), "no-store")
        if self.command != "HEAD":
            self.wfile.write(raw)

    def _json(self, status: int, body: dict):
        self._reply(status, "application/json; charset=utf-8", json.dumps(body, ensure_ascii=False).encode("utf-8"))

    def _not_found(self):
        self._reply(404, "text/html; charset=utf-8", b"<!doctype html><title>Not found</title><p>Not found.</p>\n")

    def _static(self, path: str):
        f = resolve_static(self.server.site, path)
        if f is None:
            return self._not_found()
        rel_parts = f.relative_to(self.server.site).parts
        top = rel_parts[0]
        # p/<project>/<session>/tool-results/<name> (also the .html copies an older build made there)
        copied = len(rel_parts) == 5 and top == "p" and rel_parts[3] in COPIED_DIRS
        ctype = "text/plain" if copied else mimetypes.guess_type(f.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        if self.server.live is not None and top == "p" and f.name.startswith("page-") and self.command != "HEAD":
            self.server.live.viewed("/".join(rel_parts))
        # Pages change under a live server; hashed assets and blobs never change under their name.
        immutable = top in ("assets", "blobs") and not f.name.endswith(".html")
        cache = "public, max-age=31536000, immutable" if immutable else "no-store"
        try:
            fh = open(f, "rb")
        except OSError:
            return self._not_found()
        with fh:
            size = os.fstat(fh.fileno()).st_size
            self.page = ctype.startswith("text/html")  # a page ccreport wrote (copies are text/plain)
            self._send(200, ctype, size, cache)
            if self.command != "HEAD":
                shutil.copyfileobj(fh, self.wfile, 64 * 1024)

    def _fragment(self, query: str):
        live = self.server.live
        try:
            q = parse_qs(query, max_num_fields=4)
        except ValueError:  # more fields than a fragment request has
            return self._not_found()
        url, v = q.get("url", [""])[0], q.get("v", [""])[0]
        # A key, never a path: Live holds only pages that resolve inside the site (Live.changed), so any
        # other name, outside or not, gets the same plain 404.
        raw = live.fragment(url, int(v)) if live is not None and v.isdigit() and len(v) <= 18 else None
        if raw is None:
            return self._not_found()
        self._reply(200, "text/html; charset=utf-8", raw)

    def _events(self):
        live = self.server.live
        if live is None:
            return self._json(404, {"error": "not a live server (start it with --watch)", "status": 404})
        q = live.subscribe()
        if q is None:
            return self._json(503, {"error": "too many open event streams", "status": 503})
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Accel-Buffering", "no")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":
                return
            # retry: how soon the browser reconnects after the stream ends (restart, shutdown).
            self.wfile.write(b"retry: 1000\n")
            self._write_event({"urls": [], "error": live.error, "version": live.version, "hello": True})
            while True:
                try:
                    data = q.get(timeout=HEARTBEAT_S)
                except queue.Empty:
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
                    continue
                if data is None:  # Live.close (on shutdown) or a client too slow to keep up
                    break
                self._write_event(data)
        except OSError:  # GONE, or any other failure of the socket: the stream is over
            pass
        finally:
            live.unsubscribe(q)

    def _write_event(self, data: dict):
        self.wfile.write(f"event: change\ndata: {json.dumps(data)}\n\n".encode("utf-8"))
        self.wfile.flush()


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
    for p in ([port] if port == 0 else range(port, min(port + PORT_TRIES, 65536))):
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
