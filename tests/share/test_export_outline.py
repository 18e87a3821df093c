"""The single-file HTML export starts with the session outline, as the site's session page does
(issue 28, point 6): each prompt with what followed it, linked to its place in the same file, its
sub-agents linked to their sections, and everything in it redacted like the rest of the document."""

from __future__ import annotations

import re
from html import unescape

from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from util import SAMPLE_HOME

WEBSHOP_SESSION = "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"  # three prompts, an Edit, a sub-agent


def _export(tmp_path) -> str:
    out = tmp_path / "s.html"
    run_export(SAMPLE_HOME, WEBSHOP_SESSION, str(out), ExportOptions())
    return out.read_text(encoding="utf-8")


def test_export_has_the_outline_with_anchored_prompts(tmp_path):
    html = _export(tmp_path)
    section = re.search(r'<section class="outline".*?</section>', html, re.S)
    assert section, "no outline in the export"
    outline = section.group(0)
    assert html.index('<section class="outline"') < html.index('<div class="messages" id="messages">')
    prompts = re.findall(r'<p class="turn-prompt"><a href="#(L\d+)">([^<]*)</a>', outline)
    assert len(prompts) == 3 and "Prompts <span class=\"dim\">(3)</span>" in outline
    ids = set(re.findall(r' id="([^"]+)"', html))
    for anchor, text in prompts:
        assert anchor in ids
        article = re.search(rf'<article class="msg user" id="{anchor}">.*?</article>', html, re.S).group(0)
        assert unescape(text)[:30] in unescape(re.sub(r"<[^>]+>", "", article))
    assert "1 Edit" in outline and "Changed <code" in outline
    agent = re.search(r'Sub-agents: <a href="#(agent-[^"]+)">Find encoding-related code</a>', outline)
    assert agent and agent.group(1) in ids


def test_export_outline_is_redacted(tmp_path):
    outline = re.search(r'<section class="outline".*?</section>', _export(tmp_path), re.S).group(0)
    assert "/home/alice" not in outline
