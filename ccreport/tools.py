"""Per-tool views: each tool call as a collapsed <details> a person can read.

A view is ``fn(call, ctx) -> (summary_html, input_html, result_html_or_None)``; ``result_html`` of
None means "render the result the generic way". Unknown tools get a key/value table of their
input and their result as text. See FORMAT.md §6–§7 for the shapes.
"""

from __future__ import annotations

import difflib
import re

from .markup import esc, highlight, markdown, pre, to_text

SUMMARY_MAX = 160


def _s(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else to_text(v))


def _short(text: str, n: int = SUMMARY_MAX) -> str:
    text = " ".join(_s(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def kv_table(inp) -> str:
    from .render import json_block

    if not isinstance(inp, dict):
        return json_block(inp) if inp is not None else ""
    if not inp:
        return '<p class="dim">(no input)</p>'
    rows = []
    for k, v in inp.items():
        if isinstance(v, str):
            cell = pre(v) if ("\n" in v or len(v) > 200) else f"<code>{esc(v)}</code>"
        elif isinstance(v, (int, float, bool)) or v is None:
            cell = f"<code>{esc(repr(v) if not isinstance(v, bool) else str(v).lower())}</code>"
        else:
            cell = json_block(v)
        rows.append(f"<tr><th>{esc(k)}</th><td>{cell}</td></tr>")
    return f'<table class="kv">{"".join(rows)}</table>'


def _diff(old: str, new: str, path: str = "") -> str:
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "after", lineterm="", n=3)
    return diff_html(list(lines)[2:])


def diff_html(lines) -> str:
    out = []
    for ln in lines:
        cls = "add" if ln.startswith("+") else "del" if ln.startswith("-") else "hunk" if ln.startswith("@@") else "ctx"
        out.append(f'<span class="{cls}">{esc(ln)}</span>')
    return f'<pre class="diff">{chr(10).join(out)}</pre>' if out else '<p class="dim">(no change)</p>'


def _patch_lines(patch) -> list[str] | None:
    if not isinstance(patch, list):
        return None
    out = []
    for h in patch:
        if not isinstance(h, dict) or not isinstance(h.get("lines"), list):
            return None
        out.append(f'@@ -{h.get("oldStart", "?")},{h.get("oldLines", "?")} +{h.get("newStart", "?")},{h.get("newLines", "?")} @@')
        out.extend(_s(x) for x in h["lines"])
    return out


# --- views ------------------------------------------------------------------------------------
def v_bash(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    cmd = _s(inp.get("command"))
    desc = _s(inp.get("description"))
    summary = f"<code>{esc(_short(cmd))}</code>" + (f' <span class="dim">— {esc(_short(desc, 80))}</span>' if desc else "")
    flags = []
    if inp.get("run_in_background"):
        flags.append("background")
    if inp.get("timeout"):
        flags.append(f"timeout {esc(inp['timeout'])} ms")
    body = highlight(cmd, lang="bash") + (f'<p class="dim">{", ".join(flags)}</p>' if flags else "")
    res = None
    r = call.result
    if r is not None and isinstance(r.extra, dict) and ("stdout" in r.extra or "stderr" in r.extra):
        x = r.extra
        parts = []
        if _s(x.get("stdout")):
            parts.append(pre(_s(x["stdout"]), cls="term"))
        if _s(x.get("stderr")):
            parts.append('<p class="dim">stderr</p>' + pre(_s(x["stderr"]), cls="term err"))
        info = []
        if x.get("interrupted"):
            info.append("interrupted")
        if x.get("backgroundTaskId"):
            info.append(f"background task {esc(x['backgroundTaskId'])}")
        if x.get("returnCodeInterpretation"):
            info.append(esc(x["returnCodeInterpretation"]))
        if not parts:
            # Fall back to the tool_result text (errors carry their exit code there).
            from .render import result_content_html

            parts.append(result_content_html(r.content, ctx, r.is_error))
        res = "".join(parts) + (f'<p class="dim">{" · ".join(info)}</p>' if info else "")
    return summary, body, res


def v_read(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    path = _s(inp.get("file_path") or inp.get("path"))
    rng = ""
    if inp.get("offset") or inp.get("limit"):
        start = inp.get("offset") or 1
        limit = inp.get("limit")
        if isinstance(start, int) and isinstance(limit, int) and not isinstance(limit, bool):
            rng = f" lines {esc(start)}–{esc(start + limit)}"
        elif limit:
            # offset/limit of another type (a string, a list): shown as given, never added up
            rng = f" from line {esc(start)}, limit {esc(limit)}"
        else:
            rng = f" from line {esc(start)}"
    summary = f"<code>{esc(path)}</code>{rng}"
    res = None
    r = call.result
    if r is not None and isinstance(r.extra, dict) and isinstance(r.extra.get("file"), dict):
        f = r.extra["file"]
        if r.extra.get("type") == "image" and isinstance(f.get("base64"), str):
            from .render import image_html

            res = image_html({"source": {"type": "base64", "media_type": _s(f.get("type")) or "image/png", "data": f["base64"]}}, ctx)
    return summary, "" if not inp else kv_table({k: v for k, v in inp.items() if k not in ("file_path",)}) if len(inp) > 1 else "", res


def v_edit(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    path = _s(inp.get("file_path"))
    summary = f"<code>{esc(path)}</code>" + (' <span class="dim">(all occurrences)</span>' if inp.get("replace_all") else "")
    body = None
    r = call.result
    if r is not None and isinstance(r.extra, dict):
        lines = _patch_lines(r.extra.get("structuredPatch"))
        if lines:
            body = diff_html(lines)
    if body is None:
        if call.name == "MultiEdit" and isinstance(inp.get("edits"), list):
            body = "".join(_diff(_s(e.get("old_string")), _s(e.get("new_string"))) for e in inp["edits"] if isinstance(e, dict))
        else:
            body = _diff(_s(inp.get("old_string")), _s(inp.get("new_string")))
    return summary, body, None


def v_write(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    path = _s(inp.get("file_path"))
    content = _s(inp.get("content"))
    n = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    summary = f"<code>{esc(path)}</code> <span class=\"dim\">({n:,} lines)</span>"
    return summary, highlight(content, filename=path) if len(content) < 6000 else pre(content, cls="code"), None


def v_search(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    pat = _s(inp.get("pattern"))
    path = _s(inp.get("path"))
    extra = " ".join(f"{k}={_short(_s(v), 40)}" for k, v in inp.items() if k not in ("pattern", "path") and v not in (None, ""))
    summary = f"<code>{esc(_short(pat, 100))}</code>" + (f' <span class="dim">in {esc(path)}</span>' if path else "") + (
        f' <span class="dim">{esc(extra)}</span>' if extra else "")
    res = None
    r = call.result
    if r is not None and isinstance(r.extra, dict) and isinstance(r.extra.get("filenames"), list) and not r.extra.get("content"):
        names = [_s(x) for x in r.extra["filenames"]]
        num = r.extra.get("numFiles", len(names))
        res = f'<p class="dim">{esc(num)} file{"s" if num != 1 else ""}{" (truncated)" if r.extra.get("truncated") else ""}</p>' + pre("\n".join(names))
    return summary, kv_table(inp), res


def v_todo(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    todos = inp.get("todos")
    if not isinstance(todos, list):
        return "", kv_table(inp), None
    done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
    items = []
    for t in todos:
        if not isinstance(t, dict):
            items.append(f"<li>{esc(t)}</li>")
            continue
        st = _s(t.get("status")) or "pending"
        mark = {"completed": "☑", "in_progress": "◐", "pending": "☐"}.get(st, "☐")
        text = _s(t.get("content") or t.get("subject") or t.get("activeForm"))
        items.append(f'<li class="todo {esc(st)}"><span class="mark">{mark}</span> {esc(text)} <span class="dim">{esc(st.replace("_", " "))}</span></li>')
    return f'<span class="dim">{done}/{len(todos)} done</span>', f'<ul class="todos">{"".join(items)}</ul>', None


def v_task(call, ctx):
    inp = call.input if isinstance(call.input, dict) else {}
    desc = _s(inp.get("description"))
    atype = _s(inp.get("subagent_type"))
    summary = esc(_short(desc, 100)) + (f' <span class="chip">{esc(atype)}</span>' if atype else "")
    prompt = _s(inp.get("prompt"))
    body = f'<details class="prompt-fold"><summary>Prompt ({len(prompt):,} chars)</summary><div class="md">{markdown(prompt)}</div></details>'
    r = call.result
    agent_id = r.extra.get("agentId") if r is not None and isinstance(r.extra, dict) else None
    link = ""
    if isinstance(agent_id, str) and agent_id in ctx.agent_urls:
        link = f'<p><a class="agent-link" href="{esc(ctx.href(ctx.agent_urls[agent_id]))}">Open the sub-agent transcript ({esc(agent_id)}) →</a></p>'
    elif call.sidechain_line and call.sidechain_line in ctx.page_lines:
        link = f'<p><a class="agent-link" href="#L{call.sidechain_line}">Sub-agent run below (line {call.sidechain_line}) ↓</a></p>'
    stats = ""
    if r is not None and isinstance(r.extra, dict):
        x = r.extra
        bits = []
        if isinstance(x.get("totalDurationMs"), (int, float)):
            bits.append(f"{x['totalDurationMs'] / 1000:.1f} s")
        if isinstance(x.get("totalTokens"), int):
            bits.append(f"{x['totalTokens']:,} tokens")
        if isinstance(x.get("totalToolUseCount"), int):
            bits.append(f"{x['totalToolUseCount']} tool uses")
        if x.get("status"):
            bits.append(esc(x["status"]))
        if bits:
            stats = f'<p class="dim">{" · ".join(bits)}</p>'
    return summary, body + link + stats, None


VIEWS = {
    "Bash": v_bash,
    "PowerShell": v_bash,
    "Read": v_read,
    "Edit": v_edit,
    "MultiEdit": v_edit,
    "Write": v_write,
    "Grep": v_search,
    "Glob": v_search,
    "LS": v_search,
    "TodoWrite": v_todo,
    "Task": v_task,
    "Agent": v_task,
}


def _generic_summary(call) -> str:
    inp = call.input if isinstance(call.input, dict) else {}
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "skill"):
        if isinstance(inp.get(key), str) and inp[key]:
            return f"<code>{esc(_short(inp[key]))}</code>"
    first = next((v for v in inp.values() if isinstance(v, str) and v), "")
    return f"<code>{esc(_short(first))}</code>" if first else ""


def render_call(call, ctx) -> str:
    view = VIEWS.get(call.name)
    summary, body, res_html = (view(call, ctx) if view else (None, None, None))
    if summary is None or summary == "":
        summary = _generic_summary(call)
    if body is None:
        body = kv_table(call.input)
    name = call.name
    label = esc(name)
    m = re.match(r"^mcp__(.+?)__(.+)$", name)
    if m:
        label = f'<span class="dim">{esc(m.group(1))} ›</span> {esc(m.group(2))}'
    r = call.result
    err = r is not None and r.is_error
    if r is None:
        status = '<span class="pending">no result on this page</span>'
        result = ""
    else:
        from .render import result_content_html

        status = '<span class="errflag">error</span>' if err else ""
        inner = res_html if res_html is not None else result_content_html(r.content, ctx, err)
        result = f'<div class="tout{" err" if err else ""}" id="L{r.line}"><div class="lbl">Result</div>{inner}</div>'
    return (f'<details class="tool{" error" if err else ""}" data-tool="{esc(name)}" id="T-{esc(call.id)}">'
            f'<summary><span class="tname">{label}</span> <span class="tsum">{summary}</span> {status}</summary>'
            f'<div class="tin">{body}</div>{result}</details>')


def result_only_html(res, name, ctx) -> str:
    from .render import result_content_html

    return result_content_html(res.content, ctx, res.is_error)
