"""Fixtures shared by every test module: built sites (once per run) and a headless browser."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

# Test modules live in folders mirroring ccreport's packages; the helper modules (util, hostile,
# serve_helpers…) stay here, importable from all of them.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from util import CHROMIUM, CHROMIUM_ARGS, CORPUS, SAMPLE_HOME


def _build(home: Path, out: Path, **kw):
    from ccreport.site.build import Options, build

    res = build(home, out, Options(jobs=kw.pop("jobs", 1), **kw))
    return res


@pytest.fixture(scope="session")
def corpus_home() -> Path:
    if not (CORPUS / "projects").is_dir():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def corpus_site(tmp_path_factory, corpus_home):
    out = tmp_path_factory.mktemp("corpus-site")
    res = _build(corpus_home, out, jobs=2)
    return out, res


@pytest.fixture(scope="session")
def sample_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample-site")
    res = _build(SAMPLE_HOME, out)
    return out, res


@pytest.fixture
def build_site():
    """Call as build_site(home, out, page_size=…) → BuildResult."""
    return _build


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium driven by Playwright (never `playwright install`)."""
    if not os.path.exists(CHROMIUM) and not shutil.which("chromium"):
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
                              args=CHROMIUM_ARGS)
        yield b
        b.close()
