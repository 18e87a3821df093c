"""Notes for what Claude Code 2.1.2xx added to transcripts (docs/formats.md F6): the gist of each new
bookkeeping line, the turn's context block, hook-error and task-status notices, task reminders as
checklists and the new system subtypes. Everything is read field by field (any field may be missing);
what no view reads is shown as a key/value table, never as a JSON dump."""

from __future__ import annotations

from ccreport.model.text import to_text
from ccreport.render.blocks import fmt_time, kv_table
from ccreport.render.checklist import checklist
from ccreport.render.folds import folded_count, more_rows
from ccreport.render.markup import ansi_to_html, esc, human_size, pre, source_fold

# The context attachments (model.kinds.CONTEXT_ATTACHMENTS) by what a reader would call them.
CONTEXT_LABELS = {
    "prompt_snapshot": "system prompt", "instructions": "instructions (CLAUDE.md)", "environment": "environment",
    "session_context": "session context", "model": "model", "date": "date", "date_change": "date change",
    "total_tokens_reminder": "token budget", "agent_listing_delta": "agents on offer",
    "skill_listing": "skills on offer",
    "deferred_tools_delta": "tools on offer", "mcp_instructions_delta": "MCP server instructions",
    "remote_session_change": "remote session", "command_permissions": "allowed tools", "nested_memory": "memory file",
}
# Keys of an attachment that hold its text, in the order they are looked for.
_TEXT_KEYS = ("content", "text", "prompt", "stdout", "stderr", "snippet", "planContent", "instructions",
              "systemPrompt", "message", "error", "blockingError", "newDate", "model", "date")
_ENVELOPE = {"parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "type", "uuid",
             "timestamp", "slug", "entrypoint", "promptId", "subtype", "level", "isMeta", "content", "agentId",
             "teamName", "logicalParentUuid", "toolUseID"}
_SHORT = 300


def text_of(att: dict) -> tuple[str | None, str | None]:
    """(the text an attachment carries, the key it came from) — (None, None) when it carries none."""
    for key in _TEXT_KEYS:
        v = att.get(key)
        if isinstance(v, dict):  # {"file": {"content": …}} (file), {"content": …}, {"blockingError": …}
            inner = v.get("file") if isinstance(v.get("file"), dict) else v
            v = next((inner[k] for k in ("content", "blockingError", "text", "message")
                      if isinstance(inner.get(k), str)), None)
        elif isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            v = "\n".join(v)
        if isinstance(v, str) and v:
            return v, key
    return None, None


def fields_table(obj: dict, skip=()) -> str:
    """The fields of a line or attachment that no view read, as a table ('' when none are left)."""
    rest = {k: v for k, v in obj.items() if k not in skip and k not in _ENVELOPE and v not in (None, "", [], {})}
    return kv_table(rest) if rest else ""


def _text_html(text: str) -> str:
    """Short text inline, long text folded (a system prompt is tens of kilobytes)."""
    if len(text) <= _SHORT and "\n" not in text:
        return f" <span>{ansi_to_html(text)}</span>"
    return (f'<details class="more"><summary>show {len(text):,} characters</summary>{pre(text)}</details>')


def rendered_fold(obj: dict) -> str:
    """The ``rendered`` array some attachment lines carry: the text the model actually saw."""
    r = obj.get("rendered")
    if not isinstance(r, list) or not r:
        return ""
    text = "\n".join(to_text(x.get("text") if isinstance(x, dict) and isinstance(x.get("text"), str) else x) for x in r)
    return (f'<details class="more"><summary>as the model saw it ({len(text):,} characters)</summary>'
            f'{pre(text)}</details>')


def attachment_body(att: dict) -> str | None:
    """Task lists as checklists, else the text of an attachment; None when the caller's own reading applies."""
    content = att.get("content")
    if isinstance(content, list) and content and all(isinstance(t, dict) for t in content):
        # task_reminder (TaskCreate tasks) and todo_reminder (TodoWrite items): the board the model was reminded of.
        html, done, n = checklist(content)
        return f'<div class="board"><div class="lbl">{done}/{n} done</div>{html}</div>'
    return None


def context_html(m) -> str:
    """One folded block for a turn's context attachments (model.messages: Message kind "context")."""
    rows, labels, total = [], [], 0
    for line, obj, size in (p for _, p in m.blocks):
        att = obj.get("attachment") if isinstance(obj.get("attachment"), dict) else {}
        t = att.get("type", "?")
        label = CONTEXT_LABELS.get(t, str(t))
        if label not in labels:
            labels.append(label)
        total += size
        text, key = text_of(att)
        body = _text_html(text) if text else ""
        rid = f' id="L{line}"' if line != m.line else ""
        rows.append(f'<div class="metarow"{rid}><span class="dim">L{line}</span> <b>{esc(label)}</b> '
                    f'<span class="dim">({esc(t)}, {human_size(size)})</span>{body}'
                    f'{fields_table(att, ("type", key))}{rendered_fold(obj)}</div>')
    n = folded_count(m)
    total += m.run["bytes"] if m.run is not None else 0
    return (f'<div class="msg meta context" id="L{m.line}"><details><summary>Context given to the model: '
            f'{esc(", ".join(labels))} <span class="dim">({n} line{"s" if n > 1 else ""}, {human_size(total)})</span>'
            f'</summary>{"".join(rows)}{more_rows(m)}</details></div>')


def notice_html(m) -> str:
    """A hook error or a background task's status (model.messages: Message kind "notice")."""
    obj = m.entry or {}
    att = obj.get("attachment") if isinstance(obj.get("attachment"), dict) else {}
    when = fmt_time(m.timestamp)
    if att.get("type") == "task_status":
        kind = f' <span class="chip">{esc(att["taskType"])}</span>' if att.get("taskType") else ""
        delta = f" — {ansi_to_html(to_text(att['deltaSummary']))}" if att.get("deltaSummary") else ""
        return (f'<div class="sysnote task-status" id="L{m.line}"><span class="dim">Background task</span> '
                f'<code>{esc(att.get("taskId", "?"))}</code>{kind}: <b>{esc(att.get("status", "update"))}</b>'
                f'{delta} {when}'
                f'{fields_table(att, ("type", "taskId", "taskType", "status", "deltaSummary"))}</div>')
    if att.get("type") in _NOTICES:
        return _NOTICES[att["type"]](m, att, when)
    blocking = att.get("type") == "hook_blocking_error"
    hook = _hook_name(att)
    code = f" exit {esc(att['exitCode'])}" if att.get("exitCode") is not None else ""
    text, key = text_of(att)
    body = pre(text, cls="err") if text else ""
    skip = ("type", "hookEvent", "hookName", "exitCode", key)
    what = "Hook error" + (" (blocked the action)" if blocking else "")
    return (f'<div class="sysnote err hook-error" id="L{m.line}"><p>⚠ <b>{what}'
            f'</b> {hook}{code} {when}</p>{body}{fields_table(att, skip)}{rendered_fold(obj)}</div>')


def _hook_name(att: dict) -> str:
    name, event = att.get("hookName"), att.get("hookEvent")
    # hookName is "<event>:<matcher>" (PostToolUse:Edit): the event alone only when there is no name.
    return esc(name if isinstance(name, str) and name else event if isinstance(event, str) else "")


def _hook_message(m, att: dict, when: str) -> str:
    """A message a hook shows the user (hook_system_message): a notice, as Claude Code shows it."""
    text, key = text_of(att)
    body = f'<div class="hook-text">{ansi_to_html(text)}</div>' if text else ""
    return (f'<div class="sysnote hook-message" id="L{m.line}"><p>💬 <b>Message from a hook</b> {_hook_name(att)} '
            f'{when}</p>{body}{fields_table(att, ("type", "hookEvent", "hookName", "toolUseID", key))}'
            f'{rendered_fold(m.entry or {})}</div>')


def _read_cut(m, att: dict, when: str) -> str:
    """read_truncation_notice: a Read whose output Claude Code cut (its banner says how)."""
    banner = att.get("banner")
    text = f" {ansi_to_html(to_text(banner))}" if banner else ""
    return (f'<div class="sysnote read-cut" id="L{m.line}"><span class="dim">Read cut short:</span>{text} {when}'
            f'{fields_table(att, ("type", "banner", "toolUseID"))}</div>')


_NOTICES = {"hook_system_message": _hook_message, "read_truncation_notice": _read_cut}


def bookkeeping_gist(obj: dict) -> str | None:
    """A readable line for a bookkeeping line type of 2.1.140+ (None: not one of them)."""
    t = obj.get("type")
    if t == "cost-state" and isinstance(obj.get("totalCostUSD"), (int, float)):
        return f"Claude Code's own cost so far: ${obj['totalCostUSD']:,.2f}"
    if t == "mode":
        return f"mode: {to_text(obj.get('mode', ''))}"
    if t == "atis-latch":
        return f"atis: {to_text(obj.get('atis', ''))}"
    if t == "bridge-session":
        return f"remote-control bridge {to_text(obj.get('bridgeSessionId', ''))}"
    if t == "file-history-delta":
        return f"backup of {to_text(obj.get('trackingPath', '?'))} → {to_text(obj.get('backup', ''))}"
    if t == "fork-context-ref":
        return (f"forked from session {to_text(obj.get('parentSessionId', '?'))} at "
                f"{to_text(obj.get('parentLastUuid', '?'))}")
    if t == "frame-link":
        # The address of the artifact's frame on claude.ai: shown as text (the site links nothing outside).
        url = obj.get("frameUrl")
        rest = " ".join(f"{k}={to_text(v)}" for k, v in obj.items()
                        if k not in _ENVELOPE and k not in ("timestamp", "frameUrl"))
        return (f"artifact frame at {to_text(url)}" if isinstance(url, str) and url else "artifact frame link") + (
            f" ({rest})" if rest else "")
    if isinstance(t, str) and t.startswith("artifact-"):
        arts = obj.get("artifacts")
        return f"{len(arts)} artifact(s) tracked" if isinstance(arts, (dict, list)) else "artifact bookkeeping"
    return None


def system_new(e: dict, anchor: str, when: str) -> str | None:
    """The system subtypes of 2.1.140+ (None: not one of them)."""
    sub = e.get("subtype")
    content = e.get("content") if isinstance(e.get("content"), str) else ""
    if sub == "scheduled_task_fire":
        cron = f" <code>{esc(e['cron'])}</code>" if e.get("cron") else ""
        prompt = f": {ansi_to_html(to_text(e['prompt']))}" if e.get("prompt") else ""
        return (f'<div class="sysnote" {anchor}>Scheduled task fired{cron}{prompt} {when}'
                f'{fields_table(e, ("cron", "prompt"))}</div>')
    if sub == "model_refusal_no_fallback":
        return (f'<div class="sysnote err" {anchor}><b>The model refused and no fallback model was tried</b> {when}'
                f'{pre(content) if content else ""}{fields_table(e)}</div>')
    if sub in ("post_turn", "bridge_status") and not content:
        label = "After the turn" if sub == "post_turn" else "Remote-control bridge"
        table = fields_table(e)
        if not table:
            return f'<div class="sysnote" {anchor}><span class="dim">{label}</span> {when}</div>'
        return f'<div class="sysnote" {anchor}><details><summary>{label} {when}</summary>{table}</details></div>'
    return None


def one_line(cls: str, anchor: str, label: str, content: str, when: str) -> str:
    """A short system text on one line; ANSI escapes become colours, the original is kept folded."""
    src = source_fold(content) if "\x1b" in content else ""
    return f'<div class="{cls}" {anchor}><span class="dim">{label}:</span> {ansi_to_html(content)} {when}{src}</div>'
