"""The session outline: every prompt of the main transcript with what followed it, for the top of
the session page (model.turns gathers the figures during the render; this only formats them)."""

from __future__ import annotations

from ccreport.layout import page_name
from ccreport.model.text import cut_words
from ccreport.model.turns import Turn
from markupsafe import Markup

from ccreport.render.paths import path_html
from ccreport.render.turns import figures_text, tool_counts

FILES_SHOWN = 6
ANSWER_LINES = 3


def answer_lines(text: str) -> list[str]:
    """The first lines of an answer, as plain text cut at a word (Markdown marks left as they are)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("```")]
    return [cut_words(ln, 220) for ln in lines[:ANSWER_LINES]]


def outline(turns: list, cwd: str | None) -> list[dict]:
    """The outline's rows (the template formats them), oldest prompt first."""
    rows = []
    for data in turns:
        t = Turn.from_json(data)
        f = t.figures
        files = [Markup(path_html(p, cwd)) for p in f.files]
        rows.append({
            "no": t.no, "url": f"{page_name(t.page)}#L{t.line}", "ts": t.ts, "prompt": cut_words(t.prompt, 200),
            "tools": tool_counts(f.tools), "files": files[:FILES_SHOWN],
            "when": (t.ts or "").replace("T", " ")[:16],
            "files_more": len(files) - FILES_SHOWN + f.files_more if len(files) > FILES_SHOWN or f.files_more else 0,
            "agents": [cut_words(a, 80) for a in f.agents], "errors": f.errors,
            "figures": " · ".join(figures_text(f, t.ts)), "answer": answer_lines(f.answer),
        })
    return rows


def first_turn_url(turns: list) -> str | None:
    """The first prompt's place, from the session folder."""
    if not turns:
        return None
    t = turns[0]
    return f"{page_name(t['page'])}#L{t['line']}"
