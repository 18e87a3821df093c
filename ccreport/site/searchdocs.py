"""The document files of the search index (``search/d/``), written by the main process: a file holds
the same chunk of several units (layout.search_docs), so workers that render sessions sharing a
file in parallel cannot write it. A worker packs its units' chunks (site.search) and sends them;
a full build writes every file anew from all of them, an incremental build reads the files its
units' chunks fall in, puts theirs in place and writes them back. Why: docs/search.md (a file per
transcript made two thousand files of a 300 MB home).
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path

from ccreport.layout import SEARCH_DIR, search_docs
from ccreport.site.search import DOCS_PER_CHUNK, doc_file_script, read_doc_file
from ccreport.site.searchfiles import names
from ccreport.site.write import Writer, remove


class DocFiles:
    """Changes to the document files: file → {unit: packed chunk, or None to take it out}. With a
    ``spill_dir`` (a full build's: every chunk of the home) the chunks wait in an anonymous file
    there, not in memory: file → {unit: (path or None for that file, offset, length)}."""

    def __init__(self, spill_dir: Path | None = None) -> None:
        self.changes: dict[str, dict] = defaultdict(dict)
        self.spill_dir, self.spill = spill_dir, None

    def add(self, key: str, chunk: int, packed) -> None:
        """``packed``: the chunk's packed documents, or where a worker's spill file holds them
        (path, offset, length)."""
        if isinstance(packed, str) and self.spill_dir is not None:
            if self.spill is None:
                self.spill_dir.mkdir(parents=True, exist_ok=True)
                self.spill = tempfile.TemporaryFile(dir=self.spill_dir)
            raw = packed.encode("ascii")
            packed = (None, self.spill.seek(0, 2), len(raw))
            self.spill.write(raw)
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
        files: dict = {None: self.spill}
        if self.spill is not None:
            self.spill.flush()
        for rel in sorted(self.changes):
            chunks = {} if fresh else self._held(out, rel)
            for key, packed in self.changes[rel].items():
                if packed is None:
                    chunks.pop(key, None)
                else:
                    chunks[key] = packed if isinstance(packed, str) else _read(files, *packed)
            if chunks:
                writer.write(rel, doc_file_script(rel, chunks))
            else:
                remove(out / rel, deleted)
        if fresh:
            folder = out / SEARCH_DIR / "d"
            for name in names(folder):
                if f"{SEARCH_DIR}/d/{name}" not in self.changes:
                    remove(folder / name, deleted)
        for f in files.values():
            if f is not None:
                f.close()
        self.changes.clear()
        self.spill = None


def _read(files: dict, path, offset: int, length: int) -> str:
    """A chunk spilled to a file (None: the DocFiles' own); each file opened once."""
    if path not in files:
        files[path] = open(path, "rb")
    f = files[path]
    f.seek(offset)
    return f.read(length).decode("ascii")
