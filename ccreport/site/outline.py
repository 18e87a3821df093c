"""The session outline: every prompt of the main transcript with what followed it, for the top of
the session page (model.turns gathers the figures during the render; this only formats them)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import orjson

from ccreport.layout import outline_part, page_name
from ccreport.model.text import cut_words
from ccreport.model.turns import Turn
from markupsafe import Markup, escape

from ccreport.render.paths import path_html
from ccreport.render.resources import shown
from ccreport.render.turns import figures_text, tool_counts

FILES_SHOWN = 6
ANSWER_LINES = 3


def answer_lines(text: str) -> list[str]:
    """The first lines of an answer, as plain text cut at a word (Markdown marks left as they are)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("```")]
    return [cut_words(ln, 220) for ln in lines[:ANSWER_LINES]]


def outline(turns: list, cwd: str | None, agents: dict | None = None) -> list[dict]:
    """The outline's rows (what outline_html formats), oldest prompt first; ``agents``: sub-agent
    id → URL of its first page, from the page the outline is on (their names link there)."""
    return [_fields(data, cwd, agents or {}) for data in turns]


def _agents(names: list, links: dict) -> list[tuple[str, str | None]]:
    """(name, URL or None) of each sub-agent a turn started (a state of FORMAT 11 held names only)."""
    pairs = [(a, "") if isinstance(a, str) else (str(a[0]), str(a[1])) for a in names]
    return [(cut_words(name, 80), links.get(aid) if aid else None) for name, aid in pairs]


def _fields(data: dict, cwd: str | None, links: dict) -> dict:
    t = Turn.from_json(data)
    f = t.figures
    files = [Markup(path_html(p, cwd)) for p in f.files]
    return {
        "no": t.no, "url": f"{page_name(t.page)}#L{t.line}", "ts": t.ts, "prompt": cut_words(t.prompt, 200),
        "tools": tool_counts(f.tools), "files": files[:FILES_SHOWN],
        "when": (t.ts or "").replace("T", " ")[:16],
        "files_more": len(files) - FILES_SHOWN + f.files_more if len(files) > FILES_SHOWN or f.files_more else 0,
        "agents": _agents(f.agents, links), "errors": f.errors,
        "figures": " · ".join(figures_text(f, t.ts)), "answer": answer_lines(f.answer),
    }


# (turn as saved, cwd) → its row's HTML, in this process: a row depends on nothing else, and an
# append changes only the last turns, so a live session's page re-renders only those (a session of
# 4,000 prompts: ~120 ms of every append otherwise). Bounded: oldest used dropped first. Keyed by a
# digest of the turn, not the turn's JSON (~7 KB each with its answer's text: 20,000 of them were
# ~140 MB); the closed parts' pages skip it (part_html): written once, they would fill it.
_ROWS: OrderedDict = OrderedDict()
ROWS_KEPT = 20_000


def _row_html(data: dict, cwd: str | None, links: dict) -> str:
    # (the links of the row's own sub-agents are part of the key: an agent's page may appear later)
    mine = [links.get(a[1]) for a in data["figures"].get("agents") or () if isinstance(a, list)]
    key = hashlib.blake2b(orjson.dumps([cwd, data, mine]), digest_size=16).digest()
    html = _ROWS.get(key)
    if html is None:
        html = _ROWS[key] = _row(_fields(data, cwd, links))
        if len(_ROWS) > ROWS_KEPT:
            _ROWS.popitem(last=False)
    else:
        _ROWS.move_to_end(key)
    return html


def _row_fresh(data: dict, cwd: str | None, links: dict) -> str:
    return _row(_fields(data, cwd, links))


def outline_html(turns: list, cwd: str | None, base: int = 0, part: int = 0, agents: dict | None = None) -> Markup:
    """The outline section of the session page ("" without prompts), as templates/_outline.html
    wrote it: built here because it lists every prompt and is written again on every append (a
    session of 4,000 prompts spent most of an append's 0.3 s in that template's loop). ``base``:
    the prompts before ``turns``, listed on the outline's closed part pages of ``part`` prompts
    each (site.outlineparts), which the section links to first. ``agents``: as in ``outline``."""
    if not turns and not base:
        return Markup("")
    out = ['<section class="outline" aria-labelledby="outline-h">\n'
           f'<h2 id="outline-h">Prompts <span class="dim">({base + len(turns)})</span></h2>\n']
    if base:
        links = (f'<a href="{outline_part(k + 1)}">{k * part + 1}–{(k + 1) * part}</a>' for k in range(base // part))
        out.append(f'<p class="small outline-parts">Earlier prompts: {" · ".join(links)}</p>\n')
    out.append(_rows(turns, cwd, base, agents or {}))
    out.append("</section>\n")
    return Markup("".join(out))


def part_html(turns: list, cwd: str | None, base: int, agents: dict | None = None) -> Markup:
    """The outline section of a closed part's page: ``turns``, numbered from ``base`` + 1. Its rows
    are not cached (_ROWS): a part is written once, when it closes (again only when its session's
    cwd moves), and a cold build of a session of thousands of prompts would cache every row."""
    heading = f"Prompts {base + 1}–{base + len(turns)}"
    return Markup('<section class="outline" aria-labelledby="outline-h">\n'
                  f'<h2 id="outline-h">{heading}</h2>\n{_rows(turns, cwd, base, agents or {}, _row_fresh)}</section>\n')


def _rows(turns: list, cwd: str | None, base: int, links: dict, row=_row_html) -> str:
    start = f' start="{base + 1}"' if base else ""
    return "".join([f'<ol class="turns"{start}>\n', *(row(data, cwd, links) for data in turns), "</ol>\n"])


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
    if t["agents"]:
        names = (f'<a href="{_v(url)}">{_v(name)}</a>' if url else _v(name) for name, url in t["agents"])
        parts.append(f'<p class="small">Sub-agents: {" · ".join(names)}</p>')
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
