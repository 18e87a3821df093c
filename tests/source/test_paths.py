"""Ids and paths from outside (command line, URL) and links inside the home never reach past it.

What exists now: locate.find_session / find_transcript, discovery and the archive build. Every
file the build opens or lists is recorded with an audit hook and must lie in the home or the site.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pathhelp import BAD_IDS, SECRET, good_session, linked_home  # noqa: F401  (fixture)
from util import assistant, make_home, site_text, user

PROJECT = "-home-u-proj"
def test_bad_ids_are_refused_before_any_file_is_touched(linked_home):
    from ccreport.source.locate import LocateError, find_session, find_transcript
    from ccreport.source.home import discover, valid_id

    home, _ = linked_home
    cat = discover(home)
    s = find_session(home, "sess-1", catalog=cat)
    refused = 0
    for bad in BAD_IDS:
        assert not valid_id(bad), bad
        with pytest.raises(LocateError) as exc:
            find_session(home, bad, catalog=cat)
        assert exc.value.status in (400, 404), (bad, exc.value.status)
        if bad:  # an empty agent id means the main transcript, by design
            with pytest.raises(LocateError) as exc:
                find_transcript(s, bad)
            assert exc.value.status == 400, bad
        refused += 1
    assert refused == len(BAD_IDS)


def test_paths_outside_the_home_read_as_not_found(linked_home, tmp_path):
    from ccreport.source.locate import LocateError, find_session

    home, outside = linked_home
    p = home / "projects" / PROJECT
    for spec in (str(outside / "secret.jsonl"), str(p / "sess-link.jsonl"), str(p / ".." / ".." / ".." / "outside" / "secret.jsonl"),
                 str(home / "projects" / "-linked-project" / "sess-outproj.jsonl"), "/etc/../etc/x.jsonl",
                 str(p / "sess-dirlink" / "subagents" / "agent-out.jsonl"), "../../outside/secret.jsonl",
                 str(p / "sess-dangling.jsonl")):
        with pytest.raises(LocateError) as exc:
            find_session(home, spec)
        assert exc.value.status == 404, spec
    # and the legitimate path form still works
    assert find_session(home, str(p / "sess-1.jsonl")).id == "sess-1"


def test_links_out_of_the_home_are_skipped_by_discovery(linked_home):
    from ccreport.source.home import discover

    home, _ = linked_home
    cat = discover(home)
    ids = {s.id for s in cat.sessions()}
    assert ids == {"sess-1"}
    s1 = next(cat.sessions())
    assert [t.id for t in s1.agents] == ["a1"]
    assert s1.agents[0].description is None  # the meta.json outside was not read
    problems = "\n".join(cat.problems)
    for name in ("sess-link.jsonl", "agent-legacylink.jsonl", "agent-a2.jsonl", "-linked-project"):
        assert name in problems, name


_OPENED: list[str] | None = None


def _audit(event, args):
    if _OPENED is not None and event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def test_the_build_opens_nothing_outside_the_home_and_the_site(linked_home, tmp_path):
    from ccreport.site.build import Options, build
    import ccreport

    global _OPENED
    home, outside = linked_home
    site = tmp_path / "site"
    _OPENED = []
    try:
        res = build(home, site, Options(jobs=1))
    finally:
        opened, _OPENED = _OPENED, None
    assert res.sessions == 1 and res.transcripts == 2
    assert any("sess-link.jsonl" in e for e in res.errors)  # reported, not silently ignored
    allowed = [home.resolve(), site.resolve(), Path(ccreport.__file__).resolve().parent.parent, Path(sys.prefix).resolve(),
               Path(sys.base_prefix).resolve()]
    outside_reads = []
    for path in opened:
        if path == os.devnull:
            continue  # fastmd points the Rust renderer's panic messages there: a sink, no data
        rp = Path(path).resolve()
        if not any(rp.is_relative_to(a) for a in allowed) or rp.is_relative_to(outside.resolve()):
            outside_reads.append(path)
    assert opened and outside_reads == [], outside_reads
    assert SECRET not in site_text(site)
    text = site_text(site)
    assert "reply in sess-1" in text


def test_session_folders_stay_inside_the_site(tmp_path):
    """Odd but legal file names never put a page outside its project folder."""
    from ccreport.site.build import Options, build

    names = ["a..b", "..a", "a..", ".hidden", "-x", "%2e%2e", "%2f", "a%00b", "~", "con", "a b", "ü"]
    home = make_home(tmp_path / "home", {PROJECT: {f"{n}.jsonl": good_session(n) for n in names}})
    site = tmp_path / "site"
    res = build(home, site, Options(jobs=1))
    assert res.errors == [] and res.sessions == len(names)
    from ccreport.source.locate import find_session

    from ccreport.layout import session_dir

    for n in names:
        # (a name that starts with a dot goes on disk without it: serve hands out no dot folder)
        folder = site / session_dir(PROJECT, n)
        assert folder.parent == site / "p" / PROJECT and not folder.name.startswith("."), n
        assert folder.name == n or n.startswith("."), n
        assert (folder / "page-0001.html").is_file(), n
        assert find_session(home, n).id == n  # and each is reachable by its exact name (tail, export, API)
    for f in site.rglob("*"):
        assert f.resolve().is_relative_to(site.resolve())
