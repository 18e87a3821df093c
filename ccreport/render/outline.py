"""One row of a session outline: a prompt with what followed it (model.turns gathers the figures;
this formats them), for the site's session page (site.outline) and the single-file export."""

from __future__ import annotations

from itertools import islice

from markupsafe import Markup, escape

from ccreport.layout import page_name
from ccreport.model.text import cut_words, plain_markdown, plain_text
from ccreport.model.turns import Turn
from ccreport.render.filerefs import refs_as_text
from ccreport.render.paths import path_html
from ccreport.render.resources import shown
from ccreport.render.turns import figures_text, tool_counts

FILES_SHOWN = 6
ANSWER_LINES = 3


def answer_lines(text: str) -> list[str]:
    """The first lines of an answer, as plain text cut at a word (a link to a file's lines as the
    file's name and lines: render.filerefs; then Markdown's markers taken out: model.text.plain_markdown;
    rules, fences and table separators skipped)."""
    lines = (plain_markdown(refs_as_text(ln)) for ln in text.splitlines() if not ln.strip().startswith("```"))
    # (the first ANSWER_LINES that read as something: the lines after them are never made plain)
    return [cut_words(ln, 220) for ln in islice(filter(None, lines), ANSWER_LINES)]


def outline(turns: list, cwd: str | None, agents: dict | None = None) -> list[dict]:
    """The outline's rows (what outline_html formats), oldest prompt first; ``agents``: sub-agent
    id → URL of its first page, from the page the outline is on (their names link there)."""
    return [row_fields(data, cwd, agents or {}) for data in turns]


def _agents(names: list, links: dict) -> list[tuple[str, str | None]]:
    """(name, URL or None) of each sub-agent a turn started (a state of FORMAT 11 held names only)."""
    pairs = [(a, "") if isinstance(a, str) else (str(a[0]), str(a[1])) for a in names]
    return [(cut_words(name, 80), links.get(aid) if aid else None) for name, aid in pairs]


def agents_changed(data: dict, agent_files: dict) -> list[str]:
    """What the turn's sub-agents changed (their transcripts' ``changed``) that the turn did not itself."""
    f = data["figures"]
    own = set(f.get("files") or ())
    out = []
    for a in f.get("agents") or ():
        aid = a[1] if isinstance(a, list) and len(a) > 1 else ""
        out.extend(p for p in agent_files.get(aid, ()) if p not in own and p not in out)
    return out


def row_fields(data: dict, cwd: str | None, links: dict, same_page: bool = False, by_agents: list | None = None) -> dict:
    """A row's values; ``same_page``: the prompts are on the page itself (the export), linked by
    anchor; ``by_agents``: files its sub-agents changed (agents_changed), listed after its own."""
    t = Turn.from_json(data)
    f = t.figures
    files = [Markup(path_html(p, cwd)) for p in f.files + (by_agents or [])]
    return {
        "no": t.no, "url": ("" if same_page else page_name(t.page)) + f"#L{t.line}", "ts": t.ts, "prompt": cut_words(plain_text(t.prompt), 200),
        "tools": tool_counts(f.tools), "files": files[:FILES_SHOWN],
        "when": (t.ts or "").replace("T", " ")[:16],
        "files_more": len(files) - FILES_SHOWN + f.files_more if len(files) > FILES_SHOWN or f.files_more else 0,
        "agents": _agents(f.agents, links), "errors": f.errors,
        "figures": " · ".join(figures_text(f, t.ts)), "answer": answer_lines(f.answer),
    }


def _v(value) -> str:
    """A value as a template prints it: control characters shown, then escaped (autoescape)."""
    return escape(shown(value))


def _errors(n: int) -> str:
    return f'{n} error{"" if n == 1 else "s"}'


def row_html(t: dict) -> str:
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


def export_outline(turns: list, cwd: str | None, agents: dict) -> Markup:
    """The outline section of a single-file export: its prompts are on the same page ("" without any)."""
    if not turns:
        return Markup("")
    rows = "".join(row_html(row_fields(data, cwd, agents, same_page=True)) for data in turns)
    return Markup('<section class="outline" aria-labelledby="outline-h">\n'
                  f'<h2 id="outline-h">Prompts <span class="dim">({len(turns)})</span></h2>\n'
                  f'<ol class="turns">\n{rows}</ol>\n</section>\n')
