"""One writer per site (issue 18, point 3): a second build, watch or live serve into the same
folder waits briefly, then exits 2 naming the holder; a lock left by a dead process is taken over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ccreport.site.build import Options
from ccreport.site.lock import LOCK_NAME, SiteLock
from incrhelp import assert_same_as_cold
from serve_helpers import conversation, make_live_home
from util import ROOT, make_home

LOCK = Path(".ccreport") / LOCK_NAME


def cli(*args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "ccreport", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def big_home(root: Path, sessions: int = 12, turns: int = 300) -> Path:
    """A home whose build takes long enough to be caught holding the lock."""
    return make_home(root, {"-home-u-big": {f"{i:08d}-aaaa-4bbb-8ccc-000000000000.jsonl":
                                            conversation(turns, sid=f"{i:08d}-aaaa-4bbb-8ccc-000000000000")
                                            for i in range(sessions)}})


def holder_pid(site: Path) -> int | None:
    try:
        return json.loads((site / LOCK).read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return None


def test_a_second_writer_exits_2_naming_the_holder(tmp_path):
    home, site = make_live_home(tmp_path / "home"), tmp_path / "site"
    with SiteLock(site, "ccreport build --home elsewhere"):
        for command in (["build"], ["watch"], ["serve", "--watch", "--port", "0"]):
            p = cli(*command, "--home", str(home), "--out", str(site))
            _, err = p.communicate(timeout=60)
            assert p.returncode == 2, (command, err)
            assert f"pid {os.getpid()}" in err and "ccreport build --home elsewhere" in err, err
    assert not (site / LOCK).exists()  # let go: the file goes with it
    p = cli("build", "--home", str(home), "--out", str(site), "-q")
    assert p.communicate(timeout=60)[1] == "" and p.returncode == 0
    assert not (site / LOCK).exists()


def test_a_lock_of_a_killed_writer_is_taken_over(tmp_path):
    home, site = make_live_home(tmp_path / "home"), tmp_path / "site"
    code = ("import sys, time; from pathlib import Path; from ccreport.site.lock import SiteLock; "
            "SiteLock(Path(sys.argv[1]), 'ccreport watch').acquire(); print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(site)], env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    holder.kill()  # kill -9: no clean-up; the file stays, naming a dead pid
    holder.wait()
    assert holder_pid(site) == holder.pid
    p = cli("build", "--home", str(home), "--out", str(site), "-q")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert not (site / LOCK).exists()


def test_two_homes_built_into_one_site_at_once(tmp_path):
    """The finding: both builds exited 0 and the mixed site stayed wrong. Now the second is
    refused while the first holds the site (stopped mid-build to make "at once" certain), and a
    later build of either home is byte-identical to a cold build of it."""
    first, second = big_home(tmp_path / "h1"), make_live_home(tmp_path / "h2")
    site = tmp_path / "site"
    a = cli("build", "--home", str(first), "--out", str(site), "-q", "--jobs", "1")
    while holder_pid(site) != a.pid:
        assert a.poll() is None, "the first build ended before it was seen holding the site"
        time.sleep(0.005)
    a.send_signal(signal.SIGSTOP)
    try:
        b = cli("build", "--home", str(second), "--out", str(site), "-q", "--jobs", "1")
        _, err = b.communicate(timeout=60)
    finally:
        a.send_signal(signal.SIGCONT)
    assert b.returncode == 2 and f"pid {a.pid}" in err and "is being written by" in err, err
    _, err_a = a.communicate(timeout=120)
    assert a.returncode == 0, err_a
    assert_same_as_cold(first, site, tmp_path, Options(jobs=1))
    # The archive keeps the first home's sessions (issue 14); forgetting them is explicit.
    p = cli("build", "--home", str(second), "--out", str(site), "-q", "--prune-missing")
    assert p.communicate(timeout=60) and p.returncode == 0
    assert_same_as_cold(second, site, tmp_path, Options(jobs=1))


def test_forget_and_restore_wait_for_the_site_and_say_so(tmp_path):
    """'One writer at a time, for every command that writes': forget wrote the store and the site
    without the lock and could race a running serve --watch."""
    home, site = make_live_home(tmp_path / "home"), tmp_path / "site"
    p = cli("build", "--home", str(home), "--out", str(site), "-q")
    assert p.communicate(timeout=60)[1] == "" and p.returncode == 0
    store = sorted((site / ".ccreport").rglob("*"))
    with SiteLock(site, "ccreport serve --watch"):
        for command in (["forget", "no-such-session"], ["restore", "no-such-session", "--to", str(tmp_path / "to")]):
            p = cli(*command, "--home", str(home), "--out", str(site))
            _, err = p.communicate(timeout=60)
            assert p.returncode == 2, (command, err)
            assert "waiting up to" in err and f"pid {os.getpid()}" in err and "ccreport serve --watch" in err, err
    assert sorted((site / ".ccreport").rglob("*")) == store  # nothing was touched meanwhile


def test_two_sites_sharing_a_store_write_it_one_at_a_time(tmp_path):
    from ccreport.site.lock import StoreLock

    home, store = make_live_home(tmp_path / "home"), tmp_path / "store"
    with StoreLock(store, "ccreport build --out first-site"):
        p = cli("build", "--home", str(home), "--out", str(tmp_path / "second"), "--store", str(store), "-q")
        _, err = p.communicate(timeout=60)
        assert p.returncode == 2 and f"the archive {store} is being written by" in err, err
        assert "ccreport build --out first-site" in err
    assert not (tmp_path / "second" / ".ccreport" / LOCK_NAME).exists()  # its own lock let go as it gave up
    p = cli("build", "--home", str(home), "--out", str(tmp_path / "second"), "--store", str(store), "-q")
    assert p.communicate(timeout=60)[1] == "" and p.returncode == 0
    assert (store / "ccreport.sqlite").is_file() and not (store / LOCK_NAME).exists()


def test_a_store_named_as_the_sites_own_folder_takes_one_lock(tmp_path):
    """--store SITE/.ccreport is the default store given by name: one lock, not two on one file."""
    home, site = make_live_home(tmp_path / "home"), tmp_path / "site"
    p = cli("build", "--home", str(home), "--out", str(site), "--store", str(site / ".ccreport"), "-q")
    assert p.communicate(timeout=60)[1] == "" and p.returncode == 0
    assert (site / ".ccreport" / "ccreport.sqlite").is_file()
