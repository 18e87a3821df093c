"""`ccreport watch` / follow.Follower: appends show up, readers never see a partial page, it stops
cleanly on SIGTERM and survives transcripts deleted or replaced under it.

Waits are bounded polls (the machine may be busy); nothing asserts how fast it was.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ccreport.site.build import Options
from ccreport.live.follow import Follower
from incrhelp import PROJECT, SDIR, SID, append, lines_of, main_file, state_saved
from util import make_home, page_text, user, write_jsonl

WAIT = 60.0  # seconds: an upper bound for a busy CI machine, not a speed target


def wait_for(cond, what: str, timeout: float = WAIT):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def text(path: Path) -> str:
    """The visible text of a page, or '' while it does not exist yet."""
    try:
        return page_text(path)
    except FileNotFoundError:
        return ""


class Recorder(Follower):
    """A Follower in a thread, recording what each update wrote."""

    def __init__(self, home: Path, out: Path, opts: Options):
        super().__init__(home, out, opts)
        self.builds = 0
        self.written: list[str] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def changed(self, paths, stamps) -> bool:
        with self.lock:
            self.written.extend(paths)
        return False

    def built(self, res) -> None:
        with self.lock:
            self.builds += 1
            self.errors.extend(res.errors)

    def failed(self, message: str) -> None:
        self.errors.append(message)

    def __enter__(self):
        self.thread.start()
        wait_for(lambda: self.builds >= 1, "the first build")
        time.sleep(0.3)  # let the watcher start listening before the test writes
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=WAIT)
        assert not self.thread.is_alive(), "the follower did not stop"

    def seen(self, path: Path) -> bool:
        with self.lock:
            return str(path) in self.written


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "home", {PROJECT: {f"{SID}.jsonl": lines_of(12)}})


@pytest.mark.slow
def test_follow_picks_up_appends_to_main_and_agent(home, tmp_path):
    out = tmp_path / "site"
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-e5.jsonl"
    write_jsonl(agent, lines_of(1, start=600))
    with Recorder(home, out, Options(page_size=5)) as f:
        page = out / SDIR / "page-0005.html"
        append(main_file(home), [user("w1", "watched prompt", ts="2025-06-01T11:00:00.000Z")])
        wait_for(lambda: "watched prompt" in page_text(page), "the appended prompt on the last page")
        assert f.seen(page)
        append(agent, [user("w2", "agent side prompt", ts="2025-06-01T11:00:01.000Z")])
        apage = out / SDIR / "agent-e5" / "page-0001.html"
        wait_for(lambda: "agent side prompt" in text(apage), "the agent append")
        # A line without its newline is shown as it stands, marked unfinished (page 5 is full by
        # then: it opens page 6) …
        line = (json.dumps(user("w3", "slowly typed", ts="2025-06-01T11:00:02.000Z")) + "\n").encode()
        append(main_file(home), [line[:40]])
        page6 = out / SDIR / "page-0006.html"
        wait_for(lambda: "has no newline yet" in text(page6), "the page to note the unfinished line")
        assert "slowly typed" not in text(page6)
        # … until it is complete: then it is read again as a whole line.
        append(main_file(home), [line[40:]])
        wait_for(lambda: "slowly typed" in text(page6), "the completed line")
        assert "has no newline yet" not in page_text(page6)
    assert f.errors == []


@pytest.mark.slow
def test_reader_never_sees_a_partial_page(home, tmp_path):
    out = tmp_path / "site"
    bad: list[bytes] = []
    reads = 0
    done = threading.Event()

    def poll(path: Path):
        nonlocal reads
        while not done.is_set():
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            reads += 1
            if not data.rstrip().endswith(b"</html>") or b"<!doctype html>" not in data[:200].lower():
                bad.append(data[:100] + b"..." + data[-100:])
            time.sleep(0.001)

    with Recorder(home, out, Options(page_size=5)):
        pages = [out / SDIR / "page-0005.html", out / SDIR / "latest.html", out / SDIR / "index.html"]
        pollers = [threading.Thread(target=poll, args=(p,), daemon=True) for p in pages]
        for t in pollers:
            t.start()
        for i in range(20):
            append(main_file(home), [user(f"r{i}", f"polled prompt {i}", ts=f"2025-06-01T12:00:{i:02d}.000Z")])
            wait_for(lambda: f"polled prompt {i}" in text(out / SDIR / (_latest(out) or "none")), f"append {i}")
        done.set()
        for t in pollers:
            t.join(timeout=WAIT)
    assert reads > 20 and bad == []


def _latest(out: Path) -> str | None:
    try:
        text = (out / SDIR / "latest.html").read_text()
    except FileNotFoundError:
        return None
    import re

    m = re.search(r"page-\d{4}\.html", text)
    return m.group(0) if m else None


@pytest.mark.slow
def test_watch_command_survives_delete_and_rotation_and_stops_on_sigterm(home, tmp_path):
    out = tmp_path / "site"
    agent = home / "projects" / PROJECT / SID / "subagents" / "agent-f6.jsonl"
    write_jsonl(agent, lines_of(1, start=700))
    proc = subprocess.Popen([sys.executable, "-m", "ccreport", "watch", "--home", str(home), "--out", str(out),
                             "--page-size", "5"], stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        wait_for(lambda: state_saved(out), "the first build")
        time.sleep(0.5)
        agent.unlink()  # kept by the archive (issue 14): its pages stay, checked once the builds below ran
        # Rotation: a new file under the old name (other inode, other content).
        path = main_file(home)
        tmp = path.with_name("rotated.tmp")
        write_jsonl(tmp, [user("n1", "after rotation", ts="2025-06-02T09:00:00.000Z")])
        os.replace(tmp, path)
        wait_for(lambda: "after rotation" in text(out / SDIR / "page-0001.html"), "the rotated transcript")
        wait_for(lambda: not (out / SDIR / "page-0002.html").exists(), "the old pages to be pruned")
        append(path, [user("n2", "and appended after", ts="2025-06-02T09:00:01.000Z")])
        wait_for(lambda: "and appended after" in text(out / SDIR / "page-0001.html"), "an append after rotation")
        assert (out / SDIR / "agent-f6" / "page-0001.html").is_file()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "watch stopped" in err and "Traceback" not in err


def test_stop_requested_during_catch_up_leaves_no_partial_state(home, tmp_path):
    """A stop asked for before or during the first build ends it between sessions: run()
    returns without watching, nothing half written, no state saved (the next run redoes it)."""
    out = tmp_path / "site"
    follower = Recorder(home, out, Options(page_size=5))
    follower.stop.set()
    follower.run()
    assert follower.builds == 0
    assert not state_saved(out)
    assert [p for p in out.rglob("*.tmp")] == []


@pytest.mark.slow
def test_follow_rebuilds_the_session_when_its_team_files_change(tmp_path):
    """The team's files at the home root (teams/<team>/config.json, its inboxes, tasks/<team>/)
    show on the session page of the sessions naming the team: a change there is followed too."""
    import shutil
    from util import SAMPLE_HOME
    home = tmp_path / "home"
    shutil.copytree(SAMPLE_HOME, home)
    out = tmp_path / "site"
    lead = out / "p/-home-dana-atlas/90e61059-2a7b-527a-9fe4-7ccd0eb689e0/index.html"
    config = home / "teams" / "atlas-perf" / "config.json"
    task = home / "tasks" / "atlas-perf" / "2.json"
    with Recorder(home, out, Options()) as f:
        assert "Review the cache fix" in page_text(lead)
        data = json.loads(config.read_text())
        data["members"].append({"agentId": "auditor@atlas-perf", "name": "auditor-zq",
                                "agentType": "general-purpose", "color": "red"})
        config.write_text(json.dumps(data))
        wait_for(lambda: "auditor-zq" in text(lead), "the new member on the session page")
        data = json.loads(task.read_text())
        data["subject"] = "Ship the renamed task qx"
        task.write_text(json.dumps(data))
        wait_for(lambda: "Ship the renamed task qx" in text(lead), "the renamed task on the board")
        assert f.seen(lead)
    assert f.errors == []
