"""Previews read as text (model.text.plain_markdown): Markdown's markers go, the words stay."""

from __future__ import annotations

import pytest

from ccreport.model.text import plain_markdown, plain_text


@pytest.mark.parametrize("line,shown", [
    ("## `_get_enhanced_session_navigation`", "_get_enhanced_session_navigation"),
    ("- **New files:**", "New files:"),
    ("* item", "item"),
    ("12. Fix *this* and __that__", "Fix this and that"),
    ("> quoted [the docs](https://example.com) and ![a chart](c.png)", "quoted the docs and a chart"),
    ("- [x] done ~~old~~", "done old"),
    ("| name | size |", "name · size"),
    ("|---|:---:|", ""),
    ("---", ""),
    # what is not a marker stays
    ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
    ("#hashtag, C# and a-b", "#hashtag, C# and a-b"),
])
def test_markers_go_words_stay(line, shown):
    assert plain_markdown(line) == shown


def test_plain_text_joins_lines():
    assert plain_text("# Plan\n\n- one\n- **two**\n") == "Plan one two"


def test_lines_without_a_marker_skip_its_pattern_and_read_the_same():
    # plain_markdown searches a line for an inline pattern only when it holds what a match must hold
    # ("](", "`", "**" or "__", "*", "_", "~~"); every pattern run on every line must read the same.
    import random

    from ccreport.model import text as model_text

    def every_pattern(line: str) -> str:
        t = line.strip()
        if model_text._RULE.fullmatch(t):
            return ""
        t = model_text._LINE_MARK.sub("", t)
        if t.startswith("|") and t.endswith("|") and len(t) > 1:
            t = " · ".join(c.strip() for c in t[1:-1].split("|") if c.strip())
        for _, pattern, repl in model_text._INLINE:
            t = pattern.sub(repl, t)
        return t.strip()

    rng = random.Random(27)
    pieces = ["a", "word", " ", "*", "**", "_", "__", "`", "``", "~", "~~", "[", "]", "(", ")", "](", "!", "#", "-",
              "|", ">", "1.", "x_y", "é", '"', "\t"]
    for _ in range(20_000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert plain_markdown(line) == every_pattern(line), repr(line)
