"""Escaping: markup.esc must escape exactly as html.escape(quote=True) does (control characters
shown as symbols first), and highlighted code comes out escaped."""

from __future__ import annotations

import html

from hypothesis import given, settings, strategies as st
from markupsafe import Markup

from ccreport.render import markup


def test_highlight_escapes_hostile_code():
    out = markup.highlight("<script>alert('x')</script> & \"q\"", lang="bash")
    assert "<script>" not in out
    assert "&lt;script&gt;" in out and "&amp;" in out


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_esc_matches_html_escape(s):
    assert markup.esc(s) == html.escape(markup.show_controls(s), quote=True)
    assert markup.CONTROL_CHARS.search(markup.esc(s)) is None


def test_esc_of_non_strings_and_markup():
    assert markup.esc(12) == "12"
    assert markup.esc(None) == "None"
    # a Markup value is escaped as the text it holds, never double-escaped by Markup.replace
    assert markup.esc(Markup("a<b")) == "a&lt;b"
    assert type(markup.esc(Markup("x"))) is str


def test_an_emoji_sequence_keeps_its_joiners_and_a_hidden_joiner_shows():
    from ccreport.render.markup import esc, show_controls, show_invisible

    for seq in ("👩\u200d💻", "🏳️\u200d🌈", "👨\u200d👩\u200d👧"):
        assert show_controls(f"a {seq} b") == f"a {seq} b" and show_invisible(seq) == seq and esc(seq) == seq
    assert show_controls("pay\u200dpal") == "pay⟨U+200D⟩pal" and show_invisible("x\u200d\u202ey") == "x⟨U+200D⟩⟨U+202E⟩y"
    assert show_controls("👩\u200d\u202e💻") == "👩⟨U+200D⟩⟨U+202E⟩💻"  # a joiner before a control is no emoji's
