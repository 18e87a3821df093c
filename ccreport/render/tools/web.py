"""WebFetch and WebSearch: the address or query, and the answer as markdown."""

from __future__ import annotations

import re

import orjson

from ccreport.render.markup import esc, human_size, markdown
from ccreport.render.tools.base import as_str, chip_line, extra_of, input_of, ok_text, short


def v_web_fetch(call, ctx):
    inp = input_of(call)
    x = extra_of(call)
    url = as_str(inp.get("url") or x.get("url"))
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


def v_web_search(call, ctx):
    inp = input_of(call)
    x = extra_of(call)
    q = as_str(inp.get("query") or x.get("query"))
    summary = f"<code>{esc(short(q, 140))}</code>"
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
