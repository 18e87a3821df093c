"""The faster forms of per-message work give exactly what the plain forms give (issue 19: output
byte-identical): the byte-level control-character check, and the numbered rows made from
prebuilt number spans."""

from __future__ import annotations

import random

from ccreport.render import markup
from ccreport.render.tools import code

_ALPHABET = ["a", " ", "\n", "\t", "\r", "<", "&", "é", "→", "\U0001f600", "\ud800", "\x00", "\x1b", "\x7f",
             "\x0b", "\x1f", "\x80", "\u2028"]


def test_has_controls_agrees_with_the_regex_at_every_length() -> None:
    rng = random.Random(19)
    for _ in range(600):
        n = rng.choice([0, 1, 5, 300, 511, 512, 513, 2000])
        text = "".join(rng.choice(_ALPHABET[:-6] if rng.random() < 0.5 else _ALPHABET) for _ in range(n))
        assert markup.has_controls(text) == (markup.CONTROL_CHARS.search(text) is not None), repr(text[:80])
        assert markup.show_controls(text) == markup.CONTROL_CHARS.sub(
            lambda m: chr(0x2421 if m.group(0) == "\x7f" else 0x2400 + ord(m.group(0))), text)


def _plain_rows(numbers, lines, sep_html):
    return [f'<span class="ln">{n}</span>{sep_html}{ln}' for n, ln in zip(numbers, lines)]


def test_rows_match_the_plain_form_inside_and_outside_the_prebuilt_numbers() -> None:
    s = '<span class="lsep">→</span>'
    lines = ["a", "", "b &amp; c"]
    for numbers in (range(1, 4), range(0, 3), range(-1, 2), range(code._ROW_HEADS - 2, code._ROW_HEADS + 1),
                    [5, 9, 2], [code._ROW_HEADS, 1, 2], [-3, 1, 2], [10**12, 1, 2]):
        assert code._rows(numbers, lines, s) == _plain_rows(numbers, lines, s), numbers
    assert code._rows(range(1, 1), [], s) == []


def test_numbered_keeps_its_numbers_past_the_prebuilt_ones() -> None:
    text = "\n".join(f"{n}→x{n}" for n in range(code._ROW_HEADS - 3, code._ROW_HEADS + 3))
    nums, body, sep, tail = code.parse_numbered(text)
    html = code.numbered(body, filename="a.py", numbers=nums, sep=sep, fold=False, browser=True)
    for n in nums:
        assert f'<span class="ln">{n}</span><span class="lsep">→</span>x{n}' in html


def test_padded_blocks_agree_with_the_line_by_line_reading() -> None:
    # Claude Code's usual Read form ("%6d→" and numbers running on by one) is taken apart in C-level
    # passes; every near miss (a gap, a narrower or wider number, a number past the prebuilt heads,
    # digits that are not ASCII, a short line) must read as the line loop reads it.
    rng = random.Random(27)
    codes = ["x = 1", "", "a→b", "\t<tag> & é", " 12→", "\U0001f600"]
    for _ in range(3000):
        first = rng.choice([0, 1, 7, 99_999, code._ROW_HEADS - 3, code._ROW_HEADS])
        nums = list(range(first, first + rng.randint(1, 6)))
        if rng.random() < 0.3:
            nums[rng.randrange(len(nums))] += rng.choice([1, -1, 5])
        width = 6 if rng.random() < 0.8 else rng.choice([1, 5, 7])
        rows = [f"{n:>{width}}→{rng.choice(codes)}" for n in nums]
        if rng.random() < 0.1:
            rows[rng.randrange(len(rows))] = rows[0].replace("1", "\u0661")  # (Arabic-Indic one)
        tail = rng.choice(["", "\n", "\n\n<system-reminder>x</system-reminder>", "\nplain"])
        text = "\n".join(rows) + tail
        assert code.parse_numbered(text) == code._parse_numbered_lines(text), repr(text)


def test_esc_of_long_text_on_its_bytes_agrees_with_html_escape() -> None:
    # A long text that is not ASCII is escaped on its UTF-8 bytes (markup._esc_long); it must give
    # what html.escape gives after the control characters are shown, lone surrogates included.
    import html

    rng = random.Random(27)
    for _ in range(400):
        n = rng.choice([511, 512, 513, 3000])
        text = "".join(rng.choice(_ALPHABET[:-6] if rng.random() < 0.5 else _ALPHABET + ['"', "'", ">"])
                       for _ in range(n))
        assert markup.esc(text) == html.escape(markup.show_controls(text)), repr(text[:80])
    wide = "\u200d\u202e\U0001f469\u200d\U0001f4bb → <b>" * 100
    assert markup.esc(wide) == html.escape(markup.show_controls(wide))
