"""History, plans, todos and file history shown (issue 14 point 4; docs/archive.md): prompts-only
sessions, prompts typed but never answered, plan pages linked from plan calls, todo checklists,
the file before an Edit — and all of it still shown once Claude Code deleted the home files."""

from __future__ import annotations

import json
import shutil
import time

import orjson
import pytest

from ccreport.site.build import Follow, build
from ccreport.site.options import Options
from ccreport.site.state import State
from incrhelp import change_head
from util import SAMPLE_HOME, page_text

ALICE = "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"
GALLERY = "9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21"
ALICE_DIR = f"p/-home-alice-webshop/{ALICE}"
NOTE = "prompts only: the transcript was deleted before ccreport saw it"
HOME_FILES = ("history.jsonl", "plans", "todos", "file-history")


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, h, ignore=shutil.ignore_patterns("*.py"))
    return h


def _prompts_only_dirs(out):
    return sorted(p.parent for p in (out / "p").glob("*/*/index.html") if NOTE in page_text(p))


def _check_shown(out) -> None:
    # Prompts-only sessions: a page each, with their prompts and times, marked, escaped.
    pages = _prompts_only_dirs(out)
    assert [p.parent.name for p in pages] == ["-home-alice-webshop", "-home-dana-blog"]
    refund = (pages[0] / "index.html").read_text()
    assert "Add a test for a missing IBAN &lt;script&gt;alert(1)&lt;/script&gt;" in refund and "<script>alert" not in refund
    assert "KeyError: &#39;iban&#39;" in refund and "2025-10-28 16:02" in refund  # the pasted text put back, the time
    project = page_text(out / "p/-home-alice-webshop/index.html")
    assert NOTE in project and "Refunds fail for SEPA customers" in project
    home = page_text(out / "index.html")
    assert "1 session with prompts only" in home and "/home/dana/blog" in home and "11 sessions" in home  # 9 with transcripts, 2 prompts only
    # Typed, never answered: on alice's session page; the answered ones and the slash command are not.
    session = page_text(out / ALICE_DIR / "index.html")
    assert "Typed, never answered (1)" in session
    assert "Und bitte auch die <Rechnung>-PDFs prüfen & die Tests laufen lassen." in session
    assert "/model" not in session and "Der Checkout bricht" not in session.split("Typed, never answered")[1]
    # Todos: the checklist of the session, escaped; the empty list of another session is not shown.
    assert "Todo list of the session" in session and "◐ Check shop/pdf.py <header> encoding in progress" in session
    assert "&lt;header&gt;" in (out / ALICE_DIR / "index.html").read_text()
    # The plan: its page (Markdown, HTML as text), its list, the link from the ExitPlanMode call.
    plan = (out / "plans/weekly-stock-report.md.html").read_text()
    assert "<strong>report.py</strong>" in plan and "&lt;b&gt;HTML in a plan stays text.&lt;/b&gt;" in plan
    assert 'href="weekly-stock-report.md.html"' in (out / "plans/index.html").read_text()
    gallery = (out / f"p/-home-demo-gallery/{GALLERY}/page-0001.html").read_text()
    assert 'href="../../../plans/weekly-stock-report.md.html">Open the plan file weekly-stock-report.md' in gallery
    # The file before alice's Edit, from its file-history backup.
    page = (out / ALICE_DIR / "page-0001.html").read_text()
    name = "86377654b8dc6b69@v1.txt"
    assert f'href="../../../{ALICE_DIR}/file-history/{name}">The file before this edit' in page
    assert "Latin-1" in (out / ALICE_DIR / "file-history" / name).read_text()  # cart.py before the fix


def test_home_files_are_shown(home, tmp_path):
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    _check_shown(out)


def test_shown_after_the_home_files_are_deleted(home, tmp_path):
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    before = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.html") if ".ccreport" not in p.parts}
    for name in HOME_FILES:
        p = home / name
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    res = build(home, out, Options(jobs=1))  # an incremental build: nothing moves
    assert res.errors == [] and res.written == [] and res.deleted == []
    # A new renderer: every page rendered again, home files read back from the store.
    change_head(out, fingerprint="another renderer")
    shutil.rmtree(out / "plans")
    shutil.rmtree(out / ALICE_DIR / "file-history")
    for p in out.rglob("page-*.html"):
        p.unlink()
    assert build(home, out, Options(jobs=1)).errors == []
    _check_shown(out)
    after = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.html") if ".ccreport" not in p.parts}
    assert sorted(after) == sorted(before)
    assert [k for k in before if k != "index.html" and before[k] != after[k]] == []  # (the home page has the date)


def test_a_prompt_typed_later_moves_only_its_session_overview(home, tmp_path):
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    assert build(home, out, Options(jobs=1)).written == []
    with open(home / "history.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"display": "noch eine Frage?", "pastedContents": {}, "timestamp": int(time.time() * 1000),
                             "project": "/home/alice/webshop", "sessionId": ALICE}) + "\n")
    res = build(home, out, Options(jobs=1))
    assert [p.split("/site/")[1] for p in res.written] == [f"{ALICE_DIR}/index.html"]
    assert "Typed, never answered (2)" in page_text(out / ALICE_DIR / "index.html")
    assert build(home, out, Options(jobs=1)).written == []


def test_a_prompt_typed_during_an_update_of_another_project_moves_its_overview(home, tmp_path):
    """live.follow rebuilds only the projects whose files changed (Follow.only_projects); a session
    elsewhere is not read again, but its home-file section is still looked at."""
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    with open(home / "history.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"display": "noch eine Frage?", "pastedContents": {}, "timestamp": int(time.time() * 1000),
                             "project": "/home/alice/webshop", "sessionId": ALICE}) + "\n")
    res = build(home, out, Options(jobs=1), follow=Follow(state=State.load(out), only_projects={"-home-dana-atlas"}))
    assert f"{ALICE_DIR}/index.html" in [p.split("/site/")[1] for p in res.written]
    assert "Typed, never answered (2)" in page_text(out / ALICE_DIR / "index.html")
    state = State.load(out)
    res = build(home, out, Options(jobs=1), follow=Follow(state=state, only_projects={"-home-dana-atlas"}))
    assert res.written == []


def test_without_the_home_files_nothing_is_added(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py", *HOME_FILES))
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    assert not (out / "plans").exists() and _prompts_only_dirs(out) == []
    assert "Typed, never answered" not in page_text(out / ALICE_DIR / "index.html")
    assert "before-link" not in (out / ALICE_DIR / "page-0001.html").read_text()
