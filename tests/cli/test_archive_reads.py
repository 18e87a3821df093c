"""tail, list, export and stats read a session the home lost from the site's archive (--site), and
give exactly what they gave while the home still had it; without --site (no site in the folder
they run in) or with a site that keeps no archive they behave as with the home alone."""

from __future__ import annotations

import json

import cmarkgfm
import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from losthelp import LOST, LOST_AGENT, build_site, copy_home, lose

# Each read as it answered before the session was lost (the home alone, then --site).
READS = {
    "tail": ["tail", LOST, "-n", "0", "--json"],
    "tail-agent": ["tail", LOST, "--agent", LOST_AGENT, "--json"],
    "list": ["list", "--json", "--all"],
    "html": ["export", LOST, "-o", "-", "--format", "html"],
    "md": ["export", LOST, "--format", "md"],
    "summary": ["export", LOST, "--summary"],
    "stats": ["stats", "--json"],
}


def _run(args, home):
    res = CliRunner().invoke(cli, [*args, "--home", str(home)])
    return res.exit_code, res.stdout


@pytest.fixture(scope="module")
def lost(tmp_path_factory):
    root = tmp_path_factory.mktemp("archive-reads")
    home = copy_home(root)
    site = build_site(home, root / "site")
    bare = build_site(home, root / "bare", no_store=True)  # a site without an archive
    before = {k: _run(args, home) for k, args in READS.items()}
    lose(home)
    return {"root": root, "home": home, "before": before,
            "site": {k: _run([*args, "--site", str(site)], home) for k, args in READS.items()},
            "bare": {k: _run([*args, "--site", str(bare)], home) for k, args in READS.items()}}


def test_tail_reads_the_lost_transcript_from_the_archive(lost):
    for key in ("tail", "tail-agent"):
        code, out = lost["site"][key]
        was = json.loads(lost["before"][key][1])
        now = json.loads(out)
        assert code == 0 and now.pop("archived") is True and now == was


def test_list_shows_the_lost_session_marked(lost):
    was = {r["id"]: r for r in json.loads(lost["before"]["list"][1])}
    now = {r["id"]: r for r in json.loads(lost["site"]["list"][1])}
    assert set(now) == set(was)
    row = now.pop(LOST)
    assert row.pop("in_home") is False and row.pop("gone_since")
    assert row == {k: v for k, v in was.pop(LOST).items() if k not in ("in_home", "gone_since")}
    assert now == was  # the others as they were: in the home
    code, table = _run(["list", "--site", str(lost["root"] / "site")], lost["home"])
    line = next(x for x in table.splitlines() if x.startswith(LOST))
    assert code == 0 and "[kept by the archive]" in line
    assert sum("[kept by the archive]" in x for x in table.splitlines()) == 1


@pytest.mark.parametrize("key", ["html", "md", "summary"])
def test_export_of_the_lost_session_is_the_one_made_before(lost, key):
    code, out = lost["site"][key]
    assert code == 0 and out == lost["before"][key][1]
    assert "Fix checkout crash on umlaut customer names" in out
    if key != "html":
        assert "umlaut" in cmarkgfm.github_flavored_markdown_to_html(out)


def test_stats_count_the_lost_session(lost):
    code, out = lost["site"]["stats"]
    assert code == 0 and json.loads(out) == json.loads(lost["before"]["stats"][1])
    assert LOST in json.loads(out)["projects"]["-home-alice-webshop"]["sessions"]


def test_stats_store_still_names_the_archive(lost):
    root = lost["root"]
    code, out = _run(["stats", "--json", "--store", str(root / "site" / ".ccreport"),
                      "--site", str(root / "nowhere")], lost["home"])
    assert code == 0 and json.loads(out) == json.loads(lost["before"]["stats"][1])


@pytest.mark.parametrize("where", ["bare", "default"])
def test_without_an_archive_the_home_alone(lost, where, monkeypatch):
    """A site without an archive, or no --site and no ccreport-site where the command runs: the
    lost session is unknown, the other reads answer as the home alone does (no error)."""
    monkeypatch.chdir(lost["root"])  # holds no ccreport-site folder: the default names nothing
    got = lost["bare"] if where == "bare" else {k: _run(args, lost["home"]) for k, args in READS.items()}
    for key in ("tail", "tail-agent", "html", "md", "summary"):
        assert got[key][0] == 2 and not got[key][1], key  # no such session (as `_no_session` exits)
    rows = json.loads(got["list"][1])
    assert got["list"][0] == 0 and rows and LOST not in {r["id"] for r in rows}
    assert all(r["in_home"] for r in rows)
    stats = json.loads(got["stats"][1])
    assert got["stats"][0] == 0 and LOST not in stats["projects"]["-home-alice-webshop"]["sessions"]


def test_tail_follow_of_a_lost_transcript_stops(lost):
    res = CliRunner().invoke(cli, ["tail", LOST, "-n", "1", "-f", "--home", str(lost["home"]),
                                   "--site", str(lost["root"] / "site")])
    assert res.exit_code == 0 and "line 34" in res.stdout and "nothing to follow" in res.stderr
    assert "34 lines · the last 1 · kept by the archive" in res.stdout.splitlines()[0]
