"""The changed words inside a diff's changed lines: a removed line and the added line that replaces
it are compared word by word (difflib), and the words that differ are wrapped in ``<del>`` and
``<ins>`` (their text escaped), so a one-word edit in a long line is seen at once."""

from __future__ import annotations

import re
try:
    # difflib's algorithms compiled (Cython): the same opcodes and hunks, ~5× faster on the render
    # path of every Edit (tests/render/test_worddiff.py compares the two).
    from cydifflib import SequenceMatcher, unified_diff
except ImportError:  # pragma: no cover - a platform without its wheels
    from difflib import SequenceMatcher, unified_diff

from ccreport.render.markup import esc

# Bounds: the comparison is quadratic in the worst case and runs on the render path of every Edit,
# so a line longer than LINE_MAX characters (minified code, data) gets no word marks, and a pair
# with less than SAME_MIN of its characters in common is a rewrite, not an edit: marking nearly
# every word of it would say less than the line colours already do.
LINE_MAX = 500
SAME_MIN = 0.5
# Words, runs of spaces, and single other characters: "foo(bar, 2)" → foo ( bar , ␠ 2 ). (The last
# alternative is any character, DOTALL: one that reaches it is neither a word's nor a space, as
# [^\w\s] says, without testing both classes again: findall takes 2.4x less time on the corpus's lines.)
_TOKEN = re.compile(r"\w+|\s+|.", re.S)


def pair_html(old: str, new: str) -> tuple[str, str] | None:
    """The two lines' escaped HTML with the differing words marked, or None when the pair is past
    the bounds (too long, too little in common) or identical."""
    if old == new or len(old) > LINE_MAX or len(new) > LINE_MAX:
        return None
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    ops = _opcodes(a, b)
    same = sum(len("".join(a[i1:i2])) for tag, i1, i2, _, _ in ops if tag == "equal")
    if 2 * same < SAME_MIN * (len(old) + len(new)):
        return None
    return _side(ops, a, "del", 1, 2), _side(ops, b, "ins", 3, 4)


def _opcodes(a: list[str], b: list[str]) -> list[tuple]:
    """difflib's opcodes for the token lists, the common head and tail taken off first: an edit
    changes a few words inside a line, and the matcher's cost grows with what it is given."""
    head, most = 0, min(len(a), len(b))
    while head < most and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < most - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    ea, eb = len(a) - tail, len(b) - tail
    ops = [("equal", 0, head, 0, head)] if head else []
    if head < ea or head < eb:
        inner = SequenceMatcher(None, a[head:ea], b[head:eb], autojunk=False).get_opcodes() if head < ea and head < eb \
            else [("delete" if head < ea else "insert", 0, ea - head, 0, eb - head)]
        ops += [(t, i1 + head, i2 + head, j1 + head, j2 + head) for t, i1, i2, j1, j2 in inner]
    if tail:
        ops.append(("equal", ea, len(a), eb, len(b)))
    return ops


def _side(ops: list, tokens: list[str], mark: str, start: int, end: int) -> str:
    out = []
    for op in ops:
        text = "".join(tokens[op[start]:op[end]])
        if text:
            out.append(esc(text) if op[0] == "equal" else f"<{mark}>{esc(text)}</{mark}>")
    return "".join(out)


def marked_lines(lines: list[str]) -> dict[int, str]:
    """Index → escaped HTML of the diff lines that get word marks (the rest are shown whole): in
    each run of removed lines followed by added lines, the n-th removed line is paired with the
    n-th added one. The leading '-' / '+' stays outside the marks."""
    marked: dict[int, str] = {}
    i, n = 0, len(lines)
    while i < n:
        if not lines[i].startswith("-"):
            i += 1
            continue
        d = i
        while i < n and lines[i].startswith("-"):
            i += 1
        a = i
        while i < n and lines[i].startswith("+"):
            i += 1
        for k in range(min(a - d, i - a)):
            pair = pair_html(lines[d + k][1:], lines[a + k][1:])
            if pair is not None:
                marked[d + k], marked[a + k] = "-" + pair[0], "+" + pair[1]
    return marked
