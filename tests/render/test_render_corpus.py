"""Tool views on the real corpus: every tool name gets a readable view, and pages stay light."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from ccreport.render.tools import VIEWS, view_for

# Tools the corpus holds that have no view of their own on purpose: their input is a key or two
# and their result a sentence, which the generic key/value table + text shows in full.
GENERIC_OK = {"KillShell", "KillBash", "TaskGet", "TaskOutput", "TaskStop", "TodoRead", "ListMcpResourcesTool"}


def corpus_tool_names(home) -> set[str]:
    names = set()
    for f in (home / "projects").rglob("*.jsonl"):
        with open(f, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if '"tool_use"' not in line:
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                msg = obj.get("message") if isinstance(obj, dict) else None
                content = msg.get("content") if isinstance(msg, dict) else None
                for b in content if isinstance(content, list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("name"), str):
                        names.add(b["name"])
    return names


def tool_blocks(site) -> dict[str, list[str]]:
    """data-tool name → the HTML of each call (from its <details> to the end of its message)."""
    out: dict[str, list[str]] = {}
    for page in site.rglob("page-*.html"):
        html = page.read_text(encoding="utf-8")
        for part in html.split('<details class="tool')[1:]:
            part = part.split("</article>")[0]
            m = re.search(r'data-tool="([^"]*)"', part)
            out.setdefault(m.group(1), []).append(part)
    return out


def test_every_corpus_tool_has_a_readable_view(corpus_home, corpus_site):
    site, _ = corpus_site
    names = corpus_tool_names(corpus_home)
    assert len(names) >= 20
    blocks = tool_blocks(site)
    for name in sorted(names):
        assert view_for(name) is not None or name in GENERIC_OK, f"{name}: no specific view and not known to be simple"
        shown = blocks.get(name.replace("&", "&amp;"))
        assert shown, f"{name} never rendered"
        for html in shown:
            # A raw JSON dump is only for values nested past the key/value table's depth.
            assert "rawjson" not in html, f"{name} shows raw JSON"
            if view_for(name) is None:
                assert '<table class="kv">' in html or '<p class="dim">(no input)</p>' in html


def test_specific_views_used_for_the_common_tools(corpus_site):
    site, _ = corpus_site
    blocks = tool_blocks(site)
    expect = {"Edit": 'class="diff"', "MultiEdit": 'class="diff"', "Read": 'class="code hl num"',
              "TodoWrite": 'class="todos"', "Grep": '<code>', "Glob": 'class="chip"', "Bash": 'class="cmdline"',
              "Write": 'class="code hl num"', "AskUserQuestion": 'class="questions"', "ExitPlanMode": 'class="md plan"',
              "TaskList": 'class="todos"', "ToolSearch": 'class="chip tref"'}
    for name, frag in expect.items():
        assert any(frag in h for h in blocks.get(name, [])), f"{name}: {frag} not found"


class _Attrs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad = 0

    def handle_starttag(self, tag, attrs):
        if tag == "script" and not dict(attrs).get("src"):
            self.bad += 1
        self.bad += sum(1 for k, _ in attrs if k == "style" or k.startswith("on"))


def test_corpus_pages_have_no_inline_style_or_script(corpus_site):
    site, _ = corpus_site
    for page in site.rglob("page-*.html"):
        p = _Attrs()
        p.feed(page.read_text(encoding="utf-8"))
        assert p.bad == 0, page


def test_page_weight_within_one_and_a_half_times_the_jsonl(corpus_home, corpus_site, capsys):
    site, _ = corpus_site
    html = sum(p.stat().st_size for p in site.rglob("*.html")
               if "blobs" not in p.relative_to(site).parts and "assets" not in p.relative_to(site).parts)
    jsonl = sum(p.stat().st_size for p in (corpus_home / "projects").rglob("*.jsonl"))
    ratio = html / jsonl
    with capsys.disabled():
        print(f"\npage weight: {html:,} B of HTML for {jsonl:,} B of JSONL = {ratio:.2f}x")
    assert ratio <= 1.5


def test_views_table_has_no_duplicates_of_names():
    # Aliases (Task/Agent, PowerShell/Bash, ExitPlanMode/exit_plan_mode) share a view on purpose.
    assert VIEWS["Task"] is VIEWS["Agent"] and VIEWS["exit_plan_mode"] is VIEWS["ExitPlanMode"]
