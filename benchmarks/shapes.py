#!/usr/bin/env python3
"""Every output on files of many tiny lines, and on the two huge ones (issue 29 point 6).

    PYTHONPATH=. python3 benchmarks/shapes.py                      # the figures of docs/benchmarks.md
    PYTHONPATH=. python3 benchmarks/shapes.py --lines 200000 --shapes empty malformed   # a quick run

Shapes (one session each, beside nothing else):

* ``empty``: N lines of ``{}`` (every 100th blank); ``malformed``: N lines of one character, ``x``;
* ``users``: N/10 real user messages of one character each (not folded: one message each);
* ``zeros``: 1 GiB of zero bytes, no newline; ``line``: one 200 MiB line (both from memory.py).

Per shape: the site (bytes of every file, its transcript pages, build seconds and peak RSS), the
single-file export's bytes, the Markdown parts, ``tail -n 0`` and ``tail -n 0 --json`` (peak RSS,
bytes printed) and the transcript API on a running ``serve`` (first and repeated request, seconds;
the server's peak RSS). Prints a Markdown table and writes the raw figures to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from memory import _hwm, make_home as huge_home, start_serve  # noqa: E402  (benchmarks/ is not a package)

SID = "11111111-2222-4333-8444-555555555555"
PROBE = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, "
         "stderr=subprocess.PIPE); sys.stderr.buffer.write(r.stderr[-2000:]); "
         "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, len(r.stdout))")


def tiny_home(root: Path, kind: str, n: int) -> tuple[Path, str]:
    proj = root / "projects" / "-home-u-tiny"
    proj.mkdir(parents=True, exist_ok=True)
    path = proj / f"{SID}.jsonl"
    if not path.exists():
        with open(path, "wb") as fh:
            for start in range(0, n, 100_000):
                fh.write(b"".join(_line(kind, i) + b"\n" for i in range(start, min(n, start + 100_000))))
    return root, SID


def _line(kind: str, i: int) -> bytes:
    if kind == "empty":
        return b"{}" if i % 100 else b""
    if kind == "malformed":
        return b"x"
    return json.dumps({"type": "user", "uuid": f"u{i}", "sessionId": SID, "timestamp": "2026-01-01T00:00:00Z",
                       "message": {"role": "user", "content": "h"}}, separators=(",", ":")).encode()


def run(cmd: list[str]) -> dict:
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], capture_output=True, text=True)
    code, kb, printed = map(int, out.stdout.split())
    return {"rc": code, "peak_mib": kb / 1024, "seconds": time.monotonic() - t0, "bytes": printed,
            "stderr": out.stderr[-300:]}


def api_times(home: Path, site: Path, sid: str) -> dict:
    """A served site (built beforehand): the first and a repeated request, the server's VmHWM."""
    proc, url = start_serve(home, site)
    try:
        times, size = [], 0
        for _ in range(2):
            t0 = time.monotonic()
            with urllib.request.urlopen(f"{url}/api/sessions/{sid}/transcript?limit=50", timeout=1200) as r:
                size = len(r.read())
            times.append(time.monotonic() - t0)
        return {"first_s": times[0], "again_s": times[1], "bytes": size, "peak_mib": _hwm(proc.pid)}
    finally:
        proc.terminate()
        proc.wait()


def site_figures(site: Path) -> dict:
    files = [p for p in site.rglob("*") if p.is_file()]
    return {"site_bytes": sum(p.stat().st_size for p in files),
            "pages": sum(1 for p in files if re.fullmatch(r"page-\d+\.html", p.name))}


def measure(root: Path, kind: str, lines: int) -> dict:
    if kind in ("zeros", "line"):
        home, sid = huge_home(root / kind / "home", kind, (1024 if kind == "zeros" else 200) << 20), "0badbad0-0000-4000-8000-000000000000"
    else:
        home, sid = tiny_home(root / kind / "home", kind, lines // 10 if kind == "users" else lines)
    jsonl = sum(p.stat().st_size for p in (home / "projects").rglob("*.jsonl"))
    site, py, h = root / kind / "site", [sys.executable, "-m", "ccreport"], ["--home", str(home)]
    subprocess.run(["rm", "-rf", str(site), str(root / kind / "x")], check=True)
    (root / kind / "x").mkdir(parents=True)
    res = {"jsonl_bytes": jsonl, "build": run(py + ["build", *h, "--out", str(site), "-j", "1", "-q"])}
    res.update(site_figures(site))
    res["export html"] = run(py + ["export", *h, "-o", str(root / kind / "x" / "s.html"), sid])
    res["export_bytes"] = (root / kind / "x" / "s.html").stat().st_size
    res["export md"] = run(py + ["export", *h, "-o", str(root / kind / "x" / "s.md"), sid])
    res["md_parts"] = len(list((root / kind / "x").glob("s*.md")))
    res["tail -n 0"] = run(py + ["tail", *h, "-n", "0", sid])
    res["tail -n 0 --json"] = run(py + ["tail", *h, "-n", "0", "--json", sid])
    res["api"] = api_times(home, site, sid)
    return res


def table(results: dict) -> str:
    rows = ["| shape | JSONL | site | pages | build s / MiB | export | md parts | tail -n 0 MiB / out "
            "| --json MiB / out | API first / again s, MiB |", "|---|" + "---:|" * 9]
    mb = lambda n: f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} KB"  # noqa: E731
    for kind, r in results.items():
        b, t, tj, a = r["build"], r["tail -n 0"], r["tail -n 0 --json"], r["api"]
        rows.append(f"| {kind} | {mb(r['jsonl_bytes'])} | {mb(r['site_bytes'])} | {r['pages']:,} "
                    f"| {b['seconds']:.1f} / {b['peak_mib']:.0f} | {mb(r['export_bytes'])} | {r['md_parts']} "
                    f"| {t['peak_mib']:.0f} / {mb(t['bytes'])} | {tj['peak_mib']:.0f} / {mb(tj['bytes'])} "
                    f"| {a['first_s']:.2f} / {a['again_s']:.3f}, {a['peak_mib']:.0f} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=2_000_000, help="lines of the tiny shapes (users: a tenth)")
    ap.add_argument("--shapes", nargs="+", default=["empty", "malformed", "users", "zeros", "line"])
    ap.add_argument("--dir", type=Path, default=Path(__file__).parent / "out" / "shapes")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "shapes.json")
    a = ap.parse_args()
    results = {kind: measure(a.dir, kind, a.lines) for kind in a.shapes}
    print(table(results))
    for kind, r in results.items():
        for name, x in r.items():
            if isinstance(x, dict) and x.get("rc", 0) != 0:
                print(f"{kind} / {name}: exit {x['rc']}: {x.get('stderr', '')}", file=sys.stderr)
    a.out.write_text(json.dumps({"lines": a.lines, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
