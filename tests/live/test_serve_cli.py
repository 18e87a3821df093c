"""`ccreport serve` as a person starts it: builds, says where it serves, handles a busy port."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from serve_helpers import make_live_home, wait_for_text

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


# --- quiet by default, no traceback when a client leaves, a favicon, the cache folder (issue 16.7, 18.7) ---
def _leave(port: int, path: str) -> bytes:
    """Ask for ``path``, read the status line, then drop the connection (RST) as a closed tab does."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    status = s.recv(64).split(b"\r\n")[0]
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()
    return status


def test_serve_is_quiet_has_a_favicon_and_survives_clients_that_leave(tmp_path):
    home = make_live_home(tmp_path / "home")
    cache = tmp_path / "cache"
    proc = subprocess.Popen([EXE, "serve", "--home", str(home), "--port", "0", "--watch"],
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, XDG_CACHE_HOME=str(cache)))
    err = ""
    for line in proc.stderr:
        err += line
        if " at http" in line:
            break
    try:
        site = cache / "ccreport" / "site"
        assert f"serving {site} at" in err and (site / "index.html").is_file()  # not ./ccreport-site
        url = re.search(r"at (http://127\.0\.0\.1:\d+/)", err).group(1)
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with urllib.request.urlopen(url + "favicon.ico", timeout=10) as resp:
            assert resp.status == 200 and resp.headers["Content-Type"] == "image/svg+xml"
            assert resp.read().startswith(b"<svg")
        for path in ("/__events", "/__events", "/index.html", "/p/"):
            assert _leave(port, path).startswith(b"HTTP/1.1 ")
        # One more event to the streams that left (a heartbeat or a change) must not print a traceback either.
        main = home / "projects" / "-home-u-proj" / "11111111-aaaa-4bbb-8ccc-000000000001.jsonl"
        with open(main, "a") as fh:
            fh.write('{"type": "user", "message": {"role": "user", "content": "one more"}}\n')
        page = url + "p/-home-u-proj/11111111-aaaa-4bbb-8ccc-000000000001/page-0001.html"
        wait_for_text(page, b"one more")
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=20)[1]
    assert "Traceback" not in rest and "Error" not in rest and "GET /" not in rest, rest  # no request log


def test_serve_verbose_logs_requests(tmp_path):
    home = make_live_home(tmp_path / "home")
    proc, err = start(["--home", str(home), "--out", str(tmp_path / "site"), "--port", "0", "--verbose"])
    try:
        url = re.search(r"at (http://127\.0\.0\.1:\d+/)", err).group(1)
        urllib.request.urlopen(url + "index.html", timeout=10).read()
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=20)[1]
    assert '"GET /index.html HTTP/1.1" 200' in rest
