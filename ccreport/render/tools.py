"""Per-tool views: each tool call as a collapsed <details> a person can read.

A view is ``fn(call, ctx) -> (summary_html, input_html, result_html_or_None)``; ``result_html`` of
None means "render the result the generic way" (its text, with conventions such as
``<persisted-output>`` and ``<system-reminder>`` recognised). Unknown tools get a key/value table of
their input and their result as text. See FORMAT.md §6–§7 for the shapes.

Cost matters (a cold build renders every call): views do string work only, highlighted code goes
through markup's cached lexers and is skipped past ``HIGHLIGHT_MAX``.
"""

from __future__ import annotations

import difflib
import re

import orjson

from ccreport.render.codelang import BROWSER_COLOUR_MAX, prism_for_name, prism_language
from ccreport.model.text import to_text
from ccreport.render.markup import FOLD_LINES, HIGHLIGHT_MAX, cut, esc, highlight, human_size, in_browser, lexer_for, markdown, pre, source_fold

SUMMARY_MAX = 160
KV_DEPTH = 3  # nested objects deeper than this are shown as JSON (there is no better form left)
# File contents (Read/Write) are the bulk of highlighting work in a cold build (pygments' Python
# lexer runs at ~200 KB/s): past this size they keep their line numbers but are not coloured.
CODE_HIGHLIGHT_MAX = min(HIGHLIGHT_MAX, 4_000)  # pygments runs at ~200 KB/s: file contents past this keep line numbers, not colours


def _s(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else to_text(v))


def _short(text: str, n: int = SUMMARY_MAX) -> str:
    text = " ".join(_s(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _inp(call) -> dict:
    return call.input if isinstance(call.input, dict) else {}


def _x(call) -> dict:
    """The structured result (toolUseResult) of a call when it is an object, else {}."""
    r = call.result
    return r.extra if r is not None and isinstance(r.extra, dict) else {}


def _plural(n, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}" if isinstance(n, int) else f"{esc(n)} {word}s"


def result_text(r) -> str:
    """The text of a tool_result (string content, or its text blocks joined)."""
    if r is None:
        return ""
    c = r.content
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(b["text"] for b in c if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    return ""


def _result_is_text_only(r) -> bool:
    c = r.content if r is not None else None
    return isinstance(c, str) or (isinstance(c, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in c))


def json_dump(obj) -> str:
    """Raw JSON, only where nothing more readable exists (marked so tests can find it)."""
    from ccreport.render.message import json_block

    return f'<div class="rawjson">{json_block(obj)}</div>'


def _scalar(v) -> str:
    if isinstance(v, bool):
        return f"<code>{str(v).lower()}</code>"
    if v is None:
        return "<code>null</code>"
    if isinstance(v, (int, float)):
        return f"<code>{esc(v)}</code>"
    s = _s(v)
    return pre(s) if ("\n" in s or len(s) > 200) else f"<code>{esc(s)}</code>"


def kv_value(v, depth: int = 0) -> str:
    if not isinstance(v, (dict, list)):
        return _scalar(v)
    if depth >= KV_DEPTH:
        return json_dump(v)
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


# --- code with line numbers -------------------------------------------------------------------
def _code_lines(text: str, filename: str | None = None, lang: str | None = None) -> list[str]:
    """One balanced HTML string per source line (pygments closes spans at every line end)."""
    lx = lexer_for(lang, filename) if len(text) <= CODE_HIGHLIGHT_MAX else None
    if lx is None:
        return [esc(x) for x in text.split("\n")]
    from pygments import highlight as _hl

    from ccreport.render.markup import _formatter

    body = _hl(text, lx, _formatter)
    if body.endswith("\n") and not text.endswith("\n"):
        body = body[:-1]
    return body.split("\n")


def numbered(text: str, filename: str | None = None, start: int = 1, sep: str = "", numbers=None,
             lang: str | None = None, fold: bool = True, browser: bool | None = None) -> str:
    """Code with its real line numbers in a gutter, folded after FOLD_LINES lines.

    ``sep`` is the separator Claude Code put between number and text (``→`` or a tab): kept in a
    hidden span so the page text still reads as the model saw it (search, copy of a whole block).
    ``browser``: leave the colours to assets/code.js (the site) instead of pygments (the
    self-contained export, which carries no highlighter): the block says its language in
    ``data-lang`` and holds plain escaped text. Default: markup.colours_in_browser()'s setting.
    """
    if browser is None:
        browser = in_browser()
    text, note = cut(text)
    if text.endswith("\n"):
        text = text[:-1]
    attr = ""
    if browser:
        lines = esc(text).split("\n")
        plang = ((prism_for_name(lang) if lang else prism_language(filename))
                 if len(text) <= BROWSER_COLOUR_MAX else None)
        attr = f' data-lang="{plang}"' if plang else ""
    else:
        lines = _code_lines(text, filename, lang)
    if numbers is None or len(numbers) != len(lines):
        numbers = range(start, start + len(lines))
    # Without a separator of its own, a hidden tab keeps the number a word apart from the code.
    s = f'<span class="lsep">{esc(sep or chr(9))}</span>'
    rows = [f'<span class="ln">{n}</span>{s}{ln}' for n, ln in zip(numbers, lines)]
    if fold and len(rows) > FOLD_LINES + 10:
        head, rest = rows[:FOLD_LINES], rows[FOLD_LINES:]
        # (tabindex: a numbered block keeps its lines unwrapped and scrolls sideways; keyboard users
        # must be able to reach and scroll it.)
        return (f'<pre class="code hl num" tabindex="0"{attr}>{chr(10).join(head)}</pre>'
                f'<details class="more"><summary>show all {len(rows):,} lines</summary>'
                f'<pre class="code hl num{" cont" if attr else ""}" tabindex="0"{attr}>{chr(10).join(rest)}</pre></details>{note}')
    return f'<pre class="code hl num" tabindex="0"{attr}>{chr(10).join(rows)}</pre>{note}'


_NUMBERED = re.compile(r"^ *(\d+)(→|\t)(.*)$")
# The same, for a whole block at once (one C-level pass instead of a Python loop per line).
_BLOCK = {"→": re.compile(r"(?: *\d+→[^\n]*(?:\n|\Z))+"), "\t": re.compile(r"(?: *\d+\t[^\n]*(?:\n|\Z))+")}


def parse_numbered(text: str):
    """Split ``cat -n`` style text (``   12→code`` or ``12\\tcode``) into (numbers, code, sep, tail).

    ``tail`` is what follows the numbered block (system reminders). None when the text is not numbered.
    """
    first = _NUMBERED.match(text[: text.find("\n")] if "\n" in text else text)
    if first is None:
        return _parse_numbered_lines(text)
    sep = first.group(2)
    end = _BLOCK[sep].match(text).end()
    rest = text[end:]
    if "\n" in rest and rest[: rest.find("\n")].strip() == "":
        # A blank line, then more numbered lines? Then the block goes on: the careful path.
        after = rest[rest.find("\n") + 1:]
        if _NUMBERED.match(after[: after.find("\n")] if "\n" in after else after):
            return _parse_numbered_lines(text)
    block = text[:end]
    # Every line of the block is " *<digits><sep>…" (the match above): a partition per line is exact,
    # and 3× faster than a multiline regex, which tries every position of the text.
    split = [ln.partition(sep) for ln in (block[:-1] if block.endswith("\n") else block).split("\n")]
    return [int(p[0]) for p in split], "\n".join(p[2] for p in split), sep, rest.strip()


def _parse_numbered_lines(text: str):
    lines = text.split("\n")
    nums, code, sep = [], [], None
    i = 0
    for i, ln in enumerate(lines):
        m = _NUMBERED.match(ln)
        if not m or (sep is not None and m.group(2) != sep):
            if ln.strip() == "" and i + 1 < len(lines) and _NUMBERED.match(lines[i + 1] or ""):
                nums.append(None)
                code.append("")
                continue
            break
        sep = m.group(2)
        nums.append(int(m.group(1)))
        code.append(m.group(3))
    else:
        i = len(lines)
    if not nums or sep is None:
        return None
    # Blank separator lines inside the block get the number after their neighbour.
    fixed = []
    for k, n in enumerate(nums):
        fixed.append(n if n is not None else (fixed[-1] + 1 if fixed else 1))
    return fixed, "\n".join(code), sep, "\n".join(lines[i:]).strip()


# --- result text --------------------------------------------------------------------------------
def text_html(text: str, ctx, cls: str = "out", source: bool = True) -> str:
    """Tool output text: ANSI as spans, <persisted-output> linked, reminders folded, errors marked
    (and, where that dropped tags or escapes, the original text folded after it)."""
    from ccreport.render import conventions

    return conventions.output_text(text, ctx, cls, source=source)


def _generic_result(call, ctx) -> str:
    from ccreport.render.message import result_content_html

    r = call.result
    if _result_is_text_only(r):
        t = result_text(r)
        if not t:
            return '<p class="dim">(no output)</p>'
        return text_html(t, ctx, "out err" if r.is_error else "out")
    return result_content_html(r.content, ctx, r.is_error)


# --- diffs --------------------------------------------------------------------------------------
def _diff_lines(old: str, new: str) -> list[str]:
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "after", lineterm="", n=3))[2:]


def _diff(old: str, new: str, path: str = "") -> str:
    return diff_html(_diff_lines(old, new))


def diff_html(lines) -> str:
    out = []
    for ln in lines:
        cls = "add" if ln.startswith("+") else "del" if ln.startswith("-") else "hunk" if ln.startswith("@@") else "ctx"
        # The newline sits inside the (block) span: between spans it would add an empty line.
        out.append(f'<span class="{cls}">{esc(ln)}\n</span>')
    if not out:
        return '<p class="dim">(no change)</p>'
    if len(out) > FOLD_LINES * 3:
        return (f'<pre class="diff" tabindex="0">{"".join(out[:FOLD_LINES])}</pre><details class="more"><summary>show all '
                f'{len(out):,} diff lines</summary><pre class="diff" tabindex="0">{"".join(out[FOLD_LINES:])}</pre></details>')
    return f'<pre class="diff" tabindex="0">{"".join(out)}</pre>'


def _diff_stat(lines) -> str:
    add = sum(1 for x in lines if x.startswith("+"))
    rem = sum(1 for x in lines if x.startswith("-"))
    return f' <span class="dstat"><span class="dadd">+{add}</span> <span class="ddel">−{rem}</span></span>'


def _patch_lines(patch) -> list[str] | None:
    if not isinstance(patch, list) or not patch:
        return None
    out = []
    for h in patch:
        if not isinstance(h, dict) or not isinstance(h.get("lines"), list):
            return None
        out.append(f'@@ -{h.get("oldStart", "?")},{h.get("oldLines", "?")} +{h.get("newStart", "?")},{h.get("newLines", "?")} @@')
        out.extend(_s(x) for x in h["lines"])
    return out


def _path_html(path: str) -> str:
    return f'<code class="path">{esc(path)}</code>'


# --- views ------------------------------------------------------------------------------------
def v_bash(call, ctx):
    inp = _inp(call)
    cmd = _s(inp.get("command"))
    desc = _s(inp.get("description"))
    summary = f'<code class="cmdline">{esc(_short(cmd))}</code>' + (f' <span class="dim">— {esc(_short(desc, 100))}</span>' if desc else "")
    flags = []
    if inp.get("run_in_background"):
        flags.append('<span class="chip">background</span>')
    if inp.get("timeout"):
        flags.append(f'<span class="chip">timeout {esc(inp["timeout"])} ms</span>')
    if inp.get("dangerouslyDisableSandbox"):
        flags.append('<span class="chip warnchip">sandbox off</span>')
    lang = "powershell" if call.name == "PowerShell" else "bash"
    body = (f'<p class="dim">{esc(desc)}</p>' if desc and len(desc) > 100 else "") + highlight(cmd, lang=lang) + (
        f'<p>{" ".join(flags)}</p>' if flags else "")
    return summary, body, _shell_result(call, ctx)


def _shell_result(call, ctx) -> str | None:
    r = call.result
    x = _x(call)
    if r is None or not ("stdout" in x or "stderr" in x):
        return None
    parts = []
    out, err = _s(x.get("stdout")), _s(x.get("stderr"))
    text = result_text(r)
    if out:
        parts.append(text_html(out, ctx, "term"))
    if err:
        parts.append('<div class="lbl">stderr</div>' + text_html(err, ctx, "term err"))
    if not out and not err:
        # Nothing structured: the tool_result text holds the message ("(Bash completed with no
        # output)", "Exit code 1 …", a <persisted-output> note).
        parts.append(text_html(text, ctx, "term err" if r.is_error else "term") if text else '<p class="dim">(no output)</p>')
    elif r.is_error and text and text.strip() not in (out.strip(), err.strip()):
        parts.insert(0, text_html(text, ctx, "out err"))
    info = []
    if x.get("interrupted"):
        info.append('<span class="chip warnchip">interrupted</span>')
    if x.get("backgroundTaskId"):
        info.append(f'<span class="chip">background task {esc(x["backgroundTaskId"])}</span>')
    if x.get("assistantAutoBackgrounded"):
        info.append('<span class="chip">moved to background</span>')
    if x.get("returnCodeInterpretation"):
        info.append(f'<span class="chip">{esc(x["returnCodeInterpretation"])}</span>')
    code = re.match(r"Exit code (-?\d+)", text) if r.is_error else None
    if code and not isinstance(x.get("exitCode"), int):
        info.append(f'<span class="chip warnchip">exit {code.group(1)}</span>')
    if isinstance(x.get("exitCode"), int):
        info.append(f'<span class="chip{" warnchip" if x["exitCode"] else ""}">exit {x["exitCode"]}</span>')
    if x.get("status"):
        info.append(f'<span class="chip">{esc(x["status"])}</span>')
    if x.get("isImage"):
        info.append('<span class="chip">image output</span>')
    return (f'<p class="rinfo">{" ".join(info)}</p>' if info else "") + "".join(parts)


def v_bash_output(call, ctx):
    inp = _inp(call)
    x = _x(call)
    sid = _s(inp.get("bash_id") or inp.get("shell_id") or x.get("shellId"))
    cmd = _s(x.get("command"))
    summary = f'shell <code>{esc(sid)}</code>' + (f' <code class="cmdline">{esc(_short(cmd, 100))}</code>' if cmd else "")
    if inp.get("filter"):
        summary += f' <span class="dim">filter {esc(_short(inp["filter"], 60))}</span>'
    res = _shell_result(call, ctx)
    if res is None and call.result is not None:
        # Older results carry only the tagged text: <status>, <exit_code>, <stdout>, <stderr>.
        t = result_text(call.result)
        tags = {k: _tag(k, t) for k in ("status", "exit_code", "stdout", "stderr", "timestamp")}
        if tags["stdout"] is not None or tags["stderr"] is not None or tags["status"] is not None:
            info = "".join(f'<span class="chip">{esc(k.replace("_", " "))} {esc(tags[k].strip())}</span> '
                           for k in ("status", "exit_code") if tags[k])
            res = (f'<p class="rinfo">{info}</p>' if info else "") + (
                text_html(tags["stdout"].strip("\n"), ctx, "term", source=False) if tags["stdout"] else "") + (
                '<div class="lbl">stderr</div>' + text_html(tags["stderr"].strip("\n"), ctx, "term err", source=False)
                if tags["stderr"] and tags["stderr"].strip() else "") + source_fold(t)
    return summary, "", res


def _tag(name: str, text: str) -> str | None:
    m = re.search(f"<{name}>(.*?)</{name}>", text, re.S)
    return m.group(1) if m else None


def v_read(call, ctx):
    inp = _inp(call)
    x = _x(call)
    f = x.get("file") if isinstance(x.get("file"), dict) else {}
    path = _s(inp.get("file_path") or inp.get("path") or inp.get("notebook_path") or f.get("filePath"))
    rng = ""
    if isinstance(f.get("startLine"), int) and isinstance(f.get("numLines"), int) and x.get("type") == "text":
        end = f["startLine"] + max(f["numLines"] - 1, 0)
        rng = f'lines {f["startLine"]:,}–{end:,}' + (f' of {f["totalLines"]:,}' if isinstance(f.get("totalLines"), int) else "")
    elif inp.get("offset") or inp.get("limit"):
        start = inp.get("offset") or 1
        lim = inp.get("limit")
        rng = f"lines {esc(start)}–{esc(start + lim - 1)}" if isinstance(start, int) and isinstance(lim, int) else f"from line {esc(start)}"
    if inp.get("pages"):
        rng += f" pages {esc(inp['pages'])}"
    summary = _path_html(path) + (f' <span class="dim">{rng}</span>' if rng else "")
    rest = {k: v for k, v in inp.items() if k not in ("file_path", "offset", "limit")}
    body = kv_table(rest) if rest else ""
    r = call.result
    res = None
    if r is not None and not r.is_error:
        if x.get("type") == "image" and isinstance(f.get("base64"), str):
            from ccreport.render.message import image_html

            res = image_html({"source": {"type": "base64", "media_type": _s(f.get("type")) or "image/png", "data": f["base64"]}}, ctx)
            if isinstance(f.get("originalSize"), int):
                res += f'<p class="dim">original file {human_size(f["originalSize"])}</p>'
        elif _result_is_text_only(r):
            text = result_text(r)
            parsed = parse_numbered(text)
            if parsed:
                nums, code, sep, tail = parsed
                res = numbered(code, filename=path, numbers=nums, sep=sep)
                if tail:
                    res += text_html(tail, ctx)
            elif isinstance(f.get("content"), str) and f["content"] and text.strip() == f["content"].strip():
                res = numbered(f["content"], filename=path, start=f.get("startLine") or 1)
    return summary, body, res


def v_edit(call, ctx):
    inp = _inp(call)
    x = _x(call)
    path = _s(inp.get("file_path") or x.get("filePath"))
    lines = _patch_lines(x.get("structuredPatch"))
    if lines is None:
        if isinstance(inp.get("edits"), list):
            lines = []
            for e in inp["edits"]:
                if isinstance(e, dict):
                    lines.extend(_diff_lines(_s(e.get("old_string")), _s(e.get("new_string"))))
        else:
            lines = _diff_lines(_s(inp.get("old_string")), _s(inp.get("new_string")))
    summary = _path_html(path) + _diff_stat(lines)
    if inp.get("replace_all"):
        summary += ' <span class="chip">all occurrences</span>'
    if isinstance(inp.get("edits"), list):
        summary += f' <span class="dim">{_plural(len(inp["edits"]), "edit")}</span>'
    if x.get("userModified"):
        summary += ' <span class="chip">changed by the user</span>'
    return summary, diff_html(lines), _snippet_result(call, path, ctx)


_SNIPPET_START = re.compile(r"^ *\d+(→|\t)", re.M)


def _snippet_result(call, path: str, ctx) -> str | None:
    """'The file … has been updated. Here's the result of running `cat -n` on a snippet …' followed
    by numbered lines: the sentence as text, the snippet as numbered, highlighted code."""
    r = call.result
    if r is None or r.is_error or not _result_is_text_only(r):
        return None
    text = result_text(r)
    m = _SNIPPET_START.search(text)
    if not m or m.start() == 0:
        return None
    parsed = parse_numbered(text[m.start():])
    if not parsed:
        return None
    nums, code, sep, tail = parsed
    head = text[: m.start()].strip()
    return (f'<p class="confirm">{esc(head)}</p>' + numbered(code, filename=path, numbers=nums, sep=sep)
            + (text_html(tail, ctx) if tail else ""))


def v_write(call, ctx):
    inp = _inp(call)
    x = _x(call)
    path = _s(inp.get("file_path") or x.get("filePath"))
    content = _s(inp.get("content"))
    n = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    kind = {"create": "new file", "update": "overwritten"}.get(_s(x.get("type")), "")
    summary = _path_html(path) + f' <span class="dim">{_plural(n, "line")}{", " + kind if kind else ""}</span>'
    body = ""
    lines = _patch_lines(x.get("structuredPatch")) if x.get("type") == "update" else None
    if lines:
        body = diff_html(lines) + f'<details class="more"><summary>full content ({_plural(n, "line")})</summary>{numbered(content, filename=path, fold=False)}</details>'
    else:
        body = numbered(content, filename=path) if content else '<p class="dim">(empty file)</p>'
    return summary, body, None


def _search_summary(inp: dict) -> str:
    pat = _s(inp.get("pattern"))
    path = _s(inp.get("path"))
    bits = []
    for k in ("glob", "type", "output_mode", "-i", "-n", "multiline", "head_limit", "ignore"):
        v = inp.get(k)
        if v not in (None, "", False):
            bits.append(f"{k}={_short(_s(v) if not isinstance(v, list) else ','.join(map(_s, v)), 40)}")
    return (f"<code>{esc(_short(pat, 100))}</code>" if pat else "") + (
        f' <span class="dim">in</span> {_path_html(path)}' if path else "") + (
        f' <span class="dim">{esc(" ".join(bits))}</span>' if bits else "")


def _file_list(names: list[str], total, truncated: bool, ctx) -> str:
    head = f'<p class="rinfo"><span class="chip">{_plural(total, "file")}{" (truncated)" if truncated else ""}</span></p>'
    return head + pre("\n".join(names), cls="files")


def v_search(call, ctx):
    inp = _inp(call)
    x = _x(call)
    summary = _search_summary(inp)
    res = None
    r = call.result
    if r is not None and not r.is_error:
        if isinstance(x.get("filenames"), list) and not x.get("content") and x.get("mode") != "count":
            names = [_s(n) for n in x["filenames"]]
            res = _file_list(names, x.get("numFiles", len(names)), bool(x.get("truncated")), ctx)
        elif isinstance(x.get("content"), str):
            bits = []
            for k, w in (("numFiles", "file"), ("numLines", "line"), ("numMatches", "match")):
                if isinstance(x.get(k), int) and (x[k] or k == "numLines"):
                    bits.append(_plural(x[k], w).replace("matchs", "matches"))
            if x.get("appliedLimit"):
                bits.append(f"limit {esc(x['appliedLimit'])}")
            res = (f'<p class="rinfo">{" ".join(f"<span class=chip>{b}</span>" for b in bits)}</p>' if bits else "") + text_html(x["content"], ctx)
        elif call.name == "LS" or call.name == "Glob":
            t = result_text(r)
            # LS: "- name" lines under the listed folder (its own line first); Glob: one path a line.
            entries = (sum(1 for ln in t.split("\n") if ln.strip().startswith("- ")) - 1) if call.name == "LS" else \
                sum(1 for ln in t.split("\n") if ln.strip())
            res = f'<p class="rinfo"><span class="chip">{_plural(entries, "entry").replace("entrys", "entries")}</span></p>' + text_html(t, ctx, "files")
    rest = {k: v for k, v in inp.items() if k not in ("pattern", "path")}
    return summary, kv_table(rest) if rest else "", res


STATUS_MARK = {"completed": "☑", "in_progress": "◐", "pending": "☐", "deleted": "☒", "cancelled": "☒"}


def _todo_item(text: str, status: str, extra: str = "") -> str:
    st = status or "pending"
    return (f'<li class="todo st-{esc(st)}"><span class="mark">{STATUS_MARK.get(st, "☐")}</span> {esc(text)}'
            f' <span class="tstatus">{esc(st.replace("_", " "))}</span>{extra}</li>')


def checklist(items) -> tuple[str, int, int]:
    out = []
    done = 0
    for t in items:
        if not isinstance(t, dict):
            out.append(f"<li>{esc(t)}</li>")
            continue
        st = _s(t.get("status")) or "pending"
        done += st == "completed"
        text = _s(t.get("content") or t.get("subject") or t.get("activeForm") or t.get("description"))
        if t.get("id") is not None:
            text = f"#{_s(t['id'])} {text}"
        extra = ""
        if t.get("owner"):
            extra += f' <span class="chip">{esc(t["owner"])}</span>'
        if t.get("blockedBy"):
            extra += f' <span class="dim">blocked by {esc(", ".join(map(_s, t["blockedBy"])))}</span>'
        out.append(_todo_item(text, st, extra))
    return f'<ul class="todos">{"".join(out)}</ul>', done, len(items)


def v_todo(call, ctx):
    inp = _inp(call)
    todos = inp.get("todos")
    if not isinstance(todos, list):
        return "", kv_table(inp), None
    html, done, n = checklist(todos)
    active = next((t for t in todos if isinstance(t, dict) and t.get("status") == "in_progress"), None)
    summary = f'<span class="dim">{done}/{n} done</span>' + (
        f' ◐ {esc(_short(_s(active.get("activeForm") or active.get("content")), 100))}' if active else "")
    return summary, html, _small_result(call, ctx)


def _small_result(call, ctx) -> str | None:
    """A confirmation text shown small (errors the normal way)."""
    r = call.result
    if r is None or r.is_error or not _result_is_text_only(r):
        return None
    t = result_text(r)
    return f'<p class="confirm">{esc(t)}</p>' if t and len(t) < 1000 and "<" not in t else None


def v_task_create(call, ctx):
    inp = _inp(call)
    x = _x(call)
    task = x.get("task") if isinstance(x.get("task"), dict) else {}
    subject = _s(inp.get("subject") or task.get("subject"))
    tid = task.get("id")
    summary = (f"#{esc(tid)} " if tid is not None else "") + esc(_short(subject, 120))
    item = _todo_item((f"#{_s(tid)} " if tid is not None else "") + subject, "pending")
    desc = _s(inp.get("description"))
    body = f'<ul class="todos">{item}</ul>' + (f'<div class="md">{markdown(desc)}</div>' if desc else "")
    rest = {k: v for k, v in inp.items() if k not in ("subject", "description")}
    return summary, body + (kv_table(rest) if rest else ""), _small_result(call, ctx)


def v_task_update(call, ctx):
    inp = _inp(call)
    x = _x(call)
    tid = _s(inp.get("taskId") or x.get("taskId"))
    ch = x.get("statusChange") if isinstance(x.get("statusChange"), dict) else {}
    st = _s(inp.get("status") or ch.get("to"))
    summary = f"#{esc(tid)}"
    if ch:
        summary += (f' <span class="tstatus">{esc(_s(ch.get("from")).replace("_", " "))}</span> → '
                    f'{STATUS_MARK.get(_s(ch.get("to")), "")} <span class="tstatus">{esc(_s(ch.get("to")).replace("_", " "))}</span>')
    elif st:
        summary += f' → {STATUS_MARK.get(st, "")} <span class="tstatus">{esc(st.replace("_", " "))}</span>'
    if inp.get("owner"):
        summary += f' <span class="chip">{esc(inp["owner"])}</span>'
    rest = {k: v for k, v in inp.items() if k not in ("taskId", "status", "owner")}
    return summary, kv_table(rest) if rest else "", _small_result(call, ctx)


_TASK_LINE = re.compile(r"^#(\S+) \[(\w+)\] (.*?)(?: \(([^()]*)\))?$")


def v_task_list(call, ctx):
    x = _x(call)
    res = None
    tasks = x.get("tasks") if isinstance(x.get("tasks"), list) else None
    if tasks is None and call.result is not None and not call.result.is_error:
        parsed = [_TASK_LINE.match(ln) for ln in result_text(call.result).split("\n") if ln.strip()]
        if parsed and all(parsed):
            tasks = [{"id": m.group(1), "status": m.group(2), "subject": m.group(3), "owner": m.group(4)} for m in parsed]
    summary = ""
    if tasks is not None:
        res, done, n = checklist(tasks)
        summary = f'<span class="dim">{done}/{n} done</span>'
        if call.result is not None:
            # The checklist is read out of the result's text: keep that text too, folded.
            res += source_fold(result_text(call.result))
    return summary, kv_table(_inp(call)) if _inp(call) else "", res


def v_web_fetch(call, ctx):
    inp = _inp(call)
    x = _x(call)
    url = _s(inp.get("url") or x.get("url"))
    summary = f'<code>{esc(_short(url, 120))}</code>'
    prompt = _s(inp.get("prompt"))
    link = f'<p><a href="{esc(url)}" rel="noreferrer">{esc(url)}</a></p>' if re.match(r"^https?://", url) else ""
    body = link + (f'<div class="lbl">Prompt</div><div class="md">{markdown(prompt)}</div>' if prompt else "")
    res = None
    r = call.result
    if r is not None and not r.is_error and _result_is_text_only(r):
        text = _s(x.get("result")) or result_text(r)
        bits = []
        if x.get("code") is not None:
            bits.append(f'HTTP {esc(x["code"])} {esc(_s(x.get("codeText")))}')
        if isinstance(x.get("bytes"), int):
            bits.append(human_size(x["bytes"]))
        if isinstance(x.get("durationMs"), (int, float)):
            bits.append(f'{x["durationMs"] / 1000:.1f} s')
        res = (f'<p class="rinfo">{" ".join(f"<span class=chip>{b}</span>" for b in bits)}</p>' if bits else "") + \
            f'<div class="md">{markdown(text)}</div>'
    return summary, body, res


_LINKS = re.compile(r"^Links: (\[.*\])$", re.M)


def v_web_search(call, ctx):
    inp = _inp(call)
    x = _x(call)
    q = _s(inp.get("query") or x.get("query"))
    summary = f"<code>{esc(_short(q, 140))}</code>"
    for k in ("allowed_domains", "blocked_domains"):
        if inp.get(k):
            summary += f' <span class="dim">{esc(k.split("_")[0])}: {esc(", ".join(map(_s, inp[k])))}</span>'
    res = None
    r = call.result
    if r is not None and not r.is_error and _result_is_text_only(r):
        text = result_text(r)

        def links_md(m):
            try:
                items = orjson.loads(m.group(1))
            except orjson.JSONDecodeError:
                return m.group(0)
            md = [f"- [{_s(i.get('title')).replace('[', '(').replace(']', ')') or _s(i.get('url'))}]({_s(i.get('url'))})"
                  for i in items if isinstance(i, dict)]
            return "\n".join(md) if md else m.group(0)

        text = _LINKS.sub(links_md, text)
        bits = []
        if isinstance(x.get("durationSeconds"), (int, float)):
            bits.append(f'{x["durationSeconds"]:.1f} s')
        res = (f'<p class="rinfo">{" ".join(f"<span class=chip>{b}</span>" for b in bits)}</p>' if bits else "") + \
            f'<div class="md">{markdown(text)}</div>'
    return summary, "", res


_AGENT_TRAILER = re.compile(r"\n*agentId: (\S+)[^\n]*(?:\n[\w]+: [^\n]*)*\s*(?:<usage>(.*?)</usage>)?\s*$", re.S)


def v_task(call, ctx):
    inp = _inp(call)
    x = _x(call)
    desc = _s(inp.get("description") or x.get("description"))
    atype = _s(inp.get("subagent_type") or x.get("agentType"))
    summary = esc(_short(desc, 100)) + (f' <span class="chip">{esc(atype)}</span>' if atype else "")
    if inp.get("name"):
        summary += f' <span class="dim">as {esc(inp["name"])}</span>'
    prompt = _s(inp.get("prompt"))
    body = (f'<details class="prompt-fold"><summary>Prompt ({len(prompt):,} characters)</summary>'
            f'<div class="md">{markdown(prompt)}</div></details>')
    rest = {k: v for k, v in inp.items() if k not in ("description", "subagent_type", "prompt", "name")}
    if rest:
        body += kv_table(rest)
    r = call.result
    agent_id = x.get("agentId")
    if isinstance(agent_id, str) and agent_id in ctx.agent_urls:
        body += (f'<p><a class="agent-link" href="{esc(ctx.href(ctx.agent_urls[agent_id]))}">'
                 f'Open the sub-agent transcript ({esc(agent_id)}) →</a></p>')
    elif call.sidechain_line and call.sidechain_line in ctx.page_lines:
        body += f'<p><a class="agent-link" href="#L{call.sidechain_line}">Sub-agent run below (line {call.sidechain_line}) ↓</a></p>'
    elif isinstance(agent_id, str):
        body += f'<p class="dim">Sub-agent {esc(agent_id)} (its transcript is not in this home)</p>'
    res = None
    if r is not None:
        bits = []
        if isinstance(x.get("totalDurationMs"), (int, float)):
            bits.append(f"{x['totalDurationMs'] / 1000:,.1f} s")
        if isinstance(x.get("totalTokens"), int):
            bits.append(f"{x['totalTokens']:,} tokens")
        if isinstance(x.get("totalToolUseCount"), int):
            bits.append(_plural(x["totalToolUseCount"], "tool use"))
        ts = x.get("toolStats") if isinstance(x.get("toolStats"), dict) else {}
        if ts.get("linesAdded") or ts.get("linesRemoved"):
            bits.append(f'+{esc(ts.get("linesAdded", 0))} −{esc(ts.get("linesRemoved", 0))} lines')
        if x.get("status"):
            bits.append(esc(x["status"]))
        if x.get("wasInterrupted"):
            bits.append("interrupted")
        if x.get("isAsync"):
            bits.append("launched in the background" + (f' → {esc(x["outputFile"])}' if x.get("outputFile") else ""))
        if x.get("worktreeBranch"):
            bits.append(f'branch {esc(x["worktreeBranch"])}')
        stats = f'<p class="rinfo">{" ".join(f"<span class=chip>{b}</span>" for b in bits)}</p>' if bits else ""
        if _result_is_text_only(r) and not r.is_error:
            text = result_text(r)
            m = _AGENT_TRAILER.search(text)
            trailer = ""
            if m and m.start() > 0:
                trailer = text[m.start():].strip()
                text = text[: m.start()]
            res = stats + f'<div class="lbl">Final answer</div><div class="md">{markdown(text)}</div>' + (
                f'<p class="trailer">{esc(trailer)}</p>' if trailer else "")
        else:
            res = stats + _generic_result(call, ctx)
        if ts:
            res += '<p class="dim">' + esc(" · ".join(f"{k}: {v}" for k, v in ts.items())) + "</p>"
    return summary, body, res


def v_ask(call, ctx):
    inp = _inp(call)
    x = _x(call)
    qs = inp.get("questions") if isinstance(inp.get("questions"), list) else x.get("questions")
    answers = x.get("answers") if isinstance(x.get("answers"), dict) else {}
    if not isinstance(qs, list):
        q = _s(inp.get("question"))
        return esc(_short(q, 120)), f'<div class="md">{markdown(q)}</div>' if q else kv_table(inp), None
    out = []
    for q in qs:
        if not isinstance(q, dict):
            out.append(f"<li>{esc(q)}</li>")
            continue
        text = _s(q.get("question"))
        ans = answers.get(text)
        chosen = {a.strip() for a in _s(ans).split(",")} if ans is not None else set()
        opts = []
        for o in q.get("options") or []:
            label = _s(o.get("label")) if isinstance(o, dict) else _s(o)
            d = _s(o.get("description")) if isinstance(o, dict) else ""
            picked = label in chosen or label == ans
            opts.append(f'<li class="opt{" picked" if picked else ""}">{"☑" if picked else "☐"} <b>{esc(label)}</b>'
                        f'{" — " + esc(d) if d else ""}</li>')
        other = f'<p class="answer">Answer: {esc(ans)}</p>' if ans is not None and not any("picked" in o for o in opts) else ""
        head = f'<span class="chip">{esc(q["header"])}</span> ' if q.get("header") else ""
        multi = ' <span class="dim">(several allowed)</span>' if q.get("multiSelect") else ""
        out.append(f'<li class="question"><p>{head}{esc(text)}{multi}</p><ul class="opts">{"".join(opts)}</ul>{other}</li>')
    summary = esc(_short(_s(qs[0].get("question")) if qs and isinstance(qs[0], dict) else "", 120))
    if len(qs) > 1:
        summary += f' <span class="dim">+{len(qs) - 1} more</span>'
    res = None
    if answers:
        # The answers are ticked above; the tool's own sentence stays, small, as the model read it.
        said = result_text(call.result) if call.result is not None and _result_is_text_only(call.result) else ""
        res = f'<p class="confirm">{esc(said) if said else _plural(len(answers), "answer") + " given (marked ☑ above)."}</p>'
    return summary, f'<ol class="questions">{"".join(out)}</ol>', res


def v_plan(call, ctx):
    inp = _inp(call)
    x = _x(call)
    plan = _s(inp.get("plan") or x.get("plan"))
    first = next((ln.lstrip("# ").strip() for ln in plan.split("\n") if ln.strip()), "")
    summary = esc(_short(first, 120))
    body = f'<div class="md plan">{markdown(plan)}</div>' if plan else kv_table(inp)
    if x.get("filePath"):
        body += f'<p class="dim">Saved to {_path_html(_s(x["filePath"]))}</p>'
    return summary, body, None


def v_skill(call, ctx):
    inp = _inp(call)
    x = _x(call)
    name = _s(inp.get("skill") or inp.get("command") or x.get("commandName"))
    summary = f'<span class="cmd">{esc(name)}</span>' + (f' <code>{esc(_short(_s(inp.get("args")), 100))}</code>' if inp.get("args") else "")
    rest = {k: v for k, v in inp.items() if k not in ("skill", "command", "args")}
    body = kv_table(rest) if rest else ""
    if isinstance(x.get("allowedTools"), list) and x["allowedTools"]:
        body += '<p class="dim">allowed tools: ' + " ".join(f'<span class="chip">{esc(t)}</span>' for t in x["allowedTools"]) + "</p>"
    return summary, body, None


def v_tool_search(call, ctx):
    inp = _inp(call)
    x = _x(call)
    q = _s(inp.get("query") or x.get("query"))
    summary = f"<code>{esc(_short(q, 120))}</code>"
    res = None
    r = call.result
    if r is not None and not r.is_error:
        names = [b.get("tool_name") for b in r.content if isinstance(b, dict) and b.get("type") == "tool_reference"] \
            if isinstance(r.content, list) else []
        if not names and isinstance(x.get("matches"), list):
            names = x["matches"]
        if names or isinstance(x.get("matches"), list):
            total = x.get("total_deferred_tools")
            res = (f'<p class="rinfo"><span class="chip">{_plural(len(names), "tool")} loaded'
                   f'{f" of {total} deferred" if isinstance(total, int) else ""}</span></p>'
                   + " ".join(f'<span class="chip tref">{esc(n)}</span>' for n in names))
    rest = {k: v for k, v in inp.items() if k != "query"}
    return summary, kv_table(rest) if rest else "", res


def v_send_message(call, ctx):
    inp = _inp(call)
    x = _x(call)
    to = _s(inp.get("to") or inp.get("recipient"))
    summary = (f'to <b>{esc(to)}</b>' if to else "") + (f' <span class="dim">— {esc(_short(_s(inp.get("summary")), 100))}</span>' if inp.get("summary") else "")
    msg = _s(inp.get("message") or inp.get("content"))
    body = f'<div class="md">{markdown(msg)}</div>' if msg else ""
    rest = {k: v for k, v in inp.items() if k not in ("to", "recipient", "summary", "message", "content")}
    body += kv_table(rest) if rest else ""
    res = None
    if x and call.result is not None and not call.result.is_error:
        ok = x.get("success")
        routing = x.get("routing") if isinstance(x.get("routing"), dict) else {}
        res = (f'<p class="confirm">{"✓" if ok else "✗"} {esc(_s(x.get("message")))}'
               + (f' <span class="dim">{esc(_s(routing.get("sender")))} → {esc(_s(routing.get("target")))}</span>' if routing else "")
               + "</p>" + source_fold(result_text(call.result)))
    return summary, body, res


def v_mcp(call, ctx):
    summary = _generic_summary(call)
    body = kv_table(call.input)
    res = None
    r = call.result
    if r is not None and not r.is_error and _result_is_text_only(r):
        t = result_text(r).strip()
        # MCP servers often answer with JSON text: show it as a table when it is an object.
        if t[:1] in "{[" and len(t) < 200_000:
            try:
                obj = orjson.loads(t)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, (dict, list)) and obj:
                res = kv_value(obj)
    return summary, body, res


VIEWS = {
    "Bash": v_bash,
    "PowerShell": v_bash,
    "BashOutput": v_bash_output,
    "Read": v_read,
    "Edit": v_edit,
    "MultiEdit": v_edit,
    "Write": v_write,
    "Grep": v_search,
    "Glob": v_search,
    "LS": v_search,
    "TodoWrite": v_todo,
    "TaskCreate": v_task_create,
    "TaskUpdate": v_task_update,
    "TaskList": v_task_list,
    "Task": v_task,
    "Agent": v_task,
    "WebFetch": v_web_fetch,
    "WebSearch": v_web_search,
    "AskUserQuestion": v_ask,
    "ExitPlanMode": v_plan,
    "exit_plan_mode": v_plan,
    "Skill": v_skill,
    "ToolSearch": v_tool_search,
    "SendMessage": v_send_message,
}


def view_for(name: str):
    """The specific view of a tool name, or None for the generic key/value one."""
    if name in VIEWS:
        return VIEWS[name]
    if name.startswith("mcp__"):
        return v_mcp
    return None


def _generic_summary(call) -> str:
    inp = _inp(call)
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "skill", "subject", "taskId"):
        if isinstance(inp.get(key), (str, int)) and inp[key] != "":
            return f"<code>{esc(_short(_s(inp[key])))}</code>"
    first = next((v for v in inp.values() if isinstance(v, str) and v), "")
    return f"<code>{esc(_short(first))}</code>" if first else ""


def tool_label(name: str) -> str:
    m = re.match(r"^mcp__(.+?)__(.+)$", name)
    if m:
        return f'<span class="mcp">MCP</span> <span class="dim">{esc(m.group(1))} ›</span> {esc(m.group(2))}'
    return esc(name)


def render_call(call, ctx) -> str:
    view = view_for(call.name)
    summary, body, res_html = (view(call, ctx) if view else (None, None, None))
    if summary is None or summary == "":
        summary = _generic_summary(call)
    if body is None:
        body = kv_table(call.input)
    elif view is not None and call.input is not None and not isinstance(call.input, dict):
        # Views read an object; an input of another shape (a bare string, a list) must still show.
        body += kv_table(call.input)
    name = call.name
    r = call.result
    err = r is not None and r.is_error
    if r is None:
        status = '<span class="pending">no result on this page</span>'
        result = ""
    else:
        status = '<span class="errflag">error</span>' if err else ""
        inner = res_html if res_html is not None else _generic_result(call, ctx)
        if err and isinstance(r.extra, (dict, list)) and r.extra:
            # Views skip the structured result of a failed call; it may still say what happened.
            inner += f'<details class="raw"><summary>structured result (toolUseResult)</summary>{kv_table(r.extra)}</details>'
        result = f'<div class="tout{" err" if err else ""}" id="L{r.line}"><div class="lbl">Result</div>{inner}</div>'
    tin = f'<div class="tin">{body}</div>' if body else ""
    return (f'<details class="tool{" error" if err else ""}" data-tool="{esc(name)}" id="T-{esc(call.id)}">'
            f'<summary><span class="tname">{tool_label(name)}</span> <span class="tsum">{summary}</span> {status}</summary>'
            f'{tin}{result}</details>')


def result_only_html(res, name, ctx) -> str:
    """A result whose call is on another page: its text the generic way."""
    from ccreport.model.messages import ToolCall
    from ccreport.render.message import result_content_html

    view = view_for(name) if isinstance(name, str) else None
    if view is not None:
        # The call's input is on another page; the view still reads the structured result.
        _, _, html = view(ToolCall(res.tool_use_id, name, None, 0, result=res), ctx)
        if html is not None:
            return html
    if _result_is_text_only(res):
        t = result_text(res)
        if not t:
            return '<p class="dim">(no output)</p>'
        return text_html(t, ctx, "out err" if res.is_error else "out")
    return result_content_html(res.content, ctx, res.is_error)
