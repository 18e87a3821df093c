"""The document files of the search index (``search/d/``), written by the main process: a file holds
the same chunk of several units (layout.search_docs), so workers that render sessions sharing a
file in parallel cannot write it. A worker packs its units' chunks (site.search) and sends them;
a full build writes every file anew from all of them, an incremental build reads the files its
units' chunks fall in, puts theirs in place and writes them back. Why: docs/search.md (a file per
transcript made two thousand files of a 300 MB home).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ccreport.layout import SEARCH_DIR, search_docs
from ccreport.site.search import DOCS_PER_CHUNK, doc_file_script, read_doc_file
from ccreport.site.searchfiles import names
from ccreport.site.write import Writer, remove


class DocFiles:
    """Changes to the document files: file → {unit: packed chunk, or None to take it out}."""

    def __init__(self) -> None:
        self.changes: dict[str, dict] = defaultdict(dict)

    def add(self, key: str, chunk: int, packed: str) -> None:
        self.changes[search_docs(key, chunk)][key] = packed

    def add_unit(self, d) -> None:
        """A UnitDelta's chunks: those it rewrote, and its chunks past its count taken out."""
        for chunk, packed in d.docs.items():
            self.add(d.key, chunk, packed)
        for chunk in range(-(-d.count // DOCS_PER_CHUNK), -(-d.old_count // DOCS_PER_CHUNK)):
            self.changes[search_docs(d.key, chunk)][d.key] = None

    def drop(self, out: Path, key: str) -> None:
        """A unit that is gone: its chunks taken out (its later chunks' files looked at until one
        does not hold it)."""
        chunk = 0
        while chunk == 0 or key in self._held(out, search_docs(key, chunk)):
            self.changes[search_docs(key, chunk)][key] = None
            chunk += 1

    def _held(self, out: Path, rel: str) -> dict:
        try:
            return read_doc_file((out / rel).read_bytes())
        except OSError:
            return {}

    def write(self, out: Path, writer: Writer, deleted: list, fresh: bool = False) -> None:
        """The files changed written (``fresh``: a full build's, every file anew; the others of
        the folder removed)."""
        for rel in sorted(self.changes):
            chunks = {} if fresh else self._held(out, rel)
            for key, packed in self.changes[rel].items():
                if packed is None:
                    chunks.pop(key, None)
                else:
                    chunks[key] = packed
            if chunks:
                writer.write(rel, doc_file_script(rel, chunks))
            else:
                remove(out / rel, deleted)
        if fresh:
            folder = out / SEARCH_DIR / "d"
            for name in names(folder):
                if f"{SEARCH_DIR}/d/{name}" not in self.changes:
                    remove(folder / name, deleted)
        self.changes.clear()
