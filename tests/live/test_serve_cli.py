"""`ccreport serve` as a person starts it: builds, says where it serves, handles a busy port."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from serve_helpers import make_live_home

EXE = str(Path(sys.executable).with_name("ccreport"))


def start(args):
    proc = subprocess.Popen([EXE, "serve"] + args, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if " at http" in line or proc.poll() is not None:
            break
    return proc, "".join(lines)


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_serve_builds_then_serves_and_moves_off_a_busy_port(tmp_path):
    home = make_live_home(tmp_path / "home")
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    busy = blocker.getsockname()[1]
    try:
        proc, err = start(["--home", str(home), "--out", str(tmp_path / "site"), "--port", str(busy), "-q"])
        try:
            assert f"port {busy} is in use; serving on port" in err
            url = re.search(r"at (http://127\.0\.0\.1:\d+/)", err).group(1)
            with urllib.request.urlopen(url, timeout=10) as resp:
                assert resp.status == 200 and resp.headers["Cache-Control"] == "no-store"
                assert b"ccreport" in resp.read()
            assert "warning" not in err  # loopback: no exposure warning
        finally:
            stop(proc)
    finally:
        blocker.close()


def test_serve_with_a_missing_home_is_a_clear_error(tmp_path):
    res = subprocess.run([EXE, "serve", "--home", str(tmp_path / "nope"), "--out", str(tmp_path / "site")],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "Claude home not found" in res.stderr and "Traceback" not in res.stderr


def test_non_loopback_host_warns_before_listening(tmp_path):
    # 192.0.2.1 (TEST-NET-1) is never a local address: the bind fails, so nothing is exposed here.
    home = make_live_home(tmp_path / "home")
    res = subprocess.run([EXE, "serve", "--home", str(home), "--out", str(tmp_path / "site"), "--host", "192.0.2.1",
                          "--port", "8000", "-q"], capture_output=True, text=True, timeout=120)
    assert "warning: listening on 192.0.2.1, not loopback" in res.stderr and "secrets" in res.stderr
    assert res.returncode == 2 and "cannot listen on 192.0.2.1" in res.stderr and "Traceback" not in res.stderr
