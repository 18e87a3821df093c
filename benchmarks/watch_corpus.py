#!/usr/bin/env python3
"""Live check: `ccreport watch` on a copy of the real corpus while scale_home.py --append writes
into one of its sessions. After every appended line, the session's latest page must show it.

    .venv/bin/python benchmarks/watch_corpus.py [--lines 30] [--interval 0.2]

Prints, per appended line, how long until latest.html led to a page holding that line's anchor
(or the line as the page's last line), and a summary. Works in /tmp/incr-live (deleted after).
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = (ROOT.parent / "shared" / "corpus" / "real").resolve()
SCALE = (ROOT.parent / "shared" / "bench" / "scale_home.py").resolve()
TARGET = "-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004"
SOURCE = "-Users-dain-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"


def shows(site: Path, line: int) -> bool:
    sdir = site / "p" / TARGET
    try:
        target = re.search(r"page-\d{4}\.html", (sdir / "latest.html").read_text()).group(0)
        html = (sdir / target).read_text()
    except (OSError, AttributeError):
        return False
    return f'id="L{line}"' in html or f"–{line}</p>" in html or f"–{line} ·" in html


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--lines", type=int, default=30)
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--work", type=Path, default=Path("/tmp/incr-live"))
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    home, site = a.work / "home", a.work / "site"
    shutil.copytree(CORPUS, home)
    path = home / "projects" / f"{TARGET}.jsonl"
    base = sum(1 for _ in path.open("rb"))
    subprocess.run([sys.executable, "-m", "ccreport", "build", "--home", str(home), "--out", str(site), "-q"],
                   check=True, cwd=ROOT)
    watch = subprocess.Popen([sys.executable, "-m", "ccreport", "watch", "--home", str(home), "--out", str(site)],
                             cwd=ROOT, stderr=subprocess.PIPE, text=True)
    log: list[str] = []
    ready = threading.Event()

    def drain():  # the watcher says "watching" once its catch-up run is done
        for line in watch.stderr:
            log.append(line.rstrip())
            if "watching" in line:
                ready.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    ready.wait(60)
    time.sleep(0.3)  # inotify set-up right after the catch-up run
    appender = subprocess.Popen([sys.executable, str(SCALE), "--append", str(path), "--from",
                                 str(home / "projects" / SOURCE), "--lines", str(a.lines), "--interval", str(a.interval)],
                                stdout=subprocess.PIPE, text=True)
    lags, missed = [], []
    for out in appender.stdout:
        t_append = float(out.split()[0])
        n = base + int(out.split()[-1])
        end = time.time() + 10
        while time.time() < end and not shows(site, n):
            time.sleep(0.005)
        if shows(site, n):
            lags.append(time.time() - t_append)
            print(f"line {n}: on the latest page after {lags[-1] * 1000:.0f} ms (polling at 5 ms)")
        else:
            missed.append(n)
            print(f"line {n}: NOT on the latest page after 10 s")
    appender.wait()
    time.sleep(0.5)
    watch.send_signal(signal.SIGTERM)
    watch.wait(timeout=30)
    reader.join(5)
    err = "\n".join(log)
    cold = a.work / "cold"
    subprocess.run([sys.executable, "-m", "ccreport", "build", "--home", str(home), "--out", str(cold), "-q"],
                   check=True, cwd=ROOT)
    diff = subprocess.run(["diff", "-rq", "-x", ".ccreport", str(site), str(cold)], capture_output=True, text=True).stdout
    lags.sort()
    print(f"\n{len(lags)}/{len(lags) + len(missed)} appended lines seen on the latest page; "
          f"median {lags[len(lags) // 2] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms" if lags else "none seen")
    print(f"watch exit code {watch.returncode}; site after watch vs cold build: {'identical' if not diff else diff}")
    print("watch stderr (last lines):\n" + "\n".join(err.strip().splitlines()[-4:]))
    shutil.rmtree(a.work, ignore_errors=True)
    sys.exit(1 if missed or diff or watch.returncode else 0)


if __name__ == "__main__":
    main()
