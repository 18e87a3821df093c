"""Golden pages: a few pages of the sample site, compared byte for byte after scrubbing what changes
from build to build (build date, version, asset hashes).

After an intended rendering change, rewrite them and review the diff:

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from pathlib import Path

import pytest

from ccreport import __version__
from util import SAMPLE_HOME, TESTS

GOLDEN = TESTS / "golden"
# Only the projects written by sample_home/make_sample.py: projects added to sample_home later
# (other scenario homes) must not change these pages.
PROJECTS = ("-home-alice-webshop", "-srv-bob-webshop", "-Users-chika-dev-dotfiles")
ALICE = "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"
BOB = "8155b4cc-d7e0-5ee8-8948-ff41164d3048"
CHIKA = "fa85718f-1a31-5507-a654-e710c7269adb"
PAGES = (
    "index.html",
    "p/-home-alice-webshop/index.html",
    f"p/-home-alice-webshop/{ALICE}/index.html",
    f"p/-home-alice-webshop/{ALICE}/page-0001.html",
    f"p/-home-alice-webshop/{ALICE}/agent-a3840a7bfdeb9696c/page-0001.html",
    f"p/-srv-bob-webshop/{BOB}/agent-48670e0e/page-0001.html",
    f"p/-Users-chika-dev-dotfiles/{CHIKA}/page-0001.html",
)


def scrub(html: str) -> str:
    html = re.sub(r"built \d{4}-\d{2}-\d{2}", "built <DATE>", html)
    html = html.replace(f"ccreport {__version__}", "ccreport <VERSION>")
    html = re.sub(r"(assets/[\w./-]+?)\.[0-9a-f]{10}\.(css|js)\b", r"\1.<HASH>.\2", html)
    return html


def golden_name(rel: str) -> str:
    return rel.replace("/", "__")


@pytest.fixture(scope="module")
def golden_site(tmp_path_factory):
    from ccreport.site.build import Options, build

    home = tmp_path_factory.mktemp("golden-home")
    for name in PROJECTS:
        shutil.copytree(SAMPLE_HOME / "projects" / name, home / "projects" / name)
    out = tmp_path_factory.mktemp("golden-site")
    res = build(home, out, Options(jobs=1))
    assert res.errors == []
    return out


def test_scrub_removes_only_the_volatile_parts():
    page = (f'<link href="../assets/style.0123456789.css"><script src="assets/app.abcdef0123.js">'
            f"built 2026-11-30 · Made by ccreport {__version__} · page-0001.html#L12 · 2025-11-03 09:14")
    assert scrub(page) == ('<link href="../assets/style.<HASH>.css"><script src="assets/app.<HASH>.js">'
                           "built <DATE> · Made by ccreport <VERSION> · page-0001.html#L12 · 2025-11-03 09:14")


@pytest.mark.parametrize("rel", PAGES)
def test_golden_page(golden_site, rel):
    got = scrub((golden_site / rel).read_text(encoding="utf-8"))
    path = GOLDEN / golden_name(rel)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.is_file(), f"no golden page {path.name}: run UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "built", n=1))
        pytest.fail(f"{rel} differs from tests/golden/{path.name} (UPDATE_GOLDEN=1 to accept):\n{diff[:4000]}")


def test_no_stale_golden_files():
    if not GOLDEN.is_dir():
        pytest.skip("no golden pages yet")
    # Files only: tests/golden/export/ holds test_export.py's own golden outputs.
    assert sorted(p.name for p in GOLDEN.iterdir() if p.is_file()) == sorted(golden_name(r) for r in PAGES)
