"""Where a rendered fragment is going: the page's place in the site, its blobs (content-addressed
files, docs/render.md says why), its anchors."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.fs import atomic_write
from ccreport.layout import BLOBS_DIR

# The images a page shows inline, and all a single-file export may carry as data: URLs. A PDF (or
# anything else) in a data: link is a document the reader's browser would open: described instead.
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
# A blob file's extension by media type (".bin" for any other).
EXT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "application/pdf": "pdf"}


class BlobStore:
    """Writes decoded blobs under ``site/blobs/``; returns their site-relative URL."""

    def __init__(self, site: Path, written: list | None = None):
        self.dir = site / BLOBS_DIR
        self.written = written  # where the build records the files it wrote
        self._known: set[str] = set()

    def save_base64(self, data: str, media_type: str) -> tuple[str | None, int]:
        """(url relative to the site root, decoded size) — (None, 0) when the data is not base64."""
        try:
            raw = base64.b64decode(data, validate=False)
        except (binascii.Error, ValueError, TypeError):
            return None, 0
        name = f"{hashlib.sha256(raw).hexdigest()[:24]}.{EXT.get(media_type, 'bin')}"
        if name not in self._known:
            self._known.add(name)
            path = self.dir / name
            if not path.exists():
                atomic_write(path, raw)
                if self.written is not None:
                    self.written.append(path)
        return f"{BLOBS_DIR}/{name}", len(raw)


@dataclass
class RenderContext:
    """What a fragment needs to know about where it is going."""

    root: str  # relative path from the page to the site root ("../../../")
    blobs: BlobStore | None = None
    agent_urls: dict = field(default_factory=dict)  # agent id → site-relative URL of its first page
    page_lines: set = field(default_factory=set)  # anchors present on this page
    embed: bool = False  # export: inline blobs as data: URLs instead of files
    # name of a file in the session's tool-results/ → URL of its copy in the site (None: not there);
    # set by the build, which copies a file the first time a <persisted-output> names it.
    copy_tool_result: object = None
    # Workflow run id → {"url": site-relative URL of the run's page, "status", "steps", "agents"}
    workflow_runs: dict = field(default_factory=dict)
    fork_point: str | None = None  # a forked transcript: the URL (from the page) of the parent at the fork
    cwd: str | None = None  # the project's folder: paths inside it are shown relative to it
    # Home files (site.extras): plan file name → site-relative URL of its page, and tool call id →
    # site-relative URL of the file as it was before that edit (file-history). Only the names this
    # page's calls use: plain data, keyed as it is by the render cache.
    plan_urls: dict = field(default_factory=dict)
    file_before: dict = field(default_factory=dict)

    def href(self, site_relative: str) -> str:
        return self.root + site_relative

    def blob(self, data: str, media_type: str) -> tuple[str | None, int]:
        if self.embed or self.blobs is None:
            try:
                # validate=True: the text goes into a URL as it is, so it must be nothing but base64.
                size = len(base64.b64decode(data, validate=True))
            except Exception:
                return None, 0
            # Only media types a browser shows inertly go into a data: URL (never text/html, svg…);
            # anything else is described, not embedded.
            if media_type not in IMAGE_TYPES:
                return None, size
            return f"data:{media_type};base64,{data}", size
        url, size = self.blobs.save_base64(data, media_type)
        return (self.root + url if url else None), size
