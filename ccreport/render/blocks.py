"""The pieces every renderer builds with: times, JSON, key/value tables, media, tool-result content.

They sit below the conventions, the tool views and the message dispatcher, which all use them.
"""

from __future__ import annotations

from ccreport.model.text import json_text, to_text
from ccreport.render.context import IMAGE_TYPES, RenderContext
from ccreport.render.markup import esc, highlight, human_size, pre, safe_link

JSON_SHOW_MAX = 20_000  # characters of a generic JSON card coloured (past it: plain text)
KV_DEPTH = 3  # nested objects deeper than this are shown as JSON (there is no better form left)


def fmt_time(ts: str | None) -> str:
    if not ts:
        return ""
    shown, full = ts.replace("T", " ")[:19], esc(ts)
    return f'<time datetime="{full}" title="{full}">{esc(shown)}</time>'


def json_block(obj) -> str:
    text = json_text(obj, indent=True)
    if len(text) <= JSON_SHOW_MAX:
        return highlight(text, lang="json")
    return pre(text, cls="code")


def _scalar(v) -> str:
    if isinstance(v, bool):
        return f"<code>{str(v).lower()}</code>"
    if v is None:
        return "<code>null</code>"
    if isinstance(v, (int, float)):
        return f"<code>{esc(v)}</code>"
    s = to_text(v)
    return pre(s) if ("\n" in s or len(s) > 200) else f"<code>{esc(s)}</code>"


def kv_value(v, depth: int = 0) -> str:
    if not isinstance(v, (dict, list)):
        return _scalar(v)
    if depth >= KV_DEPTH:
        # Raw JSON, only where nothing more readable exists (marked so tests can find it).
        return f'<div class="rawjson">{json_block(v)}</div>'
    if isinstance(v, dict):
        return kv_table(v, depth + 1)
    if not v:
        return '<span class="dim">(empty list)</span>'
    if all(not isinstance(x, (dict, list)) for x in v) and len(v) <= 200:
        return '<ul class="kvlist">' + "".join(f"<li>{_scalar(x)}</li>" for x in v) + "</ul>"
    return '<ol class="kvlist">' + "".join(f"<li>{kv_value(x, depth + 1)}</li>" for x in v[:200]) + "</ol>" + (
        f'<p class="dim">… {len(v) - 200:,} more items</p>' if len(v) > 200 else "")


def kv_table(inp, depth: int = 0) -> str:
    """An object as a key/value table (nested objects as nested tables)."""
    if not isinstance(inp, dict):
        return kv_value(inp, depth) if inp is not None else ""
    if not inp:
        return '<p class="dim">(no input)</p>'
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{kv_value(v, depth)}</td></tr>" for k, v in inp.items())
    return f'<table class="kv">{rows}</table>'


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
        title = b.get("title") if isinstance(b.get("title"), str) else "document"
        if url:
            kind = "PDF" if media == "application/pdf" else "FILE"
            return (f'<p class="doc"><span class="doc-kind">{kind}</span> <a href="{esc(url)}" download>{esc(title)}</a> '
                    f'<span class="dim">({esc(media)}, {human_size(size)}, download)</span></p>')
        if size:
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
    """The content of a tool_result that is not text alone (tools.base.generic_result renders that):
    a list of text/image/document/tool_reference blocks, or None, or any other value."""
    cls = "out err" if is_error else "out"
    if content is None:
        return '<p class="dim">(no content)</p>'
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text":
                parts.append(pre(to_text(b.get("text")), cls=cls))
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

