#!/usr/bin/env python3
"""Benchmark: append → page written under `ccreport watch` (issue 26 point 6: an append costs the append).

    .venv/bin/python benchmarks/append.py [--home DIR] [--appends 30] [--interval 0.4] [--repo CHECKOUT]

Copies the home (default: the real corpus) to --work, builds the site, starts `ccreport watch` on
it and appends --appends prompt lines one by one (each flushed, then a pause) to the main transcript
of a mid-sized session (the one nearest --size bytes, or --target "project/session"). Per append:

- page: from just before the write to the mtime of the transcript's last page (read once the
  update is told and done): when the page was written;
- told: to the moment the watcher tells: `watch`'s "N written … in X ms" line (the whole update:
  the page, the overview, indexes, state), or with --serve the first /__events event after the
  append (the page pushed as soon as it is written, before the indexes);
- cpu: the watcher's user+system CPU from one append to the next (from /proc, 10 ms ticks): the
  whole update, which a loaded machine does not inflate the way it inflates wall time.

Prints p50, p95 and max of each. --repo runs the ccreport of another checkout (e.g. an export of
main for the "before" figures) with this interpreter. Everything lives in --work (deleted after
unless --keep).
"""

from __future__ import annotations

import argparse
import http.client
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


class Watcher:
    """`ccreport watch` (its "N written … in X ms" lines) or `serve --watch` (its /__events stream:
    the first event after an append is the page's early push) in a process of its own."""

    def __init__(self, cmd: list[str], env: dict, cwd: Path, home: Path, site: Path, serve: bool):
        args = (["serve", "--watch", "--port", "0", "-q"] if serve else ["watch"]) + [
            "--home", str(home), "--out", str(site)]
        self.proc = subprocess.Popen(cmd + args, cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
        self.done: list[tuple[float, str]] = []
        self.news = threading.Condition()
        ready, url = threading.Event(), []

        def drain():
            for line in self.proc.stderr:
                m = re.search(r"at (http://\S+/)", line)
                if m:
                    url.append(m.group(1))
                if "watching" in line or m:
                    ready.set()
                elif " written, " in line:
                    self._told(line.strip())

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(900):
            sys.exit("the watcher did not start")
        if serve:
            threading.Thread(target=self._events, args=(url[0],), daemon=True).start()
        time.sleep(1.0)  # inotify set up after the catch-up run

    def _told(self, what: str) -> None:
        with self.news:
            self.done.append((time.time(), what))
            self.news.notify_all()

    def _events(self, url: str) -> None:
        host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
        conn = http.client.HTTPConnection(host, int(port), timeout=3600)
        conn.request("GET", "/__events")
        resp = conn.getresponse()
        for raw in resp:
            if raw.startswith(b"data:"):
                n = len(json.loads(raw[5:]).get("urls") or [])
                self._told(f"event: {n} pages")

    def wait(self, seen: int) -> tuple[float, str] | None:
        with self.news:
            self.news.wait_for(lambda: len(self.done) > seen, timeout=30)
        return self.done[seen] if len(self.done) > seen else None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def run(a, path: Path, rel: str, site: Path, w: Watcher) -> dict[str, list[float]]:
    got: dict[str, list[float]] = {"page": [], "told": [], "cpu": []}
    c0 = cpu(w.proc.pid)
    for n in range(1, a.appends + 1):
        data = prompt_line(path, n)
        seen = len(w.done)
        t0 = time.time()
        with path.open("ab") as f:
            f.write(data)
        told = w.wait(seen)
        if told is None:
            print(f"append {n}: no update within 30 s", file=sys.stderr)
            continue
        time.sleep(a.interval)  # the rest of the update (indexes, state) runs meanwhile
        page = last_page(site, rel)
        got["page"].append((page.stat().st_mtime_ns / 1e9 - t0) * 1000 if page else float("nan"))
        got["told"].append((told[0] - t0) * 1000)
        c1 = cpu(w.proc.pid)  # the whole update's CPU (and the idle watch's, a few ticks)
        got["cpu"].append((c1 - c0) * 1000)
        c0 = c1
        print(f"append {n:3d}: page {got['page'][-1]:6.1f} ms  told {got['told'][-1]:6.1f} ms  "
              f"cpu {got['cpu'][-1]:5.0f} ms  ({told[1]})", file=sys.stderr)
    return got


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--home", type=Path, default=CORPUS)
    p.add_argument("--work", type=Path, default=Path("/tmp/append-bench"))
    p.add_argument("--appends", type=int, default=30)
    p.add_argument("--interval", type=float, default=0.4, help="pause after each update is told (s)")
    p.add_argument("--size", type=float, default=1e6, help="pick the session nearest this many bytes")
    p.add_argument("--target", help="project/session to append to")
    p.add_argument("--repo", type=Path, help="the checkout whose ccreport runs (default: this one)")
    p.add_argument("--jobs", type=int, default=2, help="--jobs of the first build")
    p.add_argument("--serve", action="store_true", help="serve --watch instead of watch")
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
    w = Watcher(cmd, env, a.work, home, site, a.serve)
    try:
        got = run(a, path, rel, site, w)
    finally:
        w.stop()
    files = sum(1 for _ in (home / "projects").rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in (home / "projects").rglob("*.jsonl")) / 1e6
    print(f"\n{'serve --watch' if a.serve else 'watch'} {a.repo or ROOT}: {a.home} ({files} transcripts, "
          f"{size:.0f} MB), {len(got['page'])}/{a.appends} appends to {rel}, load {os.getloadavg()[0]:.1f}")
    print(f"append → page written (ms):     {stats(got['page'])}")
    told = "the page's event" if a.serve else "update done"
    print(f"{'append → ' + told + ' (ms):':<32}{stats(got['told'])}")
    print(f"watcher CPU per append (ms):    {stats(got['cpu'])}  mean {statistics.mean(got['cpu']):.1f}")
    if not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
