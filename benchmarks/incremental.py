#!/usr/bin/env python3
"""Incremental builds and watch: what an append costs, measured (run by hand, never in tests).

    .venv/bin/python benchmarks/incremental.py nochange --mb 220       # ≥ 1,000 sessions
    .venv/bin/python benchmarks/incremental.py append --giant 50,500   # 10 lines into a giant session
    .venv/bin/python benchmarks/incremental.py watch --giant 50 --appends 20
    .venv/bin/python benchmarks/incremental.py all --mb 220 --giant 50,500

Homes are made with ../shared/bench/scale_home.py under --work (default /tmp/incr-bench), which
is deleted at the end unless --keep. Figures are printed as a Markdown table and saved to
benchmarks/out/incremental.json.

The claude-code-log column: pass --compare 'COMMAND' (a shell command; {home}, {session} and
{project} are replaced by the home, the giant session file and its project folder). It is run and
timed right after the same append, so another harness can put the tools side by side; without it
the column reads "not run".
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
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ccreport.site.build import Follow, Options, build  # noqa: E402
from ccreport.site.state import State  # noqa: E402

SCALE = (ROOT.parent / "shared" / "bench" / "scale_home.py").resolve()
CORPUS = (ROOT.parent / "shared" / "corpus" / "real").resolve()
# Lines appended in the benchmarks come from this (real) session, in order.
SOURCE = CORPUS / "projects" / "-Users-dain-workspace-claude-code-log-sample" / "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"


def make_home(dest: Path, mb: float, giant_mb: float = 0.0) -> Path:
    if (dest / "projects").is_dir():
        return dest
    subprocess.run([sys.executable, str(SCALE), str(CORPUS), str(dest), "--mb", str(mb), "--giant-mb", str(giant_mb)],
                   check=True, stdout=sys.stderr)
    return dest


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def cli_build(home: Path, out: Path, *extra: str) -> tuple[float, float]:
    """(wall, CPU) seconds of `ccreport build` as a command (interpreter start and imports included)."""
    t, c = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "ccreport", "build", "--home", str(home), "--out", str(out), "-q", *extra],
                   check=True, cwd=ROOT)
    return time.perf_counter() - t, _children_cpu() - c


def in_process(home: Path, out: Path, opts: Options):
    """One incremental build as a fresh command would do it (state loaded from disk): wall and
    CPU seconds (on a shared machine the CPU time is the steadier figure)."""
    t, c = time.perf_counter(), time.process_time()
    res = build(home, out, opts, follow=Follow(state=State.load(out)))
    return time.perf_counter() - t, res, time.process_time() - c


class Lines:
    """Real transcript lines to append, cycling through SOURCE."""

    def __init__(self):
        self.lines = [ln if ln.endswith(b"\n") else ln + b"\n" for ln in SOURCE.read_bytes().splitlines(keepends=True)]
        self.i = 0

    def take(self, n: int) -> bytes:
        out = b"".join(self.lines[(self.i + k) % len(self.lines)] for k in range(n))
        self.i += n
        return out


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def giant_file(home: Path) -> Path:
    return next((home / "projects" / "-home-bench-giant").glob("*.jsonl"))


def compare(cmd: str | None, home: Path, session: Path) -> str:
    if not cmd:
        return "not run"
    t = time.perf_counter()
    subprocess.run(cmd.format(home=home, session=session, project=session.parent), shell=True, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return f"{time.perf_counter() - t:.2f} s"


# --- the three measurements -----------------------------------------------------------------------
def bench_nochange(work: Path, mb: float, repeat: int) -> dict:
    home = make_home(work / f"home-{mb:g}mb", mb)
    out = work / f"site-{mb:g}mb"
    opts = Options(jobs=os.cpu_count() or 1)
    t0 = time.perf_counter()
    cold = build(home, out, opts)
    cold_s = time.perf_counter() - t0
    runs, cpus, clis, cli_cpus = [], [], [], []
    for _ in range(repeat):
        s, res, c = in_process(home, out, Options(jobs=1))
        assert res.written == [], res.written[:5]
        runs.append(s)
        cpus.append(c)
        w, c = cli_build(home, out, "-j", "1")
        clis.append(w)
        cli_cpus.append(c)
    return {"sessions": cold.sessions, "transcripts": cold.transcripts, "pages": cold.pages, "mb": mb,
            "cold_build_s": round(cold_s, 2), "nochange_in_process_s": round(statistics.median(runs), 3),
            "nochange_in_process_cpu_s": round(statistics.median(cpus), 3),
            "nochange_cli_s": round(statistics.median(clis), 3), "nochange_cli_cpu_s": round(statistics.median(cli_cpus), 3),
            "files_written": 0}


def bench_append(work: Path, giant_mb: float, repeat: int, compare_cmd: str | None) -> dict:
    home = make_home(work / f"home-giant-{giant_mb:g}mb", 0.5, giant_mb)
    out = work / f"site-giant-{giant_mb:g}mb"
    t0 = time.perf_counter()
    build(home, out, Options(jobs=os.cpu_count() or 1))
    cold_s = time.perf_counter() - t0
    path = giant_file(home)
    lines = Lines()
    runs, cpus, clis, cli_cpus, written = [], [], [], [], []
    in_process(home, out, Options(jobs=1))  # warm: templates compiled once per process
    for _ in range(repeat):
        append(path, lines.take(10))
        s, res, c = in_process(home, out, Options(jobs=1))
        runs.append(s)
        cpus.append(c)
        written.append(len(res.written))
        append(path, lines.take(10))
        w, c = cli_build(home, out, "-j", "1")
        clis.append(w)
        cli_cpus.append(c)
    append(path, lines.take(10))
    other = compare(compare_cmd, home, path)
    ms = lambda xs: round(statistics.median(xs) * 1000, 1)  # noqa: E731
    return {"session_mb": round(path.stat().st_size / 1e6, 1), "cold_build_s": round(cold_s, 1),
            "append10_in_process_ms": ms(runs), "append10_in_process_cpu_ms": ms(cpus),
            "append10_cli_ms": ms(clis), "append10_cli_cpu_ms": ms(cli_cpus),
            "files_written": max(written), "claude_code_log": other}


def bench_watch(work: Path, giant_mb: float, appends: int) -> dict:
    from ccreport.live.follow import Follower

    home = make_home(work / f"home-giant-{giant_mb:g}mb", 0.5, giant_mb)
    out = work / f"site-giant-{giant_mb:g}mb"
    path = giant_file(home)
    session_dir = str(out / "p" / "-home-bench-giant" / path.stem)
    seen = threading.Condition()
    events: list[tuple[float, list[str]]] = []
    builds: list[float] = []

    class Timed(Follower):
        def changed(self, paths, stamps):
            with seen:
                events.append((time.perf_counter(), paths))
                seen.notify_all()
            return False

        def built(self, res):
            builds.append(res.seconds)

    follower = Timed(home, out, Options(jobs=os.cpu_count() or 1))
    stop = follower.stop
    th = threading.Thread(target=follower.run, daemon=True)
    th.start()
    while not builds:
        time.sleep(0.05)
    time.sleep(0.5)
    lines = Lines()
    lat = []
    for _ in range(appends):
        n0 = len(events)
        t = time.perf_counter()
        append(path, lines.take(1))
        with seen:
            ok = seen.wait_for(lambda: any(any(p.startswith(session_dir) for p in ps) for _, ps in events[n0:]), 30)
        if ok:
            done = next(ts for ts, ps in events[n0:] if any(p.startswith(session_dir) for p in ps))
            lat.append(done - t)
        time.sleep(0.3)
    stop.set()
    th.join(30)
    lat.sort()
    p95 = lat[min(len(lat) - 1, int(round(0.95 * (len(lat) - 1))))] if lat else None
    return {"session_mb": round(path.stat().st_size / 1e6, 1), "appends": appends, "measured": len(lat),
            "append_to_written_median_ms": round(statistics.median(lat) * 1000, 1) if lat else None,
            "append_to_written_p95_ms": round(p95 * 1000, 1) if p95 else None,
            "build_median_ms": round(statistics.median(builds[1:]) * 1000, 1) if len(builds) > 1 else None}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["nochange", "append", "watch", "all"])
    p.add_argument("--work", type=Path, default=Path("/tmp/incr-bench"))
    p.add_argument("--mb", type=float, default=220.0, help="size of the many-sessions home (≈ 1,000 sessions at 220)")
    p.add_argument("--giant", default="50,500", help="giant session sizes in MB, comma-separated")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--appends", type=int, default=20)
    p.add_argument("--compare", help="claude-code-log (or other) command to time after the same append")
    p.add_argument("--keep", action="store_true", help="keep the homes and sites under --work")
    a = p.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    giants = [float(x) for x in a.giant.split(",") if x]
    report: dict = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    try:
        if a.what in ("nochange", "all"):
            report["nochange"] = bench_nochange(a.work, a.mb, a.repeat)
            print(json.dumps(report["nochange"]), file=sys.stderr)
        if a.what in ("append", "all"):
            report["append"] = []
            for g in giants:
                report["append"].append(bench_append(a.work, g, a.repeat, a.compare))
                print(json.dumps(report["append"][-1]), file=sys.stderr)
        if a.what in ("watch", "all"):
            report["watch"] = [bench_watch(a.work, g, a.appends) for g in giants]
            print(json.dumps(report["watch"]), file=sys.stderr)
    finally:
        if not a.keep:
            shutil.rmtree(a.work, ignore_errors=True)
    report["load_average_end"] = os.getloadavg()
    (ROOT / "benchmarks" / "out").mkdir(parents=True, exist_ok=True)
    (ROOT / "benchmarks" / "out" / "incremental.json").write_text(json.dumps(report, indent=2))
    print(table(report))


def table(r: dict) -> str:
    rows = ["| measurement | figure |", "|---|---|"]
    if "nochange" in r:
        n = r["nochange"]
        rows.append(f"| no-change rebuild, {n['sessions']:,} sessions / {n['transcripts']:,} transcripts ({n['mb']:g} MB) | "
                    f"{n['nochange_in_process_s']:.3f} s in process (CPU {n['nochange_in_process_cpu_s']:.3f} s), "
                    f"{n['nochange_cli_s']:.2f} s as a command (CPU {n['nochange_cli_cpu_s']:.2f} s); 0 files written "
                    f"(cold build {n['cold_build_s']:.1f} s) |")
    for g in r.get("append", []):
        rows.append(f"| append 10 lines to a {g['session_mb']:g} MB session, incremental build | "
                    f"{g['append10_in_process_ms']:.0f} ms in process (CPU {g['append10_in_process_cpu_ms']:.0f} ms), "
                    f"{g['append10_cli_ms']:.0f} ms as a command (CPU {g['append10_cli_cpu_ms']:.0f} ms); "
                    f"≤ {g['files_written']} files written; claude-code-log: {g['claude_code_log']} |")
    for w in r.get("watch", []):
        rows.append(f"| watch, {w['session_mb']:g} MB session, append → pages written ({w['measured']}/{w['appends']} appends) | "
                    f"median {w['append_to_written_median_ms']} ms, p95 {w['append_to_written_p95_ms']} ms "
                    f"(build alone: median {w['build_median_ms']} ms) |")
    rows.append(f"| load average during the run (2 CPUs shared with other agents) | {', '.join(f'{x:.1f}' for x in r['load_average'])} |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
