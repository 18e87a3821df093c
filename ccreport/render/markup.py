"""Text → safe HTML: escaping, markdown, code highlighting, ANSI colours, folding. All input is
untrusted: docs/render.md states the rules."""

from __future__ import annotations

import contextvars
import os
import re
from contextlib import contextmanager
from functools import lru_cache
from urllib.parse import unquote

from pygments import highlight as _pyg_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from ccreport.model.text import to_text
from ccreport.render import fastmd
from ccreport.render.filerefs import file_ref, ref_html
from ccreport.render.codelang import BROWSER_COLOUR_MAX, extension, lexer_name, prism_for_name, prism_language

# Past these sizes the cost of a pretty rendering outweighs its use: plain escaped text instead.
HIGHLIGHT_MAX = 60_000
# File contents (Read/Write) are the bulk of highlighting work (pygments' Python lexer runs at
# ~200 KB/s): past this size they keep their line numbers but are not coloured.
CODE_HIGHLIGHT_MAX = min(HIGHLIGHT_MAX, 4_000)
MARKDOWN_MAX = 200_000
# Long text is folded: the head shows, the rest sits in a <details> that states its full size.
FOLD_LINES = 40
FOLD_CHARS = 6_000
# A single block is never rendered past this; the page says how much was cut.
RENDER_MAX = 1_000_000


# C0 control characters (but tab, newline, carriage return) and DEL have no glyph: raw in a page
# they vanish or break the text (NUL in a malformed line), so each shows as its Control Pictures
# symbol (NUL → ␀, ESC → ␛, DEL → ␡). Bidi controls and zero-width characters have no glyph either,
# and an override reorders what follows it ("a\u202etxt.exe" reads "aexe.txt"): each shows as its
# code point (⟨U+202E⟩). Plain text, so it is safe in attributes as in bodies; the search data keep
# the characters (they are made from the text, not from the pages).
INVISIBLE = "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff"
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f" + INVISIBLE + "]")
_PICTURES = ({c: 0x2400 + c for c in [*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20)]} | {0x7f: 0x2421}
             | {ord(c): f"\u27e8U+{ord(c):04X}\u27e9" for c in INVISIBLE})


# The same characters as bytes: in UTF-8 no byte of a multi-byte character is below 0x80, so a
# page's encoded bytes hold one of these exactly when its text holds the character.
_CONTROL_BYTES = bytes([*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f])
# The invisible ones are multi-byte: searched for among a text's non-ASCII characters only (one
# C-level pass drops the plain ASCII bytes; what is left keeps each character's bytes together).
_PLAIN_ASCII = bytes(b for b in range(0x80) if b not in _CONTROL_BYTES)
_INVISIBLE_CHARS = re.compile(f"[{INVISIBLE}]")


def controls_free(raw: bytes) -> bool:
    """Whether UTF-8 ``raw`` has none of CONTROL_CHARS (C-level passes; most of a page is ASCII)."""
    rest = raw.translate(None, _PLAIN_ASCII)
    if not rest:
        return True
    if len(rest.translate(None, _CONTROL_BYTES)) != len(rest):
        return False
    return _INVISIBLE_CHARS.search(rest.decode("utf-8", "surrogatepass")) is None


def has_controls(text: str) -> bool:
    """Whether ``text`` holds one of CONTROL_CHARS. A long text is checked on its UTF-8 bytes (as
    controls_free does): ~3x the regex's speed past a few hundred characters, slower below."""
    if len(text) < 512:
        return CONTROL_CHARS.search(text) is not None
    return not controls_free(text.encode("utf-8", "surrogatepass"))  # (a lone surrogate: 3 bytes ≥ 0x80)


INVISIBLE_SHOWN = {ord(c): _PICTURES[ord(c)] for c in INVISIBLE}
# A zero-width joiner between two pictographs joins an emoji sequence (👩‍💻, 🏳️‍🌈): it is how the
# emoji is written, not a hidden character, and stays as it is.
_PICTOGRAPH = "☀-➿⬀-⯿🀀-🫿"
_EMOJI_JOINER = re.compile(f"(?<=[{_PICTOGRAPH}️])‍(?=[{_PICTOGRAPH}])")


def _shown(text: str, table: dict) -> str:
    """str.translate, but an emoji sequence's joiners kept (rare: only text holding U+200D looks)."""
    if "\u200d" in text and _EMOJI_JOINER.search(text):
        return "\u200d".join(part.translate(table) for part in _EMOJI_JOINER.split(text))
    return text.translate(table)


def show_invisible(text: str) -> str:
    """``text`` with its bidi controls and zero-width characters as their code points (⟨U+202E⟩),
    the rest as it is: for terminal output and Markdown, which show the other controls their own way."""
    return text if text.isprintable() or _INVISIBLE_CHARS.search(text) is None else _shown(text, INVISIBLE_SHOWN)


def show_controls(text: str) -> str:
    """``text`` with its control characters as visible symbols (the same type: Markup stays Markup)."""
    # (isprintable: a C scan that clears a title, a name or a URL at once, as in esc; text with a
    # newline stops it at the first one and is searched)
    if text.isprintable() or not has_controls(text):
        return text
    return type(text)(_shown(str(text), _PICTURES))


def esc(value) -> str:
    # html.escape(quote=True) spelled out: the same five replacements without its extra call
    # layer (esc runs tens of thousands of times per page set: ~30% cheaper per call).
    if value.__class__ is not str:
        # str() of a str subclass (markupsafe.Markup) is a plain str, so its escaping ``replace``
        # never double-escapes; other values become their text (JSON for lists/objects).
        value = str(value) if isinstance(value, str) else to_text(value)
    if len(value) >= _ESC_BYTES_MIN and not value.isascii():
        return _esc_long(value)
    # (isprintable: a fast C scan that clears most short strings; one with a newline is searched)
    if not value.isprintable() and has_controls(value):
        value = _shown(value, _PICTURES)
    return _replaced(value)


def _replaced(value: str) -> str:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#x27;"))


# A long text that is not ASCII (a file with a "→" in it is stored two bytes a character) is escaped
# on its UTF-8 bytes: the control check needs them anyway (has_controls), bytes.replace finds a
# character with memchr where str.replace steps through the wide string, and the five escapes
# touch only ASCII bytes, never part of a multi-byte character. ~2x str.replace past this size.
_ESC_BYTES_MIN = 512


def _esc_long(value: str) -> str:
    raw = value.encode("utf-8", "surrogatepass")  # (a lone surrogate comes back as it was)
    if not controls_free(raw):
        return _replaced(_shown(value, _PICTURES))
    return (raw.replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;")
            .replace(b'"', b"&quot;").replace(b"'", b"&#x27;")).decode("utf-8", "surrogatepass")


def human_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


# --- markdown ---------------------------------------------------------------------------------
_SAFE_LINK = re.compile(r"^(https?:|mailto:)", re.I)


def safe_link(url) -> bool:
    """True for a URL from transcript text that may become a link (http, https, mailto only).

    A relative link in transcript text names a file in the user's project, not a page of this
    site, and javascript:/data: must never be clickable."""
    return isinstance(url, str) and bool(_SAFE_LINK.match(url.strip()))


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def relative_link(url) -> bool:
    """True for a link to a file of the user's project (no scheme, not //host): it is shown as its
    text and its target in code, never as a live link (it would resolve against this site)."""
    if not isinstance(url, str):
        return False
    u = url.strip()
    return bool(u) and not u.startswith("//") and not _SCHEME.match(u)


def shown_link(url) -> bool:
    """The links markdown parses as links: those that become links and those shown as text + target
    (a file reference, render.filerefs, included: ``next.config.js:190`` reads as a URL scheme)."""
    return safe_link(url) or relative_link(url) or file_ref(url) is not None


def rlink_target(href: str) -> str:
    """The target of a relative link as code (as written: the renderer's %-encoding undone)."""
    return f' <code class="rlink-target">{esc(unquote(href))}</code>'


def _render_image(self, tokens, idx, options, env):
    tok = tokens[idx]
    src = tok.attrGet("src") or ""
    alt = self.renderInline(tok.children or [], options, env) if tok.children else esc(tok.content)
    if not safe_link(src):
        return f'<span class="rlink">[image: {alt}]</span>{rlink_target(src)}'
    return f'<a class="ext-img" href="{esc(src)}" rel="noreferrer">[image: {alt or esc(src)}]</a>'


def _render_link_open(self, tokens, idx, options, env):
    href = tokens[idx].attrGet("href") or ""
    ref = None if safe_link(href) else file_ref(href)
    inner = tokens[idx + 1] if idx + 2 < len(tokens) and tokens[idx + 2].type == "link_close" else None
    whole = ref is not None and inner is not None and inner.type in ("text", "code_inline") and ref.names(inner.content)
    env.setdefault("links", []).append((href, ref, whole))
    if whole:  # the text only repeats the file's name: the reference alone shows it (with its lines)
        inner.type, inner.content = "text", ""
        return ""
    if not safe_link(href):
        return '<span class="rlink">'
    tokens[idx].attrSet("rel", "noreferrer")
    return self.renderToken(tokens, idx, options, env)


def _render_link_close(self, tokens, idx, options, env):
    href, ref, whole = env["links"].pop() if env.get("links") else ("", None, False)
    if ref is not None:
        return ref_html(ref, None) if whole else "</span> " + ref_html(ref, None)
    return "</span>" + rlink_target(href) if not safe_link(href) else self.renderToken(tokens, idx, options, env)


def _render_cell_open(self, tokens, idx, options, env):
    # Aligned table columns come as style="text-align:left" (center, right: markdown-it's table rule
    # makes no other); the CSP forbids style attributes, so the alignment becomes a class (al-left…).
    tok = tokens[idx]
    style = tok.attrs.pop("style", None)
    if style:
        tok.attrSet("class", "al-" + str(style).removeprefix("text-align:"))
    return self.renderToken(tokens, idx, options, env)


def _code_block(code: str, lang: str | None, _attrs=None) -> str:
    return highlight(code, lang=lang or None, wrap=False)


@lru_cache(maxsize=1)
def _reference_md():
    """markdown-it-py, the reference renderer: made on first use, as fastmd renders all but a few
    texts (importing markdown-it-py cost every build process ~22 ms, 1% of a small home's build)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "highlight": _code_block})
    md.enable(["table", "strikethrough"])
    md.validateLink = shown_link
    normalize = md.normalizeLink  # (which would read "next.config.js:190:4" as scheme, host and port)
    md.normalizeLink = lambda url: url if file_ref(url) is not None else normalize(url)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("link_close", _render_link_close)
    md.add_render_rule("th_open", _render_cell_open)
    md.add_render_rule("td_open", _render_cell_open)
    return md


# The Rust port (fastmd) when its wheel is installed (docs/render.md); CCREPORT_MARKDOWN=py forces
# markdown-it-py, the reference renderer.
_use_fast = fastmd.available() and os.environ.get("CCREPORT_MARKDOWN", "").lower() != "py"


def markdown(text: str) -> str:
    if len(text) > MARKDOWN_MAX:
        return pre(text)
    text = show_controls(text)  # before the parser, which would turn a NUL into U+FFFD
    if _use_fast:
        try:
            return fastmd.render(text, _code_block, safe_link, relative_link, file_ref)
        except fastmd.Unrenderable:
            pass  # a text the Rust port cannot take: the reference renderer can
    return _reference_md().render(text)


# --- code highlighting ------------------------------------------------------------------------
_formatter = HtmlFormatter(nowrap=True, classprefix="")


@lru_cache(maxsize=256)
def _lexer_by_name(name: str):
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=512)
def _lexer_by_ext(ext: str):
    # By name where codelang knows the extension: pygments' own filename lookup imports every
    # lexer module on first use (about a second per process).
    name = lexer_name(ext)
    lx = _lexer_by_name(name) if name is not None else None
    if lx is not None:
        return lx
    try:
        return get_lexer_for_filename("x." + ext, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def lexer_for(lang: str | None = None, filename: str | None = None):
    if lang:
        lx = _lexer_by_name(lang.lower().strip()[:40])
        if lx is not None:
            return lx
    ext = extension(filename)
    return _lexer_by_ext(ext) if ext else None


# The site colours code in the browser (docs/render.md); the export, which carries no script,
# keeps pygments. The site's pages are rendered inside colours_in_browser().
_IN_BROWSER: contextvars.ContextVar[bool] = contextvars.ContextVar("ccreport_colours_in_browser", default=False)


@contextmanager
def colours_in_browser():
    token = _IN_BROWSER.set(True)
    try:
        yield
    finally:
        _IN_BROWSER.reset(token)


def in_browser() -> bool:
    return _IN_BROWSER.get()


def highlight(code: str, lang: str | None = None, filename: str | None = None, wrap: bool = True) -> str:
    """Highlighted HTML for code (escaped plain text when unknown or too big).

    Under colours_in_browser(): escaped text with the Prism language in ``data-lang``."""
    if _IN_BROWSER.get():
        plang = (prism_for_name(lang) or (prism_language(filename) if not lang else None)
                 if len(code) <= BROWSER_COLOUR_MAX else None)
        attr = f' data-lang="{plang}"' if plang else ""
        return f'<pre class="code hl"{attr}>{esc(code)}</pre>' if wrap else f'<pre class="code hl"{attr}><code>{esc(code)}</code></pre>'
    body = _coloured(code, lexer_for(lang, filename) if len(code) <= HIGHLIGHT_MAX else None)
    return f'<pre class="code hl">{body}</pre>' if wrap else f'<pre class="code hl"><code>{body}</code></pre>'


def highlight_lines(text: str, filename: str | None) -> list[str]:
    """One balanced HTML string per source line (pygments closes spans at every line end)."""
    return _coloured(text, lexer_for(None, filename) if len(text) <= CODE_HIGHLIGHT_MAX else None).split("\n")


def _coloured(code: str, lexer) -> str:
    body = _pyg_highlight(code, lexer, _formatter) if lexer is not None else esc(code)
    return body[:-1] if body.endswith("\n") and not code.endswith("\n") else body


def stylesheet() -> str:
    """The pygments rules, light and dark, for the shared stylesheet."""
    light = HtmlFormatter(style="default", classprefix="").get_style_defs(".hl")
    dark = HtmlFormatter(style="monokai", classprefix="").get_style_defs(":root[data-theme=dark] .hl")
    dark_auto = HtmlFormatter(style="monokai", classprefix="").get_style_defs(":root:not([data-theme=light]) .hl")
    # Backgrounds come from our own stylesheet.
    strip = lambda css: re.sub(r"^.*\{ background[^}]*\}\s*$", "", css, flags=re.M)
    return (strip(light) + "\n" + strip(dark) + "\n@media (prefers-color-scheme: dark) {\n"
            + strip(dark_auto) + "\n}\n")


# --- ANSI colours -----------------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def ansi_to_html(text: str) -> str:
    """Escaped text with SGR colour/bold sequences as classed spans; other escapes removed."""
    if "\x1b" not in text:
        return esc(text)
    out: list[str] = []
    classes: list[str] = []  # in force, and a <span> open for them when there are any
    pos = 0
    for m in _ANSI.finditer(text):
        out.append(esc(text[pos : m.start()]))
        pos = m.end()
        if m.group(1) is None and not m.group(0).endswith("m"):
            continue  # cursor movement, title setting, …: no visible meaning in a page
        if classes:
            out.append("</span>")
        classes = _sgr_classes(classes, [int(c) if c.isdigit() else 0 for c in (m.group(1) or "0").split(";")])
        if classes:
            out.append(f'<span class="{" ".join(dict.fromkeys(classes))}">')
    out.append(esc(text[pos:]))
    if classes:
        out.append("</span>")
    return "".join(out)


# SGR codes that add a class, and those that take classes away (22: normal intensity, neither
# bold nor dim; 39/49: default colours).
_SGR_ADD = {1: "ansi-b", 2: "ansi-dim", 3: "ansi-i", 4: "ansi-u"}
_SGR_DROP = {22: ("ansi-b", "ansi-dim"), 23: ("ansi-i",), 24: ("ansi-u",)}


def _sgr_classes(classes: list[str], codes: list[int]) -> list[str]:
    """The classes in force after one SGR sequence's codes."""
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            classes = []
        elif c in _SGR_ADD:
            classes.append(_SGR_ADD[c])
        elif 30 <= c <= 37 or 90 <= c <= 97:
            classes = [k for k in classes if not k.startswith("ansi-fg")] + [f"ansi-fg{c}"]
        elif 40 <= c <= 47 or 100 <= c <= 107:
            classes = [k for k in classes if not k.startswith("ansi-bg")] + [f"ansi-bg{c}"]
        elif c in _SGR_DROP:
            classes = [k for k in classes if k not in _SGR_DROP[c]]
        elif c in (39, 49):
            classes = [k for k in classes if not k.startswith("ansi-fg" if c == 39 else "ansi-bg")]
        elif c in (38, 48) and i + 1 < len(codes):
            # 256-colour / true colour: no class for every value; keep the text plain.
            i += 2 if codes[i + 1] == 5 else 4
        i += 1
    return classes


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


# --- folding ----------------------------------------------------------------------------------
def cut(text: str) -> tuple[str, str]:
    """(text to render, note about what was cut or '')."""
    if len(text) <= RENDER_MAX:
        return text, ""
    return text[:RENDER_MAX], (f'<p class="cut">… {len(text) - RENDER_MAX:,} more characters not shown '
                               f"(this block holds {len(text):,} characters).</p>")


def pre(text: str, cls: str = "", ansi: bool = True, source: bool = True) -> str:
    """A <pre> of plain (or ANSI-coloured) text, folded when long, capped at RENDER_MAX.

    ANSI escapes vanish from the view (they become colours), so the text with its escapes follows,
    folded (source_fold); source=False when the caller appends the source of a larger whole itself.
    """
    src = source_fold(text) if source and ansi and "\x1b" in text else ""
    text, note = cut(text)
    conv = ansi_to_html if ansi else esc
    klass = f' class="{cls}"' if cls else ""
    if len(text) > FOLD_CHARS or text.count("\n") > FOLD_LINES:
        head, rest = _split_head(text)
        if rest:
            return (f"<pre{klass}>{conv(head)}</pre>"
                    f'<details class="more"><summary>show all {text.count(chr(10)) + 1:,} lines '
                    f"({human_size(len(text.encode('utf-8', 'replace')))})</summary>"
                    f"<pre{klass}>{conv(rest)}</pre></details>{note}{src}")
    return f"<pre{klass}>{conv(text)}</pre>{note}{src}"


def _split_head(text: str) -> tuple[str, str]:
    nl = -1
    for _ in range(FOLD_LINES):
        nxt = text.find("\n", nl + 1)
        if nxt < 0 or nxt > FOLD_CHARS:
            break
        nl = nxt
    # After the last newline in the head; a text without one there is cut at FOLD_CHARS.
    end = nl + 1 if nl >= 0 else min(len(text), FOLD_CHARS)
    return text[:end], text[end:]


# --- the source behind a transformed view ------------------------------------------------------
# Where a view drops characters of the original (convention tags, ANSI escapes), the original
# stays on the page, folded, so nothing is lost: the readable view above already shows the
# content, so this copy keeps only the head of the text (with the full size stated) to stay light.
SOURCE_MAX = 2_048
# Control characters show as the JSON escape the transcript file holds (ESC as \u001b): visible
# in any font (the ␛ picture is missing from common monospace fonts), valid HTML, and grep-able.
def _json_escape(m: re.Match) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def source_fold(original: str) -> str:
    """The original text of a block as a collapsed <details class="raw">, capped at SOURCE_MAX characters."""
    shown = original[:SOURCE_MAX]
    label = "source"
    if len(original) > SOURCE_MAX:
        label = (f"source ({human_size(len(original.encode('utf-8', 'replace')))}, "
                 f"first {SOURCE_MAX:,} of {len(original):,} characters shown)")
    return (f'<details class="raw"><summary>{esc(label)}</summary>'
            f"<pre>{esc(CONTROL_CHARS.sub(_json_escape, shown))}</pre></details>")
