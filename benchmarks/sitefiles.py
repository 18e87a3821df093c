#!/usr/bin/env python3
"""The files a cold build writes, by kind, against the home's sessions and messages (issue "Speed,
third round", point 3: at most about one file per 50 messages plus a fixed number per session):

    python3 benchmarks/sitefiles.py HOME [--out DIR] [--jobs N]

builds HOME cold into DIR (a temporary folder by default) in this process and prints each kind of
file (transcript pages, the redirect to a transcript's latest page, overviews and indexes, the search
index, the incremental state and source store, blobs, assets, the rest), its count per session and
per message, and the totals with and without the search files (another issue bounds those).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from ccreport.site.build import Options, build  # noqa: E402

# (kind, test on the path relative to the site), the first that holds names the file
KINDS = [
    ("search index", lambda p, n: p.startswith("search/")),
    ("state and source store (.ccreport/)", lambda p, n: p.startswith(".ccreport/")),
    ("assets", lambda p, n: p.startswith("assets/")),
    ("blobs", lambda p, n: p.startswith("blobs/")),
    ("transcript pages (page-N.html)", lambda p, n: re.fullmatch(r"page-\d+\.html", n) is not None),
    ("latest.html (redirect to the last page)", lambda p, n: n == "latest.html"),
    ("index.html (session overviews, projects, home)", lambda p, n: n == "index.html"),
    ("reply-*.html (a message's reply on a later page)", lambda p, n: n.startswith("reply-")),
]


def kinds(site: Path) -> Counter:
    c: Counter = Counter()
    for f in site.rglob("*"):
        if f.is_file():
            rel = f.relative_to(site).as_posix()
            c[next((k for k, test in KINDS if test(rel, f.name)), "other")] += 1
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home", type=Path)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="ccreport-sitefiles-")) / "site"
    shutil.rmtree(out, ignore_errors=True)
    res = build(a.home, out, Options(jobs=a.jobs))
    c = kinds(out)
    s, m = max(res.sessions, 1), max(res.messages, 1)
    print(f"{res.sessions:,} sessions, {res.transcripts:,} transcripts, {res.pages:,} pages, {res.messages:,} messages")
    print(f"{'files':>7} {'/session':>9} {'/50 msgs':>9}  kind")
    for kind, n in c.most_common():
        print(f"{n:7,} {n / s:9.2f} {50 * n / m:9.2f}  {kind}")
    total, search = sum(c.values()), c["search index"]
    for label, n in (("all", total), ("without the search index", total - search)):
        print(f"{n:7,} {n / s:9.2f} {50 * n / m:9.2f}  {label}")
    if a.out is None:
        shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
