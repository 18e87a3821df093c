"""Read, Edit/MultiEdit and Write: file contents with their line numbers, changes as diffs."""

from __future__ import annotations

import re

from ccreport.render.blocks import image_html
from ccreport.render.conventions import output_text
from ccreport.render.markup import esc, human_size
from ccreport.render.tools.base import (as_str, extra_of, input_of, ok_text, path_html, plural, rest_table,
                                        result_text, text_only, tool_summary)
from ccreport.render.tools.code import diff_html, diff_lines, diff_stat, numbered, parse_numbered, patch_lines
from ccreport.render.tools.homelinks import before_link, plan_link


def v_read(call, inp: dict, x: dict, ctx):
    f = x.get("file") if isinstance(x.get("file"), dict) else {}
    path = tool_summary(call)
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
    summary = path_html(path, ctx) + (f' <span class="dim">{rng}</span>' if rng else "")
    body = rest_table(inp, ("file_path", "offset", "limit"))
    r = call.result
    res = None
    if r is not None and not r.is_error:
        if x.get("type") == "image" and isinstance(f.get("base64"), str):
            res = image_html({"source": {"type": "base64", "media_type": as_str(f.get("type")) or "image/png", "data": f["base64"]}}, ctx)
            if isinstance(f.get("originalSize"), int):
                res += f'<p class="dim">original file {human_size(f["originalSize"])}</p>'
        elif text_only(r):
            text = result_text(r)
            parsed = parse_numbered(text)
            if parsed:
                nums, code, sep, tail = parsed
                res = numbered(code, filename=path, numbers=nums, sep=sep)
                if tail:
                    res += output_text(tail, ctx)
            elif isinstance(f.get("content"), str) and f["content"] and text.strip() == f["content"].strip():
                res = numbered(f["content"], filename=path, start=f.get("startLine") or 1)
    return summary, body, res


def edit_lines(inp: dict, x: dict) -> list[str]:
    """An Edit/MultiEdit's diff lines: the recorded patch (structuredPatch), else one from its strings."""
    lines = patch_lines(x.get("structuredPatch"))
    if lines is None:
        if isinstance(inp.get("edits"), list):
            lines = []
            for e in inp["edits"]:
                if isinstance(e, dict):
                    lines.extend(diff_lines(as_str(e.get("old_string")), as_str(e.get("new_string"))))
        else:
            lines = diff_lines(as_str(inp.get("old_string")), as_str(inp.get("new_string")))
    return lines


def line_count(content: str) -> int:
    return content.count("\n") + (1 if content and not content.endswith("\n") else 0)


def change_counts(call) -> tuple[int, int] | None:
    """(lines added, lines removed) by an Edit, MultiEdit or Write call; None for other tools."""
    inp, x = input_of(call), extra_of(call)
    if call.name in ("Edit", "MultiEdit"):
        lines = edit_lines(inp, x)
    elif call.name == "Write":
        lines = patch_lines(x.get("structuredPatch")) if x.get("type") == "update" else None
        if lines is None:
            return line_count(as_str(inp.get("content"))), 0
    else:
        return None
    return sum(1 for ln in lines if ln.startswith("+")), sum(1 for ln in lines if ln.startswith("-"))


def v_edit(call, inp: dict, x: dict, ctx):
    path = tool_summary(call)
    lines = edit_lines(inp, x)
    summary = path_html(path, ctx) + diff_stat(lines)
    if inp.get("replace_all"):
        summary += ' <span class="chip">all occurrences</span>'
    if isinstance(inp.get("edits"), list):
        summary += f' <span class="dim">{plural(len(inp["edits"]), "edit")}</span>'
    if x.get("userModified"):
        summary += ' <span class="chip">changed by the user</span>'
    links = before_link(call, ctx) + plan_link(call, inp, x, ctx)
    return summary, diff_html(lines) + links, _snippet_result(call, path, ctx)


_SNIPPET_START = re.compile(r"^ *\d+(→|\t)", re.M)


def _snippet_result(call, path: str, ctx) -> str | None:
    """'The file … has been updated. Here's the result of running `cat -n` on a snippet …' followed
    by numbered lines: the sentence as text, the snippet as numbered, highlighted code."""
    text = ok_text(call) or ""
    m = _SNIPPET_START.search(text)
    if not m or m.start() == 0:
        return None
    parsed = parse_numbered(text[m.start():])
    if not parsed:
        return None
    nums, code, sep, tail = parsed
    head = text[: m.start()].strip()
    return (f'<p class="confirm">{esc(head)}</p>' + numbered(code, filename=path, numbers=nums, sep=sep)
            + (output_text(tail, ctx) if tail else ""))


def v_write(call, inp: dict, x: dict, ctx):
    path = tool_summary(call)
    content = as_str(inp.get("content"))
    n = line_count(content)
    kind = {"create": "new file", "update": "overwritten"}.get(as_str(x.get("type")), "")
    summary = path_html(path, ctx) + f' <span class="dim">{plural(n, "line")}{", " + kind if kind else ""}</span>'
    lines = patch_lines(x.get("structuredPatch")) if x.get("type") == "update" else None
    if lines:
        body = diff_html(lines) + f'<details class="more"><summary>full content ({plural(n, "line")})</summary>{numbered(content, filename=path, fold=False)}</details>'
    else:
        body = numbered(content, filename=path) if content else '<p class="dim">(empty file)</p>'
    return summary, body + before_link(call, ctx) + plan_link(call, inp, x, ctx), None
