"""Images and documents from transcripts, written once to the site as files.

A base64 image may repeat on many lines (and in replayed sub-agent files); naming the file by its
content hash writes it once and lets every page link to it instead of inlining megabytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path

from ccreport.fs import atomic_write
from ccreport.layout import BLOBS_DIR

EXT = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "application/pdf": "pdf",
}


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
