"""Code with its line numbers, and diffs: what the file views (Read, Write, Edit) are made of."""

from __future__ import annotations

import operator
import re
from functools import lru_cache

from ccreport.render.codelang import BROWSER_COLOUR_MAX, prism_language
from ccreport.render.markup import FOLD_LINES, cut, esc, highlight_lines, in_browser
from ccreport.render.tools.base import as_str
from ccreport.render.tools.worddiff import marked_lines, unified_diff


def numbered(text: str, filename: str | None = None, start: int = 1, sep: str = "", numbers=None,
             fold: bool = True, browser: bool | None = None) -> str:
    """Code with its real line numbers in a gutter, folded after FOLD_LINES lines.

    ``sep`` is the separator Claude Code put between number and text (``→`` or a tab): kept in a
    hidden span so the page text still reads as the model saw it (search, copy of a whole block).
    ``browser``: colours by assets/code.js, not pygments (default: markup.colours_in_browser()).
    """
    if browser is None:
        browser = in_browser()
    text, note = cut(text)
    if text.endswith("\n"):
        text = text[:-1]
    attr = ""
    if browser:
        lines = esc(text).split("\n")
        plang = prism_language(filename) if len(text) <= BROWSER_COLOUR_MAX else None
        attr = f' data-lang="{plang}"' if plang else ""
    else:
        lines = highlight_lines(text, filename)
    if numbers is None or len(numbers) != len(lines):
        numbers = range(start, start + len(lines))
    # Without a separator of its own, a hidden tab keeps the number a word apart from the code.
    s = f'<span class="lsep">{esc(sep or chr(9))}</span>'
    rows = _rows(numbers, lines, s)
    if fold and len(rows) > FOLD_LINES + 10:
        head, rest = rows[:FOLD_LINES], rows[FOLD_LINES:]
        # (tabindex: a numbered block keeps its lines unwrapped and scrolls sideways; keyboard users
        # must be able to reach and scroll it.)
        return (f'<pre class="code hl num" tabindex="0"{attr}>{chr(10).join(head)}</pre>'
                f'<details class="more"><summary>show all {len(rows):,} lines</summary>'
                f'<pre class="code hl num{" cont" if attr else ""}" tabindex="0"{attr}>{chr(10).join(rest)}</pre></details>{note}')
    return f'<pre class="code hl num" tabindex="0"{attr}>{chr(10).join(rows)}</pre>{note}'


# A row's number and separator spans, made once per process for the numbers files usually have:
# the rows are then one string concatenation each instead of a three-part f-string.
_ROW_HEADS = 8192


@lru_cache(maxsize=16)
def _row_heads(sep_html: str, bound: int) -> list[str]:
    # (made up to the power of two the rows need: all 8,192 cost a small build more than they save)
    return [f'<span class="ln">{n}</span>{sep_html}' for n in range(bound)]


def _bound(end: int) -> int:
    """The power of two (at least 256) that numbers below ``end`` are made up to."""
    return max(256, 1 << (end - 1).bit_length())


def _rows(numbers, lines: list[str], sep_html: str) -> list[str]:
    """Each line with its number and separator spans in front."""
    if lines and isinstance(numbers, range) and numbers.step == 1 and 0 <= numbers.start <= _ROW_HEADS - len(lines):
        end = numbers.start + len(lines)
        return list(map(operator.add, _row_heads(sep_html, _bound(end))[numbers.start:end], lines))
    if lines and not isinstance(numbers, range) and 0 <= min(numbers) and max(numbers) < _ROW_HEADS:
        return list(map(operator.add, map(_row_heads(sep_html, _bound(max(numbers) + 1)).__getitem__, numbers), lines))
    return [f'<span class="ln">{n}</span>{sep_html}{ln}' for n, ln in zip(numbers, lines)]


_NUMBERED = re.compile(r"^ *(\d+)(→|\t)(.*)$")
# The same, for a whole block at once (one C-level pass instead of a Python loop per line).
_BLOCK = {"→": re.compile(r"(?: *\d+→[^\n]*(?:\n|\Z))+"), "\t": re.compile(r"(?: *\d+\t[^\n]*(?:\n|\Z))+")}


def parse_numbered(text: str):
    """Split ``cat -n`` style text (``   12→code`` or ``12\\tcode``) into (numbers, code, sep, tail).

    ``tail`` is what follows the numbered block (system reminders). None when the text is not numbered.
    """
    first = _NUMBERED.match(text[: text.find("\n")] if "\n" in text else text)
    if first is None:
        return _parse_numbered_lines(text)
    sep = first.group(2)
    end = _BLOCK[sep].match(text).end()
    rest = text[end:]
    if "\n" in rest and rest[: rest.find("\n")].strip() == "":
        # A blank line, then more numbered lines? Then the block goes on: the careful path.
        after = rest[rest.find("\n") + 1:]
        if _NUMBERED.match(after[: after.find("\n")] if "\n" in after else after):
            return _parse_numbered_lines(text)
    block = text[:end]
    lines = (block[:-1] if block.endswith("\n") else block).split("\n")
    padded = _padded_block(lines) if sep == "→" else None
    if padded is not None:
        return (*padded, sep, rest.strip())
    # Every line of the block is " *<digits><sep>…" (the match above): a partition per line is exact,
    # and 3× faster than a multiline regex, which tries every position of the text.
    # (zip and map: the numbers and the code come apart at C level, 2× a loop over the partitions)
    heads, _, code = zip(*[ln.partition(sep) for ln in lines])
    return list(map(int, heads)), "\n".join(code), sep, rest.strip()


# Claude Code's usual form: each number right-aligned in 6 columns, then "→", the numbers running on
# by one. The heads of lines a..b are then one slice of a string of all heads below a bound, and a
# block in that form comes apart in C-level passes (no Python step per line: half the time of the
# partitions below).
_HEAD, _CODE = operator.itemgetter(slice(0, 7)), operator.itemgetter(slice(7, None))


@lru_cache(maxsize=8)
def _padded_heads(bound: int) -> str:
    return "".join(map("{:>6}→".format, range(bound)))


def _padded_block(lines: list[str]) -> tuple[list[int], str] | None:
    """(numbers, code) of a block's lines when they are in the padded form, else None."""
    try:
        first = int(lines[0][:6])
    except ValueError:  # (a shorter number: "12→…")
        return None
    end = first + len(lines)
    if end > _ROW_HEADS:
        return None
    # (the heads' total length is 7 per line only when every head is whole: they cannot misalign)
    if "".join(map(_HEAD, lines)) != _padded_heads(_bound(end))[7 * first:7 * end]:
        return None
    return list(range(first, end)), "\n".join(map(_CODE, lines))


def _parse_numbered_lines(text: str):
    lines = text.split("\n")
    nums, code, sep = [], [], None
    for i, ln in enumerate(lines):
        m = _NUMBERED.match(ln)
        if not m or (sep is not None and m.group(2) != sep):
            if ln.strip() == "" and i + 1 < len(lines) and _NUMBERED.match(lines[i + 1] or ""):
                nums.append(None)
                code.append("")
                continue
            break
        sep = m.group(2)
        nums.append(int(m.group(1)))
        code.append(m.group(3))
    else:
        i = len(lines)
    if not nums or sep is None:
        return None
    # Blank separator lines inside the block get the number after their neighbour.
    fixed = []
    for n in nums:
        fixed.append(n if n is not None else (fixed[-1] + 1 if fixed else 1))
    return fixed, "\n".join(code), sep, "\n".join(lines[i:]).strip()


# --- diffs --------------------------------------------------------------------------------------
def diff_lines(old: str, new: str) -> list[str]:
    """The hunks of a unified diff (3 lines of context) between two texts, without its file header."""
    return list(unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))[2:]


# A diff line's span by its first characters (the class of its kind of line).
_SPANS = {"+": '<span class="add">', "-": '<span class="del">', "@@": '<span class="hunk">', "": '<span class="ctx">'}


def _escaped(lines: list[str]) -> list[str]:
    """esc of each line, in one call over the joined text (a diff has thousands of short lines); line
    by line when a line holds a newline of its own (a hostile patch)."""
    shown = esc("\n".join(lines)).split("\n")
    return shown if len(shown) == len(lines) else [esc(ln) for ln in lines]


def diff_html(lines) -> str:
    out = []
    words = marked_lines(lines)  # (the changed words of paired -/+ lines, render.tools.worddiff)
    shown = _escaped(lines)
    for i, ln in enumerate(lines):
        head = _SPANS.get(ln[:1]) or (_SPANS["@@"] if ln.startswith("@@") else _SPANS[""])
        # The newline sits inside the (block) span: between spans it would add an empty line.
        out.append(f"{head}{words.get(i) or shown[i]}\n</span>")
    if not out:
        return '<p class="dim">(no change)</p>'
    if len(out) > FOLD_LINES * 3:
        return (f'<pre class="diff" tabindex="0">{"".join(out[:FOLD_LINES])}</pre><details class="more"><summary>show all '
                f'{len(out):,} diff lines</summary><pre class="diff" tabindex="0">{"".join(out[FOLD_LINES:])}</pre></details>')
    return f'<pre class="diff" tabindex="0">{"".join(out)}</pre>'


def diff_stat(lines) -> str:
    add = sum(1 for x in lines if x.startswith("+"))
    rem = sum(1 for x in lines if x.startswith("-"))
    return f' <span class="dstat"><span class="dadd">+{add}</span> <span class="ddel">−{rem}</span></span>'


def patch_lines(patch) -> list[str] | None:
    if not isinstance(patch, list) or not patch:
        return None
    out = []
    for h in patch:
        if not isinstance(h, dict) or not isinstance(h.get("lines"), list):
            return None
        out.append(f'@@ -{h.get("oldStart", "?")},{h.get("oldLines", "?")} +{h.get("newStart", "?")},{h.get("newLines", "?")} @@')
        out.extend(as_str(x) for x in h["lines"])
    return out
