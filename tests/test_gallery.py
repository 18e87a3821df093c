"""The gallery session (sample_home/make_gallery.py): complete, reproducible, and every <details>
kind opens and closes in a real browser under the pages' CSP."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ccreport.tools import VIEWS, view_for
from util import ROOT, SAMPLE_HOME

GALLERY = SAMPLE_HOME / "projects" / "-home-demo-gallery"
SID = "9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21"


def gallery_pages(site):
    d = site / "p" / "-home-demo-gallery" / SID
    return sorted(d.glob("page-*.html")) + sorted(d.glob("agent-*/page-*.html"))


def test_gallery_is_what_the_script_writes(tmp_path):
    # Regenerate into a copy of the script's folder and compare byte for byte.
    script = tmp_path / "make_gallery.py"
    script.write_text((SAMPLE_HOME / "make_gallery.py").read_text())
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    made = tmp_path / "projects" / "-home-demo-gallery"
    want = sorted(p.relative_to(GALLERY) for p in GALLERY.rglob("*") if p.is_file())
    got = sorted(p.relative_to(made) for p in made.rglob("*") if p.is_file())
    assert got == want
    for rel in want:
        assert (made / rel).read_bytes() == (GALLERY / rel).read_bytes(), rel


def test_gallery_uses_every_view(sample_site):
    site, _ = sample_site
    html = "".join(p.read_text(encoding="utf-8") for p in gallery_pages(site))
    import re

    used = {view_for(n) for n in re.findall(r'<details class="tool[^"]*" data-tool="([^"]+)"', html)}
    missing = {n for n, v in VIEWS.items() if v not in used}
    assert not missing, missing
    for frag in ('class="divider"', 'class="compact-summary"', 'class="cmd"', 'class="card status-completed"',
                 'class="marker"', 'class="api-error-note"', "Thinking not recorded", 'class="persisted"',
                 "Skill instructions", "IDE: opened file", "Hook output", 'loading="lazy"', 'class="doc-kind">PDF',
                 'class="sysnote err"', 'class="prompt-sign"', 'class="term"'):
        assert frag in html, frag


@pytest.mark.browser
def test_every_details_kind_opens_and_closes(sample_site, browser):
    site, _ = sample_site
    page = browser.new_page()
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    seen = set()
    for f in gallery_pages(site):
        page.goto(f.as_uri())
        # One <details> per kind: a tool call by its tool name, anything else by its class.
        picks = page.evaluate("""() => {
            const out = {};
            document.querySelectorAll('details').forEach((d, i) => {
              d.dataset.testIndex = i;
              const key = d.dataset.tool ? 'tool:' + d.dataset.tool : 'class:' + (d.className || 'plain');
              if (!(key in out)) out[key] = i;
            });
            return out;
        }""")
        for key, idx in picks.items():
            if key in seen:
                continue
            seen.add(key)
            sel = f'details[data-test-index="{idx}"]'
            # Open the way to it (a fold inside a closed tool call), then use the real summary.
            page.evaluate("""sel => { let p = document.querySelector(sel).parentElement;
                while (p) { if (p.tagName === 'DETAILS') p.open = true; p = p.parentElement; } }""", sel)
            d = page.locator(sel)
            start = d.evaluate("e => e.open")
            summary = page.locator(f"{sel} > summary")
            summary.click()
            assert d.evaluate("e => e.open") is (not start), key
            body_visible = d.evaluate("e => { const c = [...e.children].find(x => x.tagName !== 'SUMMARY');"
                                      " return !c || c.getBoundingClientRect().height > 0; }")
            if not start:
                assert body_visible, f"{key}: opened but its content is not shown"
            summary.click()
            assert d.evaluate("e => e.open") is start, key
    page.close()
    tools = {k for k in seen if k.startswith("tool:")}
    names = set()
    for f in GALLERY.rglob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            for b in (json.loads(line).get("message") or {}).get("content") or []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    names.add("tool:" + b["name"])
    assert tools == names
    for k in ("class:injected", "class:compact-summary", "class:thinking", "class:more", "class:prompt-fold"):
        assert k in seen, sorted(seen)
    assert problems == []
