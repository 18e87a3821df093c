"""File contents are coloured in the browser (assets/code.js + the vendored Prism), only when shown,
without changing a character of the text and without ever turning transcript text into markup."""

from __future__ import annotations

import pytest

from ccreport.render.codelang import BROWSER_COLOUR_MAX, prism_language
from util import assistant, make_home, tool_result, user

HOSTILE = '<img src=x onerror="window.__pwned=1"></pre><script>window.__pwned=2</script>'
CODE = ("import os\n\n\ndef main():\n    s = \"" + HOSTILE.replace('"', "'") + "\"  # a comment\n    return 42\n"
        + "".join(f"x{i} = {i}\n" for i in range(60)))


def test_language_from_a_fence_name():
    from ccreport.render.codelang import prism_for_name

    assert prism_for_name("py") == "python" and prism_for_name("Shell") == "bash" and prism_for_name("tsx") == "tsx"
    assert prism_for_name("html") == "markup" and prism_for_name("rust") == "rust"
    assert prism_for_name("text") is None and prism_for_name("clike") is None and prism_for_name("") is None


def test_language_from_file_name():
    assert prism_language("/srv/app/main.py") == "python"
    assert prism_language("C:\\src\\App.TSX") == "tsx"
    assert prism_language("docker/Dockerfile.prod") == "docker"
    assert prism_language("Makefile") == "makefile"
    assert prism_language("notes.unknownext") is None
    assert prism_language("README") is None
    assert prism_language(None) is None


def test_every_mapped_language_is_bundled():
    from ccreport.render import codelang
    from ccreport.render.resources import assets_dir

    bundle = (assets_dir() / "vendor" / "prism.js").read_text()
    header = bundle.split("*/", 1)[0]
    for lang in set(codelang._BY_EXT.values()) | set(codelang._BY_NAME.values()):
        assert f" {lang}," in header or f" {lang}." in header, lang


def _home(tmp_path):
    numbered = "\n".join(f"{i:6d}→{line}" for i, line in enumerate(CODE.rstrip("\n").split("\n"), 1))
    entries = [
        user("u1", "read it", sid="s1"),
        assistant("a1", [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/w/app.py"}}],
                  parent="u1", sid="s1"),
        tool_result("r1", "toolu_1", numbered, parent="a1", sid="s1",
                    extra={"type": "text", "file": {"filePath": "/w/app.py", "content": CODE, "numLines": 66,
                                                    "startLine": 1, "totalLines": 66}}),
        assistant("a2", [{"type": "text", "text": "Like this:\n\n```py\ndef shown():\n    return '<b>' # note\n```\n"}],
                  parent="r1", sid="s1", mid="msg_2", rid="req_2"),
    ]
    return make_home(tmp_path / "home", {"-w": {"s1.jsonl": entries}})


@pytest.mark.browser
def test_read_block_is_coloured_when_opened_and_keeps_its_text(tmp_path, build_site, browser):
    home = _home(tmp_path)
    out = tmp_path / "site"
    build_site(home, out)
    page_file = out / "p" / "-w" / "s1" / "page-0001.html"
    html = page_file.read_text()
    assert 'data-lang="python"' in html and '<span class="k">' not in html  # left to the browser
    assert '<pre class="code hl" data-lang="python"><code>def shown():' in html

    page = browser.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    head = page.locator("pre.num[data-lang=python]:not(.cont)")
    before = head.evaluate("e => e.textContent")
    # The visible markdown block loads Prism and is coloured; the folded file is left alone.
    page.wait_for_function("() => document.querySelector('pre.hl:not(.num)[data-lang]').getAttribute('data-hl') === 'done'")
    assert head.evaluate("e => e.getAttribute('data-hl')") is None
    assert head.evaluate("e => e.querySelectorAll('span.k').length") == 0

    page.evaluate("""() => { for (const d of document.querySelectorAll('details.tool')) d.open = true; }""")
    page.wait_for_function("() => document.querySelector('pre.num[data-lang=python]').getAttribute('data-hl') === 'done'")
    assert head.evaluate("e => e.textContent") == before  # not a character changed
    assert head.evaluate("e => e.querySelectorAll('span.k').length") >= 2  # import, def, return
    assert head.evaluate("e => e.querySelectorAll('span.c').length") == 1
    assert head.evaluate("e => e.querySelectorAll('span.ln').length") == 40  # FOLD_LINES rows stay rows
    # The folded rest of the file is the same code: coloured in the same pass, numbers kept.
    cont = page.locator("pre.cont[data-lang=python]")
    assert cont.evaluate("e => e.querySelectorAll('span.m').length") > 10
    assert cont.evaluate("e => e.querySelector('span.ln').textContent") == "41"
    # The hostile string stays text: no element made from it, nothing ran.
    assert head.evaluate("e => e.querySelectorAll('img, script').length") == 0
    assert page.evaluate("() => window.__pwned === undefined")
    # A markdown code block is visible from the start: coloured without opening anything.
    fence = page.locator("pre.hl:not(.num)[data-lang=python]")
    assert fence.evaluate("e => e.getAttribute('data-hl')") == "done"
    assert fence.evaluate("e => e.textContent") == "def shown():\n    return '<b>' # note\n"
    assert fence.evaluate("e => [...e.querySelectorAll('span')].map(s => s.className).join(' ')").split()[:2] == ["k", "nf"]
    assert fence.evaluate("e => e.querySelectorAll('b').length") == 0
    assert not problems, problems


def test_huge_contents_are_not_marked_for_colouring():
    from ccreport.render.tools.code import numbered

    big = "x = 1\n" * (BROWSER_COLOUR_MAX // 6 + 10)
    assert "data-lang" not in numbered(big, filename="a.py", browser=True)
    assert 'data-lang="python"' in numbered("x = 1\n", filename="a.py", browser=True)
