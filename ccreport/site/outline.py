"""The session outline: every prompt of the main transcript with what followed it, for the top of
the session page (model.turns gathers the figures during the render; render.outline formats a row;
this caches rows and writes the sections)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import orjson

from markupsafe import Markup

from ccreport.layout import outline_part, page_name
from ccreport.render.outline import FILES_SHOWN, agents_changed, answer_lines, outline, row_fields, row_html  # noqa: F401

# (turn as saved, cwd) → its row's HTML, in this process: a row depends on nothing else, and an
# append changes only the last turns, so a live session's page re-renders only those (a session of
# 4,000 prompts: ~120 ms of every append otherwise). Bounded: oldest used dropped first. Keyed by a
# digest of the turn, not the turn's JSON (~7 KB each with its answer's text: 20,000 of them were
# ~140 MB); the closed parts' pages skip it (part_html): written once, they would fill it.
_ROWS: OrderedDict = OrderedDict()
ROWS_KEPT = 20_000


def _row_html(data: dict, cwd: str | None, links: dict, by_agents: list | None = None) -> str:
    # (the links of the row's own sub-agents and what they changed are part of the key: an agent's
    # page may appear later, and its transcript may grow while the main one does not)
    mine = [links.get(a[1]) for a in data["figures"].get("agents") or () if isinstance(a, list)]
    key = hashlib.blake2b(orjson.dumps([cwd, data, mine, by_agents]), digest_size=16).digest()
    html = _ROWS.get(key)
    if html is None:
        html = _ROWS[key] = row_html(row_fields(data, cwd, links, by_agents=by_agents))
        if len(_ROWS) > ROWS_KEPT:
            _ROWS.popitem(last=False)
    else:
        _ROWS.move_to_end(key)
    return html


def _row_fresh(data: dict, cwd: str | None, links: dict, by_agents: list | None = None) -> str:
    return row_html(row_fields(data, cwd, links, by_agents=by_agents))


def outline_html(turns: list, cwd: str | None, base: int = 0, part: int = 0, agents: dict | None = None,
                 agent_files: dict | None = None) -> Markup:
    """The outline section of the session page ("" without prompts), as templates/_outline.html
    wrote it: built here because it lists every prompt and is written again on every append (a
    session of 4,000 prompts spent most of an append's 0.3 s in that template's loop). ``base``:
    the prompts before ``turns``, listed on the outline's closed part pages of ``part`` prompts
    each (site.outlineparts), which the section links to first. ``agents``: as in ``outline``;
    ``agent_files``: sub-agent id → the files it changed, listed with the turn that called it."""
    if not turns and not base:
        return Markup("")
    out = ['<section class="outline" aria-labelledby="outline-h">\n'
           f'<h2 id="outline-h">Prompts <span class="dim">({base + len(turns)})</span></h2>\n']
    if base:
        links = (f'<a href="{outline_part(k + 1)}">{k * part + 1}–{(k + 1) * part}</a>' for k in range(base // part))
        out.append(f'<p class="small outline-parts">Earlier prompts: {" · ".join(links)}</p>\n')
    out.append(_rows(turns, cwd, base, agents or {}, agent_files=agent_files or {}))
    out.append("</section>\n")
    return Markup("".join(out))


def part_html(turns: list, cwd: str | None, base: int, agents: dict | None = None, agent_files: dict | None = None) -> Markup:
    """The outline section of a closed part's page: ``turns``, numbered from ``base`` + 1. Its rows
    are not cached (_ROWS): a part is written once, when it closes (again only when its session's
    cwd moves), and a cold build of a session of thousands of prompts would cache every row."""
    heading = f"Prompts {base + 1}–{base + len(turns)}"
    return Markup('<section class="outline" aria-labelledby="outline-h">\n'
                  f'<h2 id="outline-h">{heading}</h2>\n{_rows(turns, cwd, base, agents or {}, _row_fresh, agent_files)}</section>\n')


def _rows(turns: list, cwd: str | None, base: int, links: dict, row=_row_html, agent_files: dict | None = None) -> str:
    start = f' start="{base + 1}"' if base else ""
    rows = (row(data, cwd, links, agents_changed(data, agent_files) if agent_files else None) for data in turns)
    return "".join([f'<ol class="turns"{start}>\n', *rows, "</ol>\n"])


def first_turn_url(turns: list) -> str | None:
    """The first prompt's place, from the session folder."""
    if not turns:
        return None
    t = turns[0]
    return f"{page_name(t['page'])}#L{t['line']}"
