"""Text → HTML: escaping, markdown with raw HTML off, highlighting, ANSI colours, folding."""

from __future__ import annotations

import re
from html import unescape

from ccreport.render.markup import (FOLD_LINES, RENDER_MAX, ansi_to_html, cut, esc, highlight, human_size, markdown, pre,
                             strip_ansi)


def visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_esc_escapes_markup_and_quotes():
    assert esc('<a href="x">&\'') == "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;"
    assert esc(42) == "42"


def test_markdown_renders_but_never_passes_raw_html():
    html = markdown("**bold** and <script>alert(1)</script> <img src=x onerror=alert(1)>")
    assert "<strong>bold</strong>" in html
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_markdown_links_only_for_web_and_mail():
    html = markdown("[ok](https://example.com) [bad](javascript:alert(1)) [rel](../etc/passwd) [m](mailto:a@b.c)")
    assert '<a href="https://example.com" rel="noreferrer">ok</a>' in html
    assert 'href="mailto:a@b.c"' in html
    assert "javascript:" not in re.sub(r">[^<]*<", "><", html)  # never inside an attribute
    assert 'href="../etc/passwd"' not in html
    assert "bad" in visible(html) and "rel" in visible(html)


def test_markdown_images_become_links_not_loads():
    html = markdown("![chart](https://example.com/c.png)")
    assert "<img" not in html
    assert 'class="ext-img"' in html and "[image: chart]" in visible(html)


def test_markdown_tables_and_fenced_code_are_highlighted():
    html = markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\ndef f(x):\n    return x\n```\n")
    assert "<table>" in html and "<td>1</td>" in html
    assert '<pre class="code hl"><code>' in html
    assert '<span class="k">def</span>' in html
    assert "def f(x):\n    return x" in visible(html)


def test_highlight_by_language_filename_and_unknown():
    py = highlight("x = 1  # <tag>", lang="python")
    assert '<span class="n">x</span>' in py and "&lt;tag&gt;" in py
    js = highlight("const a = 1;", filename="app.js")
    assert '<span class="kd">const</span>' in js
    plain = highlight("<b>plain</b>", lang="no-such-language")
    assert plain == '<pre class="code hl">&lt;b&gt;plain&lt;/b&gt;</pre>'


def test_ansi_colours_become_classed_spans():
    html = ansi_to_html("ok \x1b[1;31mFAILED\x1b[0m <x> \x1b[2Kdone")
    assert '<span class="ansi-b ansi-fg31">FAILED</span>' in html
    assert "\x1b" not in html and "&lt;x&gt;" in html
    assert visible(html) == "ok FAILED <x> done"
    assert strip_ansi("\x1b[32mgreen\x1b[0m") == "green"
    assert ansi_to_html("no escapes & such") == "no escapes &amp; such"


def test_long_text_is_folded_with_its_full_size_stated():
    text = "\n".join(f"line {i}" for i in range(300))
    html = pre(text)
    assert "<details" in html and "show all 300 lines" in html
    assert visible(html).replace("show all 300 lines", "").count("line ") == 300  # nothing lost in the fold
    head = html.split("<details")[0]
    assert visible(head).count("line ") == FOLD_LINES
    assert "<details" not in pre("short\ntext")


def test_very_long_block_is_cut_and_says_how_much():
    text = "x" * (RENDER_MAX + 1234)
    shown, note = cut(text)
    assert len(shown) == RENDER_MAX and "1,234 more characters" in note


def test_human_size():
    assert human_size(512) == "512 B"
    assert human_size(2048) == "2.0 KB"
    assert human_size(5 * 1024 * 1024) == "5.0 MB"
