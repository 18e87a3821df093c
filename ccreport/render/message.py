"""Messages → HTML fragments, one renderer per message kind: tool calls by the ``tools`` package, the
conventions in user text by ``conventions.py`` (docs/render.md: the package's parts and its rules)."""

from __future__ import annotations

import re
from datetime import datetime

from ccreport.layout import page_name
from ccreport.model.messages import Message, ToolResult
from ccreport.render import conventions, folds, notes, runs, teammates, tools
from ccreport.render.blocks import document_html, fmt_time, image_html, json_block, unknown_block
from ccreport.render.context import RenderContext
from ccreport.model.text import cut_words
from ccreport.render.markup import esc, human_size, markdown, pre, show_controls, strip_ansi

# Hook output Claude Code writes as system lines ("Running PostToolUse:Edit...", "Stop [cmd] completed").
_HOOK = re.compile(r"(Running )?(Pre|Post)ToolUse|(Running )?(Stop|SubagentStop|UserPromptSubmit|SessionStart|SessionEnd|"
                   r"Notification|PreCompact)\b")


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
    # (markdown and code colouring escape text their own way: their output is checked here once)
    return show_controls(message_html(m, ctx))


def message_html(m: Message, ctx: RenderContext) -> str:
    """render_message without its control-character check: for a caller that checks a whole page
    at once (markup.controls_free) and passes what fails through show_controls."""
    return _RENDERERS.get(m.kind, _render_other)(m, ctx)


def _render_user(m: Message, ctx: RenderContext) -> str:
    parts = []
    kind_cls, label = "user", "User"
    typed = False  # a block a person typed keeps the message a "User" one, whatever else it holds
    for btype, payload in m.blocks:
        if btype == "text":
            # A sub-agent's prompt is written by the parent model: Markdown, like its answers.
            html, cls, lab = conventions.user_text(payload, m.entry, as_markdown=m.sidechain)
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
    if m.reply_to:
        parts.insert(0, teammates.reply_note(m.reply_to, ctx))
    if typed and kind_cls == "user" and _task_prompt(m):
        label = "Task prompt"
    return (f'<article class="msg {kind_cls}{" side" if m.sidechain else ""}" id="L{m.line}">'
            f'{_header(esc(label), m, origin_chip(m.entry) + interrupted_chip(m.entry))}<div class="body">{"".join(parts)}</div></article>')


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


def _task_prompt(m: Message) -> bool:
    """The first line of a sub-agent's run: the task its parent's call gave it (the root of the
    sidechain: no parent line)."""
    return m.sidechain and m.entry is not None and m.entry.get("parentUuid") is None


def interrupted_chip(entry: dict | None) -> str:
    """interruptedMessageId (2.1.2xx): the user stopped a response to write this."""
    mid = (entry or {}).get("interruptedMessageId")
    if not isinstance(mid, str) or not mid:
        return ""
    return f'<span class="chip interrupted" title="interrupted message {esc(mid)}">interrupted the response</span>'


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
            # (a Workflow call's run and a SendMessage's reply are linked under the call)
            parts.append(tools.render_call(payload, ctx) + runs.run_card(payload, ctx) + teammates.reply_link(payload, ctx))
        else:
            parts.append(unknown_block(payload))
    err = m.entry.get("isApiErrorMessage") or m.entry.get("error")
    if err:
        parts = [_api_error_html(m.entry, parts)]
    # A step of the turn: its header (model, tokens, time, link) shows on hover or focus (style.css).
    cls = "msg assistant step" + (" api-error" if err else "") + (" side" if m.sidechain else "")
    meta = (f'<span class="model">{esc(m.model)}</span>' if m.model else "") + _source_chips(m.entry) + usage_line(m.usage)
    if m.aborted:  # (isAbortedMidStream: what is above is all that arrived)
        parts.append('<p class="note aborted">⚠ The response stream was cut off here (aborted mid-stream).</p>')
    label = "API error" if err else "Assistant"
    lines = f' data-lines="{len(m.lines)}"' if len(m.lines) > 1 else ""
    # Every line of a merged message keeps an anchor, so #L<line> of any line resolves.
    anchors = "".join(f'<span class="anchor" id="L{n}"></span>' for n in m.lines[1:])
    return (f'<article class="{cls}" id="L{m.line}"{lines}>{_header(label, m, meta)}'
            f'<div class="body">{"".join(parts)}</div>{anchors}</article>')


def _source_chips(entry: dict) -> str:
    """An assistant line's effort and what it came through (2.1.2xx): a plugin, an MCP server's tool."""
    chips = []
    effort = entry.get("effort")
    if isinstance(effort, str) and effort:
        chips.append(f"effort {effort}")
    plugin, server, tool = (entry.get(k) for k in ("attributionPlugin", "attributionMcpServer", "attributionMcpTool"))
    if isinstance(plugin, str) and plugin:
        chips.append(f"via plugin {plugin}")
    if isinstance(server, str) and server:
        chips.append(f"via MCP {server}" + (f" › {tool}" if isinstance(tool, str) and tool else ""))
    return "".join(f'<span class="chip source">{esc(c)}</span>' for c in chips)


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
        return (f'<details class="thinking empty chrome"><summary>Thinking not recorded</summary>'
                f'<p class="note">{signed}no text in the transcript</p></details>')
    words = len(text.split())
    first = cut_words(next(ln for ln in text.splitlines() if ln.strip()), 110)
    return (f'<details class="thinking"><summary>Thinking: <span class="think-head">{esc(first)}</span> '
            f'<span class="dim">({words:,} words)</span></summary><div class="md">{markdown(text)}</div></details>')


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
    n = folds.folded_count(m)
    return (f'<div class="msg meta chrome" id="L{m.line}"><details><summary>{n} bookkeeping line{"s" if n > 1 else ""}: '
            f'{esc(label)}</summary>{"".join(rows)}{folds.more_rows(m)}</details></div>')


def _render_fork(m: Message, ctx: RenderContext) -> str:
    """A fork-context-ref line: where this transcript was forked from (the copied lines follow, folded)."""
    e = m.entry or {}
    parent = str(e.get("parentSessionId") or "?")
    at = str(e.get("parentLastUuid") or "")
    where = f' at its message <code>{esc(at[:8])}</code>' if at else ""
    link = (f'<a href="{esc(ctx.fork_point)}">session {esc(parent[:8])}</a>' if ctx.fork_point
            else f"session <code>{esc(parent)}</code>" + ("" if ctx.embed else " (not in this home)"))  # (export: no pages)
    n = e.get("contextLength")
    size = f" ({int(n):,} messages of context)" if isinstance(n, int) and not isinstance(n, bool) else ""
    return (f'<article class="msg fork" id="L{m.line}">{_header("Fork", m)}<div class="body">'
            f'<p class="note">Forked from {link}{where}{size}. The lines copied from it come first, folded; '
            f"their usage is counted in the parent.</p>"
            f'<details class="raw"><summary>fork-context-ref</summary>{json_block(e)}</details></div></article>')


def _render_malformed(m: Message, ctx: RenderContext) -> str:
    raw = m.raw or ""
    more = f" (line is {human_size(m.size)}; first {human_size(len(raw))} shown)" if m.size > len(raw.encode()) + 2 else ""
    return (f'<article class="msg malformed" id="L{m.line}">{_header("Malformed line", m)}'
            f'<div class="body"><p class="note err">Line {m.line} could not be read: {esc(m.error or "")}{more}</p>'
            f'{pre(raw, ansi=False)}</div></article>')


def _render_malformed_run(m: Message, ctx: RenderContext) -> str:
    """Malformed lines past the first few of a run: one message (model.folds)."""
    return (f'<article class="msg malformed" id="L{m.line}"{folds.covers(m)}>{_header("Malformed lines", m)}'
            f'<div class="body">{folds.malformed_run_body(m)}</div></article>')


def _render_other(m: Message, ctx: RenderContext) -> str:
    t = (m.entry or {}).get("type")
    return (f'<article class="msg other" id="L{m.line}">{_header("Entry", m)}'
            f'<div class="body"><p class="note">Unrecognised entry type <code>{esc(t)}</code> '
            f"({human_size(m.size)})</p>{json_block(m.entry)}</div></article>")


def _render_system(m: Message, ctx: RenderContext) -> str:
    """A system line; hook output and turn timings are chrome: folded, and hidden with the rest
    of the bookkeeping until the page's "show everything" is on."""
    html = conventions.system_note(m)
    e = m.entry or {}
    sub = e.get("subtype")
    if sub in ("stop_hook_summary", "turn_duration") and not e.get("hookErrors") and not e.get("preventedContinuation"):
        return html.replace('class="sysnote', 'class="chrome sysnote', 1)
    text = strip_ansi(e.get("content")) if isinstance(e.get("content"), str) else ""
    if sub is None and e.get("level") not in ("error", "warning") and _HOOK.match(text):
        inner = html.replace(f' id="L{m.line}"', "", 1)
        return (f'<div class="chrome hook" id="L{m.line}"><details><summary>Hook: {esc(cut_words(text, 90))}</summary>'
                f'{inner}</details></div>')
    return html


_RENDERERS = {"user": _render_user, "assistant": _render_assistant, "meta": _render_meta, "fork": _render_fork,
              "context": lambda m, ctx: notes.context_html(m), "notice": lambda m, ctx: notes.notice_html(m),
              "system": _render_system,
              "malformed": _render_malformed, "result": _render_result, "other": _render_other,
              "empty": lambda m, ctx: folds.empty_html(m), "malformed_run": _render_malformed_run}


def local_date(ts: str | None) -> str:
    if not ts:
        return ""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return ts[:16]
