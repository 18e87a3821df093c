"""The conventions Claude Code writes inside text (FORMAT.md §10) and the notes for system and
bookkeeping lines (§4.3–§4.9), rendered for a reader instead of shown as raw tags.
"""

from __future__ import annotations

import re

from .markup import cut, esc, human_size, json_text, markdown, pre, to_text

_TAG = r"<{0}>(.*?)</{0}>"


def _tag(name: str, text: str) -> str | None:
    m = re.search(_TAG.format(re.escape(name)), text, re.S)
    return m.group(1) if m else None


def _capped(text: str) -> str:
    """Escaped text cut at RENDER_MAX, with the note saying what was cut."""
    shown, note = cut(text)
    return esc(shown) + note


def _folded(label: str, body_html: str, cls: str = "injected") -> str:
    return f'<details class="{cls}"><summary>{esc(label)}</summary>{body_html}</details>'


def _reminders(text: str) -> tuple[str, str]:
    """Split <system-reminder> blocks out of text: (rest, folded reminders html)."""
    found = re.findall(r"<system-reminder>(.*?)</system-reminder>", text, re.S)
    if not found:
        return text, ""
    rest = re.sub(r"\s*<system-reminder>.*?</system-reminder>\s*", "\n", text, flags=re.S).strip()
    html = "".join(_folded("System reminder", pre(r.strip())) for r in found)
    return rest, html


def user_text(text: str, entry: dict, ctx) -> tuple[str, str | None, str | None]:
    """(html, message css class or None, header label or None) for one user text block."""
    s = text.strip()
    if entry.get("isCompactSummary"):
        return (_folded("Summary of the earlier conversation (compaction)", f'<div class="md">{markdown(text)}</div>',
                        "compact-summary"), "user compact", "Compaction summary")
    if s.startswith("<local-command-caveat>") or s.startswith("Caveat: The messages below"):
        body = _tag("local-command-caveat", s) or s
        return _folded("Caveat (injected by Claude Code)", pre(body)), "user injected", "Injected"
    name = _tag("command-name", s)
    if name is not None and ("<command-message>" in s or s.startswith("<command-name>")):
        args = _tag("command-args", s) or ""
        msg = _tag("command-message", s) or ""
        html = (f'<p><span class="cmd">{_capped(name.strip())}</span> <span class="cmd-args">{_capped(args.strip())}</span></p>'
                + (f'<p class="dim">{_capped(msg.strip())}</p>' if msg.strip() and msg.strip() != name.strip().lstrip("/") else ""))
        return html, "user command", "Command"
    out = _tag("local-command-stdout", s)
    err = _tag("local-command-stderr", s)
    if out is not None or err is not None:
        html = ""
        if out is not None:
            html += pre(out, cls="term")
        if err is not None:
            html += pre(err, cls="term err")
        return html, "user cmdout", "Command output"
    bash_in = _tag("bash-input", s)
    if bash_in is not None:
        return f'<pre class="term"><span class="prompt-sign">$ </span>{_capped(bash_in)}</pre>', "user bash", "Bash mode"
    bo, be = _tag("bash-stdout", s), _tag("bash-stderr", s)
    if bo is not None or be is not None:
        html = (pre(bo, cls="term") if bo else "") + (pre(be, cls="term err") if be else "")
        return html or '<p class="dim">(no output)</p>', "user bash", "Bash output"
    if s.startswith("<task-notification>"):
        fields = {k: _tag(k, s) for k in ("task-id", "tool-use-id", "output-file", "status", "summary")}
        status = (fields.get("status") or "").strip()
        rows = "".join(f"<dt>{esc(k)}</dt><dd>{_capped(v.strip())}</dd>" for k, v in fields.items() if v)
        return (f'<div class="card status-{esc(status)}"><p><b>Background task {esc(status or "update")}</b></p>'
                f"<dl>{rows}</dl></div>"), "user notify", "Task notification"
    if s.startswith("[Request interrupted by user"):
        return f'<p class="marker">⏹ {_capped(s)}</p>', "user interrupt", "Interrupted"
    if entry.get("isMeta"):
        label = "Skill instructions" if s.startswith("Base directory for this skill") else "Injected context"
        return _folded(f"{label} (not typed by the user)", pre(text)), "user injected", "Injected"
    for tag, label in (("ide_opened_file", "IDE: opened file"), ("ide_selection", "IDE: selection"),
                       ("user-memory-input", "Memory input")):
        if s.startswith(f"<{tag}>"):
            return _folded(label, pre(_tag(tag, s) or s)), "user injected", label
    rest, reminders = _reminders(text)
    if not rest.strip() and reminders:
        return reminders, "user injected", "Injected"
    # A prompt can be a pasted 100 MB log: capped like every other block, the page says what was cut.
    shown, note = cut(rest)
    return f'<div class="prompt">{esc(shown)}</div>{note}{reminders}', None, None


def system_note(m, ctx) -> str:
    e = m.entry or {}
    sub = e.get("subtype")
    content = e.get("content") if isinstance(e.get("content"), str) else ""
    level = e.get("level") if isinstance(e.get("level"), str) else ""
    anchor = f'id="L{m.line}"'
    from .render import fmt_time, json_block

    when = fmt_time(m.timestamp)
    if sub == "compact_boundary":
        meta = e.get("compactMetadata") if isinstance(e.get("compactMetadata"), dict) else {}
        trig = meta.get("trigger", "")
        pre_t = meta.get("preTokens")
        tok = f", {pre_t / 1000:.0f}k tokens" if isinstance(pre_t, (int, float)) else ""
        return (f'<div class="divider" {anchor}><span>Context compacted'
                f'{" (" + esc(trig) + tok + ")" if trig or tok else ""}</span> {when}</div>')
    if sub == "microcompact_boundary":
        meta = e.get("microcompactMetadata") if isinstance(e.get("microcompactMetadata"), dict) else {}
        saved = meta.get("tokensSaved")
        return (f'<div class="divider" {anchor}><span>Context micro-compacted'
                f'{f" ({saved:,} tokens saved)" if isinstance(saved, int) else ""}</span> {when}</div>')
    if sub == "turn_duration":
        ms = e.get("durationMs")
        dur = f"{ms / 1000:.1f} s" if isinstance(ms, (int, float)) else "?"
        return f'<div class="sysnote" {anchor}>⏱ Turn took {dur} {when}</div>'
    if sub == "api_error":
        detail = json_block({k: e.get(k) for k in ("error", "cause", "retryInMs", "retryAttempt", "maxRetries") if k in e})
        return (f'<div class="sysnote err" {anchor}><details><summary>API error'
                f'{", retry " + esc(e.get("retryAttempt")) if e.get("retryAttempt") is not None else ""} {when}</summary>'
                f"{detail}</details></div>")
    if sub == "local_command":
        from .render import Message  # noqa: F401  (type only)

        html, _, label = user_text(content, {}, ctx)
        return f'<div class="sysnote local" {anchor}><span class="dim">{esc(label or "Local command")}</span> {when}{html}</div>'
    if sub == "stop_hook_summary":
        n = e.get("hookCount")
        errs = e.get("hookErrors") or []
        count = f", {len(errs)} errors" if isinstance(errs, list) else ", errors" if errs else ""
        return (f'<div class="sysnote{" err" if errs else ""}" {anchor}><details><summary>Stop hooks: {esc(n)} ran'
                f'{count if errs else ""} {when}</summary>{json_block(e.get("hookInfos"))}'
                f'{json_block(errs) if errs else ""}</details></div>')
    cls = "sysnote err" if level == "error" else "sysnote warn" if level == "warning" else "sysnote"
    label = esc(sub or "system")
    body = pre(content) if content else json_block(e)
    if content and len(content) < 300 and "\n" not in content:
        return f'<div class="{cls}" {anchor}><span class="dim">{label}:</span> {esc(content)} {when}</div>'
    return f'<div class="{cls}" {anchor}><details><summary>{label} {when}</summary>{body}</details></div>'


_PREVIEW = 400


def meta_row(line: int, obj: dict, size: int, ctx) -> str:
    """One bookkeeping line inside a folded group: its type, a readable gist, its size."""
    t = obj.get("type", "?")
    gist = ""
    if t == "summary":
        gist = obj.get("summary", "")
    elif t == "ai-title":
        gist = obj.get("aiTitle", "")
    elif t == "custom-title":
        gist = obj.get("customTitle", "")
    elif t == "agent-name":
        gist = obj.get("agentName", "")
    elif t == "last-prompt":
        gist = obj.get("lastPrompt", "")
    elif t == "permission-mode":
        gist = obj.get("permissionMode", "")
    elif t == "queue-operation":
        gist = f'{obj.get("operation", "")} {obj.get("content", "") if isinstance(obj.get("content"), str) else ""}'
    elif t == "pr-link":
        gist = f'PR #{obj.get("prNumber", "")} {obj.get("prUrl", "")}'
    elif t == "file-history-snapshot":
        snap = obj.get("snapshot") if isinstance(obj.get("snapshot"), dict) else {}
        files = snap.get("trackedFileBackups") if isinstance(snap.get("trackedFileBackups"), dict) else {}
        gist = f"{len(files)} tracked file(s)" + (": " + ", ".join(list(files)[:5]) if files else "")
    elif t == "progress":
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        gist = f'{data.get("type", "")} {data.get("hookName", "") or data.get("command", "") or ""}'
    elif t == "attachment":
        att = obj.get("attachment") if isinstance(obj.get("attachment"), dict) else {}
        gist = att.get("type", "")
        body = _attachment_body(att)
        return (f'<div class="metarow" id="L{line}"><span class="dim">L{line}</span> <b>{esc(t)}</b> '
                f'{esc(gist)} <span class="dim">({human_size(size)})</span>{body}</div>')
    gist = to_text(gist)
    full = json_text(obj)
    shown = full[:_PREVIEW] + (f" … ({human_size(size)} in all)" if len(full) > _PREVIEW else "")
    return (f'<div class="metarow" id="L{line}"><span class="dim">L{line}</span> <b>{esc(t)}</b> {esc(gist[:300])}'
            f'<details class="raw"><summary>raw ({human_size(size)})</summary><pre>{esc(shown)}</pre></details></div>')


def _attachment_body(att: dict) -> str:
    content = att.get("content")
    if isinstance(content, dict):
        f = content.get("file") if isinstance(content.get("file"), dict) else None
        if f and isinstance(f.get("content"), str):
            return pre(f["content"])
        if isinstance(content.get("content"), str):
            return pre(content["content"])
    if isinstance(content, str) and content:
        return pre(content)
    if isinstance(content, list) and content:
        return pre("\n".join(c if isinstance(c, str) else json_text(c) for c in content))
    for key in ("prompt", "stdout", "snippet", "planContent"):
        if isinstance(att.get(key), str) and att[key]:
            return pre(att[key])
    text = json_text(att)
    return f'<pre class="dim">{esc(text[:_PREVIEW])}{" …" if len(text) > _PREVIEW else ""}</pre>'
