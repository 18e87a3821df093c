"""Messages → HTML fragments.

Every string that came from a transcript goes through ``esc`` (or markdown with HTML off, or
pygments) before it reaches the page. Tool calls are rendered by ``tools.py``; the text
conventions Claude Code puts in user text (slash commands, bash mode, caveats…) by ``conventions.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ccreport.render import conventions
from ccreport.render import tools
from ccreport.render.blobs import BlobStore
from ccreport.model.text import json_text, to_text
from ccreport.render.markup import esc, highlight, human_size, markdown, pre, safe_link
from ccreport.model.messages import Message, ToolResult

JSON_SHOW_MAX = 20_000  # characters of a generic JSON card shown before folding the rest
# Media types allowed in data: URLs of an embedded (single-file) page.
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
# What a single-file export may carry as data: URLs: images only. A PDF (or anything else) in a
# data: link is a document the reader's browser would open from an attachment: described instead.
EMBED_TYPES = IMAGE_TYPES


@dataclass
class RenderContext:
    """What a fragment needs to know about where it is going."""

    root: str  # relative path from the page to the site root ("../../../")
    blobs: BlobStore | None = None
    agent_urls: dict = field(default_factory=dict)  # agent id → site-relative URL of its first page
    page_lines: set = field(default_factory=set)  # anchors present on this page
    tool_results_url: str | None = None  # site-relative folder of copied tool-results files
    tool_results: set = field(default_factory=set)  # file names available there
    parent_url: str | None = None  # for agent transcripts: the session's main page holding the call
    embed: bool = False  # export: inline blobs as data: URLs instead of files
    # name of a file in the session's tool-results/ → URL of its copy in the site (None: not there);
    # set by the build, which copies a file the first time a <persisted-output> names it.
    copy_tool_result: object = None

    def href(self, site_relative: str) -> str:
        return self.root + site_relative

    def blob(self, data: str, media_type: str) -> tuple[str | None, int]:
        if self.embed or self.blobs is None:
            import base64

            try:
                # validate=True: the text goes into a URL as it is, so it must be nothing but base64.
                size = len(base64.b64decode(data, validate=True))
            except Exception:
                return None, 0
            # Only media types a browser shows inertly go into a data: URL (never text/html, svg…);
            # anything else is described, not embedded.
            if media_type not in EMBED_TYPES:
                return None, size
            return f"data:{media_type};base64,{data}", size
        url, size = self.blobs.save_base64(data, media_type)
        return (self.root + url if url else None), size


def fmt_time(ts: str | None) -> str:
    if not ts:
        return ""
    shown = ts.replace("T", " ")[:19]
    return f'<time datetime="{esc(ts)}" title="{esc(ts)}">{esc(shown)}</time>'


def fmt_int(n: int) -> str:
    return f"{n:,}"


def usage_line(u: dict | None) -> str:
    if not u:
        return ""
    parts = [f'in {fmt_int(u.get("input_tokens", 0))}', f'out {fmt_int(u.get("output_tokens", 0))}']
    if u.get("cache_read_input_tokens"):
        parts.append(f'cache read {fmt_int(u["cache_read_input_tokens"])}')
    if u.get("cache_creation_input_tokens"):
        parts.append(f'cache write {fmt_int(u["cache_creation_input_tokens"])}')
    return '<span class="usage" title="tokens">' + " · ".join(parts) + "</span>"


def json_block(obj, limit: int = JSON_SHOW_MAX) -> str:
    text = json_text(obj, indent=True)
    if len(text) <= limit:
        return highlight(text, lang="json")
    return pre(text, cls="code")


def _header(who: str, m: Message, extra: str = "") -> str:
    anchor = f"L{m.line}"
    side = '<span class="badge">sub-agent</span>' if m.sidechain else ""
    return (f'<header><span class="who">{who}</span>{side}{extra}'
            f'<span class="when">{fmt_time(m.timestamp)}</span>'
            f'<a class="perma" href="#{anchor}" title="link to this message (line {m.line})">#</a></header>')


def render_message(m: Message, ctx: RenderContext) -> str:
    fn = _RENDERERS.get(m.kind, _render_other)
    return fn(m, ctx)


def _render_user(m: Message, ctx: RenderContext) -> str:
    entry = m.entry or {}
    parts = []
    kind_cls = "user"
    label = "User"
    typed = False  # a block a person typed keeps the message a "User" one, whatever else it holds
    for btype, payload in m.blocks:
        if btype == "text":
            html, cls, lab = conventions.user_text(payload, entry, ctx)
            parts.append(html)
            if cls is None:
                typed = True
                kind_cls, label = "user", "User"
            elif not typed:
                kind_cls, label = cls, lab
        elif btype == "image":
            parts.append(image_html(payload, ctx))
        elif btype == "document":
            parts.append(document_html(payload, ctx))
        else:
            parts.append(unknown_block(payload))
    if m.late_call and m.late_call.get("sidechain"):
        parts.insert(0, f'<p class="note">Sub-agent run started by the {esc(m.late_call["name"])} call '
                        f'<a href="#L{m.late_call["line"]}">on line {m.late_call["line"]}</a>.</p>')
    return (f'<article class="msg {kind_cls}{" side" if m.sidechain else ""}" id="L{m.line}">'
            f'{_header(esc(label), m)}<div class="body">{"".join(parts)}</div></article>')


def _render_assistant(m: Message, ctx: RenderContext) -> str:
    entry = m.entry or {}
    parts = []
    for btype, payload in m.blocks:
        if btype == "text":
            parts.append(f'<div class="md">{markdown(payload)}</div>' if payload.strip() else "")
        elif btype == "thinking":
            parts.append(thinking_html(payload))
        elif btype == "redacted_thinking":
            parts.append('<details class="thinking"><summary>Thinking (redacted by the API)</summary>'
                         f"{json_block(payload)}</details>")
        elif btype == "tool_use":
            parts.append(tools.render_call(payload, ctx))
        else:
            parts.append(unknown_block(payload))
    err = entry.get("isApiErrorMessage") or entry.get("error")
    if err:
        parts = [_api_error_html(entry, parts)]
    cls = "msg assistant" + (" api-error" if err else "") + (" side" if m.sidechain else "")
    meta = ""
    if m.model:
        meta += f'<span class="model">{esc(m.model)}</span>'
    meta += usage_line(m.usage)
    label = "API error" if err else "Assistant"
    lines = f' data-lines="{len(m.lines)}"' if len(m.lines) > 1 else ""
    return (f'<article class="{cls}" id="L{m.line}"{lines}>{_header(label, m, meta)}'
            f'<div class="body">{"".join(parts)}</div>{_extra_anchors(m)}</article>')


def _api_error_html(entry: dict, parts: list[str]) -> str:
    """A synthetic API-error reply as an error note: status, kind, the message, raw details folded."""
    chips = []
    if entry.get("apiErrorStatus") is not None:
        chips.append(f'<span class="chip errchip">HTTP {esc(entry["apiErrorStatus"])}</span>')
    if isinstance(entry.get("error"), str):
        chips.append(f'<span class="chip errchip">{esc(entry["error"])}</span>')
    details = entry.get("errorDetails")
    more = ""
    if isinstance(details, str) and details.strip():
        more = f'<details class="more"><summary>error details</summary>{pre(details)}</details>'
    return f'<div class="api-error-note"><p>⚠ {" ".join(chips)}</p>{"".join(parts)}{more}</div>'


def _extra_anchors(m: Message) -> str:
    # Every line of a merged message keeps an anchor, so #L<line> of any line resolves.
    return "".join(f'<span class="anchor" id="L{n}"></span>' for n in m.lines[1:])


def thinking_html(b: dict) -> str:
    text = b.get("thinking")
    if not isinstance(text, str) or not text.strip():
        signed = "with a signature, " if b.get("signature") else ""
        return f'<div class="thinking empty">Thinking not recorded ({signed}no text in the transcript)</div>'
    words = len(text.split())
    return (f'<details class="thinking"><summary>Thinking <span class="dim">({words:,} words)</span></summary>'
            f'<div class="md">{markdown(text)}</div></details>')


def image_html(b: dict, ctx: RenderContext) -> str:
    src = b.get("source") if isinstance(b.get("source"), dict) else {}
    if src.get("type") == "base64" and isinstance(src.get("data"), str):
        media = src.get("media_type") if isinstance(src.get("media_type"), str) else "image/png"
        url, size = ctx.blob(src["data"], media)
        if url and media in IMAGE_TYPES:
            return (f'<figure class="img"><img src="{esc(url)}" alt="image ({esc(media)}, {human_size(size)})" '
                    f'loading="lazy"><figcaption>{esc(media)} · {human_size(size)}</figcaption></figure>')
        if url:
            # Claimed to be an image, but of a type a browser should not be asked to show inline:
            # kept as a download, never as <img> (nor as an image data: URL of another type).
            return (f'<p class="doc">Image data of type <code>{esc(media)}</code> ({human_size(size)}): '
                    f'<a href="{esc(url)}" download>download</a></p>')
        if size:
            return f'<p class="note">Image data of type <code>{esc(media)}</code> ({human_size(size)}), not embedded.</p>'
    if src.get("type") == "url" and isinstance(src.get("url"), str):
        u = src["url"]
        if safe_link(u):
            return f'<p class="note">Image from <a href="{esc(u)}" rel="noreferrer">{esc(u)}</a> (not loaded)</p>'
        # javascript:, data: and the like are shown, never made clickable.
        return f'<p class="note">Image from <code>{esc(u)}</code> (not loaded)</p>'
    return unknown_block(b)


def document_html(b: dict, ctx: RenderContext) -> str:
    src = b.get("source") if isinstance(b.get("source"), dict) else {}
    if src.get("type") == "base64" and isinstance(src.get("data"), str):
        media = src.get("media_type") if isinstance(src.get("media_type"), str) else "application/octet-stream"
        url, size = ctx.blob(src["data"], media)
        if url:
            title = b.get("title") if isinstance(b.get("title"), str) else "document"
            kind = "PDF" if media == "application/pdf" else "FILE"
            return (f'<p class="doc"><span class="doc-kind">{kind}</span> <a href="{esc(url)}" download>{esc(title)}</a> '
                    f'<span class="dim">({esc(media)}, {human_size(size)}, download)</span></p>')
        if size:
            title = b.get("title") if isinstance(b.get("title"), str) else "document"
            return (f'<p class="doc"><span class="doc-kind">FILE</span> {esc(title)} '
                    f'<span class="dim">({esc(media)}, {human_size(size)}, not embedded in this file)</span></p>')
    if src.get("type") == "text" and isinstance(src.get("data"), str):
        return pre(src["data"])
    return unknown_block(b)


def unknown_block(b) -> str:
    t = b.get("type") if isinstance(b, dict) else type(b).__name__
    return (f'<details class="unknown" open><summary>Unrecognised block <code>{esc(t)}</code></summary>'
            f"{json_block(b)}</details>")


def result_content_html(content, ctx: RenderContext, is_error: bool = False) -> str:
    """The content of a tool_result: a string, or a list of text/image/tool_reference blocks."""
    cls = "out err" if is_error else "out"
    if content is None:
        return '<p class="dim">(no content)</p>'
    if isinstance(content, str):
        return pre(content, cls=cls)
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text":
                parts.append(pre(b.get("text") if isinstance(b.get("text"), str) else to_text(b.get("text")), cls=cls))
            elif isinstance(b, dict) and b.get("type") == "image":
                parts.append(image_html(b, ctx))
            elif isinstance(b, dict) and b.get("type") == "document":
                parts.append(document_html(b, ctx))
            elif isinstance(b, dict) and b.get("type") == "tool_reference":
                parts.append(f'<span class="chip">{esc(b.get("tool_name", "?"))}</span>')
            elif isinstance(b, str):
                parts.append(pre(b, cls=cls))
            else:
                parts.append(unknown_block(b))
        return "".join(parts) or '<p class="dim">(empty)</p>'
    return json_block(content)


def _render_result(m: Message, ctx: RenderContext) -> str:
    res: ToolResult = m.blocks[0][1]
    info = m.late_call
    if info and info.get("page"):
        where = (f'the {esc(info["name"])} call on <a href="page-{info["page"]:04d}.html#L{info["line"]}">'
                 f"page {info['page']}</a>")
    elif info:
        where = f'the {esc(info["name"])} call on line {info["line"]}'
    else:
        where = f"a call not found in this transcript (<code>{esc(res.tool_use_id)}</code>)"
    body = tools.result_only_html(res, info.get("name") if info else None, ctx)
    return (f'<article class="msg result{" side" if m.sidechain else ""}" id="L{m.line}">'
            f'{_header("Tool result", m)}<div class="body"><p class="note">Result of {where}.</p>{body}</div></article>')


def _render_system(m: Message, ctx: RenderContext) -> str:
    return conventions.system_note(m, ctx)


def _render_meta(m: Message, ctx: RenderContext) -> str:
    rows = []
    counts: dict[str, int] = {}
    for line, obj, size in (p for _, p in m.blocks):
        t = obj.get("type", "?")
        counts[t] = counts.get(t, 0) + 1
        rows.append(conventions.meta_row(line, obj, size, ctx, anchor=line != m.line))
    label = ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in counts.items())
    n = len(m.blocks)
    return (f'<div class="msg meta" id="L{m.line}"><details><summary>{n} bookkeeping line{"s" if n > 1 else ""}: '
            f'{esc(label)}</summary>{"".join(rows)}</details></div>')


def _render_malformed(m: Message, ctx: RenderContext) -> str:
    raw = m.raw or ""
    more = f" (line is {human_size(m.size)}; first {human_size(len(raw))} shown)" if m.size > len(raw.encode()) + 2 else ""
    return (f'<article class="msg malformed" id="L{m.line}">{_header("Malformed line", m)}'
            f'<div class="body"><p class="note err">Line {m.line} could not be read: {esc(m.error or "")}{more}</p>'
            f'{pre(raw, ansi=False)}</div></article>')


def _render_other(m: Message, ctx: RenderContext) -> str:
    t = (m.entry or {}).get("type")
    return (f'<article class="msg other" id="L{m.line}">{_header("Entry", m)}'
            f'<div class="body"><p class="note">Unrecognised entry type <code>{esc(t)}</code> '
            f"({human_size(m.size)})</p>{json_block(m.entry)}</div></article>")


_RENDERERS = {
    "user": _render_user,
    "assistant": _render_assistant,
    "system": _render_system,
    "meta": _render_meta,
    "malformed": _render_malformed,
    "result": _render_result,
    "other": _render_other,
}


def local_date(ts: str | None) -> str:
    if not ts:
        return ""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return ts[:16]
