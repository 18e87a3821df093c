"""An archive that keeps what Claude Code deletes (issue 14): a home whose files are gone is
re-rendered from the source store byte for byte, restored, forgotten only on request; an unlistable
project folder is not a deleted one; the cleanup forecast; the home files kept for other views."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from ccreport.site.build import Options, build
from ccreport.site.searchindex import read_units
from ccreport.source.store import Store
from incrhelp import change_head
from util import CORPUS, SAMPLE_HOME, page_text

_MARKS = [re.compile(rb'<p class="kept-mark".*?</p>\n?', re.S), re.compile(rb'<div class="kept-mark small">.*?</div>', re.S),
          re.compile(rb'<fieldset class="kept-filter">.*?</fieldset>\n?', re.S)]


def _unmarked(data: bytes) -> bytes:
    """A page without its 'kept by the archive' marks (what a cold build of the files shows)."""
    for rx in _MARKS:
        data = rx.sub(b"", data)
    return data.replace(b'<tr class="kept">', b"<tr>").replace(b' kept-rows"', b'"')


def _pages(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*")
            if p.is_file() and ".ccreport" not in p.parts}


def _run(*args) -> tuple[int, str, str]:
    from ccreport.cli import cli

    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def _forced_full(out: Path) -> None:
    """A new renderer: another code fingerprint in the saved head (as a ccreport upgrade would)."""
    change_head(out, fingerprint="another renderer")


def _compare(out: Path, cold: Path) -> None:
    a, b = _pages(out), _pages(cold)
    assert sorted(a) == sorted(b)
    transcript_pages = [k for k in a if "/page-" in k]
    assert transcript_pages and [k for k in transcript_pages if a[k] != b[k]] == []  # byte for byte
    # Index, project and session pages: the same once the archive's marks are taken out.
    assert [k for k in a if _unmarked(a[k]) != b[k]] == []


@pytest.mark.parametrize("source,page_size", [(SAMPLE_HOME, None), (SAMPLE_HOME, 7),
                                              pytest.param(CORPUS, None, marks=pytest.mark.slow)])
def test_deleted_home_is_rerendered_from_the_store_byte_for_byte(tmp_path, source, page_size):
    if not (source / "projects").is_dir():
        pytest.skip("no corpus")
    home = tmp_path / "home"
    shutil.copytree(source, home, ignore=shutil.ignore_patterns("*.py"))
    out, cold = tmp_path / "site", tmp_path / "cold"
    opts = Options(jobs=1, page_size=5)
    after = Options(jobs=1, page_size=page_size or 5)
    assert build(home, cold, after).errors == []
    assert build(home, out, opts).errors == []
    shutil.rmtree(home / "projects")
    (home / "projects").mkdir()
    if page_size is None:
        _forced_full(out)
    for page in out.rglob("page-*.html"):  # only a render from the store can bring these back
        page.unlink()
    res = build(home, out, after)
    assert res.errors == [] and res.archived == res.sessions - res.prompts_only > 0  # (prompts-only: from history)
    _compare(out, cold)
    text = page_text(next((out / "p").glob("*/*/index.html")))
    assert "kept by the archive — source removed, last seen" in text


def test_side_files_the_home_lost_are_rerendered_from_the_store(tmp_path):
    """The 2.1.2xx side files (docs/formats.md F6) come back from the store too once the home lost them: a
    Workflow run (summary, script, journal), a /rename title (custom-title.json) and a team board
    (teams/, tasks/, which TeamDelete erases)."""
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out, cold = tmp_path / "site", tmp_path / "cold"
    opts = Options(jobs=1, page_size=5)
    assert build(home, cold, opts).errors == [] and build(home, out, opts).errors == []
    for folder in ("projects", "teams", "tasks"):
        shutil.rmtree(home / folder)
    (home / "projects").mkdir()
    _forced_full(out)
    res = build(home, out, opts)
    assert res.errors == [] and res.archived == res.sessions - res.prompts_only > 0  # (prompts-only: from history)
    _compare(out, cold)
    atlas = out / "p" / "-home-dana-atlas"
    run = page_text(atlas / "90e61059-2a7b-527a-9fe4-7ccd0eb689e0" / "workflow-wf_3c9e1a27-4b1" / "index.html")
    assert "bench-tiles-wf_3c9e1a27-4b1.js" in run and "p50 840 ms → 11 ms" in run  # script, journal
    assert "Atlas: tile cache task board" in page_text(atlas / "index.html")  # custom-title.json
    team = page_text(atlas / "90e61059-2a7b-527a-9fe4-7ccd0eb689e0" / "index.html")
    assert "tasks/atlas-perf/ in the Claude home" in team and "Review the cache fix" in team


def test_restore_round_trip_and_refusal(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    originals = {p.relative_to(home).as_posix(): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    out = tmp_path / "site"
    assert _run("build", "--home", home, "--out", out, "-j", "1", "-q")[0] == 0
    shutil.rmtree(home / "projects")
    (home / "projects").mkdir()
    assert _run("build", "--home", home, "--out", out, "-j", "1", "-q")[0] == 0
    sids = {p.name[:-len(".jsonl")] for p in SAMPLE_HOME.glob("projects/*/*.jsonl") if not p.name.startswith("agent-")}
    for sid in sorted(sids):
        code, stdout, _ = _run("restore", sid[:8], "--home", home, "--out", out)
        assert code == 0 and "restored" in stdout
    now = {p.relative_to(home).as_posix(): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert now == originals  # main transcripts, sub-agents, meta.json, tool results
    assert _run("restore", sorted(sids)[0], "--home", home, "--out", out)[0] == 0  # identical: fine
    sid = "fa85718f-1a31-5507-a654-e710c7269adb"
    victim = home / "projects" / "-Users-chika-dev-dotfiles" / f"{sid}.jsonl"
    victim.write_bytes(b"something else\n")
    code, _, err = _run("restore", sid, "--home", home, "--out", out)
    assert code == 1 and f"{victim} exists and differs from the archived copy" in err
    assert victim.read_bytes() == b"something else\n"
    code, _, err = _run("restore", sid, "--to", tmp_path / "elsewhere", "--out", out)
    assert code == 0 and (tmp_path / "elsewhere" / "projects" / "-Users-chika-dev-dotfiles" / f"{sid}.jsonl").read_bytes() \
        == originals[f"projects/-Users-chika-dev-dotfiles/{sid}.jsonl"]
    assert _run("restore", "../etc", "--home", home, "--out", out)[0] == 1


def test_older_generations_are_listed_and_restored(tmp_path):
    """A file Claude Code rewrote (not appended to) keeps its earlier version in the store; `list
    --generations` shows them and `restore --generation N` writes version N back."""
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    sid = "fa85718f-1a31-5507-a654-e710c7269adb"
    rel = f"projects/-Users-chika-dev-dotfiles/{sid}.jsonl"
    first = (home / rel).read_bytes()
    out = tmp_path / "site"
    assert _run("build", "--home", home, "--out", out, "-j", "1", "-q")[0] == 0
    second = first.split(b"\n", 1)[1]  # rewritten without its first line: a new generation
    (home / rel).write_bytes(second)
    assert _run("build", "--home", home, "--out", out, "-j", "1", "-q")[0] == 0
    code, stdout, _ = _run("list", "--generations", sid[:8], "--site", out)
    assert code == 0 and rel in stdout
    assert f"generation 1: {len(first):,} bytes" in stdout and f"generation 2: {len(second):,} bytes" in stdout
    code, stdout, _ = _run("list", "--generations", sid, "--site", out, "--json")
    kept = {f["file"]: [g["size"] for g in f["generations"]] for f in orjson.loads(stdout)}
    assert code == 0 and kept[rel] == [len(first), len(second)]
    for n, want in ((1, first), (2, second), (9, second)):  # 9: past the last, each file's newest
        dest = tmp_path / f"gen{n}"
        assert _run("restore", sid, "--to", dest, "--out", out, "--generation", n)[0] == 0
        assert (dest / rel).read_bytes() == want
    assert _run("restore", sid, "--to", tmp_path / "g0", "--out", out, "--generation", 0)[0] == 2
    code, _, err = _run("list", "--generations", "nope", "--site", out)
    assert code == 1 and "no session nope" in err


def test_unlistable_project_folder_is_reported_and_kept_unchanged(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out = tmp_path / "site"
    first = build(home, out, Options(jobs=1))
    before = _pages(out)
    project = home / "projects" / "-home-alice-webshop"
    sdir = project / "4ebd3ba9-3ae8-58e0-b978-920a51c240d3"
    shutil.rmtree(sdir)
    sdir.symlink_to(sdir.name)  # a symlink loop: listing the project fails
    res = build(home, out, Options(jobs=1))
    assert any(f"-home-alice-webshop/{sdir.name}: Too many levels of symbolic links" in e for e in res.errors)
    assert res.deleted == [] and res.archived == 0 and res.sessions == first.sessions
    assert _pages(out) == before  # nothing deleted, nothing marked as gone
    # Without a store the site's state keeps the sessions; the sub-agents that were in the looping
    # folder are not listed any more (issue 29, point 5: only that entry is skipped).
    res = build(home, tmp_path / "site", Options(jobs=1, no_store=True))
    assert res.sessions == first.sessions
    pages = [d for d in res.deleted if d.endswith(".html")]
    assert pages and [d for d in pages if f"/{sdir.name}/agent-" not in d] == []  # (and their search chunks)


def test_forget_is_explicit_and_checked(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out = tmp_path / "site"
    build(home, out, Options(jobs=1))
    sid = "fa85718f-1a31-5507-a654-e710c7269adb"
    code, _, err = _run("forget", sid, "--home", home, "--out", out)
    assert code == 1 and "still in the home" in err
    shutil.rmtree(home / "projects" / "-Users-chika-dev-dotfiles")
    build(home, out, Options(jobs=1))
    assert (out / "p" / "-Users-chika-dev-dotfiles" / sid / "page-0001.html").is_file()
    code, _, err = _run("forget", sid, "--home", home, "--out", out)
    assert code == 0 and f"forgot {sid}" in err
    assert not (out / "p" / "-Users-chika-dev-dotfiles").exists()
    assert not any(k.endswith(sid) for k in Store(out / ".ccreport").index["sessions"])
    assert _run("forget", "a/../b", "--home", home, "--out", out)[0] == 1


def test_cleanup_forecast_is_printed_once(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    (home / "settings.json").write_text('{"cleanupPeriodDays": 10}')
    old = time.time() - 5 * 86400  # within 7 days of the 10-day limit
    for f in (home / "projects" / "-Users-chika-dev-dotfiles").rglob("*"):
        os.utime(f, (old, old))
    code, _, err = _run("build", "--home", home, "--out", tmp_path / "site", "-j", "1")
    assert code == 0
    assert err.count("Claude Code will delete 1 session of this home within 7 days (cleanupPeriodDays = 10)") == 1
    assert "the archive keeps them" in err
    (home / "settings.json").write_text('{"cleanupPeriodDays": 100}')
    assert "will delete" not in _run("build", "--home", home, "--out", tmp_path / "site", "-j", "1")[2]


def test_stats_and_search_still_count_archived_sessions(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out = tmp_path / "site"
    build(home, out, Options(jobs=1))
    full = _run("stats", "--home", home, "--json")[1]
    shutil.rmtree(home / "projects" / "-home-alice-webshop")
    res = build(home, out, Options(jobs=1))
    assert res.archived == 2 and "2 kept by the archive" in res.summary_line(out)
    assert _run("stats", "--home", home, "--json")[1] != full
    assert _run("stats", "--home", home, "--json", "--store", out / ".ccreport")[1] == full
    # the archived sessions are still in the search index's unit metadata
    units = [u for p in (out / "search" / "u").glob("*.js") for u in read_units(out, p.stem).values()]
    assert any(u[3] == "4ebd3ba9-3ae8-58e0-b978-920a51c240d3" and u[2] == "-home-alice-webshop" for u in units)


def test_home_files_are_archived_and_readable_after_the_home_loses_them(tmp_path):
    """history.jsonl, plans, teams, tasks, todos and file-history are kept for the views of issue 14
    point 4 and issue 15: Store.read_bytes gives them back once the home deleted them."""
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    files = {"history.jsonl": b'{"display":"hi","sessionId":"x"}\n', "plans/quiet-plan.md": b"# plan\n",
             "teams/t1/config.json": b"{}", "teams/t1/inboxes/lead.json": b"[]", "tasks/t1/1.json": b"{}",
             "todos/s-agent-s.json": b"[]", "file-history/s1/abc@v1": b"old text"}
    for rel, data in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    out = tmp_path / "site"
    build(home, out, Options(jobs=1))
    for rel in files:
        (home / rel).unlink()
    build(home, out, Options(jobs=1))
    st = Store(out / ".ccreport")
    assert {rel: st.read_bytes(rel) for rel in files} == files
    assert set(files) <= set(st.files)


@pytest.mark.browser
def test_kept_filter_works_offline_in_a_browser(tmp_path, browser):
    """The filter is CSS only (:has): from file://, without scripts or network."""
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out = tmp_path / "site"
    build(home, out, Options(jobs=1))
    sid = "8155b4cc-d7e0-5ee8-8948-ff41164d3048"
    for f in (home / "projects" / "-srv-bob-webshop").glob("*.jsonl"):
        if f.name.startswith(sid) or sid in f.read_text(errors="replace")[:4096]:
            f.unlink()
    build(home, out, Options(jobs=1))
    page = browser.new_page(java_script_enabled=False)
    page.goto((out / "p" / "-srv-bob-webshop" / "index.html").as_uri())
    visible = "Array.from(document.querySelectorAll('table.kept-rows tbody tr')).filter(r => r.offsetParent !== null).length"
    kept = "Array.from(document.querySelectorAll('table.kept-rows tbody tr.kept')).filter(r => r.offsetParent !== null).length"
    assert page.evaluate(visible) == 2 and page.evaluate(kept) == 1
    page.check("#kept-only")
    assert page.evaluate(visible) == 1 and page.evaluate(kept) == 1
    page.check("#kept-hide")
    assert page.evaluate(visible) == 1 and page.evaluate(kept) == 0
    page.close()


def test_home_files_read_through_the_home_then_the_store(tmp_path):
    from ccreport.source.reading import kept_home_files, read_home_file

    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py", "plans"))
    (home / "plans").mkdir()
    (home / "plans" / "a.md").write_bytes(b"# a\n")
    (home / "plans" / "b.md").write_bytes(b"# b\n")
    out = tmp_path / "site"
    build(home, out, Options(jobs=1))
    store = out / ".ccreport"
    (home / "plans" / "a.md").unlink()
    (home / "plans" / "b.md").write_bytes(b"# b, edited\n")
    assert read_home_file(home, store, "plans/a.md") == b"# a\n"  # the home lost it: the store's copy
    assert read_home_file(home, store, "plans/b.md") == b"# b, edited\n"  # the home's, when it has one
    assert kept_home_files(home, store, "plans/") == ["plans/a.md", "plans/b.md"]
    with pytest.raises(FileNotFoundError):
        read_home_file(home, store, "plans/never.md")
