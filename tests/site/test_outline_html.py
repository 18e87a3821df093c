"""site.outline.outline_html writes what the outline's template loop wrote (kept here as the
reference), byte for byte, on rows of every shape: hostile text, control characters, no time,
errors with and without tools, changed files past the shown ones, sub-agents and answer lines."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from ccreport.model.turns import Figures, Turn
from ccreport.render.resources import env
from ccreport.site import outline as O
from ccreport.site.outline import FILES_SHOWN, outline, outline_html

# templates/_outline.html as it was before the outline was built in Python.
TEMPLATE = (
    "{% if outline %}\n"
    '<section class="outline" aria-labelledby="outline-h">\n'
    '<h2 id="outline-h">Prompts <span class="dim">({{ outline|length }})</span></h2>\n'
    '<ol class="turns">\n'
    "{% for t in outline %}\n"
    '<li class="turn-row">\n'
    '<p class="turn-prompt"><a href="{{ t.url }}">{{ t.prompt }}</a>'
    '{% if t.ts %} <time class="dim small" datetime="{{ t.ts }}">{{ t.when }}</time>'
    "{% endif %}</p>\n"
    '{% if t.figures %}<p class="small dim">{{ t.figures }}</p>{% endif %}\n'
    '{% if t.tools %}<p class="small">{{ t.tools }}'
    '{% if t.errors %} · <span class="err">{{ t.errors }} error{{ "" if t.errors == 1 else "s" '
    "}}</span>{% endif %}</p>"
    '{% elif t.errors %}<p class="small err">{{ t.errors }} error{{ "" if t.errors == 1 else "s'
    '" }}</p>{% endif %}\n'
    '{% if t.files %}<p class="small">Changed '
    '{% for f in t.files %}{{ f }}{{ ", " if not loop.last else "" }}{% endfor %}'
    "{% if t.files_more %} and {{ t.files_more }} more{% endif %}</p>{% endif %}\n"
    '{% if t.agents %}<p class="small">Sub-agents: {% for name, url in t.agents %}'
    '{% if url %}<a href="{{ url }}">{{ name }}</a>{% else %}{{ name }}{% endif %}'
    '{{ " · " if not loop.last else "" }}{% endfor %}</p>{% endif %}\n'
    '{% if t.answer %}<div class="answer-head">{% for line in t.answer %}<p>{{ line }}</p>'
    "{% endfor %}</div>{% endif %}\n"
    "</li>\n"
    "{% endfor %}\n"
    "</ol>\n"
    "</section>\n"
    "{% endif %}\n"
)

HOSTILE = "<b>\"it's\" & </b>\x00\x1b[1m\x7f"


def _turn(no: int, **fig) -> dict:
    ts = None if no % 3 == 0 else f"2025-06-01T10:{no:02d}:00.000Z"
    prompt = f"prompt {no} {HOSTILE}" if no % 2 else f"plain prompt {no}"
    return asdict(Turn(no=no, line=no * 2 + 1, page=1 + no // 4, ts=ts, prompt=prompt, figures=Figures(**fig)))


TURNS = [
    _turn(1),
    _turn(2, responses=3, usage={"input_tokens": 10, "output_tokens": 5}, models=["claude-opus-4-5"], cost_units=12345),
    _turn(3, tools={"Bash": 2, "Read": 5}, errors=1),
    _turn(4, tools={"Edit": 1}, errors=3),
    _turn(5, errors=1),
    _turn(6, errors=2),
    _turn(7, files=[f"/home/u/proj/src/f{i}.py" for i in range(FILES_SHOWN + 2)], files_more=4),
    _turn(8, files=["/elsewhere/a&b.py", "/home/u/proj/x.py"]),
    _turn(9, agents=["explore the <code>", HOSTILE, "third"]),
    _turn(10, answer="first line\n\n```py\ncode\n```\nsecond **line** " + HOSTILE + "\nthird\nfourth"),
    _turn(11, tools={"Task": 1}, files=["/home/u/proj/b.py"], files_more=1, agents=["one"], answer="done"),
    # (agents with their ids: linked when the page knows the agent's pages)
    _turn(12, tools={"Agent": 3}, agents=[["linked " + HOSTILE, "a1"], ["no page", "a2"], ["no id", ""]]),
]
AGENT_PAGES = {"a1": "agent-a1/page-0001.html"}


@pytest.mark.parametrize("turns", [TURNS, TURNS[:1], []], ids=["all", "one", "none"])
def test_outline_html_is_what_the_template_wrote(turns):
    want = env().from_string(TEMPLATE).render(outline=outline(turns, "/home/u/proj", AGENT_PAGES))
    assert str(outline_html(turns, "/home/u/proj", agents=AGENT_PAGES)) == want
    assert ('<a href="agent-a1/page-0001.html">linked' in want) == (len(turns) > 1)
    if turns:
        assert "\x00" not in want and "␀" in want and "&lt;b&gt;" in want  # (the reference shows them)


def test_rows_kept_in_process_follow_their_turns():
    """Rows are kept per process by their turn (an append re-renders only the turns it changed):
    the same turns give the same HTML, a changed turn its new row, a bounded number are kept."""
    turns = [dict(t) for t in TURNS]
    first = outline_html(turns, "/home/u/proj")
    assert outline_html(turns, "/home/u/proj") == first
    turns[-1] = dict(turns[-1], figures=dict(turns[-1]["figures"], answer="a new answer", errors=7))
    again = str(outline_html(turns, "/home/u/proj"))
    assert "a new answer" in again and "7 errors" in again
    reference = env().from_string(TEMPLATE)
    assert again == reference.render(outline=outline(turns, "/home/u/proj"))
    assert str(outline_html(turns, "/elsewhere")) == reference.render(outline=outline(turns, "/elsewhere"))
    assert len(O._ROWS) <= O.ROWS_KEPT
