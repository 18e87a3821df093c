"""Messages → HTML fragments, one renderer per message kind: tool calls by the ``tools`` package, the
conventions in user text by ``conventions.py`` (docs/render.md: the package's parts and its rules)."""

from __future__ import annotations

from datetime import datetime

from ccreport.layout import page_name
from ccreport.model.messages import Message, ToolResult
from ccreport.render import conventions, notes, tools
from ccreport.render.blocks import document_html, fmt_time, image_html, json_block, unknown_block
from ccreport.render.context import RenderContext
from ccreport.render.markup import esc, human_size, markdown, pre


def usage_line(u: dict | None) -> str:
    if not u:
        return ""
    parts = [f'in {u.get("input_tokens", 0):,}', f'out {u.get("output_tokens", 0):,}']
    if u.get("cache_read_input_tokens"):
        parts.append(f'cache read {u["cache_read_input_tokens"]:,}')
    if u.get("cache_creation_input_tokens"):
        parts.append(f'cache write {u["cache_creation_input_tokens"]:,}')
    return '<span class="usage" title="tokens">' + " · ".join(parts) + "</span>"


def _header(who: str, m: Message, extra: str = "") -> str:
    side = '<span class="badge">sub-agent</span>' if m.sidechain else ""
    return (f'<header><span class="who">{who}</span>{side}{extra}'
            f'<span class="when">{fmt_time(m.timestamp)}</span>'
            f'<a class="perma" href="#L{m.line}" title="link to this message (line {m.line})">#</a></header>')


def render_message(m: Message, ctx: RenderContext) -> str:
    return _RENDERERS.get(m.kind, _render_other)(m, ctx)


def _render_user(m: Message, ctx: RenderContext) -> str:
    parts = []
    kind_cls, label = "user", "User"
    typed = False  # a block a person typed keeps the message a "User" one, whatever else it holds
    for btype, payload in m.blocks:
        if btype == "text":
            html, cls, lab = conventions.user_text(payload, m.entry)
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
            f'{_header(esc(label), m, origin_chip(m.entry))}<div class="body">{"".join(parts)}</div></article>')


# origin.kind (2.1.2xx): who sent a user line when no person typed it.
_ORIGINS = {"task-notification": "sent by a background task", "hook": "sent by a hook",
            "peer": "sent by another session", "human": "typed by a person"}


def origin_chip(entry: dict | None) -> str:
    origin = (entry or {}).get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    if not isinstance(kind, str) or not kind:
        return ""
    text = _ORIGINS.get(kind, f"sent by {kind}")
    if kind == "peer" and origin.get("from"):
        text += f" ({origin['from']})"
    src = entry.get("promptSource")
    if isinstance(src, str) and src:
        text += f", via {src}"
    return f'<span class="chip origin origin-{esc(kind)}" title="origin.kind = {esc(kind)}">{esc(text)}</span>'


def _render_assistant(m: Message, ctx: RenderContext) -> str:
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
    err = m.entry.get("isApiErrorMessage") or m.entry.get("error")
    if err:
        parts = [_api_error_html(m.entry, parts)]
    cls = "msg assistant" + (" api-error" if err else "") + (" side" if m.sidechain else "")
    meta = (f'<span class="model">{esc(m.model)}</span>' if m.model else "") + usage_line(m.usage)
    label = "API error" if err else "Assistant"
    lines = f' data-lines="{len(m.lines)}"' if len(m.lines) > 1 else ""
    # Every line of a merged message keeps an anchor, so #L<line> of any line resolves.
    anchors = "".join(f'<span class="anchor" id="L{n}"></span>' for n in m.lines[1:])
    return (f'<article class="{cls}" id="L{m.line}"{lines}>{_header(label, m, meta)}'
            f'<div class="body">{"".join(parts)}</div>{anchors}</article>')


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


def thinking_html(b: dict) -> str:
    text = b.get("thinking")
    if not isinstance(text, str) or not text.strip():
        signed = "with a signature, " if b.get("signature") else ""
        return f'<div class="thinking empty">Thinking not recorded ({signed}no text in the transcript)</div>'
    words = len(text.split())
    return (f'<details class="thinking"><summary>Thinking <span class="dim">({words:,} words)</span></summary>'
            f'<div class="md">{markdown(text)}</div></details>')


def _render_result(m: Message, ctx: RenderContext) -> str:
    res: ToolResult = m.blocks[0][1]
    info = m.late_call
    if info and info.get("page"):
        where = (f'the {esc(info["name"])} call on <a href="{page_name(info["page"])}#L{info["line"]}">'
                 f"page {info['page']}</a>")
    elif info:
        where = f'the {esc(info["name"])} call on line {info["line"]}'
    else:
        where = f"a call not found in this transcript (<code>{esc(res.tool_use_id)}</code>)"
    body = tools.result_only_html(res, info.get("name") if info else None, ctx)
    return (f'<article class="msg result{" side" if m.sidechain else ""}" id="L{m.line}">'
            f'{_header("Tool result", m)}<div class="body"><p class="note">Result of {where}.</p>{body}</div></article>')


def _render_meta(m: Message, ctx: RenderContext) -> str:
    rows = []
    counts: dict[str, int] = {}
    for line, obj, size in (p for _, p in m.blocks):
        t = obj.get("type", "?")
        att = obj.get("attachment") if t == "attachment" else None
        if isinstance(att, dict) and isinstance(att.get("type"), str):
            t = att["type"]  # an attachment by what it is (task_reminder, hook_success, …)
        counts[t] = counts.get(t, 0) + 1
        rows.append(conventions.meta_row(line, obj, size, anchor=line != m.line))
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


_RENDERERS = {"user": _render_user, "assistant": _render_assistant, "meta": _render_meta,
              "context": lambda m, ctx: notes.context_html(m), "notice": lambda m, ctx: notes.notice_html(m),
              "system": lambda m, ctx: conventions.system_note(m),
              "malformed": _render_malformed, "result": _render_result, "other": _render_other}


def local_date(ts: str | None) -> str:
    if not ts:
        return ""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return ts[:16]
