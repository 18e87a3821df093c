"""Agent-team messages (docs/formats.md F7): a ``<teammate-message>`` user line shown as a message from
that teammate (name, colour, summary; a JSON protocol message as a short note), and the links between
a SendMessage call and the reply it got."""

from __future__ import annotations

from ccreport.layout import page_name, reply_page
from ccreport.model.teams import TeammateMessage, has_teammate_message, protocol_note, teammate_messages
from ccreport.render.markup import esc, markdown, source_fold

# Colours Claude Code gives teammates; any other value gets the neutral one (never put in a style).
COLOURS = {"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}


def colour_class(colour: str | None) -> str:
    return f"tm-{colour}" if colour in COLOURS else "tm-none"


def _one(tm: TeammateMessage) -> str:
    who = (f'<p class="tm-from"><span class="tm-dot {colour_class(tm.color)}" aria-hidden="true"></span>'
           f'<b>{esc(tm.sender)}</b>' + (f' <span class="dim">— {esc(tm.summary)}</span>' if tm.summary else "") + "</p>")
    if tm.protocol is not None:
        return who + f'<p class="tm-note">{esc(tm.sender)} {esc(protocol_note(tm.protocol))}</p>'
    return who + f'<div class="md">{markdown(tm.body)}</div>'


def teammate_text(text: str) -> tuple[str, str, str] | None:
    """(html, message class, header label) for user text holding teammate messages; None otherwise.
    The original text follows, folded: nothing is lost."""
    if not has_teammate_message(text):
        return None
    msgs = teammate_messages(text)
    if not msgs:
        return None
    cls = "user teammate " + colour_class(msgs[0].color)
    label = f"Message from {msgs[0].sender}" if len({m.sender for m in msgs}) == 1 else "Messages from teammates"
    if all(m.protocol is not None for m in msgs):
        cls += " tm-protocol"
    return "".join(f'<div class="tm-msg">{_one(m)}</div>' for m in msgs) + source_fold(text), cls, label


def reply_note(info: dict, ctx) -> str:
    """On a teammate's reply: the SendMessage it answers."""
    line = info.get("line")
    on_page = line in ctx.page_lines or info.get("page") is None  # (None: one document, an export)
    href = f"#L{line}" if on_page else f'{page_name(info["page"])}#L{line}'
    return (f'<p class="note">Reply to the <a href="{esc(href)}">message sent to '
            f'{esc(info.get("to") or "this teammate")} (line {esc(line)})</a>.</p>')


def reply_link(call, ctx) -> str:
    """On a SendMessage: the reply it got on the same page, or the way to a reply on a later page
    (layout.reply_page: the site writes it; a single-file export has no pages, the reply links back)."""
    if call.name != "SendMessage":
        return ""
    line = getattr(call, "reply_line", None)
    if line is not None and line in ctx.page_lines:
        return f'<p><a class="agent-link" href="#L{line}">The reply (line {line}) ↓</a></p>'
    if getattr(call, "reply_later", False) and not ctx.embed:
        return f'<p><a class="agent-link" href="{esc(reply_page(call.id))}">The reply (after this page, when one came) →</a></p>'
    return ""
