"""File references as IDE integrations write them in Markdown links: ``[next.config.js](next.config.js:190:4-201:6)``
(a file with a line and column range), ``[app.py](src/app.py:12)``, ``src/app.py:12:5``, or Windsurf's
``cci:1://file:///abs/path/next.config.js:184:8-186:10``. CommonMark reads ``next.config.js:`` as a URL
scheme, so without this they showed as their Markdown source; a reader wants the file's name and its
lines (``next.config.js:190–201``). The site has no page per file, so a reference is shown, not linked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

# path:line[:col][-line[:col]], the path without spaces, brackets or a colon (a Windows drive is not
# an IDE's relative reference); an optional cci:N:// or file:// in front.
_REF = re.compile(r"(?:cci:\d+://)?(?:file://)?(?P<path>[^\s:()\[\]<>`\"']+?)"
                  r":(?P<l1>\d{1,9})(?::\d{1,9})?(?:-(?P<l2>\d{1,9})(?::\d{1,9})?)?")


@dataclass(frozen=True)
class FileRef:
    path: str  # as written (relative to the session's folder, or absolute)
    first: int  # 0 with last 0: the whole file (cci:…:0:0-0:0)
    last: int

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1] or self.path

    @property
    def shown(self) -> str:
        """``next.config.js:190–201``; the name alone for the whole file."""
        if self.first == 0 and self.last == 0:
            return self.name
        return f"{self.name}:{self.first}" + (f"–{self.last}" if self.last > self.first else "")

    def names(self, text: str) -> bool:
        """Whether a link's text says no more than the reference itself (its name or path)."""
        t = text.strip().strip("`")
        return t in (self.name, self.path, self.path.lstrip("/"), self.shown) or _REF.fullmatch(t) is not None


def file_ref(target) -> FileRef | None:
    """The reference a link target is, or None (a URL, a plain relative link, anything else)."""
    if not isinstance(target, str) or len(target) > 1000:
        return None
    m = _REF.fullmatch(target.strip())
    if m is None or m.group("path").startswith("//"):
        return None
    first = int(m.group("l1"))
    last = int(m.group("l2")) if m.group("l2") else first
    return FileRef(m.group("path"), first, max(first, last))


def ref_html(ref: FileRef, inner_html: str | None) -> str:
    """HTML of a reference: its name and lines in code (the path as written on hover); ``inner_html``
    (the link's rendered text) in front when it says something else."""
    code = f'<code class="fref" title="{escape(ref.path, quote=True)}">{escape(ref.shown, quote=True)}</code>'
    if inner_html is None:
        return code
    return f'<span class="rlink">{inner_html}</span> {code}'


# A Markdown link as written, on one line: [text](target) (with an optional <…> around the target).
LINK_SOURCE = re.compile(r"\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+)>?\s*\)")


def refs_as_text(line: str, wrap=lambda shown: shown) -> str:
    """The links of ``line`` to file references written as the file's name and lines (``wrap`` puts
    them in a code span for Markdown), the link's text kept in front when it says more; a link
    inside a code span is left as written."""
    if "](" not in line:
        return line

    def one(m: re.Match) -> str:
        ref = file_ref(m.group(2))
        if ref is None or m.string[:m.start()].count("`") % 2:
            return m.group(0)
        return wrap(ref.shown) if ref.names(m.group(1)) else f"{m.group(1)} ({wrap(ref.shown)})"

    return LINK_SOURCE.sub(one, line)
