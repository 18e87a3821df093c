"""File references in Markdown text (issue 28.5): ``[next.config.js](next.config.js:190:4-201:6)``, ``path:line``
and Windsurf's ``cci:1://file://…`` shown as the file's name and lines, never as their Markdown source, by
both renderers (the Rust port and markdown-it-py)."""

from __future__ import annotations

import re

import orjson
import pytest

from ccreport.render import fastmd, markup
from ccreport.render.filerefs import file_ref

CORPUS_SESSION = "projects/-Users-dain-workspace-danieldemmel-me-next/9e953218-585f-4692-89df-9e0747a31c68.jsonl"
LINK = re.compile(r"\[([^\[\]\n]*)\]\(([^()\s]+:\d+[^()\s]*)\)")


def corpus_links(corpus_home) -> list[tuple[str, str]]:
    """Every ``[text](path:line…)`` link in the assistant texts of the corpus session that has them."""
    out = []
    for line in (corpus_home / CORPUS_SESSION).read_bytes().splitlines():
        obj = orjson.loads(line)
        content = (obj.get("message") or {}).get("content") if obj.get("type") == "assistant" else None
        for b in content if isinstance(content, list) else ():
            if b.get("type") == "text":
                out.extend(LINK.findall(b["text"]))
    return out


def renderers():
    yield "reference", lambda text: markup._reference_md().render(text)
    if fastmd.available():
        yield "fast", lambda text: fastmd.render(text, markup._code_block, markup.safe_link, markup.relative_link,
                                                 file_ref)


@pytest.mark.parametrize("target, path, shown", [
    ("next.config.js:190:4-201:6", "next.config.js", "next.config.js:190–201"),
    ("vercel.json:3:4-3:80", "vercel.json", "vercel.json:3"),
    ("src/app.py:12", "src/app.py", "app.py:12"),
    ("src/app.py:12:5", "src/app.py", "app.py:12"),
    ("cci:1://file:///Users/x/proj/next.config.js:184:8-186:10", "/Users/x/proj/next.config.js", "next.config.js:184–186"),
    ("cci:1://file:///Users/x/proj/index.html:0:0-0:0", "/Users/x/proj/index.html", "index.html"),
])
def test_a_reference_is_its_file_name_and_lines(target, path, shown):
    ref = file_ref(target)
    assert ref is not None and ref.path == path and ref.shown == shown


@pytest.mark.parametrize("target", ["https://x.y:8080", "src/app.py", "javascript:alert(1)", "a b.py:3", "//host/x:1",
                                    "data:text/html,x:1"])
def test_other_targets_are_not_references(target):
    assert file_ref(target) is None


@pytest.mark.parametrize("name, render", list(renderers()))
def test_references_render_as_name_and_lines_and_stay_safe(name, render):
    html = render('See [next.config.js](next.config.js:190:4-201:6), [the config](vercel.json:3:4-3:80) and '
                  '[<b onload="x">](evil.js:1 "t") but `[c](c.js:1)` stays code.')
    assert '<code class="fref" title="next.config.js">next.config.js:190–201</code>' in html
    assert '<span class="rlink">the config</span> <code class="fref" title="vercel.json">vercel.json:3</code>' in html
    assert "<b" not in html and 'title="evil.js"' in html  # the link text is escaped as any text
    assert "<code>[c](c.js:1)</code>" in html  # a code span is left as written
    assert "](" not in html.replace("<code>[c](c.js:1)</code>", "")


@pytest.mark.parametrize("name, render", list(renderers()))
def test_the_19_corpus_links_never_show_as_source(name, render, corpus_home):
    links = corpus_links(corpus_home)
    assert len(links) == 19
    for text, target in links:
        html = render(f"[{text}]({target})")
        ref = file_ref(target)
        assert "](" not in html and target not in html, (target, html)
        assert f">{ref.shown}</code>" in html and "/Users/" not in ref.shown
