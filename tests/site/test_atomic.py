"""Readers never see a partial or empty page while builds rewrite the site (write.Writer is atomic)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from util import assistant, make_home, user

PROJECT = "-home-u-proj"


def _lines(tag: str, n: int) -> list:
    out = []
    for i in range(n):
        out.append(user(f"u{i}", f"{tag} question {i} " + "padding " * 200))
        out.append(assistant(f"a{i}", [{"type": "text", "text": f"{tag} answer {i} " + "words " * 300}], mid=f"m{i}"))
    return out


def _complete(data: bytes) -> bool:
    return data.startswith(b"<!doctype html>") and data.rstrip().endswith(b"</html>")


class PageReader(threading.Thread):
    """Reads every page of the site in a loop until stopped; records anything incomplete."""

    def __init__(self, site: Path):
        super().__init__(daemon=True)
        self.site = site
        self.stop = threading.Event()
        self.reads = 0
        self.bad: list[str] = []
        self.versions: set[bytes] = set()

    def run(self):
        while not self.stop.is_set():
            for p in list(self.site.rglob("*.html")):
                try:
                    data = p.read_bytes()
                except FileNotFoundError:
                    continue  # a page the build removed (a shorter transcript): gone, never partial
                self.reads += 1
                if not _complete(data):
                    self.bad.append(f"{p.relative_to(self.site)}: {len(data)} bytes, ends {data[-40:]!r}")
                if p.name == "page-0001.html":
                    self.versions.add(data[:0] + (b"A" if b"AAA question" in data else b"B" if b"BBB question" in data else b"?"))


def test_pages_are_never_partial_while_builds_rewrite_them(tmp_path):
    from ccreport.site.build import Options, build

    home = make_home(tmp_path / "home", {PROJECT: {"s1.jsonl": _lines("AAA", 40), "s2.jsonl": _lines("AAA", 5)}})
    site = tmp_path / "site"
    build(home, site, Options(jobs=1, page_size=10))
    reader = PageReader(site)
    reader.start()
    builds = 0
    try:
        for i in range(12):
            tag = "BBB" if i % 2 == 0 else "AAA"
            # rewrite (other text, so every page changes) and grow or shrink the transcript
            make_home(home, {PROJECT: {"s1.jsonl": _lines(tag, 30 + (i % 3) * 10), "s2.jsonl": _lines(tag, 5)}})
            res = build(home, site, Options(jobs=2 if i % 4 == 0 else 1, page_size=10))
            assert res.errors == []
            builds += 1
    finally:
        reader.stop.set()
        reader.join()
    print(f"{builds} builds, {reader.reads} page reads, 0 expected partial")
    assert reader.bad == []
    assert reader.reads > 100
    assert reader.versions >= {b"A", b"B"}  # the reader did see the pages change under it
    assert list(site.rglob("*.tmp")) == []  # no temporary file left behind


def test_an_open_page_keeps_its_old_bytes_when_rewritten(tmp_path):
    """os.replace swaps the name: a reader that opened the old page reads it whole."""
    from ccreport.site.write import Writer

    w = Writer(tmp_path)
    old = b"<!doctype html>" + b"old " * 100_000 + b"</html>"
    new = b"<!doctype html>" + b"new " * 50_000 + b"</html>"
    assert w.write("p.html", old)
    with open(tmp_path / "p.html", "rb") as fh:
        head = fh.read(100)
        assert w.write("p.html", new)
        rest = fh.read()
    assert head + rest == old
    assert (tmp_path / "p.html").read_bytes() == new
    assert not w.write("p.html", new) and w.skipped == 1  # identical bytes: not rewritten


def test_concurrent_writers_of_one_page_never_mix(tmp_path):
    """Two threads rewriting the same page (a watch thread and a build, say) with a reader in between."""
    from ccreport.site.write import Writer

    payloads = [b"<!doctype html>" + bytes([c]) * 400_000 + b"</html>" for c in b"XY"]
    target = tmp_path / "p.html"
    Writer(tmp_path).write("p.html", payloads[0])
    stop = threading.Event()
    bad, reads, errors = [], [0], []

    def read_loop():
        while not stop.is_set():
            data = target.read_bytes()
            reads[0] += 1
            if data not in payloads:
                bad.append(len(data))

    def write_loop(k):
        w = Writer(tmp_path)
        try:
            for i in range(60):
                w.write("p.html", payloads[(i + k) % 2])
        except Exception as exc:  # noqa: BLE001 — reported below
            errors.append(repr(exc))

    r = threading.Thread(target=read_loop, daemon=True)
    r.start()
    writers = [threading.Thread(target=write_loop, args=(k,)) for k in range(2)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    r.join()
    assert errors == []
    assert bad == [] and reads[0] > 0
    assert [p.name for p in tmp_path.iterdir()] == ["p.html"]
