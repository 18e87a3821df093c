"""``ccreport serve``: the built site over HTTP, the transcript API, and (``--watch``) live pages.

* Static files come only from inside the site folder: the URL is decoded once, any ``..``
  segment, backslash, NUL or absolute form is refused, and the resolved file (symlinks followed)
  must still be inside the folder. Every refusal is a plain 404, so nothing is learnt by probing.
* ``/api/…`` is the read-only transcript API (api.py), answered from the home, not the site.
* ``/__live`` says whether this server is live (live.js asks it; a plain static server answers 404,
  and file:// pages never ask), ``/__events`` is the Server-Sent-Events stream of changed URLs.
* Events name, per re-rendered page, the messages that changed, with the page's ``<main>`` holding
  only those (rendercache.py) inline when small. ``/__fragment?url=<page>&v=<version>`` serves a
  larger one: held in memory for the latest update of each page; anything else (an older
  version, a page never announced, a URL that does not name a page inside the site) is a 404,
  and live.js then fetches the whole page, as it always can.
* No request hangs: sockets time out, the event stream sends a heartbeat and ends on shutdown.

The rebuild is behind one seam: whatever produces "these files were written" calls
``Live.changed(paths[, stamps, fragments])``. ``serve --watch`` runs IncrementalFollow (watch.follow:
the incremental build with its state and a render cache in memory), which pushes each page as soon
as it is written, with its fragment, and the rest (overview, indexes) after; ``FullRebuild`` (a
whole ``build.build()`` per change) remains for tests.
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
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from ccreport.live import api
from ccreport.model.pages import DEFAULT_PAGE_SIZE

HEARTBEAT_S = 15.0  # an idle event stream still sends a comment this often (proxies, dead peers)
SOCKET_TIMEOUT_S = 30.0  # a client that stops sending mid-request is dropped after this
PORT_TRIES = 20  # port in use → try the next ones, and say so
MAX_EVENT_CLIENTS = 64  # event streams are cheap, but not free: one thread each
MAX_FRAGMENTS = 256  # pages whose latest fragment is held for live.js (least recent dropped)
INLINE_MAX = 32 * 1024  # a fragment up to this size rides in the event itself: no fetch at all
MAX_VIEWS = 32  # transcript pages remembered between two idle turns of the follower
PUSH_YIELD_S = 0.002  # after pushing a page, the follower pauses this long (see IncrementalFollow)


# --- which file a URL names -----------------------------------------------------------------------
def resolve_static(root: Path, url_path: str) -> Path | None:
    """The file inside ``root`` that ``url_path`` names, or None (→ 404)."""
    rel = unquote(url_path, errors="strict") if "%" in url_path else url_path
    if "\x00" in rel or "\\" in rel:
        return None
    rel = rel[1:] if rel.startswith("/") else rel
    # What is left must be relative: "//etc/passwd" or "/%2Fetc" decode to an absolute path.
    if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        return None
    parts = rel.split("/")
    if any(p in ("..", ".") for p in parts):
        return None
    base = root.resolve()
    candidate = base.joinpath(*[p for p in parts if p])
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(base):
        return None  # a symlink out of the site
    if real.is_dir():
        real = real / "index.html"
        if not real.is_file() or not real.resolve().is_relative_to(base):
            return None
    return real if real.is_file() else None


# --- live events ----------------------------------------------------------------------------------
class Live:
    """Fan-out of "these site URLs changed" and "the last rebuild failed" to the open event streams."""

    def __init__(self, site: Path):
        self.site = site.resolve()
        self.lock = threading.Lock()
        self.clients: set[queue.Queue] = set()
        self.error: str | None = None  # the last rebuild's failure, shown on every page until fixed
        self.version = 0
        self.closed = False
        self.fragments: OrderedDict[str, tuple[int, bytes]] = OrderedDict()  # page → (version, html)
        self.views: set[str] = set()  # transcript pages served since the follower last asked

    def subscribe(self) -> queue.Queue | None:
        with self.lock:
            if self.closed or len(self.clients) >= MAX_EVENT_CLIENTS:
                return None
            q: queue.Queue = queue.Queue(maxsize=256)
            self.clients.add(q)
            return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self.lock:
            self.clients.discard(q)

    def _publish(self, event: str, data: dict, fragments: dict | None = None) -> bool:
        with self.lock:
            self.version += 1
            data = dict(data, version=self.version)
            if fragments:
                # The event names, per page, the messages that changed; the HTML stays here until
                # live.js asks for it (only the pages someone has open are fetched).
                data["fragments"] = {u: {"ids": f["ids"], "removed": f["removed"]} for u, f in fragments.items()}
                for u, f in fragments.items():
                    if len(f["html"]) <= INLINE_MAX:  # small (the usual append): no round trip
                        data["fragments"][u]["html"] = f["html"]
                    self.fragments.pop(u, None)
                    self.fragments[u] = (self.version, f["html"].encode("utf-8"))
                while len(self.fragments) > MAX_FRAGMENTS:
                    self.fragments.popitem(last=False)
            for u in data.get("urls", ()):
                if u not in (fragments or {}):
                    self.fragments.pop(u, None)  # rewritten without a fragment: the old one is stale
            for q in list(self.clients):
                try:
                    q.put_nowait((event, data))
                except queue.Full:
                    # A client that reads nothing is dropped rather than allowed to grow memory: its
                    # stream ends and the browser reconnects (and refetches) when it can.
                    self.clients.discard(q)
                    _end_stream(q)
            return bool(self.clients)

    def urls(self, written) -> list[str]:
        out = []
        for p in written:
            try:
                rel = Path(p).resolve().relative_to(self.site).as_posix()
            except ValueError:
                continue
            if rel.endswith(".html"):
                out.append(rel)
        return sorted(set(out))

    def changed(self, written, stamps: dict | None = None, fragments: dict | None = None) -> bool:
        """The callback for whatever rebuilt the site: ``written`` = paths of files written;
        ``stamps``: the rebuild's wall-clock stage times, passed on in the event (benchmarks);
        ``fragments``: page (site-relative) → {"ids", "removed", "html"} for re-rendered pages.
        True when an event went to at least one open stream."""
        urls = self.urls(written)
        was_error = self.error
        self.error = None
        if urls or was_error:
            data = {"urls": urls, "error": None, "at": time.time()}
            if stamps:
                data["stamps"] = stamps
            frags = {u: f for u, f in (fragments or {}).items() if u in urls}
            return self._publish("change", data, frags)
        return False

    def viewed(self, rel: str) -> None:
        """A transcript page was served: the follower warms its render cache for it."""
        with self.lock:
            if len(self.views) < MAX_VIEWS:
                self.views.add(rel)

    def take_views(self) -> list[str]:
        with self.lock:
            out, self.views = sorted(self.views), set()
        return out

    def fragment(self, url: str, version: int) -> bytes | None:
        with self.lock:
            held = self.fragments.get(url)
        return held[1] if held is not None and held[0] == version else None

    def failed(self, message: str, written=()) -> None:
        self.error = message
        self._publish("change", {"urls": self.urls(written), "error": message, "at": time.time()})

    def close(self) -> None:
        with self.lock:
            self.closed = True
            for q in list(self.clients):
                _end_stream(q)
            self.clients.clear()


def _end_stream(q: queue.Queue) -> None:
    while True:
        try:
            q.put_nowait((None, None))
            return
        except queue.Full:
            try:
                q.get_nowait()
            except queue.Empty:
                pass


# --- the rebuild seam -----------------------------------------------------------------------------
class RebuildFailed(Exception):
    def __init__(self, message: str, written=()):
        super().__init__(message)
        self.written = list(written)


class FullRebuild:
    """changes → list of written paths, by running the whole build (see the module docstring)."""

    def __init__(self, home: Path, out: Path, opts):
        self.home, self.out, self.opts = home, out, opts

    def __call__(self, changes=()) -> list[Path]:
        from ccreport.site.build import build
        from ccreport.source.home import HomeError

        try:
            res = build(self.home, self.out, self.opts)
        except HomeError as exc:
            raise RebuildFailed(str(exc)) from None
        except OSError as exc:
            raise RebuildFailed(f"cannot write the site to {self.out}: {exc.strerror or exc}") from None
        if res.errors:
            shown = "; ".join(str(e) for e in res.errors[:3]) + (f" (+{len(res.errors) - 3} more)" if len(res.errors) > 3 else "")
            raise RebuildFailed(f"the rebuild reported {len(res.errors)} error(s): {shown}", res.written)
        return [Path(p) for p in res.written]


def watch_loop(home: Path, rebuild, live: Live, stop: threading.Event, log=None,
               ready: threading.Event | None = None) -> None:
    """Rebuild on every batch of changes under home/projects until ``stop`` is set.

    ``ready`` is set once the watcher is in place (its first timeout or change): changes after
    that are never missed, including those made while a rebuild runs (the watcher keeps them).
    """
    import watchfiles

    projects = home / "projects"
    # step: how long the watcher waits for the rest of a burst of writes; small, because a person
    # is watching the page. debounce caps a long burst.
    for changes in watchfiles.watch(projects, stop_event=stop, debounce=400, step=8, rust_timeout=200,
                                    yield_on_timeout=True, raise_interrupt=False):
        if ready is not None:
            ready.set()
        if stop.is_set():
            break
        if not changes:
            continue
        try:
            written = rebuild(changes)
        except RebuildFailed as exc:
            live.failed(str(exc), exc.written)
            if log:
                log(f"rebuild failed: {exc}")
            continue
        except Exception as exc:  # the server must outlive any rebuild bug: keep the last good site
            live.failed(f"internal error during the rebuild: {exc!r}")
            if log:
                log(f"rebuild failed: {exc!r}")
            continue
        live.changed(written)


# --- HTTP ---------------------------------------------------------------------------------------
class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a port that is in use must say so, not be shared

    def __init__(self, addr, site: Path, home: Path | None, live: Live | None, page_size: int = DEFAULT_PAGE_SIZE,
                 quiet: bool = True):
        self.site = site.resolve()
        self.home = home
        self.live = live
        self.page_size = page_size
        self.quiet = quiet
        self.stopping = threading.Event()
        self.catalogs = api.CatalogCache()
        super().__init__(addr, Handler)


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
        except (ConnectionResetError, BrokenPipeError):
            # A keep-alive client that went away (a closed tab resets its idle connections):
            # nothing to answer, and not an error worth a traceback on the console.
            self.close_connection = True

    def log_message(self, fmt, *args):  # noqa: D401 - quiet unless asked
        if not self.server.quiet:
            sys.stderr.write("ccreport serve: " + (fmt % args) + "\n")

    def do_HEAD(self):
        self._dispatch(head=True)

    def do_GET(self):
        self._dispatch(head=False)

    def _dispatch(self, head: bool):
        try:
            parts = urlsplit(self.path)
            path = parts.path or "/"
            if path == "/__live":
                live = self.server.live
                return self._json(200, {"live": live is not None, "error": live.error if live else None}, head)
            if path == "/__events":
                return self._events(head)
            if path == "/__fragment":
                return self._fragment(parts.query, head)
            if path == "/api" or path.startswith("/api/"):
                if self.server.home is None:
                    return self._json(404, {"error": "no Claude home: the API is off", "status": 404}, head)
                status, body = api.handle(self.server.home, path, parts.query, self.server.page_size,
                                          self.server.catalogs)
                return self._json(status, body, head)
            return self._static(path, head)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True
        except Exception as exc:  # one bad request must never take the server down
            try:
                self._json(500, {"error": f"internal error: {exc!r}", "status": 500}, head)
            except OSError:
                self.close_connection = True

    # --- answers -------------------------------------------------------------------------------
    def _send(self, status: int, ctype: str, length: int, cache: str, extra: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def _json(self, status: int, body: dict, head: bool):
        raw = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self._send(status, "application/json; charset=utf-8", len(raw), "no-store")
        if not head:
            self.wfile.write(raw)

    def _not_found(self, head: bool):
        raw = b"<!doctype html><title>Not found</title><p>Not found.</p>\n"
        self._send(404, "text/html; charset=utf-8", len(raw), "no-store")
        if not head:
            self.wfile.write(raw)

    def _static(self, path: str, head: bool):
        try:
            f = resolve_static(self.server.site, path)
        except UnicodeDecodeError:
            f = None
        if f is None:
            return self._not_found(head)
        ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        # Pages change under a live server; hashed assets and blobs never change under their name.
        rel_parts = f.relative_to(self.server.site).parts
        top = rel_parts[0]
        if self.server.live is not None and top == "p" and f.name.startswith("page-") and not head:
            self.server.live.viewed("/".join(rel_parts))
        immutable = top in ("assets", "blobs") and not f.name.endswith(".html")
        cache = "public, max-age=31536000, immutable" if immutable else "no-store"
        try:
            fh = open(f, "rb")
        except OSError:
            return self._not_found(head)
        with fh:
            size = os.fstat(fh.fileno()).st_size
            self._send(200, ctype, size, cache)
            if not head:
                shutil.copyfileobj(fh, self.wfile, 64 * 1024)

    def _fragment(self, query: str, head: bool):
        live = self.server.live
        try:
            q = parse_qs(query, max_num_fields=4)
        except ValueError:  # more fields than a fragment request has
            return self._not_found(head)
        url, v = q.get("url", [""])[0], q.get("v", [""])[0]
        # Validated like a static path: it must name a page file inside the site (nothing is read
        # from disk here, but an unknown or outside name gets the same plain 404).
        if live is None or not v.isdigit() or len(v) > 18 or not url.endswith(".html") or len(url) > 4096:
            return self._not_found(head)
        try:
            f = resolve_static(self.server.site, "/" + url.replace("%", "%25"))
        except UnicodeDecodeError:
            f = None
        raw = live.fragment(url, int(v)) if f is not None and f.relative_to(self.server.site).as_posix() == url else None
        if raw is None:
            return self._not_found(head)
        self._send(200, "text/html; charset=utf-8", len(raw), "no-store")
        if not head:
            self.wfile.write(raw)

    def _events(self, head: bool):
        live = self.server.live
        if live is None:
            return self._json(404, {"error": "not a live server (start it with --watch)", "status": 404}, head)
        q = live.subscribe()
        if q is None:
            return self._json(503, {"error": "too many open event streams", "status": 503}, head)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Accel-Buffering", "no")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if head:
                return
            # retry: how soon the browser reconnects after the stream ends (restart, shutdown).
            hello = {"urls": [], "error": live.error, "version": live.version, "hello": True}
            self._write_event("change", hello, retry=1000)
            last = time.monotonic()
            while not self.server.stopping.is_set():
                try:
                    event, data = q.get(timeout=1.0)
                except queue.Empty:
                    if time.monotonic() - last >= HEARTBEAT_S:
                        self.wfile.write(b": ping\n\n")
                        self.wfile.flush()
                        last = time.monotonic()
                    continue
                if event is None:
                    break
                self._write_event(event, data)
                last = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            pass
        finally:
            live.unsubscribe(q)

    def _write_event(self, event: str, data: dict, retry: int | None = None):
        msg = (f"retry: {retry}\n" if retry else "") + f"event: {event}\ndata: {json.dumps(data)}\n\n"
        self.wfile.write(msg.encode("utf-8"))
        self.wfile.flush()


# --- starting -----------------------------------------------------------------------------------
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
                page_size: int = DEFAULT_PAGE_SIZE, tries: int = PORT_TRIES, quiet: bool = True) -> SiteServer:
    """Bind ``port`` or the next free one (port 0: any free port). PortError when none is free."""
    last: OSError | None = None
    for p in ([port] if port == 0 else range(port, port + max(tries, 1))):
        if p > 65535:
            break
        try:
            return SiteServer((host, p), site, home, live, page_size, quiet)
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise PortError(f"cannot listen on {host}:{p}: {exc.strerror or exc}") from None
            last = exc
    raise PortError(f"ports {port}–{port + tries - 1} on {host} are all in use ({last.strerror if last else 'busy'}); "
                    "pass a free one with --port")


def url_of(server: SiteServer) -> str:
    host, port = server.server_address[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


class IncrementalFollow:
    """The live rebuild of ``serve --watch``: watch.follow (the incremental build, state kept in
    memory) pushing the written paths to the open pages.

    What keeps append → visible short (benchmarks/live.py prints the stages):
    * a render cache (rendercache.py): the last page is re-rendered from its first line on every
      append, but only the new or changed messages are rendered again;
    * a page is pushed the moment it is written (RenderCache.on_page), before the rest of its
      session and the indexes, with its fragment (only the changed messages) in the event;
    * pages a browser loads are noted (Live.viewed) and their transcripts rendered into the cache
      while idle, so the first append after opening a page is not a cold render either.
    """

    def __init__(self, home: Path, out: Path, opts):
        from ccreport.live.rendercache import RenderCache

        self.home, self.out, self.opts = home, out, opts
        # Rendered messages kept between updates: an append renders its new message, not the
        # whole last page again (rendercache.py); it also makes the fragments live.js merges.
        self.cache = RenderCache()

    def run(self, live: "Live", stop: threading.Event, ready: threading.Event, log=None) -> None:
        from ccreport.live.watch import follow

        def failed(message: str) -> None:
            if log:
                log(f"rebuild failed: {message}")
            live.failed(message)

        last: dict = {}

        def built(res) -> None:  # called just before on_change, on the same thread
            last["stamps"] = res.stamps

        def changed(paths) -> None:
            live.changed(paths, last.get("stamps"), cache.take_fragments())

        def session_done(paths, stamps) -> None:
            # A session's pages are out before the indexes are rebuilt: push them now.
            if live.changed(paths, stamps, cache.take_fragments()):
                # Let the event-stream threads take the GIL and send it before this thread goes
                # on with the indexes; otherwise the event waits for a switch (≈ 5 ms, or more).
                time.sleep(PUSH_YIELD_S)

        cache = self.cache
        try:
            # A person is looking at the page: a short step (watchfiles yields once no event came
            # for this long: 2 ms → ~3.5 ms after the write, 5 ms → ~8 ms, measured) and debounce
            # (a long burst of lines still lands in one update) keep append → visible small.
            follow(self.home, self.out, self.opts, on_change=changed, on_build=built, stop_event=stop,
                   on_error=failed, ready=ready, step_ms=2, debounce_ms=25, on_session=session_done,
                   render_cache=cache, viewed=live.take_views)
        except Exception as exc:  # the server goes on with the last good site and says why
            failed(f"the watcher stopped: {exc}")
            ready.set()


class Running:
    """A server (and watcher) on background threads: tests and the benchmark use it; so does the CLI."""

    def __init__(self, server: SiteServer, rebuild=None, home: Path | None = None, log=None):
        self.server = server
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        self.threads = [threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                         name="ccreport-http", daemon=True)]
        if isinstance(rebuild, IncrementalFollow) and server.live is not None:
            self.threads.append(threading.Thread(target=rebuild.run, args=(server.live, self.stop_event, self.ready, log),
                                                 name="ccreport-follow", daemon=True))
        elif rebuild is not None and server.live is not None and home is not None:
            self.threads.append(threading.Thread(target=watch_loop, args=(home, rebuild, server.live, self.stop_event, log, self.ready),
                                                 name="ccreport-watch", daemon=True))

    @property
    def url(self) -> str:
        return url_of(self.server)

    def start(self) -> "Running":
        for t in self.threads:
            t.start()
        if len(self.threads) == 1:
            self.ready.set()
        return self

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """True once the watcher (if any) is in place."""
        return self.ready.wait(timeout)

    def stop(self) -> None:
        self.stop_event.set()
        self.server.stopping.set()
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
