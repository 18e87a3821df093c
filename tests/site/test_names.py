"""Names of any length and any characters a file system allows (issue 18, point 5): the site is
built, every link resolves, long names get a stable short folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ccreport.fs import atomic_write
from ccreport.layout import MAX_NAME_BYTES, session_dir, site_name
from ccreport.site.build import Options, build
from linkcheck import check_site
from nameshome import LONG_PROJECT, LONG_SESSION, NAMES, make_names_home
from util import ROOT

SITECHECK = ROOT.parent / "shared" / "checks" / "sitecheck.py"


@pytest.fixture(scope="module")
def names_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("names")
    home = make_names_home(tmp / "home")
    res = build(home, tmp / "site", Options(jobs=2))
    return home, tmp / "site", res


def test_site_name_keeps_short_names_and_shortens_long_ones_stably():
    for name in ("-home-u-proj", "s#1", "x" * MAX_NAME_BYTES, "ü" * (MAX_NAME_BYTES // 2)):
        assert site_name(name) == name
    a, b = "p" * 250 + "a", "p" * 250 + "b"
    assert site_name(a) == site_name(a) and site_name(a) != site_name(b)
    for name in (a, "ü" * 127, "日" * 85):
        short = site_name(name)
        assert len(short.encode()) <= MAX_NAME_BYTES and name.startswith(short.rpartition("~")[0])


def test_a_long_file_name_is_written_through_a_short_temporary_name(tmp_path):
    target = tmp_path / ("n" * 250 + ".html")
    atomic_write(target, b"x")
    assert target.read_bytes() == b"x" and os.listdir(tmp_path) == [target.name]


def test_every_awkward_name_builds_and_its_links_resolve(names_site):
    home, site, res = names_site
    assert res.errors == [] and res.sessions == len(NAMES) and res.transcripts == 2 * len(NAMES)
    pages, links, problems = check_site(site)
    assert problems == [], "\n".join(problems[:20])
    for pdir, sid in NAMES:
        page = site / session_dir(pdir, sid) / "page-0001.html"
        html = page.read_text(encoding="utf-8")
        # the sub-agent link and the saved tool output link are there (and resolve: check_site)
        assert 'class="agent-link" href=' in html and 'class="persisted" href=' in html, (pdir, sid)
    for path in site.rglob("*"):
        assert len(path.name.encode()) <= 255
        assert not path.name.endswith(".tmp")
    assert (site / "p" / site_name(LONG_PROJECT) / site_name(LONG_SESSION) / "index.html").is_file()


@pytest.mark.skipif(not SITECHECK.exists(), reason="the shared sitecheck.py is not on this machine")
def test_sitecheck_is_clean_on_awkward_names(names_site):
    out = subprocess.run([sys.executable, str(SITECHECK), str(names_site[1])], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert " 0 broken" in out.stdout


def test_long_names_get_the_same_folders_on_every_build(names_site, tmp_path):
    home, site, _ = names_site
    again = build(home, site, Options(jobs=1))
    assert again.errors == [] and again.written == []
    cold = tmp_path / "cold"
    build(home, cold, Options(jobs=1))
    assert sorted(p.relative_to(cold) for p in cold.rglob("*") if ".ccreport" not in p.parts) == \
        sorted(p.relative_to(site) for p in site.rglob("*") if ".ccreport" not in p.parts)


def test_a_long_project_folder_alone_builds(tmp_path):
    """The finding: one 230-character project folder failed the whole build (only assets/ written)."""
    home = make_names_home(tmp_path / "home")
    for pdir, _ in NAMES:
        if pdir != LONG_PROJECT:
            shutil.rmtree(home / "projects" / pdir)
    res = build(home, tmp_path / "site", Options(jobs=1))
    assert res.errors == [] and res.sessions == 1
    assert (tmp_path / "site" / "p" / site_name(LONG_PROJECT) / "index.html").is_file()
    assert Path(tmp_path / "site" / "index.html").is_file()


@pytest.mark.browser
def test_search_finds_and_opens_every_awkward_session(names_site, browser):
    """The finding: '#', '%', '?' or a tab in a name made search hang (those projects' index
    scripts failed to load). Each session's word is found from the site's front page, and its hit
    opens the session's page showing it."""
    from nameshome import needle

    _, site, _ = names_site
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    for n, (pdir, sid) in enumerate(NAMES):
        page.goto((site / "index.html").as_uri())
        page.fill("#search-q", needle(n))
        page.keyboard.press("Enter")
        page.wait_for_selector("#search-status[data-count]", timeout=20_000)
        assert int(page.get_attribute("#search-status", "data-count")) >= 1, (pdir, sid)
        page.locator("#search-results li a").first.click()
        page.wait_for_load_state()
        assert needle(n) in page.text_content("body"), (pdir, sid, page.url)
    assert errors == []
    page.close()
