"""Issue 29, point 9: an error message of `serve` and its API quotes what the client sent — 'été',
whether percent-encoded or sent as raw UTF-8 — never its Latin-1 misreading ('Ã©tÃ©'); a path sent
as raw UTF-8 names the same file as its percent-encoded form."""

from __future__ import annotations

import json
import socket
from urllib.parse import quote

import pytest

from ccreport.live.serve import Running, as_sent, make_server
from ccreport.site.build import Options, build
from serve_helpers import SID, make_live_home

WORDS = ["été", "日本語", "ü-🙂"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("quoting")
    home = make_live_home(tmp / "home")
    build(home, tmp / "site", Options(jobs=1))
    (tmp / "site" / "été.txt").write_text("a file named été", encoding="utf-8")
    with Running(make_server(tmp / "site", home, port=0)) as running:
        yield running


def get(running, target: bytes) -> tuple[int, bytes]:
    port = running.server.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def _forms(word: str) -> list[bytes]:
    return [word.encode("utf-8"), quote(word).encode("ascii")]  # raw UTF-8, and percent-encoded


@pytest.mark.parametrize("word", WORDS)
def test_error_bodies_quote_the_query_as_sent(served, word):
    for form in _forms(word):
        cases = {
            b"/api/sessions/%s/transcript?limit=" % SID.encode() + form: 400,
            b"/api/sessions/%s/transcript?after=" % SID.encode() + form: 400,
            b"/api/sessions/%s/transcript?agent_id=" % SID.encode() + form: 400,
            b"/api/sessions/" + form + b"/transcript": 400,
            b"/api/" + form: 404,
        }
        for target, status in cases.items():
            got, body = get(served, target)
            error = json.loads(body)["error"]
            assert got == status and word in error and "Ã" not in error, (target, got, error)


def test_a_path_sent_as_raw_utf8_names_the_same_file(served):
    for form in _forms("été"):
        status, body = get(served, b"/" + form + b".txt")
        assert status == 200 and body == "a file named été".encode(), form


def test_bytes_that_are_not_utf8_stay_escaped():
    assert as_sent("/a\xff\xfe?x=1") == "/a%FF%FE?x=1"  # (http.server's Latin-1 reading of b"/a\xff\xfe")
    assert as_sent("/\xc3\xa9") == "/é" and as_sent("/plain%20x") == "/plain%20x"
