"""ccreport tail: seed-003's bounded read, id checks before any file is touched, containment."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from serve_helpers import OTHER, PROJECT, SID, append, conversation, main_file, make_live_home

from ccreport.cli import cli
from ccreport.source.locate import LocateError
from ccreport.inspect.tail import read_tail, tail


@pytest.fixture
def home(tmp_path):
    return make_live_home(tmp_path / "home", turns=5)  # 10 messages + 1 malformed line = 11 lines


def test_json_shape_last_n_oldest_first(home):
    r = tail(home, SID, 3)
    assert set(r) >= {"sessionId", "path", "totalLines", "truncated", "entries"}
    assert r["sessionId"] == SID and r["path"] == str(main_file(home).resolve())
    assert r["totalLines"] == 11 and r["truncated"] is True and len(r["entries"]) == 3
    assert r["entries"][0]["uuid"] == "u4" and r["entries"][1]["uuid"] == "a4"
    assert r["entries"][2] == {"malformed": "this line is not JSON"}


def test_whole_file_when_n_covers_it_or_is_zero(home):
    for n in (11, 500, 0):
        r = tail(home, SID, n)
        assert r["truncated"] is False and len(r["entries"]) == 11 and r["entries"][0]["uuid"] == "u0"


def test_prefix_latest_and_agent(home):
    assert tail(home, OTHER[:6], 1)["sessionId"] == OTHER
    # 'latest' is the newest by what the lines say (source/activity.py), not by file mtime.
    os.utime(main_file(home, OTHER), (1_000_000_000, 1_000_000_000))
    append(main_file(home, OTHER), conversation(1, sid=OTHER, start=3000))  # 2025-06-01T10:50
    assert tail(home, "latest", 1)["sessionId"] == OTHER
    r = tail(home, SID, 10, agent="a1b2c3")
    assert r["agentId"] == "a1b2c3" and r["totalLines"] == 3 and r["truncated"] is False
    assert r["entries"][-1]["message"]["content"][0]["tool_use_id"] == "toolu_1"
    assert r["entries"][0]["message"]["content"] == "agent task"


# "x..y" is no longer here: it is a legal file name (a session of that name is in the site and is
# looked up by its exact name, never joined to a path), so refusing it took a session away.
@pytest.mark.parametrize("bad", ["../etc/passwd", "a/b", "a\\b", "..", ".", "x/../y", "..\\x", "a\x00b", "s" * 256, ""])
def test_bad_ids_refused_before_any_file_is_touched(tmp_path, bad):
    missing = tmp_path / "no-such-home"  # any file access would fail with "home not found"
    with pytest.raises(LocateError) as exc:
        tail(missing, bad, 5)
    assert exc.value.status == 400
    assert not missing.exists()


def test_bad_agent_id_refused(home):
    with pytest.raises(LocateError) as exc:
        tail(home, SID, 5, agent="../../x")
    assert exc.value.status == 400


def test_symlink_out_of_projects_is_not_found(home, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"type":"user","secret":"TOP-SECRET"}\n')
    evil = "33333333-aaaa-4bbb-8ccc-000000000003"
    (home / "projects" / PROJECT / f"{evil}.jsonl").symlink_to(outside)
    with pytest.raises(LocateError) as exc:
        tail(home, evil, 5)
    assert exc.value.status == 404 and "TOP-SECRET" not in str(exc.value)


def test_unknown_session_is_not_found(home):
    with pytest.raises(LocateError) as exc:
        tail(home, "ffffffff", 5)
    assert exc.value.status == 404


def test_read_tail_is_one_pass_bounded(tmp_path):
    f = tmp_path / "big.jsonl"
    with open(f, "w") as fh:
        for i in range(10_000):
            fh.write(json.dumps({"i": i}) + "\n")
    total, entries = read_tail(f, 4)
    assert total == 10_000 and [e["i"] for e in entries] == [9996, 9997, 9998, 9999]


def test_unfinished_last_line_is_kept_as_malformed(home):
    with open(main_file(home), "ab") as fh:
        fh.write(b'{"type":"user","mess')
    r = tail(home, SID, 1)
    assert r["totalLines"] == 12 and r["entries"] == [{"malformed": '{"type":"user","mess'}]


# --- the command -----------------------------------------------------------------------------------
def test_cli_json(home):
    res = CliRunner().invoke(cli, ["tail", "--home", str(home), SID, "-n", "2", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["totalLines"] == 11 and data["truncated"] and len(data["entries"]) == 2


def test_cli_readable_turns_without_control_characters(home):
    append(main_file(home), [
        {"type": "assistant", "timestamp": "2025-06-01T11:00:00Z",
         "message": {"model": "claude-x", "content": [{"type": "text", "text": "hello \x1b]0;pwned\x07 there"},
                                                     {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]}},
    ])
    res = CliRunner().invoke(cli, ["tail", "--home", str(home), SID, "-n", "3"])
    assert res.exit_code == 0, res.output
    assert "reply number 4" in res.output and "malformed line" in res.output
    assert "[Bash]" in res.output and "claude-x" in res.output
    assert "\x1b" not in res.output and "\x07" not in res.output


@pytest.mark.parametrize("args,code,msg", [
    (["../x"], 2, "not a valid session id"),
    (["ffffffff"], 2, "no session"),
    ([SID, "--agent", "nope"], 2, "no transcript nope"),
])
def test_cli_errors_are_clear(home, args, code, msg):
    res = CliRunner().invoke(cli, ["tail", "--home", str(home)] + args)
    assert res.exit_code == code and msg in res.output and "Traceback" not in res.output
    assert "ccreport list" in res.output
