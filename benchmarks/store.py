#!/usr/bin/env python3
"""The source store's costs, measured (issue 14 point 7; run by hand, never in tests).

    .venv/bin/python benchmarks/store.py                  # corpus ratio, 300 MB home, 500 MB append
    .venv/bin/python benchmarks/store.py --mb 30 --giant 50   # a quick run

Measures: store bytes / JSONL bytes on ../shared/corpus/real and on the 300 MB benchmark home
(scale_home.py --mb 300 --seed 3); the cold build of that home with the store and with --no-store;
a no-change rebuild of it (≥ 1,000 sessions) in process; a 10-line append to a 500 MB session in
process (benchmarks/incremental.py's measurement, the store included). Figures go to stdout as
Markdown and to benchmarks/out/store.json; docs/archive.md quotes them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import incremental as inc  # noqa: E402  (the homes, the in-process build, the append measurement)

from ccreport.site.build import Options, build  # noqa: E402
from ccreport.source import database  # noqa: E402


def _bytes(root: Path, pattern: str) -> int:
    return sum(p.stat().st_size for p in root.rglob(pattern) if p.is_file())


def ratio(home: Path, out: Path) -> dict:
    t = time.perf_counter()
    store = out.parent / f"{out.name}-store"  # (a database of its own: the site's also holds its state)
    build(home, out, Options(jobs=os.cpu_count() or 1, store=store))
    database.close(store / database.NAME)  # (its WAL folded into it)
    jsonl, kept = _bytes(home / "projects", "*.jsonl"), _bytes(store, "*")
    return {"jsonl_mb": round(jsonl / 1e6, 1), "store_mb": round(kept / 1e6, 2), "ratio": round(kept / jsonl, 3),
            "build_s": round(time.perf_counter() - t, 1)}


def _cpu() -> float:
    """CPU seconds of this process and of its reaped children (the build's worker processes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def cold(home: Path, work: Path, rounds: int = 2) -> dict:
    """Cold builds with and without the store, alternated (the machine is shared): the median of
    each, wall and CPU (the CPU time is the steadier figure on a busy machine)."""
    runs = {"store": [], "no_store": []}
    cpus = {"store": [], "no_store": []}
    for i in range(rounds):
        for name, no_store in (("store", False), ("no_store", True)) if i % 2 == 0 else (("no_store", True), ("store", False)):
            out = work / f"cold-{name}"
            shutil.rmtree(out, ignore_errors=True)
            t, c = time.perf_counter(), _cpu()
            build(home, out, Options(jobs=os.cpu_count() or 1, no_store=no_store))
            runs[name].append(time.perf_counter() - t)
            cpus[name].append(_cpu() - c)
    s, n = statistics.median(runs["store"]), statistics.median(runs["no_store"])
    cs, cn = statistics.median(cpus["store"]), statistics.median(cpus["no_store"])
    return {"cold_store_s": round(s, 1), "cold_no_store_s": round(n, 1), "cold_ratio": round(s / n, 3),
            "cold_store_cpu_s": round(cs, 1), "cold_no_store_cpu_s": round(cn, 1), "cold_cpu_ratio": round(cs / cn, 3)}


def nochange(home: Path, out: Path, repeat: int) -> dict:
    """A build where nothing changed, with the store and (same site) with --no-store, alternated."""
    r = {}
    for name, no_store in (("store", False), ("no_store", True)):
        r[name] = {"walls": [], "cpus": []}
    res = None
    for _ in range(repeat):
        for name, no_store in (("store", False), ("no_store", True)):
            w, res, c = inc.in_process(home, out, Options(jobs=1, no_store=no_store))
            assert res.written == [], res.written[:5]
            r[name]["walls"].append(w)
            r[name]["cpus"].append(c)
    med = lambda xs: round(statistics.median(xs), 3)  # noqa: E731
    return {"sessions": res.sessions, "nochange_s": med(r["store"]["walls"]), "nochange_cpu_s": med(r["store"]["cpus"]),
            "nochange_no_store_s": med(r["no_store"]["walls"]), "nochange_no_store_cpu_s": med(r["no_store"]["cpus"])}


def append(work: Path, giant_mb: float, repeat: int) -> dict:
    """benchmarks/incremental.py's measurement (10 real lines appended to the giant session, one
    in-process build as a fresh command would do it), with the store and with --no-store alternated.
    The store catches up on the lines appended during a --no-store turn: a few KB more."""
    home = inc.make_home(work / f"home-giant-{giant_mb:g}mb", 0.5, giant_mb)
    out = work / f"site-giant-{giant_mb:g}mb"
    build(home, out, Options(jobs=os.cpu_count() or 1))
    path, lines = inc.giant_file(home), inc.Lines()
    inc.in_process(home, out, Options(jobs=1))  # warm: templates compiled once per process
    r = {False: ([], [], []), True: ([], [], [])}
    for _ in range(repeat):
        for no_store in (False, True):
            inc.append(path, lines.take(10))
            w, res, c = inc.in_process(home, out, Options(jobs=1, no_store=no_store))
            r[no_store][0].append(w)
            r[no_store][1].append(c)
            r[no_store][2].append(len(res.written))
    ms = lambda xs: round(statistics.median(xs) * 1000, 1)  # noqa: E731
    return {"session_mb": round(path.stat().st_size / 1e6, 1), "append10_ms": ms(r[False][0]),
            "append10_cpu_ms": ms(r[False][1]), "append10_no_store_ms": ms(r[True][0]),
            "append10_no_store_cpu_ms": ms(r[True][1]), "files_written": max(r[False][2] + r[True][2])}


def _home(work: Path, mb: float) -> Path:
    home = work / f"home-{mb:g}mb"
    if not (home / "projects").is_dir():
        subprocess.run([sys.executable, str(inc.SCALE), str(inc.CORPUS), str(home), "--mb", str(mb), "--seed", "3"],
                       check=True, stdout=sys.stderr)
    return home


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("/tmp/store-bench"))
    ap.add_argument("--mb", type=float, default=300)
    ap.add_argument("--nochange-mb", type=float, default=340, help="a home of ≥ 1,000 sessions (seed 3)")
    ap.add_argument("--giant", type=float, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2, help="cold builds of each kind")
    ap.add_argument("--part", choices=("all", "ratio", "cold", "nochange", "append"), default="all")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    r, every = {}, a.part == "all"
    if every or a.part == "ratio":
        r["corpus"] = ratio(inc.CORPUS, a.work / "site-corpus")
        r["home"] = ratio(_home(a.work, a.mb), a.work / "site-home")
    if every or a.part == "cold":
        r["cold"] = cold(_home(a.work, a.mb), a.work, a.rounds)
    if every or a.part == "nochange":
        home = _home(a.work, a.nochange_mb)
        build(home, a.work / "site-nochange", Options(jobs=os.cpu_count() or 1))
        r["nochange"] = nochange(home, a.work / "site-nochange", a.repeat)
    if every or a.part == "append":
        r["append"] = append(a.work, a.giant, a.repeat)
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / f"store-{a.part}.json").write_text(json.dumps(r, indent=2))
    print(json.dumps(r, indent=2))
    if not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
