"""Linear in sessions: cold builds of one project holding N small sessions (issue "Speed, third
round", point 2: 20,000 small sessions in at most 60 s with default jobs, the time per session flat
from 1,000 to 20,000).

    python3 benchmarks/sessions.py                       # 1,000, 5,000 and 20,000 sessions
    python3 benchmarks/sessions.py --counts 500,2000 --jobs 1

Each session is one prompt and one answer (two lines, ~500 bytes), written deterministically; the
homes and sites go under benchmarks/out/sessions/. Prints one row per count: wall and CPU seconds
(the build and its workers), milliseconds per session, the largest process's peak RSS, files written.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent


def make_home(home: Path, n: int) -> Path:
    """One project of ``n`` sessions, each a prompt and its answer (kept when already written)."""
    proj = home / "projects" / "-home-u-proj"
    if proj.is_dir() and len(os.listdir(proj)) == n:
        return home
    shutil.rmtree(home, ignore_errors=True)
    proj.mkdir(parents=True)
    for i in range(n):
        sid = f"00000000-0000-4000-8000-{i:012d}"
        ts = f"2025-06-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        user = {"type": "user", "uuid": f"u-{i}", "parentUuid": None, "sessionId": sid, "timestamp": ts,
                "cwd": "/home/u/proj", "version": "2.1.100", "message": {"role": "user", "content": f"hello {i}"}}
        answer = {"type": "assistant", "uuid": f"a-{i}", "parentUuid": f"u-{i}", "sessionId": sid, "timestamp": ts,
                  "message": {"id": f"msg_{i}", "role": "assistant", "model": "claude-sonnet-4-5",
                              "content": [{"type": "text", "text": f"hi {i}"}],
                              "usage": {"input_tokens": 3, "output_tokens": 2}}}
        (proj / f"{sid}.jsonl").write_bytes(orjson.dumps(user) + b"\n" + orjson.dumps(answer) + b"\n")
    return home


def build(home: Path, out: Path, jobs: int | None) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "ccreport", "build", "--home", str(home), "--out", str(out), "--quiet"]
    cmd += ["--jobs", str(jobs)] if jobs else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    files = sum(len(names) for _, _, names in os.walk(out))
    return {"wall": wall, "cpu": cpu, "rss_mb": after.ru_maxrss / 1024, "files": files}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="1000,5000,20000", help="comma-separated session counts")
    ap.add_argument("--jobs", type=int, default=None, help="ccreport --jobs (default: its own default)")
    ap.add_argument("--out", type=Path, default=HERE / "out" / "sessions", help="working folder")
    args = ap.parse_args()
    print(f"| sessions | wall s | CPU s | ms a session (wall) | ms a session (CPU) | peak RSS MB | files |")
    print("|---|---|---|---|---|---|---|")
    for n in (int(c) for c in args.counts.split(",")):
        home = make_home(args.out / f"home-{n}", n)
        r = build(home, args.out / f"site-{n}", args.jobs)
        print(f"| {n:,} | {r['wall']:.1f} | {r['cpu']:.1f} | {1000 * r['wall'] / n:.2f} | {1000 * r['cpu'] / n:.2f} "
              f"| {r['rss_mb']:.0f} | {r['files']:,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
