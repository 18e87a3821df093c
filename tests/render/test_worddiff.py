"""Word-level marks inside the changed lines of Edit, MultiEdit and Write diffs (issue 28, point 4):
the words that differ between a removed line and the added line replacing it are wrapped in
<del>/<ins>, escaped, and left out on long lines and on pairs with little in common."""

from __future__ import annotations

import re

import pytest

from ccreport.model.messages import Builder
from ccreport.render.message import RenderContext, render_message
from ccreport.render.tools.code import diff_html, diff_lines
from ccreport.render.tools.worddiff import LINE_MAX, marked_lines, pair_html
from ccreport.source.jsonl import Entry
from util import assistant, tool_result


def _rendered(name: str, inp: dict, extra: dict | None = None) -> str:
    b = Builder()
    entries = [assistant("a1", [{"type": "tool_use", "id": "toolu_1", "name": name, "input": inp}]),
               tool_result("r1", "toolu_1", "ok", extra=extra)]
    for i, e in enumerate(entries, 1):
        b.feed(Entry(i, 0, 0, e))
    return "\n".join(render_message(m, RenderContext(root="../../../")) for m in b.out)


def test_one_changed_word_is_marked_on_both_sides():
    old, new = pair_html("total = price * qty + fee", "total = price * count + fee")
    assert old == "total = price * <del>qty</del> + fee"
    assert new == "total = price * <ins>count</ins> + fee"


def test_marks_hold_escaped_text_only():
    old, new = pair_html('if a < b: x = "<b>"', 'if a <= b: x = "<i>"')
    assert "<b>" not in old and "<i>" not in new
    assert re.sub(r"</?(del|ins)>", "", old) == 'if a &lt; b: x = &quot;&lt;b&gt;&quot;'
    assert "<ins>=</ins>" in new


def test_long_lines_and_rewrites_get_no_marks():
    long = "x" * LINE_MAX + " a"
    assert pair_html(long, long[:-1] + "b") is None
    assert pair_html("import os", "def handler(event, context):") is None
    assert pair_html("same", "same") is None


def test_pairs_are_taken_in_order_within_a_run():
    lines = ["@@ -1,3 +1,3 @@", " keep", "-alpha = 1", "-beta = 2", "+alpha = 10", "+beta = 20", "+gamma = 3"]
    marked = marked_lines(lines)
    assert sorted(marked) == [2, 3, 4, 5]
    assert marked[2] == "-alpha = <del>1</del>" and marked[4] == "+alpha = <ins>10</ins>"
    assert marked[5] == "+beta = <ins>20</ins>"


def test_diff_html_keeps_the_line_classes():
    html = diff_html(diff_lines("a = foo(1, 2)\nkeep\n", "a = foo(1, 3)\nkeep\n"))
    assert '<span class="del">-a = foo(1, <del>2</del>)\n</span>' in html
    assert '<span class="add">+a = foo(1, <ins>3</ins>)\n</span>' in html
    assert '<span class="ctx"> keep\n</span>' in html


def test_diff_lines_are_escaped_as_one_by_one():
    # diff_html escapes the lines in one call over their joined text: the same as line by line,
    # including controls shown as pictures and a hostile line that holds a newline of its own.
    from ccreport.render.markup import esc

    for lines in ([" @@ -1 +1 @@", " <a>&'x'", "-\x1b[31mred\u202e", " \x00", "+\x1b[32mgreen"],
                  [" ok", "+two\nlines", "-<x>"]):
        spans = re.findall(r'<span class="(?:add|del|ctx|hunk)">(.*?)\n</span>', diff_html(lines), re.S)
        assert spans == [esc(ln) for ln in lines]


def test_edit_multiedit_and_write_views_mark_words():
    edit = _rendered("Edit", {"file_path": "/p/app.py", "old_string": "if n <= 0:", "new_string": "if n < 1:"})
    assert "if n &lt;<del>=</del> <del>0</del>:" in edit and "if n &lt; <ins>1</ins>:" in edit
    multi = _rendered("MultiEdit", {"file_path": "/p/m.py", "edits": [
        {"old_string": "retries = 3", "new_string": "retries = 5"}]})
    assert "retries = <del>3</del>" in multi and "retries = <ins>5</ins>" in multi
    patch = [{"oldStart": 7, "oldLines": 1, "newStart": 7, "newLines": 1,
              "lines": ["-TIMEOUT = 30  # seconds", "+TIMEOUT = 60  # seconds"]}]
    write = _rendered("Write", {"file_path": "/p/conf.py", "content": "TIMEOUT = 60  # seconds\n"},
                      {"type": "update", "filePath": "/p/conf.py", "structuredPatch": patch})
    assert "TIMEOUT = <del>30</del>  # seconds" in write and "TIMEOUT = <ins>60</ins>  # seconds" in write


def test_opcodes_with_head_and_tail_trimmed_still_rebuild_both_sides():
    import random

    from ccreport.render.tools.worddiff import _opcodes

    rng = random.Random(28)
    words = ["a", "b", "c", "(", ")", " ", "=", "x1"]
    for _ in range(3000):
        a = [rng.choice(words) for _ in range(rng.randint(0, 9))]
        b = [rng.choice(words) for _ in range(rng.randint(0, 9))]
        ops, at_a, at_b, rebuilt = _opcodes(a, b), 0, 0, []
        for tag, i1, i2, j1, j2 in ops:
            assert (i1, j1) == (at_a, at_b)  # contiguous, in order
            if tag == "equal":
                assert a[i1:i2] == b[j1:j2]
            rebuilt += b[j1:j2]
            at_a, at_b = i2, j2
        assert (at_a, at_b) == (len(a), len(b)) and rebuilt == b


def test_the_compiled_matcher_gives_difflibs_opcodes_and_hunks():
    # cydifflib replaces difflib on the render path for speed: output must stay byte-identical.
    import difflib
    import random

    from ccreport.render.tools import worddiff

    rng = random.Random(27)
    words = ["a", "b", "c", "(", ")", " ", "=", "x1", "\n"]
    for _ in range(2000):
        a = [rng.choice(words) for _ in range(rng.randint(0, 40))]
        b = [w for w in a if rng.random() > 0.2] + [rng.choice(words) for _ in range(rng.randint(0, 5))]
        rng.shuffle(b) if rng.random() < 0.2 else None
        assert worddiff.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() == \
            difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        old, new = "".join(a), "".join(b)
        assert diff_lines(old, new) == list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))[2:]


GALLERY = "p/-home-demo-gallery/9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21/page-0001.html"


@pytest.mark.browser
def test_word_marks_are_visible_on_the_gallerys_edit(sample_site, browser):
    site, _ = sample_site
    page = browser.new_page(color_scheme="light")
    page.goto((site / GALLERY).as_uri())
    edit = page.locator('details.tool[data-tool="Edit"]', has=page.locator("pre.diff ins")).first
    edit.locator(":scope > summary").click()
    ins, dele = edit.locator("pre.diff ins").first, edit.locator("pre.diff del").first
    assert ins.is_visible() and dele.is_visible()
    assert ins.inner_text() == "1" and dele.inner_text() == "="  # if n <= 0: → if n < 1: ("=", then "0")
    colours = page.evaluate("""([i, d]) => [i, i.parentElement, d, d.parentElement].map(
        e => getComputedStyle(e).backgroundColor)""", [ins.element_handle(), dele.element_handle()])
    assert colours[0] != colours[1] and colours[2] != colours[3]  # a mark stands out of its line
    assert "line-through" not in page.evaluate("e => getComputedStyle(e).textDecorationLine", dele.element_handle())
    page.close()


def test_export_marks_words_too(tmp_path):
    from ccreport.share.export import ExportOptions
    from ccreport.share.run import run_export
    from util import SAMPLE_HOME

    out = tmp_path / "g.html"
    run_export(SAMPLE_HOME, "9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21", str(out), ExportOptions())
    html = out.read_text(encoding="utf-8")
    assert "if n &lt; <ins>1</ins>:" in html and "<del>0</del>" in html


def test_tokens_are_those_of_words_spaces_and_single_other_characters():
    # The tokenizer's last alternative is any character (DOTALL): a character reaching it is neither a
    # word's nor a space, so the tokens are exactly those of \w+|\s+|[^\w\s], whatever the text.
    import random
    import sys

    from ccreport.render.tools import worddiff

    reference = re.compile(r"\w+|\s+|[^\w\s]")
    rng = random.Random(27)
    alphabet = ["a", "Z", "_", "9", "é", "ß", "日", "٣", " ", "\t", "\n", "\r", "\x0b", "\u00a0", "\u2028", "\u3000",
                "(", "→", "\U0001f600", "\u200d", "\ud800", "\x00", "\x1b", "-", "'"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert worddiff._TOKEN.findall(text) == reference.findall(text), repr(text)
    every = "".join(map(chr, range(sys.maxunicode + 1)))  # (every code point, in order)
    assert worddiff._TOKEN.findall(every) == reference.findall(every)
