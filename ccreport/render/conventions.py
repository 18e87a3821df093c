"""The conventions Claude Code writes inside text (docs/formats.md F3) and the notes for system and
bookkeeping lines (§4.3–§4.9), rendered for a reader instead of shown as raw tags.
"""

from __future__ import annotations

import functools
import re

from ccreport.model.text import json_text, to_text
from ccreport.render.blocks import fmt_time, kv_table
from ccreport.render import notes
from ccreport.render.markup import ansi_to_html, cut, esc, human_size, markdown, pre, source_fold
from ccreport.render.teammates import teammate_text


@functools.lru_cache(maxsize=64)
def _tag_pattern(name: str) -> re.Pattern:
    return re.compile(f"<{re.escape(name)}>(.*?)</{re.escape(name)}>", re.S)


def tag_text(name: str, text: str) -> str | None:
    """What the first <name>…</name> in text holds (None when there is none)."""
    # Most texts hold no such tag: a substring test answers them (0.1 µs instead of 2–3 µs for
    # re.escape, re's cache and the search; ~19k calls in the 150 MB home).
    if f"<{name}>" not in text:
        return None
    m = _tag_pattern(name).search(text)
    return m.group(1) if m else None


def _capped(text: str) -> str:
    """Escaped text cut at RENDER_MAX, with the note saying what was cut."""
    shown, note = cut(text)
    return esc(shown) + note


def _folded(label: str, body_html: str, cls: str = "injected") -> str:
    return f'<details class="{cls}"><summary>{esc(label)}</summary>{body_html}</details>'


def _reminders(text: str, source: bool = True) -> tuple[str, str]:
    """Split <system-reminder> blocks out of text: (rest, folded reminders html)."""
    # (every tool output and user text passes here: one C substring test before the regex)
    found = re.findall(r"<system-reminder>(.*?)</system-reminder>", text, re.S) if "<system-reminder>" in text else None
    if not found:
        return text, ""
    rest = re.sub(r"\s*<system-reminder>.*?</system-reminder>\s*", "\n", text, flags=re.S).strip()
    html = "".join(_folded("System reminder", pre(r.strip(), source=source)) for r in found)
    return rest, html


def _into_last_fold(folds_html: str, extra: str) -> str:
    """folds_html (ending in a </details>) with extra placed inside its last fold."""
    end = "</details>"
    return folds_html[: -len(end)] + extra + end if folds_html.endswith(end) else folds_html + extra


def user_text(text: str, entry: dict, as_markdown: bool = False) -> tuple[str, str | None, str | None]:
    """(html, message css class or None, header label or None) for one user text block; a typed
    text as Markdown when ``as_markdown`` (a sub-agent's prompt, written by the parent model).

    A convention whose view drops the tags around its content (a command chip, terminal output,
    a status card, …) is followed by its original text, folded (source_fold): nothing is lost.
    """
    if entry.get("isCompactSummary"):
        return (_folded("Summary of the earlier conversation (compaction)", f'<div class="md">{markdown(text)}</div>',
                        "compact-summary"), "user compact", "Compaction summary")
    s = text.strip()
    shown = teammate_text(text) or _tagged_text(s, text) or _injected_text(s, text, entry)
    if shown is not None:
        return shown
    rest, reminders = _reminders(text, source=False)
    if reminders and not rest.strip():
        return _into_last_fold(reminders, source_fold(text)), "user injected", "Injected"
    src = source_fold(text) if reminders else ""
    # A prompt can be a pasted 100 MB log: capped like every other block, the page says what was cut.
    body = f'<div class="md">{markdown(rest)}</div>' if as_markdown else f'<div class="prompt">{_capped(rest)}</div>'
    return f'{body}{reminders}{src}', None, None


def _tagged_text(s: str, text: str) -> tuple[str, str, str] | None:
    """A caveat, a slash command or its output, bash mode, a task notification (None: none of them)."""
    if s.startswith("<local-command-caveat>") or s.startswith("Caveat: The messages below"):
        body = tag_text("local-command-caveat", s)
        if body is None:
            return _folded("Caveat (injected by Claude Code)", pre(s)), "user injected", "Injected"
        # Already folded: the source goes inside the fold, not as a second line under it.
        return (_folded("Caveat (injected by Claude Code)", pre(body, source=False) + source_fold(text)),
                "user injected", "Injected")
    name = tag_text("command-name", s)
    if name is not None and ("<command-message>" in s or s.startswith("<command-name>")):
        args = tag_text("command-args", s) or ""
        msg = tag_text("command-message", s) or ""
        html = (f'<p><span class="cmd">{_capped(name.strip())}</span> <span class="cmd-args">{_capped(args.strip())}</span></p>'
                + (f'<p class="dim">{_capped(msg.strip())}</p>' if msg.strip() and msg.strip() != name.strip().lstrip("/") else ""))
        return html + source_fold(text), "user command", "Command"
    out, err = tag_text("local-command-stdout", s), tag_text("local-command-stderr", s)
    if out is not None or err is not None:
        html = ((pre(out, cls="term", source=False) if out is not None else "")
                + (pre(err, cls="term err", source=False) if err is not None else ""))
        return html + source_fold(text), "user cmdout", "Command output"
    bash_in = tag_text("bash-input", s)
    if bash_in is not None:
        return (f'<pre class="term"><span class="prompt-sign">$ </span>{_capped(bash_in)}</pre>' + source_fold(text),
                "user bash", "Bash mode")
    bo, be = tag_text("bash-stdout", s), tag_text("bash-stderr", s)
    if bo is not None or be is not None:
        html = (pre(bo, cls="term", source=False) if bo else "") + (pre(be, cls="term err", source=False) if be else "")
        return (html or '<p class="dim">(no output)</p>') + source_fold(text), "user bash", "Bash output"
    if s.startswith("<task-notification>"):
        fields = {k: tag_text(k, s) for k in ("task-id", "tool-use-id", "output-file", "status", "summary")}
        status = (fields.get("status") or "").strip()
        rows = "".join(f"<dt>{esc(k)}</dt><dd>{_capped(v.strip())}</dd>" for k, v in fields.items() if v)
        return (f'<div class="card status-{esc(status)}"><p><b>Background task {esc(status or "update")}</b></p>'
                f"<dl>{rows}</dl></div>" + source_fold(text)), "user notify", "Task notification"
    return None


# Text an IDE or a hook put in the user's turn, by its tag: the label of its fold.
_INJECTED_TAGS = (("ide_opened_file", "IDE: opened file"), ("ide_selection", "IDE: selection"),
                  ("user-memory-input", "Memory input"), ("user-prompt-submit-hook", "Hook output (prompt submit)"),
                  ("session-start-hook", "Hook output (session start)"))


def _injected_text(s: str, text: str, entry: dict) -> tuple[str, str, str] | None:
    """Hook output, an interruption marker, context Claude Code or an IDE added (None: none of them)."""
    hook = re.match(r"^(?:[A-Za-z]+(?::\S+)?) hook (?:additional context|success|error|blocking error)[^\n]*:", s)
    if hook:
        return _folded(hook.group(0).rstrip(":"), pre(s[hook.end():].strip())), "user injected", "Hook output"
    if s.startswith("[Request interrupted by user"):
        return f'<p class="marker">■ {_capped(s)}</p>', "user interrupt", "Interrupted"
    if entry.get("isMeta"):
        label = "Skill instructions" if s.startswith("Base directory for this skill") else "Injected context"
        return _folded(f"{label} (not typed by the user)", pre(text)), "user injected", "Injected"
    for tag, label in _INJECTED_TAGS:
        if s.startswith(f"<{tag}>"):
            inner = tag_text(tag, s)
            if inner is None:
                return _folded(label, pre(s)), "user injected", label
            return _folded(label, pre(inner, source=False) + source_fold(text)), "user injected", label
    return None


def system_note(m) -> str:
    e = m.entry or {}
    sub = e.get("subtype")
    content = e.get("content") if isinstance(e.get("content"), str) else ""
    anchor = f'id="L{m.line}"'
    when = fmt_time(m.timestamp)
    new = notes.system_new(e, anchor, when)
    if new is not None:
        return new
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
        dur = f"{ms / 1000:,.1f} s" if isinstance(ms, (int, float)) else "?"
        n = e.get("messageCount")
        more = f", {n:,} messages" if isinstance(n, int) else ""
        return f'<div class="sysnote" {anchor}>Turn took {dur}{more} {when}</div>'
    if sub == "api_error":
        return _api_error_note(e, anchor, when)
    if sub == "local_command":
        html, _, label = user_text(content, {})
        return f'<div class="sysnote local" {anchor}><span class="dim">{esc(label or "Local command")}</span> {when}{html}</div>'
    if sub == "stop_hook_summary":
        return _stop_hooks(e, anchor, when)
    cls = "sysnote err" if e.get("level") == "error" else "sysnote warn" if e.get("level") == "warning" else "sysnote"
    label = esc(sub or "system")
    # A subtype without text (new ones keep coming) shows its fields as a table, not as JSON.
    body = pre(content) if content else notes.fields_table(e) or '<p class="dim">(no fields)</p>'
    if content and len(content) < 300 and "\n" not in content:
        return notes.one_line(cls, anchor, label, content, when)
    return f'<div class="{cls}" {anchor}><details><summary>{label} {when}</summary>{body}</details></div>'


def _stop_hooks(e: dict, anchor: str, when: str) -> str:
    n = e.get("hookCount")
    errs = e.get("hookErrors") if isinstance(e.get("hookErrors"), list) else []
    infos = e.get("hookInfos") if isinstance(e.get("hookInfos"), list) else []
    cmds = "".join(f"<li><code>{ansi_to_html(to_text(i.get('command') if isinstance(i, dict) else i))}</code></li>"
                   for i in infos)
    body = (f'<ul class="hooks">{cmds}</ul>' if cmds else "") + "".join(
        pre(x if isinstance(x, str) else json_text(x), cls="err") for x in errs)
    if e.get("preventedContinuation"):
        body += f'<p class="err">Stopped the turn{": " + esc(e.get("stopReason")) if e.get("stopReason") else ""}</p>'
    return (f'<div class="sysnote{" err" if errs else ""}" {anchor}><details><summary>Stop hooks: {esc(n)} ran'
            f'{", " + str(len(errs)) + " errors" if errs else ""} {when}</summary>{body}</details></div>')


_PREVIEW = 400
# Bookkeeping line types whose gist is one field of the line.
_GIST_FIELD = {"summary": "summary", "ai-title": "aiTitle", "custom-title": "customTitle", "agent-name": "agentName",
               "last-prompt": "lastPrompt", "permission-mode": "permissionMode"}


def meta_row(line: int, obj: dict, size: int, anchor: bool = True) -> str:
    """One bookkeeping line inside a folded group: its type, a readable gist, its size."""
    # The group's own element carries the first line's anchor: an id appears once per page.
    rid = f' id="L{line}"' if anchor else ""
    t = obj.get("type", "?")
    head = f'<div class="metarow"{rid}><span class="dim">L{line}</span> <b>{esc(t)}</b> '
    gist = notes.bookkeeping_gist(obj) or ""
    if gist:
        pass
    elif isinstance(t, str) and t in _GIST_FIELD:
        gist = obj.get(_GIST_FIELD[t], "")
    elif t == "queue-operation":
        content = obj.get("content") if isinstance(obj.get("content"), str) else ""
        if content.lstrip().startswith("<task-notification>"):
            # A background task's notification queued for the model: the same status card as in user text.
            card, _, _ = user_text(content, {})
            return f'{head}{esc(obj.get("operation", ""))} <span class="dim">({human_size(size)})</span>{card}</div>'
        gist = f'{obj.get("operation", "")} {content}'
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
        if isinstance(att.get("hookName"), str):
            # Hook output: say which hook ran (and how it ended) so it is not mistaken for a prompt.
            gist = f'{gist} {att["hookName"]}' + (f' exit {att["exitCode"]}' if isinstance(att.get("exitCode"), int) else "")
        body = notes.attachment_body(att) or _attachment_body(att)
        return (f'{head}{ansi_to_html(to_text(gist))} <span class="dim">({human_size(size)})</span>{body}'
                f'{notes.rendered_fold(obj)}</div>')
    gist = to_text(gist)
    full = json_text(obj)
    shown = full[:_PREVIEW] + (f" … ({human_size(size)} in all)" if len(full) > _PREVIEW else "")
    return (f'{head}{ansi_to_html(gist[:300])}'
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
    if isinstance(att.get("prompt"), str) and att["prompt"].lstrip().startswith("<task-notification>"):
        return user_text(att["prompt"], {})[0]
    for key in ("prompt", "stdout", "snippet", "planContent"):
        if isinstance(att.get(key), str) and att[key]:
            return pre(att[key])
    # An attachment without text (plan_mode, auto_mode, new types): its fields, as a table.
    return notes.fields_table(att, ("type",))


# --- tool output text -------------------------------------------------------------------------
_PERSISTED = re.compile(r"<persisted-output>(.*?)(?:</persisted-output>|\Z)", re.S)
# The rest of the line: the home's folder names may hold spaces or tabs.
_SAVED_TO = re.compile(r"Full output saved to:[ \t]*([^\n]*[^\s])")
_SIZE = re.compile(r"Output too large \(([^)]*)\)")


def persisted_output(body: str, ctx, source: bool = True) -> str:
    """A large output Claude Code saved to tool-results/: a link to the copy, then the preview."""
    m = _SAVED_TO.search(body)
    path = m.group(1) if m else ""
    name = re.split(r"[\\/]", path)[-1] if path else ""
    size = _SIZE.search(body)
    url = ctx.copy_tool_result(name) if name and ctx.copy_tool_result is not None else None
    url = ctx.href(url) if url else None
    label = f"Output too large{' (' + size.group(1) + ')' if size else ''}"
    if url:
        link = f'<a class="persisted" href="{esc(url)}">open the full output ({esc(name)})</a>'
    elif name:
        link = f'saved to <code>{esc(path)}</code> <span class="dim">(not found in this home)</span>'
    else:
        link = ""
    pm = re.search(r"Preview \(([^)]*)\):\n", body)
    preview = body[pm.end():] if pm else body
    head = body[: pm.start()] if pm else ""
    return (f'<div class="persisted-card"><p><b>{esc(label)}</b> — {link}</p>'
            + (f'<details class="more"><summary>note</summary>{pre(head.strip(), source=source)}</details>' if head.strip() and not m else "")
            + f'<div class="lbl">Preview{" (" + esc(pm.group(1)) + ")" if pm else ""}</div>'
            f'{pre(preview.rstrip(), source=source)}</div>')


def output_text(text: str, ctx, cls: str = "out", source: bool = True) -> str:
    """Text a tool returned: persisted-output linked, reminders folded, tool errors marked.

    When tags were taken out (reminders, <persisted-output>, <tool_use_error>) the original text
    follows, folded (source_fold); source=False when the caller shows the source of a larger whole.
    """
    tagged = "<system-reminder>" in text or "<persisted-output>" in text
    err = tag_text("tool_use_error", text)
    tagged = tagged or (err is not None and text.strip().startswith("<tool_use_error>"))
    inner = source and not tagged  # one source copy: of the whole text when tags went, else of ANSI runs
    src = source_fold(text) if source and tagged else ""
    text, reminders = _reminders(text, source=inner)
    if "<persisted-output>" in text:
        parts, pos = [], 0
        for m in _PERSISTED.finditer(text):
            if text[pos:m.start()].strip():
                parts.append(pre(text[pos:m.start()].strip("\n"), cls=cls, source=inner))
            parts.append(persisted_output(m.group(1).strip("\n"), ctx, source=inner))
            pos = m.end()
        if text[pos:].strip():
            parts.append(pre(text[pos:].strip("\n"), cls=cls, source=inner))
        return "".join(parts) + reminders + src
    if err is not None and text.strip().startswith("<tool_use_error>"):
        return f'<p class="tool-error">⚠ {esc(err.strip())}</p>' + reminders + src
    if not text and reminders:
        return _into_last_fold(reminders, src)  # only reminders: the source goes inside their fold
    return pre(text, cls=cls, source=inner) + reminders + src


def _api_error_note(e: dict, anchor: str, when: str) -> str:
    """system/api_error: what failed and the retry plan in one line; the rest as a table, folded."""
    err = e.get("error") if isinstance(e.get("error"), dict) else {}
    inner = err.get("error") if isinstance(err.get("error"), dict) else {}
    if isinstance(inner.get("error"), dict):  # {"type":"error","error":{…}} nests once more
        inner = inner["error"]
    bits = []
    if err.get("status") is not None:
        bits.append(f"HTTP {esc(err['status'])}")
    if inner.get("type"):
        bits.append(esc(inner["type"]))
    msg = f": {esc(inner['message'])}" if inner.get("message") else ""
    retry = ""
    if e.get("retryAttempt") is not None:
        retry = f" — retry {esc(e['retryAttempt'])}" + (f"/{esc(e['maxRetries'])}" if e.get("maxRetries") is not None else "")
        if isinstance(e.get("retryInMs"), (int, float)):
            retry += f" in {e['retryInMs'] / 1000:.1f} s"
    detail = {k: e.get(k) for k in ("error", "cause") if e.get(k) not in (None, {}, "")}
    head = f'API error {" ".join(bits)}{msg}{retry} {when}'
    if not detail:
        return f'<div class="sysnote err" {anchor}>{head}</div>'
    return f'<div class="sysnote err" {anchor}><details><summary>{head}</summary>{kv_table(detail)}</details></div>'
