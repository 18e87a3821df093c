"""Issue 18, finding 8: clients that go away mid-response — 20 event streams and 20 page requests
closed (reset) while the server is still sending — print nothing on a real `ccreport serve
--watch`'s stderr: no BrokenPipeError / ConnectionResetError traceback, no error line."""

from __future__ import annotations

import os
import re
import signal
import socket
import struct
import subprocess
import sys
import urllib.request
from pathlib import Path

from serve_helpers import PROJECT, SID, append, main_file, make_live_home, wait_for_text
from util import user, write_jsonl

EXE = str(Path(sys.executable).with_name("ccreport"))
BIG = "33333333-aaaa-4bbb-8ccc-000000000003"
# A page of ~8 MB (8 prompts of ~1 MB: one text block is shown up to a cap), far more than a loopback
# socket buffers: the server is still writing when the client resets.
BIG_TEXT_MB = 8


def _reset(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a closed tab or a killed client does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _open(port: int, path: str) -> socket.socket:
    """Ask for ``path`` and read the first bytes of the answer: the server is then mid-response."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert s.recv(64).startswith(b"HTTP/1.1 200"), path
    return s


def test_twenty_streams_and_twenty_pages_closed_mid_response_print_nothing(tmp_path):
    home = make_live_home(tmp_path / "home")
    words = ("lorem ipsum dolor sit amet " * 40_000)[: 1 << 20]
    write_jsonl(home / "projects" / PROJECT / f"{BIG}.jsonl",
                [user(f"b{i}", f"{i} {words}", sid=BIG) for i in range(BIG_TEXT_MB)])
    site = tmp_path / "site"
    proc = subprocess.Popen([EXE, "serve", "--home", str(home), "--out", str(site), "--port", "0", "--watch"],
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONWARNINGS="default"))
    err = ""
    for line in proc.stderr:
        err += line
        if " at http" in line or proc.poll() is not None:
            break
    try:
        url = re.search(r"at (http://127\.0\.0\.1:(\d+)/)", err)
        assert url, err
        port = int(url.group(2))
        big_page = f"/p/{PROJECT}/{BIG}/page-0001.html"
        assert (site / big_page.lstrip("/")).stat().st_size > (BIG_TEXT_MB - 1) << 20
        streams = [_open(port, "/__events") for _ in range(20)]
        pages = [_open(port, big_page) for _ in range(20)]
        for s in pages + streams:
            _reset(s)
        # The next event goes to the 20 streams that left: the server writes to each dead socket.
        append(main_file(home), [user("late", "one more line", sid=SID)])
        page = url.group(1) + f"p/{PROJECT}/{SID}/page-0001.html"
        wait_for_text(page, b"one more line")
        with urllib.request.urlopen(url.group(1) + big_page.lstrip("/"), timeout=30) as resp:
            assert resp.status == 200 and len(resp.read()) > (BIG_TEXT_MB - 1) << 20  # still serving, whole
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=30)[1]
    assert proc.returncode in (0, 130, -signal.SIGINT), (proc.returncode, rest)
    assert "Traceback" not in rest and "Error" not in rest and "Exception" not in rest, rest
