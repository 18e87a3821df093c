"""Snapshot guards: every file of the sites built from sample_home/ (gallery included), the hostile
home and the shared corpus, compared with a recorded manifest after scrubbing what changes from
build to build (build date, version, asset hashes).

They hold the output still while the code under it moves: a restructuring must leave every file
byte-identical. The manifests are sha256 digests per file (tests/snapshots/*.json); a failure names
the files that differ, were added or went missing. After an intended rendering change, rewrite them
and say so in the commit:

    UPDATE_SNAPSHOT=1 .venv/bin/python -m pytest tests/test_snapshot.py

The incremental state under .ccreport/ is not part of the site and is left out (it carries the
code fingerprint by design).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from ccreport import __version__
from hostile import make_hostile_home
from util import SAMPLE_HOME, TESTS

SNAPSHOTS = TESTS / "snapshots"
ASSET_NAME = re.compile(rb"(assets/[\w./-]+?)\.[0-9a-f]{10}\.(css|js)\b")


def scrub(data: bytes) -> bytes:
    data = re.sub(rb"built \d{4}-\d{2}-\d{2}", b"built <DATE>", data)
    data = data.replace(f"ccreport {__version__}".encode(), b"ccreport <VERSION>")
    data = data.replace(f'"{__version__}"'.encode(), b'"<VERSION>"')
    return ASSET_NAME.sub(rb"\1.<HASH>.\2", data)


def manifest(site: Path) -> dict[str, str]:
    out = {}
    for p in sorted(site.rglob("*")):
        rel = p.relative_to(site).as_posix()
        if not p.is_file() or rel.startswith(".ccreport/"):
            continue
        name = ASSET_NAME.sub(rb"\1.<HASH>.\2", rel.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")
        out[name] = hashlib.sha256(scrub(p.read_bytes())).hexdigest()
    return out


def check(name: str, site: Path) -> None:
    got = manifest(site)
    path = SNAPSHOTS / f"{name}.json"
    if os.environ.get("UPDATE_SNAPSHOT"):
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(json.dumps(got, indent=0, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot {path.name}: UPDATE_SNAPSHOT=1 .venv/bin/python -m pytest tests/test_snapshot.py"
    want = json.loads(path.read_text(encoding="utf-8"))
    changed = sorted(k for k in got.keys() & want.keys() if got[k] != want[k])
    added = sorted(got.keys() - want.keys())
    missing = sorted(want.keys() - got.keys())
    assert not (changed or added or missing), (
        f"{name}: {len(changed)} changed, {len(added)} added, {len(missing)} missing of {len(want)} files\n"
        f"changed: {changed[:20]}\nadded: {added[:20]}\nmissing: {missing[:20]}")


def test_scrub_keeps_everything_but_the_volatile_parts():
    page = (f'<script src="../assets/app.abcdef0123.js"></script> built 2026-11-30 · ccreport {__version__} '
            f'page-0001.html#L12 2025-11-03 09:14').encode()
    assert scrub(page) == (b'<script src="../assets/app.<HASH>.js"></script> built <DATE> \xc2\xb7 ccreport <VERSION> '
                           b'page-0001.html#L12 2025-11-03 09:14')


def test_sample_site_snapshot(build_site, tmp_path):
    res = build_site(SAMPLE_HOME, tmp_path / "site")
    assert res.errors == []
    check("sample", tmp_path / "site")


def test_hostile_site_snapshot(build_site, tmp_path):
    make_hostile_home(tmp_path / "home")
    build_site(tmp_path / "home", tmp_path / "site")
    check("hostile", tmp_path / "site")


def test_corpus_site_snapshot(corpus_site):
    out, res = corpus_site
    check("corpus", out)
