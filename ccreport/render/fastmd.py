"""Markdown through markdown-it-pyrs (markdown-it's Rust port, ~20× faster), with markup.py's
safety rules applied to its output by pattern: sound only because raw HTML is off (docs/render.md).
"""

from __future__ import annotations

import os
import re
import sys
from html import escape, unescape
from urllib.parse import unquote
from typing import Callable

from ccreport.render.filerefs import ref_html

try:
    from markdown_it_pyrs import MarkdownIt as _RsMarkdownIt
except ImportError:  # pragma: no cover - depends on the platform's wheels
    _RsMarkdownIt = None

# CommonMark without html_block/html_inline (raw HTML off), plus GFM tables and strikethrough:
# the same syntax as markup.py's MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"]).
RULES = ["blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference",
         "autolink", "backticks", "emphasis", "entity", "escape", "image", "link", "newline",
         "strikethrough", "table"]

_md = _RsMarkdownIt("zero").enable_many(RULES) if _RsMarkdownIt is not None else None

_LINK = re.compile(r'<a href="([^"]*)"((?: title="[^"]*")?)>(.*?)</a>', re.S)
_IMAGE = re.compile(r'<img src="([^"]*)" alt="([^"]*)"((?: title="[^"]*")?) />')
_CODE = re.compile(r'<pre><code(?: class="language-([^"]*)")?>(.*?)</code></pre>', re.S)


def available() -> bool:
    return _md is not None


def _source_title(title_attr: str) -> str:
    # ' title="x"' → ' "x"' (still escaped), for showing a refused link as its source text
    return f' "{title_attr[8:-1]}"' if title_attr else ""


class Unrenderable(Exception):
    """The Rust renderer gave up on this text (the caller renders it with markdown-it-py)."""


_fds: tuple[int, ...] | None = None  # (/dev/null, a copy of the real fd 2) from first use; (): fd 2 is closed


def _quiet_render(text: str) -> str:
    # markdown-it.rs panics on a few inputs ("[`"), and Rust's panic hook writes to fd 2 before
    # pyo3 raises: fd 2 points at /dev/null during the call (docs/render.md says what that costs).
    global _fds
    if _fds is None:
        try:
            _fds = (os.open(os.devnull, os.O_WRONLY), os.dup(2))
        except OSError:
            _fds = ()
    if _fds:
        try:
            sys.stderr.flush()
        except (AttributeError, ValueError, OSError):
            pass
        os.dup2(_fds[0], 2)
    try:
        return _md.render(text)
    except BaseException as exc:  # pyo3's PanicException derives from BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise Unrenderable(str(exc)[:200]) from None
    finally:
        if _fds:
            os.dup2(_fds[1], 2)


_ALIGN = re.compile(r' style="text-align:\s*(left|center|right);?"')


def _checked(html: str, pattern: re.Pattern, checks: tuple, shapes: tuple) -> str:
    """Every match of pattern (its first group the target URL) in the shape of the first check its
    target passes (the last shape when none does)."""
    def one(m: re.Match) -> str:
        url = unescape(m.group(1))
        shape = next((f for check, f in zip(checks, shapes) if check(url)), shapes[-1])
        return shape(*m.groups())
    return pattern.sub(one, html)


def _ref_html(ref, inner: str) -> str:
    return ref_html(ref, None if ref.names(unescape(re.sub(r"</?code>", "", inner))) else inner)


def _target(href: str) -> str:
    # as markup.rlink_target: the URL as written, escaped again
    return f' <code class="rlink-target">{escape(unquote(unescape(href)), quote=True)}</code>'


def render(text: str, highlight: Callable[[str, str | None], str], validate: Callable[[str], bool],
           relative: Callable[[str], bool] = lambda url: False, file_ref=lambda url: None) -> str:
    """HTML for ``text``; raises Unrenderable when the Rust renderer fails on it. Links and images
    whose target passes ``validate`` stay links; a ``file_ref`` (render.filerefs) shows the file's
    name and lines; ``relative`` ones (a file of the user's project) show their text and target; any
    other shows its Markdown source."""
    html = _quiet_render(text)
    if "<a href=" in html:
        html = _checked(html, _LINK, (validate, lambda url: file_ref(url) is not None, relative), (
            lambda href, title, inner: f'<a href="{href}"{title} rel="noreferrer">{inner}</a>',
            lambda href, title, inner: _ref_html(file_ref(unescape(href)), inner),
            lambda href, title, inner: f'<span class="rlink">{inner}</span>{_target(href)}',
            lambda href, title, inner: f"[{inner}]({href}{_source_title(title)})"))
    if "<img " in html:
        html = _checked(html, _IMAGE, (validate, relative), (
            lambda src, alt, title: f'<a class="ext-img" href="{src}" rel="noreferrer">[image: {alt or src}]</a>',
            lambda src, alt, title: f'<span class="rlink">[image: {alt}]</span>{_target(src)}',
            lambda src, alt, title: f"![{alt}]({src}{_source_title(title)})"))
    if ' style="text-align:' in html:
        # The CSP forbids style attributes: aligned cells get markup.py's class (al-left, …).
        html = _ALIGN.sub(lambda m: f' class="al-{m.group(1)}"', html)
    if "<pre><code" in html:
        html = _CODE.sub(lambda m: highlight(unescape(m.group(2)), unescape(m.group(1)) if m.group(1) else None), html)
    return html
