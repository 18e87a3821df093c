"""The session outline: every prompt of the main transcript with what followed it, for the top of
the session page (model.turns gathers the figures during the render; this only formats them)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import orjson

from ccreport.layout import outline_part, page_name
from ccreport.model.text import cut_words, plain_markdown, plain_text
from ccreport.model.turns import Turn
from markupsafe import Markup, escape

from ccreport.render.paths import path_html
from ccreport.render.resources import shown
from ccreport.render.turns import figures_text, tool_counts

FILES_SHOWN = 6
ANSWER_LINES = 3


def answer_lines(text: str) -> list[str]:
    """The first lines of an answer, as plain text cut at a word (Markdown's markers taken out:
    model.text.plain_markdown; rules, fences and table separators skipped)."""
    lines = (plain_markdown(ln) for ln in text.splitlines() if not ln.strip().startswith("```"))
    return [cut_words(ln, 220) for ln in [x for x in lines if x][:ANSWER_LINES]]


def outline(turns: list, cwd: str | None) -> list[dict]:
    """The outline's rows (what outline_html formats), oldest prompt first."""
    return [_fields(data, cwd) for data in turns]


def _fields(data: dict, cwd: str | None) -> dict:
    t = Turn.from_json(data)
    f = t.figures
    files = [Markup(path_html(p, cwd)) for p in f.files]
    return {
        "no": t.no, "url": f"{page_name(t.page)}#L{t.line}", "ts": t.ts, "prompt": cut_words(plain_text(t.prompt), 200),
        "tools": tool_counts(f.tools), "files": files[:FILES_SHOWN],
        "when": (t.ts or "").replace("T", " ")[:16],
        "files_more": len(files) - FILES_SHOWN + f.files_more if len(files) > FILES_SHOWN or f.files_more else 0,
        "agents": [cut_words(a, 80) for a in f.agents], "errors": f.errors,
        "figures": " · ".join(figures_text(f, t.ts)), "answer": answer_lines(f.answer),
    }


# (turn as saved, cwd) → its row's HTML, in this process: a row depends on nothing else, and an
# append changes only the last turns, so a live session's page re-renders only those (a session of
# 4,000 prompts: ~120 ms of every append otherwise). Bounded: oldest used dropped first. Keyed by a
# digest of the turn, not the turn's JSON (~7 KB each with its answer's text: 20,000 of them were
# ~140 MB); the closed parts' pages skip it (part_html): written once, they would fill it.
_ROWS: OrderedDict = OrderedDict()
ROWS_KEPT = 20_000


def _row_html(data: dict, cwd: str | None) -> str:
    key = hashlib.blake2b(orjson.dumps([cwd, data]), digest_size=16).digest()
    html = _ROWS.get(key)
    if html is None:
        html = _ROWS[key] = _row(_fields(data, cwd))
        if len(_ROWS) > ROWS_KEPT:
            _ROWS.popitem(last=False)
    else:
        _ROWS.move_to_end(key)
    return html


def _row_fresh(data: dict, cwd: str | None) -> str:
    return _row(_fields(data, cwd))


def outline_html(turns: list, cwd: str | None, base: int = 0, part: int = 0) -> Markup:
    """The outline section of the session page ("" without prompts), as templates/_outline.html
    wrote it: built here because it lists every prompt and is written again on every append (a
    session of 4,000 prompts spent most of an append's 0.3 s in that template's loop). ``base``:
    the prompts before ``turns``, listed on the outline's closed part pages of ``part`` prompts
    each (site.outlineparts), which the section links to first."""
    if not turns and not base:
        return Markup("")
    out = ['<section class="outline" aria-labelledby="outline-h">\n'
           f'<h2 id="outline-h">Prompts <span class="dim">({base + len(turns)})</span></h2>\n']
    if base:
        links = (f'<a href="{outline_part(k + 1)}">{k * part + 1}–{(k + 1) * part}</a>' for k in range(base // part))
        out.append(f'<p class="small outline-parts">Earlier prompts: {" · ".join(links)}</p>\n')
    out.append(_rows(turns, cwd, base))
    out.append("</section>\n")
    return Markup("".join(out))


def part_html(turns: list, cwd: str | None, base: int) -> Markup:
    """The outline section of a closed part's page: ``turns``, numbered from ``base`` + 1. Its rows
    are not cached (_ROWS): a part is written once, when it closes (again only when its session's
    cwd moves), and a cold build of a session of thousands of prompts would cache every row."""
    heading = f"Prompts {base + 1}–{base + len(turns)}"
    return Markup('<section class="outline" aria-labelledby="outline-h">\n'
                  f'<h2 id="outline-h">{heading}</h2>\n{_rows(turns, cwd, base, _row_fresh)}</section>\n')


def _rows(turns: list, cwd: str | None, base: int, row=_row_html) -> str:
    start = f' start="{base + 1}"' if base else ""
    return "".join([f'<ol class="turns"{start}>\n', *(row(data, cwd) for data in turns), "</ol>\n"])


def _v(value) -> str:
    """A value as a template prints it: control characters shown, then escaped (autoescape)."""
    return escape(shown(value))


def _errors(n: int) -> str:
    return f'{n} error{"" if n == 1 else "s"}'


def _row(t: dict) -> str:
    when = f' <time class="dim small" datetime="{_v(t["ts"])}">{_v(t["when"])}</time>' if t["ts"] else ""
    prompt = f'<a href="{_v(t["url"])}">{_v(t["prompt"])}</a>'
    parts = [f'<li class="turn-row">\n<p class="turn-prompt">{prompt}{when}</p>\n']
    if t["figures"]:
        parts.append(f'<p class="small dim">{_v(t["figures"])}</p>')
    if t["tools"]:
        err = f' · <span class="err">{_errors(t["errors"])}</span>' if t["errors"] else ""
        parts.append(f'<p class="small">{_v(t["tools"])}{err}</p>')
    elif t["errors"]:
        parts.append(f'<p class="small err">{_errors(t["errors"])}</p>')
    if t["files"]:
        more = f' and {t["files_more"]} more' if t["files_more"] else ""
        parts.append(f'<p class="small">Changed {", ".join(map(_v, t["files"]))}{more}</p>')
    if t["agents"]:  # (jinja's join of plain strings: one string, shown and escaped whole)
        parts.append(f'<p class="small">Sub-agents: {_v(" · ".join(t["agents"]))}</p>')
    if t["answer"]:
        parts.append('<div class="answer-head">' + "".join(f"<p>{_v(line)}</p>" for line in t["answer"]) + "</div>")
    parts.append("</li>\n")
    return "".join(parts)


def first_turn_url(turns: list) -> str | None:
    """The first prompt's place, from the session folder."""
    if not turns:
        return None
    t = turns[0]
    return f"{page_name(t['page'])}#L{t['line']}"
