"""Rendered message HTML kept in memory between the updates of a long-running follower, and the
fragments of re-rendered pages. Why a cached render is always what a cold one would be: docs/live.md.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Callable

import orjson

from ccreport.render.markup import in_browser
from ccreport.render.message import RenderContext, render_message

MAX_TRANSCRIPTS = 64  # transcripts whose last page is kept (a live session and its sub-agents)
MAX_FRAGMENTS = 64  # fragments waiting to be taken (one update writes a page or two)
_MISSING = object()


@dataclass
class _Deps:
    """What one render asked of its context, in order: (kind, question, answer) triples."""

    items: list[tuple[str, object, object]] = field(default_factory=list)
    ok: bool = True


class _Recording:
    """A stand-in for one context attribute: the methods a subclass defines record the question
    and its answer; any other use still gets the real answer but makes the render uncacheable
    (it was not recorded, so a cached copy could not be checked)."""

    def __init__(self, real, deps: _Deps):
        self._real, self._deps = real, deps

    def __getattr__(self, name):
        self._deps.ok = False
        return getattr(self._real, name)

    # (dunder methods are looked up on the type, never through __getattr__)
    def __iter__(self):
        self._deps.ok = False
        return iter(self._real)

    def __len__(self):
        self._deps.ok = False
        return len(self._real)


class _Lines(_Recording):
    """ctx.page_lines that records each membership test."""

    def __contains__(self, x) -> bool:
        r = x in self._real
        self._deps.items.append(("line", x, r))
        return r


class _Urls(_Recording):
    """ctx.agent_urls that records each key asked for (and the answer)."""

    def _ask(self, k):
        r = self._real.get(k, _MISSING)
        self._deps.items.append(("url", k, r))
        return r

    def __contains__(self, k) -> bool:
        return self._ask(k) is not _MISSING

    def __getitem__(self, k):
        r = self._ask(k)
        if r is _MISSING:
            raise KeyError(k)
        return r

    def get(self, k, default=None):
        r = self._ask(k)
        return default if r is _MISSING else r


class _Blobs(_Recording):
    """ctx.blobs that records the site-relative file of each blob saved."""

    def save_base64(self, data, media_type):
        url, size = self._real.save_base64(data, media_type)
        self._deps.items.append(("blob", url, None))
        return url, size


def _copier(real, deps: _Deps):
    def copy(name):
        r = real(name)
        deps.items.append(("copy", name, r))
        return r

    return copy


def _still_holds(deps: tuple, ctx: RenderContext, site: Path) -> bool:
    """Would the context answer every recorded question the same way now?"""
    for kind, q, answer in deps:
        if kind == "line" and (q in ctx.page_lines) != answer:
            return False
        if kind == "url" and ctx.agent_urls.get(q, _MISSING) != answer:
            return False
        # Asked again for real: the copier copies the file if it is not in the site yet, as the render would have.
        if kind == "copy" and ctx.copy_tool_result(q) != answer:
            return False
        if kind == "blob" and q is not None and not (site / q).is_file():
            return False  # the blob file went (deleted by hand): render, so it is saved again
    return True


# The context fields whose uses are recorded (above); every other field is part of the key as it is,
# so a field added to RenderContext later is keyed without anyone remembering to add it here.
TRACKED = ("page_lines", "agent_urls", "blobs", "copy_tool_result")
_FIXED = tuple(f.name for f in fields(RenderContext) if f.name not in TRACKED)


def fingerprint(m, ctx: RenderContext) -> bytes | None:
    """The digest of everything a render of ``m`` depends on besides the recorded lookups (None when
    orjson cannot write ``m``: it is rendered uncached)."""
    try:
        data = orjson.dumps(m)
    except TypeError:  # orjson.JSONEncodeError is one
        return None
    h = hashlib.sha256(data)  # hardware-accelerated on most CPUs: the page's images are hashed on every append
    fixed = [getattr(ctx, name) for name in _FIXED]
    # A field orjson cannot write is keyed by its repr: one that differs between equal values only
    # costs a miss, never a wrong hit.
    h.update(orjson.dumps(fixed + [ctx.blobs is None, ctx.copy_tool_result is None], default=repr))
    h.update(b"colours in the browser" if in_browser() else b"colours by pygments")  # markup.colours_in_browser
    return h.digest()


class TranscriptRenders:
    """The cached renders of one transcript, and the messages of its last written page."""

    def __init__(self):
        self.entries: dict[bytes, tuple[str, tuple]] = {}
        self._used: dict[bytes, tuple[str, tuple]] = {}
        self.pages: dict[str, dict[str, str]] = {}  # page path → {message id: html} as last rendered
        self.hits = self.misses = 0  # the tests check that the cache is used, and when it is not

    def begin_page(self) -> None:
        self._used = {}

    def end_pass(self) -> None:
        """Keep only what the last page rendered in this pass used (earlier pages are closed)."""
        self.entries = self._used
        self._used = {}

    def render(self, m, ctx: RenderContext, site: Path) -> str:
        key = fingerprint(m, ctx)
        if key is None:
            self.misses += 1
            return render_message(m, ctx)
        hit = self.entries.get(key)
        if hit is not None and _still_holds(hit[1], ctx, site):
            self.hits += 1
            self._used[key] = hit
            return hit[0]
        self.misses += 1
        deps = _Deps()
        tracked = replace(ctx, page_lines=_Lines(ctx.page_lines, deps), agent_urls=_Urls(ctx.agent_urls, deps),
                          blobs=_Blobs(ctx.blobs, deps) if ctx.blobs is not None else None,
                          copy_tool_result=_copier(ctx.copy_tool_result, deps) if callable(ctx.copy_tool_result)
                          else ctx.copy_tool_result)
        try:
            html = render_message(m, tracked)
        except Exception:  # a use of the context the recorders do not support: render plainly
            return render_message(m, ctx)
        if deps.ok:
            self._used[key] = (html, tuple(deps.items))
        return html


class RenderCache:
    """Per-transcript renders for a follower (follow.Follower): one object for the whole run."""

    def __init__(self, max_transcripts: int = MAX_TRANSCRIPTS, on_page: Callable[[str], None] | None = None):
        self.max = max_transcripts
        self._by: OrderedDict[tuple, TranscriptRenders] = OrderedDict()
        self.fragments: OrderedDict[str, dict] = OrderedDict()
        # Called with the path of each page written through the cache, as soon as it is written
        # (the Follower's: the page is pushed before the rest of its session is done).
        self.on_page = on_page

    def transcript(self, key: tuple) -> TranscriptRenders:
        tr = self._by.pop(key, None) or TranscriptRenders()
        self._by[key] = tr
        while len(self._by) > self.max:
            self._by.popitem(last=False)
        return tr

    def has(self, key: tuple) -> bool:
        """Does the cache hold renders of this transcript (project dir, session id, transcript id)?"""
        return key in self._by and bool(self._by[key].entries)

    def add_fragment(self, page: str, fragment: dict) -> None:
        self.fragments.pop(page, None)
        self.fragments[page] = fragment
        while len(self.fragments) > MAX_FRAGMENTS:
            self.fragments.popitem(last=False)

    def take_fragments(self) -> dict[str, dict]:
        """The fragments made since the last call (page path → {"ids", "removed", "html"})."""
        out = dict(self.fragments)
        self.fragments.clear()
        return out
