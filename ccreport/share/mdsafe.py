"""Make untrusted text safe to paste into GitHub Markdown (a CommonMark parser says where HTML and open
fences are), and cut it into balanced pieces; see docs/export.md."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from ccreport.render.filerefs import LINK_SOURCE, file_ref, refs_as_text

_md = MarkdownIt("commonmark")  # html on: we want to find what GitHub would treat as HTML
_CLOSER = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
_BACKTICKS = re.compile(r"`+")


def _html_tokens(tokens):
    for t in tokens:
        if t.type == "html_block":
            yield t, None
        elif t.type == "inline" and t.children:
            for c in t.children:
                if c.type == "html_inline":
                    yield c, t


def escape_html(text: str) -> str:
    """``text`` with every '<' that CommonMark would read as the start of HTML made literal."""
    if "<" not in text:
        return text
    for _ in range(40):  # rounds of "escape what the parser calls HTML, parse again" before escaping every '<'
        found = list(_html_tokens(_md.parse(text)))
        if not found:
            return text
        lines = text.split("\n")
        for tok, parent in found:
            if parent is None:
                s = tok.map[0]
                lines[s] = lines[s].replace("<", "&lt;", 1)
            else:
                s, e = parent.map
                needle = tok.content
                fixed = needle.replace("<", "&lt;", 1)
                for i in range(s, e):
                    if needle in lines[i]:
                        lines[i] = lines[i].replace(needle, fixed)
                        break
                else:
                    # The tag spans lines: escape the first '<' of the paragraph that starts it.
                    head = needle.split("\n", 1)[0]
                    for i in range(s, e):
                        if head and head in lines[i]:
                            lines[i] = lines[i].replace(head, head.replace("<", "&lt;", 1), 1)
                            break
                    else:
                        return _escape_all(text)
        new = "\n".join(lines)
        if new == text:
            return _escape_all(text)
        text = new
    return _escape_all(text)


def _escape_all(text: str) -> str:
    """Last resort: every '<' outside fenced code becomes '&lt;' (code spans then show '&lt;')."""
    lines = text.split("\n")
    inside = set()
    for t in _md.parse(text):
        if t.type == "fence" and t.level == 0 and t.map:
            inside.update(range(t.map[0] + 1, t.map[1]))
    return "\n".join(ln if i in inside else ln.replace("<", "&lt;") for i, ln in enumerate(lines))


def close_fences(text: str) -> str:
    """Append the closing fence of a top-level fenced block that ``text`` leaves open."""
    if "```" not in text and "~~~" not in text:
        return text
    lines = text.split("\n")
    for t in reversed(_md.parse(text)):
        if t.level == 0 and t.map:
            if t.type != "fence":
                return text
            s, e = t.map
            m = _CLOSER.match(lines[e - 1]) if s < e - 1 < len(lines) else None
            if m and m.group(1)[0] == t.markup[0] and len(m.group(1)) >= len(t.markup):
                return text
            return text.rstrip("\n") + "\n" + t.markup
    return text


def normalise(text: str) -> str:
    # The parser numbers lines after turning \r\n and lone \r into \n; so must we, or its line
    # numbers would point at the wrong lines.
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")


def end_list(md: str) -> str:
    """Prose that ends in a list would take the next block's indented lines into its last item,
    where they parse differently from how they were checked alone (a 4-space-indented tag is code
    at top level but HTML inside an item). An HTML comment line ends the list first."""
    last = None
    for t in _md.parse(md):
        if t.level == 0:
            last = t.type
    if last in ("bullet_list_close", "ordered_list_close"):
        return md.rstrip("\n") + "\n\n<!-- end of list -->\n"
    return md


_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>!|~&#()])")


def inline_text(text: str) -> str:
    """Plain text (one line) shown as it is inside a Markdown line: every character that could start
    emphasis, code, a link, HTML, an entity or a table cell is backslash-escaped (CommonMark lets any
    ASCII punctuation be escaped, and shows it unchanged)."""
    return _INLINE_SPECIAL.sub(r"\\\1", " ".join(text.split()))


SHIFT = 3  # transcript headings go this many levels down: "# x" → h4, under an export's own "###" headings
_MAYBE_HEADING = re.compile(r"^[ \t>*+\-\d.)]*(#{1,6}(?:[ \t]|$)|(=+|-+)[ \t]*$)", re.M)
_ATX = re.compile(r"^([^#]*?)(#{1,6})(?=[ \t]|$)")


def demote_headings(text: str) -> str:
    """Every heading of ``text`` (ATX or setext, in a quote or a list too) ``SHIFT`` levels smaller, at
    most h6: "## Summary" inside an answer must not render larger than the export's own headings."""
    if not _MAYBE_HEADING.search(text):
        return text
    lines = text.split("\n")
    for t in _md.parse(text):
        if t.type != "heading_open" or not t.map:
            continue
        level = min(6, int(t.tag[1]) + SHIFT)
        s, e = t.map
        if t.markup.startswith("#"):
            lines[s] = _ATX.sub(lambda m: m.group(1) + "#" * level, lines[s], count=1)
        elif e - 1 > s:  # setext: the underline goes, the text's first line becomes an ATX heading
            head = re.match(r"^([ \t]*(?:>[ \t]?)*[ \t]*)", lines[s]).group(1)
            lines[s] = head + "#" * level + " " + lines[s][len(head):].strip()
            lines[e - 1] = re.sub(r"[=\-]+[ \t]*$", "", lines[e - 1])
            for i in range(s + 1, e - 1):  # (a setext heading of several lines: ATX takes one)
                lines[s] += " " + lines[i].lstrip(" \t>")
                lines[i] = re.sub(r"[^>]+$", "", lines[i])
    return "\n".join(lines)


def file_refs(text: str) -> str:
    """Links to a file with lines (render.filerefs: ``[next.config.js](next.config.js:190:4-201:6)``)
    as the file's name and lines in code (``next.config.js:190–201``): GitHub would read the target
    as a URL scheme and drop it. Code blocks and code spans are left as written."""
    if "](" not in text or not any(file_ref(m.group(2)) for m in LINK_SOURCE.finditer(text)):
        return text
    code = {i for t in _md.parse(text) if t.type in ("fence", "code_block") and t.map for i in range(*t.map)}
    return "\n".join(ln if i in code else refs_as_text(ln, lambda shown: f"`{shown}`")
                     for i, ln in enumerate(text.split("\n")))


def prose(text: str) -> str:
    """Untrusted Markdown prose → Markdown that renders the same but cannot break what follows (its
    headings demoted below the export's own)."""
    return end_list(close_fences(escape_html(demote_headings(file_refs(normalise(text))))))


def quoted_prose(text: str) -> str:
    """Prose as a blockquote. Escaped after quoting: the '> ' prefix changes how a line parses
    (a tab-indented '<tag>' is code at top level but HTML inside a quote). A fence left open
    inside the quote ends with the quote."""
    lines = demote_headings(file_refs(normalise(text))).rstrip("\n").split("\n")
    return escape_html("\n".join(("> " + ln) if ln.strip() else ">" for ln in lines) + "\n")


def top_level_blocks(text: str) -> list[tuple[list[str], str | None]]:
    """The lines of each top-level block, covering every line, with the block's fence markup (or None)."""
    lines = text.split("\n")
    out: list[tuple[list[str], str | None]] = []
    pos = 0
    for t in _md.parse(text):
        if t.level != 0 or not t.map or t.nesting == -1 or t.map[0] < pos:
            continue
        s, e = t.map
        if s > pos:
            out.append((lines[pos:s], None))  # blank lines (or lines a parser skipped) between blocks
        out.append((lines[s:e], t.markup if t.type == "fence" else None))
        pos = e
    if pos < len(lines):
        out.append((lines[pos:], None))
    return out


def prose_pieces(text: str, limit: int, render=prose) -> list[str]:
    """Cut prose into pieces, each ``render(piece)`` and at most ``limit`` characters (how, and why
    the cost stays near linear: docs/export.md)."""
    text = normalise(text)
    if len(text) <= limit:
        whole = render(text)
        if len(whole) <= limit:
            return [whole]
    units = top_level_blocks(text)
    raw = [sum(len(ln) + 1 for ln in ls) for ls, _ in units]
    pieces: list[str] = []
    i = 0
    ratio = 1.0  # rendered/raw size of the last piece: escaping grows some texts a lot
    while i < len(units):
        j, out = _fill(units, raw, i, limit / ratio, limit, render)
        if len(out) > limit:  # one block alone is too big: cut it between lines
            pieces.extend(_split_lines(units[i][0], units[i][1], limit, render))
            i += 1
            continue
        ratio = max(1.0, len(out) / max(1, sum(raw[i:j])))
        pieces.append(out)
        i = j
    return [p for p in pieces if p.strip()]


def _fill(units: list, raw: list[int], i: int, guess: float, limit: int, render) -> tuple[int, str]:
    """(j, rendering) of the blocks units[i:j] that fit in ``limit`` rendered (at least one block),
    starting from the run whose raw size fits in ``guess``."""
    j, total = i, 0
    while j < len(units) and total + raw[j] <= guess:
        total += raw[j]
        j += 1
    j = max(j, i + 1)
    while True:
        out = render("\n".join(ln for ls, _ in units[i:j] for ln in ls))
        if len(out) <= limit or j == i + 1:
            return j, out
        # Too long: drop blocks from the end worth the overflow (a little more), and retry.
        grow = len(out) / max(1, sum(raw[i:j]))
        need = (len(out) - limit) * 1.1 / grow
        while j > i + 1 and need > 0:
            j -= 1
            need -= raw[j]


def _split_lines(ls: list[str], markup: str | None, limit: int, render) -> list[str]:
    """One top-level block too big for a piece: cut it between lines (or characters)."""
    opener, body, closer = None, ls, None
    if markup:  # a fence: reopened and closed around each cut
        opener, body, closer = ls[0], ls[1:], markup
        if body and _CLOSER.match(body[-1]):
            closer, body = body[-1], body[:-1]

    def frame(chunk):
        return render("\n".join(([opener] + chunk + [closer]) if opener is not None else chunk))

    out = []
    i = 0
    while i < len(body):
        # The largest k with frame(body[i:i+k]) within the limit (binary search).
        lo, hi = 0, len(body) - i
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(frame(body[i:i + mid])) <= limit:
                lo = mid
            else:
                hi = mid - 1
        if lo == 0:
            out.extend(_split_chars(body[i], frame, limit))
            i += 1
        else:
            out.append(frame(body[i:i + lo]))
            i += lo
    return out


def _split_chars(line: str, frame, limit: int) -> list[str]:
    out = []
    while line:
        n = min(len(line), limit)
        while n > 1:
            over = len(frame([line[:n]])) - limit
            if over <= 0:
                break
            n = max(1, n - over)
        out.append(frame([line[:n]]))
        line = line[n:]
    return out


def code_pieces(text: str, lang: str, limit: int, label: str, cont_label: str) -> list[str]:
    """``label`` + a fenced block of ``text``, cut between lines into pieces of at most ``limit`` (the
    pieces after the first labelled ``cont_label``)."""
    longest_run = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest_run + 1)  # longer than any backtick run inside: nothing inside can end it

    def frame(chunk: str, lab: str) -> str:
        body = chunk if chunk.endswith("\n") else chunk + "\n"
        return f"{lab}{fence}{lang}\n{body}{fence}\n"

    whole = frame(text, label)
    if len(whole) <= limit:
        return [whole]
    overhead = len(frame("", cont_label)) + 1
    room = limit - overhead
    if room < 16:
        raise ValueError("limit too small for a fenced block")
    chunks = []
    buf = ""
    for ln in text.splitlines(keepends=True):
        if buf and len(buf) + len(ln) > room:
            chunks.append(buf)
            buf = ""
        while len(ln) > room:  # a line longer than a piece: cut between characters
            chunks.append(ln[:room])
            ln = ln[room:]
        buf += ln
    if buf or not chunks:
        chunks.append(buf)
    return [frame(chunk, label if i == 0 else cont_label) for i, chunk in enumerate(chunks)]
