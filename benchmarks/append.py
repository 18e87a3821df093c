#!/usr/bin/env python3
"""Benchmark: append → page written under `ccreport watch` (issue 26 point 6: an append costs the append).

    .venv/bin/python benchmarks/append.py [--home DIR] [--appends 30] [--interval 0.4] [--repo CHECKOUT]

Copies the home (default: the real corpus) to --work, builds the site, starts `ccreport watch` on
it and appends --appends prompt lines one by one (each flushed, then a pause) to the main transcript
of a mid-sized session (the one nearest --size bytes, or --target "project/session"). Per append:

- page: from just before the write to the mtime of the transcript's last page once the watcher
  says its update is done (its "N written … in X ms" line): when the page was written;
- done: to the moment that line is read (the whole update: the page, the overview, indexes, state);
- cpu: the watcher's user+system CPU over the update (from /proc, 10 ms ticks), which a loaded
  machine does not inflate the way it inflates wall time.

Prints p50, p95 and max of each. --repo runs the ccreport of another checkout (e.g. an export of
main for the "before" figures) with this interpreter. Everything lives in --work (deleted after
unless --keep).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = (ROOT.parent / "shared" / "corpus" / "real").resolve()
TICK = os.sysconf("SC_CLK_TCK")
UUID_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$")


def pick(home: Path, size: float, target: str | None) -> Path:
    """The main transcript to append to."""
    if target:
        return home / "projects" / f"{target}.jsonl"
    mains = [p for p in (home / "projects").glob("*/*.jsonl") if UUID_NAME.match(p.name)]
    return min(mains, key=lambda p: (abs(p.stat().st_size - size), str(p)))


def prompt_line(path: Path, n: int) -> bytes:
    """A typed prompt continuing the transcript (envelope fields taken from its last user/assistant line)."""
    last = {}
    with path.open("rb") as f:
        for raw in f:
            try:
                d = json.loads(raw)
            except ValueError:
                continue
            if isinstance(d, dict) and d.get("type") in ("user", "assistant") and d.get("uuid"):
                last = d
    line = {"parentUuid": last.get("uuid"), "isSidechain": False, "userType": "external",
            "cwd": last.get("cwd", "/"), "sessionId": last.get("sessionId", path.stem),
            "version": last.get("version", "2.1.0"), "gitBranch": last.get("gitBranch", "main"), "type": "user",
            "message": {"role": "user", "content": f"benchmark prompt {n}: what changed since the last one?"},
            "uuid": str(uuid.uuid4()),
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"}
    return json.dumps(line).encode() + b"\n"


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def last_page(site: Path, rel: str) -> Path | None:
    """The transcript's last page, as its latest.html names it."""
    folder = site / "p" / rel
    try:
        return folder / re.search(r"page-\d{4}\.html", (folder / "latest.html").read_text()).group(0)
    except (OSError, AttributeError):
        return None


def stats(xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return f"p50 {statistics.median(xs):6.1f}  p95 {p95:6.1f}  max {xs[-1]:6.1f}"


def ccreport(repo: Path | None) -> tuple[list[str], dict]:
    env = dict(os.environ)
    if repo is not None:
        env["PYTHONPATH"] = str(repo)
    return [sys.executable, "-m", "ccreport"], env


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--home", type=Path, default=CORPUS)
    p.add_argument("--work", type=Path, default=Path("/tmp/append-bench"))
    p.add_argument("--appends", type=int, default=30)
    p.add_argument("--interval", type=float, default=0.4, help="pause after each update (s)")
    p.add_argument("--size", type=float, default=1e6, help="pick the session nearest this many bytes")
    p.add_argument("--target", help="project/session to append to")
    p.add_argument("--repo", type=Path, help="the checkout whose ccreport runs (default: this one)")
    p.add_argument("--jobs", type=int, default=2, help="--jobs of the first build")
    p.add_argument("--keep", action="store_true")
    a = p.parse_args()
    cmd, env = ccreport(a.repo)
    shutil.rmtree(a.work, ignore_errors=True)
    home, site = a.work / "home", a.work / "site"
    shutil.copytree(a.home, home, symlinks=True)
    for d, _, files in os.walk(home):  # (the corpus is read-only)
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    path = pick(home, a.size, a.target)
    rel = f"{path.parent.name}/{path.stem}"
    print(f"target {rel} ({path.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    subprocess.run(cmd + ["build", "--home", str(home), "--out", str(site), "-q", "--jobs", str(a.jobs)],
                   check=True, cwd=a.work, env=env)
    watch = subprocess.Popen(cmd + ["watch", "--home", str(home), "--out", str(site)], cwd=a.work, env=env,
                             stderr=subprocess.PIPE, text=True)
    done: list[tuple[float, str]] = []
    ready, news = threading.Event(), threading.Condition()

    def drain():
        for line in watch.stderr:
            with news:
                if "watching" in line:
                    ready.set()
                elif " written, " in line:
                    done.append((time.time(), line.strip()))
                news.notify_all()

    threading.Thread(target=drain, daemon=True).start()
    if not ready.wait(600):
        sys.exit("the watcher did not start")
    time.sleep(1.0)  # inotify set up after the catch-up run
    page_ms, done_ms, cpu_ms, build_ms = [], [], [], []
    for n in range(1, a.appends + 1):
        data = prompt_line(path, n)
        seen = len(done)
        c0 = cpu(watch.pid)
        t0 = time.time()
        with path.open("ab") as f:
            f.write(data)
        with news:
            news.wait_for(lambda: len(done) > seen, timeout=30)
        if len(done) == seen:
            print(f"append {n}: no update within 30 s", file=sys.stderr)
            continue
        time.sleep(0.05)  # (a second update of the same burst, if any, lands in this append's CPU)
        t_done, said = done[seen]
        page = last_page(site, rel)
        page_ms.append((page.stat().st_mtime_ns / 1e9 - t0) * 1000 if page else float("nan"))
        done_ms.append((t_done - t0) * 1000)
        cpu_ms.append((cpu(watch.pid) - c0) * 1000)
        build_ms.append(float(re.search(r"in (\d+) ms", said).group(1)))
        print(f"append {n:3d}: page {page_ms[-1]:6.1f} ms  done {done_ms[-1]:6.1f} ms  cpu {cpu_ms[-1]:5.0f} ms  "
              f"({said.split(' ', 2)[2]})", file=sys.stderr)
        time.sleep(a.interval)
    watch.terminate()
    watch.wait(timeout=60)
    files = sum(1 for _ in (home / "projects").rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in (home / "projects").rglob("*.jsonl")) / 1e6
    print(f"\n{a.home} ({files} transcripts, {size:.0f} MB), {len(page_ms)}/{a.appends} appends to {rel}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"append → page written (ms):   {stats(page_ms)}")
    print(f"append → update done (ms):    {stats(done_ms)}")
    print(f"watcher's own 'in X ms':      {stats(build_ms)}")
    print(f"watcher CPU per append (ms):  {stats(cpu_ms)}  mean {statistics.mean(cpu_ms):.1f}")
    if not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
