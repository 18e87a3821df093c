"""Issue 29, point 8: bidi controls (U+202A–202E, U+2066–2069, U+200E/200F, U+061C) and zero-width
characters (U+200B–200D, U+2060, U+FEFF) show as their code points (⟨U+202E⟩) in every page — as
the C0 controls show as symbols (tests/site/test_controls.py) — and in the terminal output of
`tail`, `list`, `stats` and the header of a Markdown export; search keeps the text."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

from ccreport.render import markup
from ccreport.site.build import Options, build
from ccreport.site.search import read_doc_script
from util import assistant, make_home, page_text, tool_result, user, write_jsonl

INVISIBLE = ("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
             "\u200b\u200c\u200d\u2060\ufeff")
SHOWN = "".join(f"⟨U+{ord(c):04X}⟩" for c in INVISIBLE)
RLO = "\u202e"
PROJECT = f"-home-u-{RLO}gpj.exe"
SID = f"s-{RLO}fdp.exe"
CLI = [sys.executable, "-m", "ccreport"]


@pytest.fixture(scope="module")
def home_and_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("invisible")
    lines = [
        user("u1", f"title{INVISIBLE}prompt", sid=SID),
        assistant("a1", [{"type": "text", "text": f"**bold{RLO}x** and `co{RLO}de`\n\n```py\nx = '{INVISIBLE}'\n```"},
                         {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"cat evil{RLO}txt.sh"}}],
                  parent="u1", sid=SID, model=f"claude-{RLO}x"),
        tool_result("r1", "t1", f"out{INVISIBLE}put", parent="a1", sid=SID),
    ]
    home = make_home(tmp / "home", {PROJECT: {f"{SID}.jsonl": lines,
                                              f"{SID}/subagents/agent-a{RLO}b.jsonl": [user("su", f"agent{RLO}task", sid=SID)]}})
    with open(home / "projects" / PROJECT / f"{SID}.jsonl", "ab") as fh:
        fh.write(f'{{"type": "user", "broken {INVISIBLE} line\n'.encode())  # a malformed line
    res = build(home, tmp / "site", Options(jobs=1))
    assert res.errors == []
    return home, tmp / "site"


def test_no_page_holds_a_raw_bidi_or_zero_width_character(home_and_site):
    _, site = home_and_site
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 5
    for p in pages:
        text = p.read_text(encoding="utf-8")
        found = [f"U+{ord(c):04X}" for c in INVISIBLE if c in text]
        assert found == [], (p.relative_to(site).as_posix(), found)


def test_they_show_as_code_points(home_and_site):
    _, site = home_and_site
    page = next(site.glob("p/*/*/page-0001.html"))
    text = page_text(page)
    assert f"title{SHOWN}prompt" in text and f"out{SHOWN}put" in text and f"broken {SHOWN} line" in text
    assert "bold⟨U+202E⟩x" in text and "co⟨U+202E⟩de" in text and "cat evil⟨U+202E⟩txt.sh" in text
    assert f"x = '{SHOWN}'" in text  # inside coloured code too
    index = page_text(next(site.glob("p/*/index.html")))
    assert "s-⟨U+202E⟩fdp.exe" in index or "title⟨U+202A⟩" in index  # the session's name or title, shown


def test_search_keeps_the_text(home_and_site):
    _, site = home_and_site
    docs = [d for p in (site / "search" / "d").glob("*.js") for d in read_doc_script(p.read_bytes()) or []]
    assert "\\u202e" in orjson.dumps(docs).decode().lower() or RLO in orjson.dumps(docs).decode()


def _run(*args: str) -> str:
    run = subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout + run.stderr


@pytest.mark.parametrize("command", ["list", "stats", "tail", "tail-agent", "export-md"])
def test_terminal_output_shows_them_too(home_and_site, command, tmp_path):
    home, _ = home_and_site
    args = {"list": ["list", "--all"], "stats": ["stats"], "tail": ["tail", SID, "-n", "0"],
            "tail-agent": ["tail", SID, "--agent", f"a{RLO}b"], "export-md": ["export", SID, "--format", "md"]}[command]
    out = _run(*args, "--home", str(home))
    found = [f"U+{ord(c):04X}" for c in INVISIBLE if c in (out if command != "export-md" else out.split("\n\n")[0])]
    assert found == [], found
    expect = {"list": "s-⟨U+202E⟩fdp.exe", "stats": "claude-⟨U+202E⟩x", "tail": f"out{SHOWN}put", "tail-agent": "agent⟨U+202E⟩task",
              "export-md": "⟨U+202E⟩"}[command]
    assert expect in out


def test_the_checks_find_each_one():
    for c in INVISIBLE:
        assert not markup.controls_free(f"a — “b” {c} c".encode()) and markup.has_controls("x" * 600 + c)
        assert markup.esc(c) == f"⟨U+{ord(c):04X}⟩" and markup.show_controls(c) == markup.esc(c)
    assert markup.controls_free("plain — “quoted” 日本語 é\n\t".encode())
    assert markup.show_invisible("a\u202eb\x1b") == "a⟨U+202E⟩b\x1b"


@pytest.mark.browser
def test_search_results_show_them_too(home_and_site, browser):
    """The index keeps the text; the search panel shows a hit's title and snippet as the pages do."""
    _, site = home_and_site
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto((site / "index.html").as_uri())
        page.fill("#search-q", "bold")
        page.keyboard.press("Enter")
        page.wait_for_selector("#search-status[data-count]", timeout=20_000)
        shown = page.text_content("#search-results")
        assert "bold⟨U+202E⟩x" in shown, shown
        assert [c for c in INVISIBLE if c in shown] == []
        assert errors == []
    finally:
        page.close()
