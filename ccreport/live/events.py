"""The live side of ``serve --watch``: which site URLs changed, fanned out to the open event streams
(inline fragments, or held for ``/__fragment``: docs/live.md).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import OrderedDict
from pathlib import Path

MAX_EVENT_CLIENTS = 64  # event streams are cheap, but not free: one thread each
MAX_FRAGMENTS = 256  # pages whose latest fragment is held for live.js (least recent dropped)
INLINE_MAX = 32 * 1024  # a fragment up to this size rides in the event itself: no fetch at all
MAX_VIEWS = 32  # transcript pages remembered between two idle turns of the follower


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

    def _publish(self, data: dict, fragments: dict | None = None) -> bool:
        with self.lock:
            self.version += 1
            data = dict(data, version=self.version)
            for u in data["urls"]:
                self.fragments.pop(u, None)  # rewritten: what was held for it is stale
            if fragments:
                # The event names, per page, the messages that changed; the HTML stays here until
                # live.js asks for it (only the pages someone has open are fetched).
                data["fragments"] = {u: {"ids": f["ids"], "removed": f["removed"]} for u, f in fragments.items()}
                for u, f in fragments.items():
                    if len(f["html"]) <= INLINE_MAX:  # small (the usual append): no round trip
                        data["fragments"][u]["html"] = f["html"]
                    self.fragments[u] = (self.version, f["html"].encode("utf-8"))
                while len(self.fragments) > MAX_FRAGMENTS:
                    self.fragments.popitem(last=False)
            for q in list(self.clients):
                try:
                    q.put_nowait(data)
                except queue.Full:
                    # A client that reads nothing is dropped rather than allowed to grow memory: its
                    # stream ends and the browser reconnects (and refetches) when it can.
                    self.clients.discard(q)
                    _end_stream(q)
            return bool(self.clients)

    def changed(self, written, stamps: dict | None = None, fragments: dict | None = None) -> bool:
        """The callback for whatever rebuilt the site: ``written`` = paths of files written;
        ``stamps``: the rebuild's wall-clock stage times, passed on in the event (benchmarks);
        ``fragments``: page (site-relative) → {"ids", "removed", "html"} for re-rendered pages.
        True when an event went to at least one open stream."""
        urls: set[str] = set()
        for path in written:
            try:
                rel = Path(path).resolve().relative_to(self.site).as_posix()
            except ValueError:
                continue
            if rel.endswith(".html"):
                urls.add(rel)
        if not urls and not self.error:
            return False
        self.error = None
        data = {"urls": sorted(urls), "error": None, "at": time.time()}
        if stamps:
            data["stamps"] = stamps
        return self._publish(data, {u: f for u, f in (fragments or {}).items() if u in urls})

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

    def failed(self, message: str) -> None:
        self.error = message
        self._publish({"urls": [], "error": message, "at": time.time()})

    def close(self) -> None:
        with self.lock:
            self.closed = True
            for q in list(self.clients):
                _end_stream(q)
            self.clients.clear()


def _end_stream(q: queue.Queue) -> None:
    # Called with Live.lock held, so no other event is put meanwhile: one slot freed is room enough.
    if q.full():
        with contextlib.suppress(queue.Empty):  # (the stream's reader may have just emptied it)
            q.get_nowait()
    q.put_nowait(None)  # the end of the stream
