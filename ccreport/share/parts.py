"""The balanced blocks a Markdown export is made of, and the parts they are packed into (a block
too big for a part is cut, its fold reopened around each cut; see docs/export.md)."""

from __future__ import annotations

import html
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.render.markup import strip_ansi
from ccreport.render.tools.base import short
from ccreport.fs import Batch
from ccreport.share.export import write_text
from ccreport.share.mdsafe import code_pieces, prose, prose_pieces, quoted_prose

PART_MARKER = "<!-- ccreport: part break -->"
UNLIMITED = 10**12  # a limit no block reaches: the block whole, in one piece


# --- blocks -------------------------------------------------------------------------------------
@dataclass
class Code:
    text: str
    lang: str = ""
    label: str = ""  # markdown shown above the fence (ours, never transcript text)


@dataclass
class Prose:
    text: str
    quoted: bool = False


@dataclass
class Raw:
    text: str  # markdown we wrote ourselves (balanced, short)


@dataclass
class Block:
    items: list = field(default_factory=list)
    summary: str | None = None  # set: the block is a <details> fold with this (plain text) summary

    def _open(self, cont: bool) -> str:
        if self.summary is None:
            return ""
        s = short(no_ansi(self.summary), 120) + (" (continued)" if cont else "")
        return f"<details><summary>{html.escape(s)}</summary>\n\n"

    def _close(self) -> str:
        return "</details>\n\n" if self.summary is not None else ""

    def render(self) -> str:
        return self._open(False) + "".join(self.pieces(UNLIMITED)) + self._close()

    def pieces(self, limit: int) -> list[str]:
        """The items cut to fit ``limit`` each (the fold's open/close are added by the packer)."""
        return [piece for item in self.items for piece in _item_pieces(item, limit)]


def no_ansi(text: str) -> str:
    """Terminal escapes render on GitHub as stray "[31m" noise: the sequences go, and any lone ESC."""
    return strip_ansi(text).replace("\x1b", "") if "\x1b" in text else text


def _item_pieces(i, limit: int) -> list[str]:
    if isinstance(i, Raw):
        return [no_ansi(i.text)]
    if isinstance(i, Prose):
        render = quoted_prose if i.quoted else prose
        return prose_pieces(no_ansi(i.text), limit, lambda text: render(text).rstrip("\n") + "\n\n")
    cont = i.label.replace(":**", " (continued):**")
    return [p + "\n" for p in code_pieces(no_ansi(i.text), i.lang, limit - 1, i.label, cont)]


# --- parts --------------------------------------------------------------------------------------
class Packer:
    """Fill parts of at most ``limit`` characters with blocks; hand each full part to ``emit``."""

    def __init__(self, limit: int, emit, session_id: str):
        self.emit = emit
        self.sid = session_id[:40]
        self.buf: list[str] = []
        self.size = 0
        self.no = 1
        self.budget = limit - 300  # room kept in every part for its "part N of M" lines (header and footer)

    def header(self, no: int, total: int) -> str:
        h = f"<!-- ccreport export: session {self.sid}, part {no} of {total} -->\n\n"
        if no > 1:
            h += f"*Part {no} of {total}, continued from part {no - 1}.*\n\n"
        return h

    @staticmethod
    def footer(no: int, total: int) -> str:
        return f"*Continued in part {no + 1} of {total}.*\n" if no < total else ""

    def _flush(self):
        self.emit(self.no, "".join(self.buf))
        self.no += 1
        self.buf, self.size = [], 0

    def _append(self, s: str):
        self.buf.append(s)
        self.size += len(s)

    def add(self, block: Block):
        s = block.render()
        if len(s) <= self.budget:  # in the room left, or at the top of the next part
            if self.size + len(s) > self.budget:
                self._flush()
            self._append(s)
            return
        # Too big for any part: cut it, reopening its fold after every cut.
        o_first, o_cont, close = block._open(False), block._open(True), block._close()
        room = self.budget - max(len(o_first), len(o_cont)) - len(close)
        open_, held = o_first, ""  # no piece is empty: held is empty only before the first piece of a part
        for p in block.pieces(room):
            if self.size + len(open_) + len(held) + len(p) + len(close) > self.budget:
                if held:
                    self._append(open_ + held + close)
                    open_, held = o_cont, ""
                self._flush()
            held += p
        if held:
            self._append(open_ + held + close)

    def finish(self) -> int:
        """Emit the last part (never empty: a flush is always followed by an append); returns the number of parts."""
        self.emit(self.no, "".join(self.buf), last=True)
        return self.no


class Sink:
    """Where finished parts go: files (FILE, or FILE.partN.md) or a stream. Parts wait in a spool file
    (one in memory at a time) until the last: only then is their number known, which every part's
    "part N of M" line states."""

    def __init__(self, out: Path | None, stream, batch: Batch | None = None):
        self.out, self.stream, self.batch = out, stream, batch
        self.packer: Packer | None = None  # set once the packer exists: its header and footer
        self.spool = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        self.parts: list[tuple[int, int]] = []  # (spool position, characters) of each part
        self.files: list[Path] = []

    def part_path(self, no: int) -> Path | None:
        return self.out.with_name(f"{self.out.name.removesuffix('.md')}.part{no}.md") if self.out else None

    def emit(self, no: int, text: str, last: bool = False):
        self.parts.append((self.spool.tell(), len(text)))
        self.spool.write(text)
        if last:
            self._write_all()

    def _write_all(self):
        total = len(self.parts)
        with self.spool:
            for no, (pos, n) in enumerate(self.parts, 1):
                self.spool.seek(pos)
                text = self.spool.read(n)
                if total == 1:  # the whole document fits: no part lines, no numbered file
                    self._write(no, self.out, text)
                else:
                    self._write(no, self.part_path(no), self.packer.header(no, total) + text
                                + self.packer.footer(no, total))

    def _write(self, no: int, path: Path | None, text: str):
        if path is None:
            if no > 1:
                self.stream.write("\n" + PART_MARKER + "\n\n")
            self.stream.write(text)
            return
        write_text(self.batch, path, text)
        self.files.append(path)
