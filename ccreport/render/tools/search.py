"""Grep, Glob, LS, ToolSearch, WebFetch and WebSearch: what was looked for (in the project, among
the tools, on the web), and what was found."""

from __future__ import annotations

import re

import orjson

from ccreport.render.conventions import output_text
from ccreport.render.markup import esc, human_size, markdown, pre
from ccreport.render.tools.base import (as_str, chip_line, ok_text, path_html, plural, rest_table, result_text,
                                        short, tool_summary)


def _search_summary(call, inp: dict, ctx=None) -> str:
    pat = tool_summary(call)
    path = as_str(inp.get("path"))
    bits = []
    for k in ("glob", "type", "output_mode", "-i", "-n", "multiline", "head_limit", "ignore"):
        v = inp.get(k)
        if v not in (None, "", False):
            bits.append(f"{k}={short(as_str(v) if not isinstance(v, list) else ','.join(map(as_str, v)), 40)}")
    return (f"<code>{esc(short(pat, 100))}</code>" if pat else "") + (
        f' <span class="dim">in</span> {path_html(path, ctx)}' if path else "") + (
        f' <span class="dim">{esc(" ".join(bits))}</span>' if bits else "")


def v_search(call, inp: dict, x: dict, ctx):
    summary = _search_summary(call, inp, ctx)
    res = None
    r = call.result
    if r is not None and not r.is_error:
        if isinstance(x.get("filenames"), list) and not x.get("content") and x.get("mode") != "count":
            names = [as_str(n) for n in x["filenames"]]
            total = plural(x.get("numFiles", len(names)), "file")
            res = (f'<p class="rinfo"><span class="chip">{total}{" (truncated)" if x.get("truncated") else ""}</span></p>'
                   + pre("\n".join(names), cls="files"))
        elif isinstance(x.get("content"), str):
            bits = []
            for k, w in (("numFiles", "file"), ("numLines", "line"), ("numMatches", "match")):
                if isinstance(x.get(k), int) and (x[k] or k == "numLines"):
                    bits.append(plural(x[k], w).replace("matchs", "matches"))
            if x.get("appliedLimit"):
                bits.append(f"limit {esc(x['appliedLimit'])}")
            res = chip_line(bits) + output_text(x["content"], ctx)
        elif call.name == "LS" or call.name == "Glob":
            t = result_text(r)
            # LS: "- name" lines under the listed folder (its own line first); Glob: one path a line.
            entries = (sum(1 for ln in t.split("\n") if ln.strip().startswith("- ")) - 1) if call.name == "LS" else \
                sum(1 for ln in t.split("\n") if ln.strip())
            res = f'<p class="rinfo"><span class="chip">{plural(entries, "entry").replace("entrys", "entries")}</span></p>' + output_text(t, ctx, "files")
    return summary, rest_table(inp, ("pattern", "path")), res


def v_tool_search(call, inp: dict, x: dict, ctx):
    summary = f"<code>{esc(short(tool_summary(call), 120))}</code>"
    res = None
    r = call.result
    if r is not None and not r.is_error:
        names = [b.get("tool_name") for b in r.content if isinstance(b, dict) and b.get("type") == "tool_reference"] \
            if isinstance(r.content, list) else []
        if not names and isinstance(x.get("matches"), list):
            names = x["matches"]
        if names or isinstance(x.get("matches"), list):
            total = x.get("total_deferred_tools")
            res = (f'<p class="rinfo"><span class="chip">{plural(len(names), "tool")} loaded'
                   f'{f" of {total} deferred" if isinstance(total, int) else ""}</span></p>'
                   + " ".join(f'<span class="chip tref">{esc(n)}</span>' for n in names))
    return summary, rest_table(inp, ("query",)), res


def v_web_fetch(call, inp: dict, x: dict, ctx):
    url = tool_summary(call)
    summary = f'<code>{esc(short(url, 120))}</code>'
    prompt = as_str(inp.get("prompt"))
    link = f'<p><a href="{esc(url)}" rel="noreferrer">{esc(url)}</a></p>' if re.match(r"^https?://", url) else ""
    body = link + (f'<div class="lbl">Prompt</div><div class="md">{markdown(prompt)}</div>' if prompt else "")
    res = None
    text = ok_text(call)
    if text is not None:
        text = as_str(x.get("result")) or text
        bits = []
        if x.get("code") is not None:
            bits.append(f'HTTP {esc(x["code"])} {esc(as_str(x.get("codeText")))}')
        if isinstance(x.get("bytes"), int):
            bits.append(human_size(x["bytes"]))
        if isinstance(x.get("durationMs"), (int, float)):
            bits.append(f'{x["durationMs"] / 1000:.1f} s')
        res = chip_line(bits) + f'<div class="md">{markdown(text)}</div>'
    return summary, body, res


_LINKS = re.compile(r"^Links: (\[.*\])$", re.M)


def v_web_search(call, inp: dict, x: dict, ctx):
    summary = f"<code>{esc(short(tool_summary(call), 140))}</code>"
    for k in ("allowed_domains", "blocked_domains"):
        if inp.get(k):
            summary += f' <span class="dim">{esc(k.split("_")[0])}: {esc(", ".join(map(as_str, inp[k])))}</span>'
    res = None
    text = ok_text(call)
    if text is not None:

        def links_md(m):
            try:
                items = orjson.loads(m.group(1))
            except orjson.JSONDecodeError:
                return m.group(0)
            md = [f"- [{as_str(i.get('title')).replace('[', '(').replace(']', ')') or as_str(i.get('url'))}]({as_str(i.get('url'))})"
                  for i in items if isinstance(i, dict)]
            return "\n".join(md) if md else m.group(0)

        text = _LINKS.sub(links_md, text)
        bits = []
        if isinstance(x.get("durationSeconds"), (int, float)):
            bits.append(f'{x["durationSeconds"]:.1f} s')
        res = chip_line(bits) + f'<div class="md">{markdown(text)}</div>'
    return summary, "", res
