"""The transcript API answers a repeated request on an unchanged file without reading it again (issue
29 point 6), reads it again once it changed, keeps a bounded number of answers, and folds runs of
tiny lines like the site."""

from __future__ import annotations

import os

import orjson
import pytest

from ccreport.live import answers as answers_mod
from ccreport.live import api
from ccreport.live.api import CatalogCache, handle
from shapes import SID, tiny_home
from util import user

URL = f"/api/sessions/{SID}/transcript"


@pytest.fixture
def reads(monkeypatch):
    """How many times a transcript was opened for reading through the model."""
    count = {"n": 0}
    real = api.Reader

    class Counting(real):
        def __init__(self, *a, **kw):
            count["n"] += 1
            super().__init__(*a, **kw)

    monkeypatch.setattr(api, "Reader", Counting)
    return count


@pytest.fixture
def home(tmp_path):
    head = b"".join(orjson.dumps(user(f"u{i}", f"prompt {i}", sid=SID)) + b"\n" for i in range(5))
    path = tiny_home(tmp_path / "home", "empty", 2_000, head=head)
    return tmp_path / "home", path


def test_a_repeated_request_on_an_unchanged_file_is_not_read_again(home, reads):
    root, path = home
    cache = CatalogCache()
    first = handle(root, URL, "limit=10", 50, cache)
    assert reads["n"] == 1
    again = handle(root, URL, "limit=10", 50, cache)
    assert reads["n"] == 1 and again == first
    handle(root, URL, "limit=3", 50, cache)  # another question: read
    assert reads["n"] == 2
    listing = handle(root, f"/api/sessions/{SID}/transcripts", "", 50, cache)
    assert handle(root, f"/api/sessions/{SID}/transcripts", "", 50, cache) == listing
    assert reads["n"] == 3 and listing[1]["transcripts"][0]["message_count"] == 6


def test_a_changed_file_is_read_again(home, reads):
    root, path = home
    cache = CatalogCache()
    status, body = handle(root, URL, "", 50, cache)
    assert status == 200 and body["total"] == 6
    with open(path, "ab") as fh:
        fh.write(orjson.dumps(user("u9", "one more", sid=SID)) + b"\n")
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # (a clock too coarse to tell)
    status, body = handle(root, URL, "", 50, cache)
    assert reads["n"] == 2 and body["total"] == 7
    assert body["messages"][-1]["content"][0]["text"] == "one more"


def test_the_cache_keeps_a_bounded_number_of_answers(home, reads):
    root, _ = home
    cache = CatalogCache()
    for limit in range(1, answers_mod.KEEP + 10):
        handle(root, URL, f"limit={limit}", 50, cache)
    assert len(cache.answers.answers) == answers_mod.KEEP
    handle(root, URL, "limit=1", 50, cache)  # the oldest was dropped: read again
    assert reads["n"] == answers_mod.KEEP + 10


def test_a_run_of_empty_lines_is_one_message_in_the_api(home):
    root, _ = home
    status, body = handle(root, URL, "limit=200", 50, CatalogCache())
    assert status == 200 and body["total"] == 6
    run = body["messages"][-1]
    assert run["type"] == "empty" and run["folded"]["lines"] == 2_000 and run["line"] == 6
    assert len(orjson.dumps(body)) < 16 * 1024
