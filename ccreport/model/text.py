"""Parsed JSON values as text, for the model (a text block that is not a string) and every renderer:
made without recursion, since transcript values can nest deeper than Python's recursion limit.
"""

from __future__ import annotations

import json as _json
import re

import orjson


def to_text(value) -> str:
    """Any parsed JSON value as text: lists and objects as JSON (str() of a 900-level list recurses
    past Python's limit)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json_text(value)
    return str(value)


def as_str(value) -> str:
    """A field that should be text, as text: None is "", another value its JSON text (to_text)."""
    return value if isinstance(value, str) else ("" if value is None else to_text(value))


class _Tok(str):
    """Literal JSON punctuation on json_text's stack (a value is never a _Tok)."""


def json_text(obj, indent: bool = False) -> str:
    """JSON text of any parsed value at any depth. orjson stops at 254 levels and at integers past
    64 bits; this falls back to an explicit stack (compact), never to recursion."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)).decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    out: list[str] = []
    stack: list = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, _Tok):
            out.append(x)
        elif isinstance(x, dict):
            parts: list = [_Tok("{")]
            for i, (k, v) in enumerate(x.items()):
                key = _json.dumps(k if isinstance(k, str) else str(k), ensure_ascii=False)
                parts += [_Tok(("" if i == 0 else ", ") + key + ": "), v]
            stack.extend(reversed(parts + [_Tok("}")]))  # popped in order
        elif isinstance(x, (list, tuple)):
            parts = [_Tok("[")]
            for i, v in enumerate(x):
                parts += [_Tok(", "), v] if i else [v]
            stack.extend(reversed(parts + [_Tok("]")]))
        else:
            try:
                out.append(_json.dumps(x, ensure_ascii=False))
            except (TypeError, ValueError):
                out.append(_json.dumps(str(x), ensure_ascii=False))
    return "".join(out)


def counted(n, noun: str, many: str | None = None) -> str:
    """"1 prompt", "2 prompts", "1,204 sessions": a count with its noun, singular for exactly one.
    ``n`` may be a number or its text as the pages show it ("1,204"); ``many``: an irregular plural."""
    text = f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else str(n)
    one = text.strip() in ("1", "-1")
    return f"{text} {noun if one else (many or noun + 's')}"


TITLE_MAX = 120  # a session's title, wherever it is shown

# Markdown's markers, for a preview that reads as text (the outline's prompts and answers, `list`'s
# titles): a heading's hashes, a quote's ">", a list's bullet or number, a table's pipes at the ends
# of a line; emphasis, code spans and strike-through around their text; a link or image as its text.
_LINE_MARK = re.compile(r"^(?:\s*(?:#{1,6}(?=\s|$)|>|[-*+](?=\s)|\d{1,9}[.)](?=\s)|\[[ xX]\](?=\s)))+\s*")
# Each with what a match must hold: a line without it is not searched (most lines have none of these,
# and a substitution with a group reference costs a Python call on every line, match or not).
_INLINE = [
    (("](",), re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"), r"\1"),  # [text](url), ![alt](src)
    (("`",), re.compile(r"(`+)(.+?)\1"), r"\2"),  # `code`, ``code``
    (("**", "__"), re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # **strong**, __strong__
    (("*",), re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"), r"\1"),  # *em*
    (("_",), re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])"), r"\1"),  # _em_ (not snake_case)
    (("~~",), re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),  # ~~struck~~
]
# A line that is only a rule (---, ***, ===) or a table's separator row.
_RULE = re.compile(r"(?:[-*_=]\s*){3,}|\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*")


def plain_markdown(line: str) -> str:
    """One line of Markdown as the text a reader sees: its markers gone, its words kept
    ("## `_get_x`" → "_get_x", "- **New files:**" → "New files:"). A line that is only a rule
    (---) or a table's separator row comes back empty."""
    text = line.strip()
    if _RULE.fullmatch(text):
        return ""
    text = _LINE_MARK.sub("", text)
    if text.startswith("|") and text.endswith("|") and len(text) > 1:
        text = " · ".join(c.strip() for c in text[1:-1].split("|") if c.strip())
    for needles, pattern, repl in _INLINE:
        if any(map(text.__contains__, needles)):
            text = pattern.sub(repl, text)
    return text.strip()


def plain_text(text: str) -> str:
    """Several lines of Markdown as one line of plain text (plain_markdown of each, joined)."""
    return " ".join(x for x in (plain_markdown(ln) for ln in str(text).splitlines()) if x)


def session_title(title: str | None) -> str:
    """A session's title as every page shows it: one line of text (a title taken from a prompt
    may hold Markdown), cut at a word."""
    return cut_words(plain_text(title or "") or "(untitled session)", TITLE_MAX)


def cut_words(text: str, n: int) -> str:
    """Text on one line, cut at the last word boundary before n characters with "…" (a text with
    no space in its first n characters is cut at n)."""
    text = " ".join(str(text).split())
    if len(text) <= n:
        return text
    head = text[: n - 1]
    space = head.rfind(" ")
    if space > n // 2:
        head = head[:space]
    return head.rstrip(" ,;:.-") + "…"
