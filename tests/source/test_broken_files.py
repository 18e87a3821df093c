"""Broken, odd and vanishing transcript files: the build finishes, reports, and loses no line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from faults import anchored_lines, assert_all_lines_shown, input_lines
from util import assistant, make_home, page_text, user

PROJECT = "-home-u-proj"


def run_cli(*args) -> tuple[int, str]:
    from ccreport.cli import cli

    r = CliRunner().invoke(cli, list(map(str, args)))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stderr


def good(sid: str, n: int = 2) -> list:
    lines = []
    for i in range(n):
        lines.append(user(f"{sid}-u{i}", f"question {i} of {sid}", sid=sid))
        lines.append(assistant(f"{sid}-a{i}", [{"type": "text", "text": f"answer {i} of {sid}"}], sid=sid, mid=f"{sid}-m{i}"))
    return lines


def _raw(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def j(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def broken_home(root: Path) -> Path:
    """One project: a healthy session and one session per kind of broken file."""
    home = make_home(root, {PROJECT: {"healthy.jsonl": good("healthy", 3)}})
    p = home / "projects" / PROJECT
    _raw(p / "empty.jsonl", b"")
    _raw(p / "blank-lines.jsonl", b"\n\n\r\n")
    _raw(p / "title-only.jsonl", j({"type": "summary", "summary": "Only a title here", "leafUuid": "x"}))
    _raw(p / "custom-title-only.jsonl", j({"type": "custom-title", "customTitle": "Named but empty", "sessionId": "x"}))
    _raw(p / "not-json.jsonl", j(good("nj")[0]) + b"{this is not json\n" + j(good("nj")[1]))
    _raw(p / "array-number.jsonl", b"[1, 2, 3]\n42\n\"a string\"\nnull\ntrue\n" + j(good("an")[0]))
    _raw(p / "bad-utf8.jsonl", j(good("bu")[0]).replace(b"question", b"quest\xff\xfeion")
         + b"\xc3\x28\xa0\xa1 raw bytes that are not UTF-8\n" + j(good("bu")[1]))
    _raw(p / "no-newline.jsonl", j(good("nn")[0]) + json.dumps(good("nn")[1]).encode())
    _raw(p / "no-newline-cut.jsonl", j(good("nc")[0]) + json.dumps(good("nc")[1]).encode()[:40])
    _raw(p / "nul-bytes.jsonl", j(good("nb")[0]) + b"\x00\x00\x00\n" + j(good("nb")[1]))
    return home


def session_folder(site: Path, sid: str) -> Path:
    return site / "p" / PROJECT / sid


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("broken")
    home = broken_home(root / "home")
    code, err = run_cli("build", "--home", home, "--out", root / "site", "-j", "1")
    return home, root / "site", code, err


def test_broken_files_build_the_whole_site(broken_site):
    home, site, code, err = broken_site
    # A broken line is shown in place, not a failure of the build: exit 0, nothing on stderr but the summary.
    assert code == 0, err
    assert "Traceback" not in err
    for f in sorted((home / "projects" / PROJECT).glob("*.jsonl")):
        folder = session_folder(site, f.stem)
        assert (folder / "index.html").is_file(), f.name
        assert (folder / "page-0001.html").is_file(), f.name
        assert_all_lines_shown(f, folder)
    assert "answer 2 of healthy" in page_text(session_folder(site, "healthy") / "page-0001.html")
    index = page_text(site / "p" / PROJECT / "index.html")
    for title in ("Named but empty", "question 0 of healthy"):
        assert title in index
    # a summary line titles the session holding its leaf: "x" is no message of the project
    assert "Only a title here" not in index
    assert len(list((home / "projects" / PROJECT).glob("*.jsonl"))) == 11


def test_malformed_lines_say_why(broken_site):
    _, site, _, _ = broken_site
    nj = page_text(session_folder(site, "not-json") / "page-0001.html")
    assert "Line 2 could not be read: not JSON" in nj and "{this is not json" in nj
    an = page_text(session_folder(site, "array-number") / "page-0001.html")
    for n, kind in ((1, "list"), (2, "int"), (3, "str"), (4, "NoneType"), (5, "bool")):
        assert f"Line {n} could not be read: JSON {kind}, not an object" in an
    bu = page_text(session_folder(site, "bad-utf8") / "page-0001.html")
    assert "quest\ufffd\ufffdion 0 of bu" in bu  # replaced, the line kept
    assert "raw bytes that are not UTF-8" in bu
    # Blank lines are empty ones: folded into one counted row (model.folds), not three malformed lines.
    assert "3 empty lines (lines 1–3, 4 B: blank ×3)" in page_text(session_folder(site, "blank-lines") / "page-0001.html")
    overview = page_text(session_folder(site, "array-number") / "index.html")
    assert "Malformed" in overview


def test_a_last_line_without_newline_is_shown_not_dropped(broken_site):
    _, site, _, _ = broken_site
    nn = page_text(session_folder(site, "no-newline") / "page-0001.html")
    assert "answer 0 of nn" in nn and "no newline yet" in nn
    nc = page_text(session_folder(site, "no-newline-cut") / "page-0001.html")
    assert "unfinished last line (no newline yet)" in nc


def test_the_unfinished_line_is_read_again_once_complete(tmp_path):
    """The build shows the unfinished line, and the reader still resumes before it."""
    from ccreport.source.jsonl import Reader

    f = _raw(tmp_path / "t.jsonl", j(good("r")[0]) + json.dumps(good("r")[1]).encode()[:30])
    with open(f, "rb") as fh:
        r = Reader(fh)
        assert [e.line for e in r] == [1] and r.pending == 30
        offset, line = r.offset, r.line
    with open(f, "ab") as fh:
        fh.write(json.dumps(good("r")[1]).encode()[30:] + b"\n")
    with open(f, "rb") as fh:
        r = Reader(fh, offset, line)
        entries = list(r)
    assert [(e.line, e.obj is not None) for e in entries] == [(2, True)]


def test_truncated_and_rewritten_between_builds(tmp_path):
    lines = good("tr", 30)  # 60 lines → 2 pages of 50 messages… at page size 10: 6 pages
    home = make_home(tmp_path / "home", {PROJECT: {"tr.jsonl": lines, "other.jsonl": good("other")}})
    f = home / "projects" / PROJECT / "tr.jsonl"
    site = tmp_path / "site"
    code, _ = run_cli("build", "--home", home, "--out", site, "--page-size", "10")
    assert code == 0
    folder = session_folder(site, "tr")
    assert len(list(folder.glob("page-*.html"))) == 6
    # truncated mid-line: 25 whole lines and half of the 26th
    data = f.read_bytes()
    cut = sum(len(x) for x in data.splitlines(keepends=True)[:25])
    f.write_bytes(data[: cut + 20])
    code, err = run_cli("build", "--home", home, "--out", site, "--page-size", "10")
    assert code == 0, err
    assert_all_lines_shown(f, folder)
    assert len(list(folder.glob("page-*.html"))) == 3  # the pages past the new end are gone
    assert "question 20 of tr" not in " ".join(page_text(p) for p in folder.glob("page-*.html"))
    # rewritten with other content of the same size
    f.write_bytes(data.replace(b"question", b"QUESTION"))
    code, err = run_cli("build", "--home", home, "--out", site, "--page-size", "10")
    assert code == 0, err
    assert_all_lines_shown(f, folder)
    text = " ".join(page_text(p) for p in folder.glob("page-*.html"))
    assert "QUESTION 29 of tr" in text and "question 1 of tr" not in text
    assert (session_folder(site, "other") / "page-0001.html").is_file()


def _overview_error(site: Path, sid: str) -> str:
    return page_text(session_folder(site, sid) / "index.html")


def test_a_file_deleted_during_the_build(tmp_path, monkeypatch):
    from ccreport.site import build as build_mod
    from ccreport.source.home import discover as real_discover

    home = make_home(tmp_path / "home", {PROJECT: {"gone.jsonl": good("gone"), "stays.jsonl": good("stays")}})

    def discover_then_delete(h):
        cat = real_discover(h)
        (h / "projects" / PROJECT / "gone.jsonl").unlink()  # between discovery and rendering
        return cat

    monkeypatch.setattr(build_mod, "discover", discover_then_delete)
    site = tmp_path / "site"
    code, err = run_cli("build", "--home", home, "--out", site, "-j", "1")
    assert code == 1
    assert "gone.jsonl" in err and "No such file" in err and "Traceback" not in err
    assert "gone.jsonl" in _overview_error(site, "gone") and "No such file" in _overview_error(site, "gone")
    assert "answer 1 of stays" in page_text(session_folder(site, "stays") / "page-0001.html")
    assert (site / "index.html").is_file() and (site / "p" / PROJECT / "index.html").is_file()


def test_an_unreadable_file_simulated(tmp_path, monkeypatch):
    """Root reads through chmod 000, so the permission error is injected at open()."""
    import builtins

    from ccreport.source import reading as transcript_mod  # where a transcript is opened

    home = make_home(tmp_path / "home", {PROJECT: {"locked.jsonl": good("locked"), "open.jsonl": good("open")}})
    real_open = builtins.open

    def guarded_open(file, *a, **kw):
        if str(file).endswith("locked.jsonl"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *a, **kw)

    monkeypatch.setattr(transcript_mod, "open", guarded_open, raising=False)
    site = tmp_path / "site"
    code, err = run_cli("build", "--home", home, "--out", site, "-j", "1")
    assert code == 1
    assert "locked.jsonl" in err and "Permission denied" in err
    assert "Permission denied" in _overview_error(site, "locked")
    assert "answer 1 of open" in page_text(session_folder(site, "open") / "page-0001.html")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode (covered by the simulated test)")
def test_an_unreadable_file_for_real(tmp_path):
    home = make_home(tmp_path / "home", {PROJECT: {"locked.jsonl": good("locked"), "open.jsonl": good("open")}})
    locked = home / "projects" / PROJECT / "locked.jsonl"
    locked.chmod(0)
    try:
        r = subprocess.run([sys.executable, "-m", "ccreport", "build", "--home", str(home), "--out", str(tmp_path / "site")],
                           capture_output=True, text=True)
    finally:
        locked.chmod(0o644)
    assert r.returncode == 1 and "locked.jsonl" in r.stderr and "Traceback" not in r.stderr
    assert "Permission denied" in _overview_error(tmp_path / "site", "locked")
    assert (session_folder(tmp_path / "site", "open") / "page-0001.html").is_file()


def test_an_unreadable_project_folder_simulated(tmp_path, monkeypatch):
    from ccreport.source import home as home_mod

    home = make_home(tmp_path / "home", {PROJECT: {"a.jsonl": good("a")}, "-other": {"b.jsonl": good("b")}})
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("-other"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(home_mod.os, "scandir", scandir)
    code, err = run_cli("build", "--home", home, "--out", tmp_path / "site")
    assert code == 1 and "-other" in err and "Permission denied" in err
    assert (session_folder(tmp_path / "site", "a") / "page-0001.html").is_file()


def test_names_that_cannot_be_sessions_are_reported(tmp_path):
    home = make_home(tmp_path / "home", {PROJECT: {"ok.jsonl": good("ok"), "..jsonl": good("dot"), "...jsonl": good("dotdot"),
                                                   ".jsonl": good("empty")}})
    site = tmp_path / "site"
    code, err = run_cli("build", "--home", home, "--out", site)
    assert code == 1
    for name in ("'..jsonl'", "'...jsonl'", "'.jsonl'"):
        assert name in err
    # nothing was written over the project page or outside the project folder
    assert "question 0 of ok" in page_text(site / "p" / PROJECT / "index.html")
    assert not (site / "p" / "page-0001.html").exists() and not (site / "p" / PROJECT / "page-0001.html").exists()


BIG = 40 * 1024 * 1024  # a JSON line under jsonl.LINE_CAP: read, its text cut when rendered
JUNK = 100 * 1024 * 1024  # a line over it: streamed past, shown by its size and start


@pytest.mark.slow
def test_a_100_mb_line_keeps_memory_bounded_and_says_what_was_cut(tmp_path):
    from ccreport.render.markup import RENDER_MAX
    from ccreport.source.jsonl import LINE_CAP

    p = tmp_path / "home" / "projects" / PROJECT
    p.mkdir(parents=True)
    head = json.dumps(user("big-u", "PLACEHOLDER", sid="big")).encode()
    a, b = head.split(b"PLACEHOLDER")
    with open(p / "big.jsonl", "wb") as fh:
        fh.write(j(user("u0", "before the big line", sid="big")))
        fh.write(a)
        chunk = b"0123456789abcdef" * 65536  # 1 MiB
        for _ in range(BIG // len(chunk)):
            fh.write(chunk)
        fh.write(b + b"\n")
        fh.write(j(user("u2", "after the big line", sid="big")))
    with open(p / "bigjunk.jsonl", "wb") as fh:  # a 100 MB line that is not JSON at all
        for _ in range(JUNK // len(chunk)):
            fh.write(chunk)
        fh.write(b"\n")
        fh.write(j(user("u3", "after the junk", sid="bigjunk")))
    site = tmp_path / "site"
    # A fresh parent process, so RUSAGE_CHILDREN holds only the build's own peak.
    probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "ccreport", "build", "--home",
                          str(tmp_path / "home"), "--out", str(site), "-j", "1", "-q"], capture_output=True, text=True)
    code, peak_kb = map(int, out.stdout.split())
    assert code == 0, out.stderr
    peak = peak_kb * 1024
    print(f"peak RSS {peak / 2**20:.0f} MiB for a {BIG / 2**20:.0f} MiB line and a {JUNK / 2**20:.0f} MiB one")
    assert peak < 200 * 2**20  # measured: ~150 MiB (the 40 MiB line as bytes while read, then as text)
    page = session_folder(site, "big") / "page-0001.html"
    assert page.stat().st_size < 4 * RENDER_MAX  # the page holds the cut, not the line
    text = page_text(page)
    assert f"{BIG - RENDER_MAX:,} more characters not shown" in text
    assert "before the big line" in text and "after the big line" in text
    junk = page_text(session_folder(site, "bigjunk") / "page-0001.html")
    assert f"line of {JUNK + 1:,} bytes, longer than the {LINE_CAP:,}-byte limit" in junk
    assert "line is 100.0 MB; first 1.0 KB shown" in junk and "after the junk" in junk
    for sid in ("big", "bigjunk"):
        assert_all_lines_shown(p / f"{sid}.jsonl", session_folder(site, sid))


def test_every_line_of_the_real_corpus_has_its_anchor(corpus_site, corpus_home):
    """The same accounting on the real home: 99 transcripts, every line an #L<n> on some page."""
    from ccreport.layout import transcript_dir
    from ccreport.source.home import discover

    site, _ = corpus_site
    checked = 0
    for s in discover(corpus_home).sessions():
        for t in s.transcripts:
            assert_all_lines_shown(t.path, site / transcript_dir(s.project.dir_name, s.id, t.id))
            checked += 1
    assert checked == 99


def test_real_corpus_pages_are_statically_clean(corpus_site):
    import hostile

    site, _ = corpus_site
    problems = {str(p.relative_to(site)): hostile.scan_html(p.read_text(encoding="utf-8"))[:3]
                for p in sorted(site.rglob("*.html"))}
    assert {k: v for k, v in problems.items() if v} == {}
    assert len(problems) > 200
