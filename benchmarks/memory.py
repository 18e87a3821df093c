#!/usr/bin/env python3
"""Peak memory of every command on pathological transcripts (issue 18, point 2).

    PYTHONPATH=. python3 benchmarks/memory.py              # 1 GiB files (needs ~1 GiB of disk)
    PYTHONPATH=. python3 benchmarks/memory.py --mib 128    # a quick run

Two homes, each with one ordinary session beside the bad one:

* ``zeros``: a file of N MiB of zero bytes named ``*.jsonl`` (one unfinished "line"; sparse on disk);
* ``line``: one N MiB line ``{"type":"user","message":{"content":"aaaa…"}}`` with its newline.

Each command runs in a fresh probe process that reports ``RUSAGE_CHILDREN.ru_maxrss``: the peak
resident set of the largest process of the command's tree (build workers included). The API is
measured on a running ``serve`` (its site built beforehand, so its start-up build has nothing to
do): ``VmHWM`` of the server process after one request to each endpoint. Prints a Markdown table
and writes it, with the raw figures, to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BAD = "0badbad0-0000-4000-8000-000000000000"
GOOD = "600d600d-0000-4000-8000-000000000000"
PROBE = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
         "stderr=subprocess.PIPE); sys.stderr.buffer.write(r.stderr[-2000:]); "
         "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def make_home(root: Path, kind: str, size: int) -> Path:
    proj = root / "projects" / "-home-u-proj"
    proj.mkdir(parents=True, exist_ok=True)
    good = {"type": "user", "sessionId": GOOD, "cwd": "/home/u/proj", "uuid": "u1",
            "timestamp": "2026-01-01T10:00:00.000Z", "message": {"role": "user", "content": "hello"}}
    (proj / f"{GOOD}.jsonl").write_text(json.dumps(good) + "\n")
    bad = proj / f"{BAD}.jsonl"
    if bad.exists() and bad.stat().st_size >= size:
        return root
    with open(bad, "wb") as fh:
        if kind == "zeros":
            fh.truncate(size)
        else:
            head, tail = b'{"type":"user","message":{"content":"', b'"}}\n'
            fh.write(head)
            block = b"a" * (1 << 20)
            left = size - len(head) - len(tail)
            while left > 0:
                fh.write(block[:left])
                left -= len(block)
            fh.write(tail)
    return root


def run(cmd: list[str]) -> dict:
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], capture_output=True, text=True)
    code, kb = map(int, out.stdout.split())
    return {"rc": code, "peak_mib": kb / 1024, "seconds": time.monotonic() - t0, "stderr": out.stderr[-300:]}


def start_serve(home: Path, site: Path) -> tuple[subprocess.Popen, str]:
    """A running ``serve`` of the site (built beforehand) and its URL; the caller terminates it."""
    proc = subprocess.Popen([sys.executable, "-m", "ccreport", "serve", "--home", str(home), "--out", str(site),
                             "--port", "0", "-q"], stderr=subprocess.PIPE, text=True)
    while True:
        line = proc.stderr.readline()
        if not line:
            proc.wait()
            raise RuntimeError("serve exited")
        if m := re.search(r"at (http://\S+)", line):
            return proc, m.group(1).rstrip("/")


def run_api(home: Path, site: Path) -> dict:
    """A served site: VmHWM of the server after one call to each API endpoint."""
    proc, url = start_serve(home, site)
    try:
        before = _hwm(proc.pid)
        t0 = time.monotonic()
        for path in (f"/api/sessions/{BAD}/transcripts", f"/api/sessions/{BAD}/transcript?limit=5",
                     f"/api/sessions/{BAD}/transcript?limit=5&offset=0"):
            with urllib.request.urlopen(url + path, timeout=600) as r:
                r.read()
        return {"rc": 0, "peak_mib": _hwm(proc.pid), "before_mib": before, "seconds": time.monotonic() - t0}
    finally:
        proc.terminate()
        proc.wait()


def _hwm(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def measure(root: Path, kind: str, size: int) -> dict:
    home = make_home(root / kind / "home", kind, size)
    site, py = root / kind / "site", [sys.executable, "-m", "ccreport"]
    h = ["--home", str(home)]
    cmds = {
        "build": py + ["build", *h, "--out", str(site), "-j", "1", "-q"],
        "tail -n 5": py + ["tail", *h, "-n", "5", BAD],
        "tail --json": py + ["tail", *h, "--json", BAD],
        "list": py + ["list", *h],
        "stats": py + ["stats", *h],
        "export html": py + ["export", *h, "-o", str(root / kind / "x.html"), BAD],
        "export md": py + ["export", *h, "--format", "md", "-o", str(root / kind / "x.md"), BAD],
    }
    res = {name: run(cmd) for name, cmd in cmds.items()}
    res["api (serve)"] = run_api(home, site)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mib", type=int, default=1024, help="size of each bad file in MiB (default 1024)")
    ap.add_argument("--dir", type=Path, default=Path(__file__).parent / "out" / "memory")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "memory.json")
    a = ap.parse_args()
    results = {kind: measure(a.dir, kind, a.mib << 20) for kind in ("zeros", "line")}
    rows = ["| command | zero bytes: peak MiB | s | one line: peak MiB | s |", "|---|---:|---:|---:|---:|"]
    for name in results["zeros"]:
        z, ln = results["zeros"][name], results["line"][name]
        rows.append(f"| {name} | {z['peak_mib']:.0f} | {z['seconds']:.1f} "
                    f"| {ln['peak_mib']:.0f} | {ln['seconds']:.1f} |")
    table = "\n".join(rows)
    print(f"{a.mib} MiB files\n{table}")
    for kind, r in results.items():
        for name, x in r.items():
            if x["rc"] != 0:
                print(f"{kind} / {name}: exit {x['rc']}: {x.get('stderr', '')}", file=sys.stderr)
    a.out.write_text(json.dumps({"mib": a.mib, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
