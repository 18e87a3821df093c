"""The command line: version, help on every command, clear one-line failures, the closing summary."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from ccreport import __version__
from ccreport.cli import base as cli_mod
from ccreport.cli import cli
from util import SAMPLE_HOME, make_home, user

SUMMARY = re.compile(r"^ccreport: (\d+) projects?, (\d+) sessions?(?: \((?:[^)]*; )?(\d+) sessions? with prompts only\))?, "
                     r"(\d+) transcripts?, (\d+) pages?, ([\d,]+) messages?, (\d+) malformed lines? in [\d.]+ s → (.+)$", re.M)


def run(*args, env=None, **kw):
    e = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_HOME", "CLAUDE_CONFIG_DIR")}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "ccreport", *args], capture_output=True, text=True, env=e, **kw)


def _commands(group: click.Group, prefix=()):
    for name, cmd in sorted(group.commands.items()):
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + (name,))


def test_version():
    r = CliRunner().invoke(cli, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"ccreport, version {__version__}"


def test_help_on_every_command():
    r = CliRunner().invoke(cli, ["--help"])
    assert r.exit_code == 0 and "Usage:" in r.output
    names = list(_commands(cli))
    assert ("build",) in [n for n, _ in names]
    for path, cmd in names:
        r = CliRunner().invoke(cli, [*path, "--help"])
        assert r.exit_code == 0, (path, r.output)
        assert r.output.startswith("Usage: ") and " ".join(path) in r.output.splitlines()[0]
        assert r.output.count("\n") >= 2  # a usage line and the command's description / options


def _one_line_failure(r):
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ccreport: "), r.stderr
    return lines[0]


def test_missing_home_fails_in_one_line(tmp_path):
    line = _one_line_failure(run("build", "--home", str(tmp_path / "nowhere"), "--out", str(tmp_path / "site")))
    assert "not found" in line and str(tmp_path / "nowhere") in line
    assert not (tmp_path / "site").exists()  # nothing written for a home that is not there


def test_home_that_is_a_file_or_has_no_projects_fails_in_one_line(tmp_path):
    (tmp_path / "f").write_text("x")
    assert "not a folder" in _one_line_failure(run("build", "--home", str(tmp_path / "f"), "--out", str(tmp_path / "s")))
    (tmp_path / "h").mkdir()
    assert "no projects/" in _one_line_failure(run("build", "--home", str(tmp_path / "h"), "--out", str(tmp_path / "s")))
    # from the environment too
    line = _one_line_failure(run("build", "--out", str(tmp_path / "s"), env={"CLAUDE_HOME": str(tmp_path / "gone")}))
    assert str(tmp_path / "gone") in line


@pytest.fixture
def plain_tmp():
    """(folder, command prefix): as root, the prefix drops to nobody (root reads anything, so a permission
    test needs an ordinary user) and the folder sits outside pytest's root-only temp tree."""
    import tempfile
    from pathlib import Path

    if os.geteuid() != 0:
        d = Path(tempfile.mkdtemp(prefix="ccreport-test-"))
        prefix = []
    else:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv")
        d = Path(tempfile.mkdtemp(prefix="ccreport-test-"))
        os.chmod(d, 0o777)  # the unprivileged user writes the site here
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    yield d, prefix
    for p in [d, *d.rglob("*")]:
        if not p.is_symlink():
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
    shutil.rmtree(d)


def test_unreadable_home_fails_in_one_line(plain_tmp):
    tmp_path, prefix = plain_tmp
    home = make_home(tmp_path / "h", {"-p": {"s.jsonl": [user("u", "x")]}})
    try:
        for target in (home, home / "projects"):
            os.chmod(target, 0o000)
            r = subprocess.run(prefix + [sys.executable, "-m", "ccreport", "build", "--home", str(home),
                                         "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path)
            os.chmod(target, 0o755)
            line = _one_line_failure(r)
            assert line == f"ccreport: cannot read {'the Claude home ' if target == home else ''}{target}: Permission denied"
    finally:
        for target in (home, home / "projects"):
            os.chmod(target, 0o755)


def test_unreadable_transcript_is_reported_and_the_rest_built(plain_tmp):
    tmp_path, prefix = plain_tmp
    home = make_home(tmp_path / "h", {"-p": {"good.jsonl": [user("u", "kept")], "locked.jsonl": [user("v", "secret")]}})
    os.chmod(home / "projects/-p/locked.jsonl", 0o000)
    r = subprocess.run(prefix + [sys.executable, "-m", "ccreport", "build", "--home", str(home),
                                 "--out", str(tmp_path / "site")], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "ccreport: error: cannot read" in r.stderr and "locked.jsonl: Permission denied" in r.stderr
    assert SUMMARY.search(r.stderr)
    assert "kept" in (tmp_path / "site/p/-p/good/page-0001.html").read_text()
    assert "secret" not in (tmp_path / "site/p/-p/locked/index.html").read_text()


def test_build_prints_the_closing_summary(tmp_path):
    out = tmp_path / "site"
    r = run("build", "--home", str(SAMPLE_HOME), "--out", str(out), "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    m = SUMMARY.search(r.stderr)
    assert m, r.stderr
    projects, sessions, only, transcripts, pages, messages, malformed = (
        int((x or "0").replace(",", "")) for x in m.groups()[:7])
    assert m.group(8) == str(out / "index.html")
    # The counts are the site's: one folder per project and session, one page file per page.
    assert projects == len(list((out / "p").iterdir())) >= 3
    # (a "prompts only" session, from history.jsonl alone, has a folder but no transcript: counted
    # as a session, and named as one of the prompts-only ones)
    every = [d for d in (out / "p").glob("*/*") if d.is_dir()]
    folders = [d for d in every if "prompts only:" not in (d / "index.html").read_text()]
    assert sessions == len(every) and only == len(every) - len(folders) >= 1
    assert pages == len(list((out / "p").rglob("page-*.html")))
    assert transcripts == len(list((out / "p").rglob("latest.html"))) + sum(
        1 for d in folders if not list(d.glob("page-*.html")))
    assert messages > 0 and malformed >= 1  # sample_home has one cut line
    assert (out / "index.html").is_file()


def test_quiet_build_prints_nothing_and_env_homes_are_used(tmp_path):
    out = tmp_path / "site"
    r = run("build", "--out", str(out), "--quiet", env={"CLAUDE_CONFIG_DIR": str(SAMPLE_HOME)})
    assert r.returncode == 0 and r.stderr == "" and r.stdout == ""
    assert (out / "p/-home-alice-webshop/index.html").is_file()
    # --home beats CLAUDE_HOME, which beats CLAUDE_CONFIG_DIR
    other = make_home(tmp_path / "other", {"-only-here": {"s1.jsonl": [user("u", "only here")]}})
    r = run("build", "--out", str(tmp_path / "s2"), env={"CLAUDE_HOME": str(other), "CLAUDE_CONFIG_DIR": str(SAMPLE_HOME)})
    assert r.returncode == 0 and (tmp_path / "s2/p/-only-here").is_dir() and not (tmp_path / "s2/p/-home-alice-webshop").exists()
    r = run("build", "--home", str(SAMPLE_HOME), "--out", str(tmp_path / "s3"), env={"CLAUDE_HOME": str(other)})
    assert r.returncode == 0 and not (tmp_path / "s3/p/-only-here").exists()


def test_unwritable_output_fails_in_one_line(tmp_path):
    (tmp_path / "site").write_text("a file where the site should go")
    line = _one_line_failure(run("build", "--home", str(SAMPLE_HOME), "--out", str(tmp_path / "site")))
    assert "cannot write the site" in line


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_after_a_second_and_only_on_a_terminal(monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    p = cli_mod._Progress(True)
    p(0, 4)
    p(1, 4)
    assert err.getvalue() == ""  # a quick build shows no bar
    p.t0 -= 2.0  # the build has now been running for two seconds
    p._draw(*p.state, force=True)  # what the ticker does while a long session is still running
    assert "1/4 sessions · 2 s" in err.getvalue()
    p(2, 4)
    p(4, 4)
    p.close()
    shown = err.getvalue()
    assert "4/4 sessions" in shown  # 2/4 came within 0.1 s of the last redraw: skipped, the end never is and "[" + "#" * 30 + "]" in shown
    assert shown.endswith("\n")
    assert not p._ticker.is_alive()  # the ticker stops with the bar
    n = len(shown)
    p._draw(4, 4, force=True)
    assert len(err.getvalue()) == n  # nothing is drawn after close
    plain = io.StringIO()  # not a terminal (a log file, CI): no bar at all
    monkeypatch.setattr(sys, "stderr", plain)
    q = cli_mod._Progress(True)
    q.t0 -= 5
    q(1, 1)
    q.close()
    assert plain.getvalue() == ""


@pytest.mark.slow
def test_ctrl_c_during_a_build_stops_it_in_one_line(tmp_path, corpus_home):
    # SIGINT to the whole process group, as a terminal sends it: the main process says so in one
    # line and exits 130; the workers ignore it (no traceback from any of them).
    import signal
    import time

    exe = shutil.which("ccreport", path=os.path.dirname(sys.executable)) or "ccreport"
    proc = subprocess.Popen([exe, "build", "--home", str(corpus_home), "--out", str(tmp_path / "site"), "-j", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 30
    while not (tmp_path / "site" / "p").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the build finished before the signal arrived")
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted; the pages written so far are complete" in err
