"""source.homefiles: history.jsonl, plans, todos and file-history read from the home, else from the
source store; names checked, paths kept inside the home, bad lines kept."""

from __future__ import annotations

import os
import shutil

from ccreport.site.build import build
from ccreport.site.options import Options
from ccreport.source.homefiles import PLAN_NAME, HomeFiles, expanded, parse_history, prompt_key
from util import SAMPLE_HOME


def test_history_lines_are_parsed_and_bad_ones_kept():
    raw = (b'{"display":"fix [Pasted text #1 +2 lines] now","pastedContents":{"1":{"id":1,"type":"text",'
           b'"content":"a\\nb"}},"timestamp":1700000000000,"project":"/w","sessionId":"abc-123"}\n'
           b'not json\n[1, 2]\n'
           b'{"display":"x","timestamp":true,"project":"/w","sessionId":"../../etc"}\n')
    ps = parse_history(raw)
    assert [p.line for p in ps] == [1, 2, 3, 4]
    assert ps[0].session_id == "abc-123" and ps[0].timestamp == 1700000000000
    assert expanded(ps[0]) == "fix a\nb now" and prompt_key(expanded(ps[0])) == "fix a b now"
    assert ps[1].error and ps[1].display == "not json" and ps[2].error == "not an object"
    assert ps[3].session_id is None and ps[3].timestamp is None  # an id that is not an id, a bool time


def test_names_and_paths_stay_inside_the_home(tmp_path):
    home = tmp_path / "home"
    (home / "plans").mkdir(parents=True)
    (home / "plans" / "ok.md").write_text("# ok")
    (home / "plans" / "bad name.md").write_text("x")
    secret = tmp_path / "secret.md"
    secret.write_text("secret")
    os.symlink(secret, home / "plans" / "link.md")
    files = HomeFiles(home, None)
    assert files.names("plans", PLAN_NAME) == ["ok.md"]
    assert files.plan("ok.md") == b"# ok"
    assert files.plan("link.md") is None  # a symlink out of the home is not followed
    assert files.plan("../secret.md") is None and files.read("plans/../../secret.md") is None
    assert files.backup("../x", "abcdef0123456789@v1") is None and files.backup("s1", "../../secret.md") is None


def test_home_files_read_from_the_store_once_the_home_lost_them(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    before = {r: HomeFiles(home, None).read(r) for r in ("history.jsonl", "plans/weekly-stock-report.md")}
    for name in ("history.jsonl", "plans", "todos", "file-history"):
        p = home / name
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    files = HomeFiles(home, out / ".ccreport")
    assert {r: files.read(r) for r in before} == before and all(before.values())
    assert [t.name for t in files.todos() if t.items][0].endswith(".json")
    assert files.names("plans", PLAN_NAME) == [
        "weekly-stock-report.md"]
    assert HomeFiles(home, None).history() == []  # without the store: gone


def test_a_reader_sees_what_a_later_build_kept(tmp_path):
    """A HomeFiles asks the store's database file by file (nothing loaded per session), so one made
    after a later build sees the entries that build kept."""
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home, ignore=shutil.ignore_patterns("*.py"))
    out = tmp_path / "site"
    assert build(home, out, Options(jobs=1)).errors == []
    store = out / ".ccreport"
    plan = home / "plans" / "later-plan.md"
    plan.write_text("# a plan written after the first build\n")
    assert build(home, out, Options(jobs=1)).errors == []
    plan.unlink()
    files = HomeFiles(home, store)
    assert files.read("plans/later-plan.md") == b"# a plan written after the first build\n"
