"""Tools whose input IS the result (Claude Code 2.1.2xx, docs/formats.md F8):
``StructuredOutput`` (a Workflow agent ends with it: its input is the agent's result, in the shape the
workflow asked for) and ``ReportFindings`` (a sub-agent reporting back). Shown as that result — text
as Markdown, findings as a list with their severity and place — not as a tool's input table."""

from __future__ import annotations

from ccreport.render.blocks import kv_table, kv_value
from ccreport.render.markup import esc, markdown
from ccreport.render.tools.base import as_str, plural, short, small_result

NAMES = ("StructuredOutput", "ReportFindings")
# A finding's fields by what they are: its heading, its chips, its place, its text.
_HEAD = ("title", "summary", "name", "issue")
_CHIPS = ("severity", "priority", "confidence", "category", "type", "status")
_PLACE = ("file", "path", "file_path", "location")
_TEXT = ("description", "details", "detail", "explanation", "recommendation", "suggestion", "fix")


def _first(d: dict, keys) -> tuple[str | None, str]:
    return next(((k, as_str(d[k])) for k in keys if isinstance(d.get(k), (str, int, float)) and d[k] != ""),
                (None, ""))


def _finding(d: dict) -> str:
    head_key, head = _first(d, _HEAD)
    place_key, place = _first(d, _PLACE)
    if place and isinstance(d.get("line"), int):
        place += f":{d['line']}"
    text_key, text = _first(d, _TEXT)
    text_html = f'<div class="md">{markdown(text)}</div>' if text else ""
    chips = "".join(f' <span class="chip">{esc(short(as_str(d[k]), 40))}</span>' for k in _CHIPS
                    if isinstance(d.get(k), (str, int, float)) and d[k] != "")
    used = {head_key, place_key, text_key, "line", *_CHIPS}
    rest = {k: v for k, v in d.items() if k not in used}
    return (f'<li><p><b>{esc(head)}</b>{chips}{f" <code>{esc(place)}</code>" if place else ""}</p>'
            f'{text_html}{kv_table(rest) if rest else ""}</li>')


def _value(v) -> str:
    if isinstance(v, str):
        return f'<div class="md">{markdown(v)}</div>' if v.strip() else '<span class="dim">(empty)</span>'
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return '<ol class="findings">' + "".join(_finding(x) for x in v[:500]) + "</ol>"
    return kv_value(v)


def findings_of(inp: dict) -> list | None:
    """The list of findings a ReportFindings (or a structured result) carries, if it has one."""
    return next((v for k, v in inp.items() if k in ("findings", "issues", "results", "items")
                 and isinstance(v, list)), None)


def v_carried(call, inp: dict, x: dict, ctx):
    """The result the call carries, each field under its name (one field: no heading)."""
    found = findings_of(inp)
    if found is not None:
        summary = f'<span class="dim">{plural(len(found), "finding")}</span>'
        if found and isinstance(found[0], dict) and _first(found[0], _HEAD)[1]:
            summary += f' {esc(short(_first(found[0], _HEAD)[1], 80))}{" …" if len(found) > 1 else ""}'
    else:
        words = next((v for v in inp.values() if isinstance(v, str) and v.strip()), "")
        summary = f'<span class="dim">result</span> {esc(short(words, 100))}' if words else '<span class="dim">result</span>'
    # Numbers and flags together in one table, then each text and list under its name.
    plain = {k: v for k, v in inp.items() if not isinstance(v, (str, list, dict))}
    fields = [(k, v) for k, v in inp.items() if k not in plain]
    if len(fields) == 1 and not plain:
        body = _value(fields[0][1])
    else:
        body = (kv_table(plain) if plain else "") + "".join(f'<div class="lbl">{esc(k)}</div>{_value(v)}' for k, v in fields)
    body = f'<div class="carried">{body or "<p class=dim>(empty result)</p>"}</div>'
    return summary, body, small_result(call, ctx)
