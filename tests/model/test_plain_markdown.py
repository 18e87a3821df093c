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
