#!/usr/bin/env python3
"""ccreport against claude-code-log and claude-code-transcripts: speed and memory at scale.

One command, from a clean clone (needs python3 ≥ 3.10, /usr/bin/time and network access to PyPI):

    python3 benchmarks/run.py                 # full size: four home shapes (SHAPES: 40 MB of small
                                              # sessions, 150 MB, 300 MB, one 1 GB session)
    python3 benchmarks/run.py --scale 0.05    # a quick run, every home 1/20 of its size
    python3 benchmarks/run.py --homes m150,m300 --tools ccreport   # a subset

What it does, in order:

1. makes the homes (SHAPES) with ../shared/bench/scale_home.py from the real corpus (kept under
   benchmarks/out/homes/ and reused when they already exist with the same size and seed);
2. installs each tool in its own venv under benchmarks/out/ (ccreport editable from this checkout,
   ccreport@efcd8e6 — the code of one round ago, from this repository's history by `git archive` —
   and claude-code-log and claude-code-transcripts at the pinned versions);
3. measures a parse-only floor (read every line of every JSONL file + orjson.loads) in the
   ccreport venv;
4. runs every tool cold (fresh output folder, claude-code-log's cache database deleted) on each
   home, rounds alternating the tool order, recording wall time, peak RSS (/usr/bin/time -v: the
   largest single process) and the peak of the whole process tree (sampled from /proc every
   50 ms, so worker pools count in full), output bytes and files; a run past its timeout or its
   memory limit is killed and recorded as "did not finish";
5. writes benchmarks/results.md (machine, table, targets met or not), results.json (raw runs)
   and results.svg (bar chart, drawn here without a plotting library).

Linux only (/proc, /usr/bin/time). Nothing here opens a browser or touches ~/.claude: every tool
runs with HOME pointing at an empty folder under benchmarks/out/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"

PEERS = {
    # name: (pip requirement, console script)
    "claude-code-log": ("claude-code-log==1.7.0", "claude-code-log"),
    "claude-code-transcripts": ("claude-code-transcripts==0.6", "claude-code-transcripts"),
}
# The code of one round ago, built side by side ("Speed, third round": the CPU at --jobs 1 with
# every feature on at most 1.25x this commit's), installed from this repository's history.
BASELINE = "efcd8e6"
BASE_TOOL = f"ccreport@{BASELINE}"
TOOLS = ("ccreport", "claude-code-log", "claude-code-transcripts", BASE_TOOL)
PEER_TOOLS = tuple(PEERS)
BASE_CPU_BOUND = 1.25
# MB of JSONL per second of wall time on an idle 2-core machine, per (tool, home kind): used only
# for the up-front duration estimate. Derived from CPU seconds measured at --scale 0.05 (ccreport
# with --jobs 2 on many sessions; one process on the giant session; claude-code-log uses both
# cores on many projects). A busy machine is slower by its load.
GUESS_MBPS = {(BASE_TOOL, "many"): 30.0, (BASE_TOOL + "-j1", "many"): 20.0, (BASE_TOOL, "giant"): 20.0,
              (BASE_TOOL + "-j1", "giant"): 20.0, ("ccreport", "many"): 30.0, ("ccreport-j1", "many"): 18.0, ("ccreport", "giant"): 20.0,
              ("ccreport-j1", "giant"): 20.0, ("claude-code-log", "many"): 1.8, ("claude-code-log", "giant"): 1.4,
              ("claude-code-transcripts", "many"): 3.2, ("claude-code-transcripts", "giant"): 4.0,
              ("parse-floor", "many"): 150.0, ("parse-floor", "giant"): 150.0}


# --- small helpers -----------------------------------------------------------------------------
def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sh(cmd: list, quiet: bool = False) -> None:
    """Run a setup command; with quiet, its chatter (pip's index warnings…) shows only on failure."""
    r = subprocess.run([str(c) for c in cmd], capture_output=quiet, text=True)
    if r.returncode:
        if quiet:
            sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit(f"bench: failed ({r.returncode}): {' '.join(str(c) for c in cmd)}")


def tree_size(root: Path) -> tuple[int, int, int]:
    """(bytes, files, html bytes) under root."""
    total = files = html = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            try:
                size = os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                continue
            total += size
            files += 1
            if n.endswith(".html"):
                html += size
    return total, files, html


def jsonl_bytes(home: Path) -> tuple[int, int]:
    total = n = 0
    for p in (home / "projects").rglob("*.jsonl"):
        total += p.stat().st_size
        n += 1
    return total, n


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = int(line.split()[1]) * 1024
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(ram / 2**30, 1),
            "python": platform.python_version(), "kernel": platform.release(),
            "load_at_start": os.getloadavg()}


# --- process-tree memory --------------------------------------------------------------------------
_PAGE = os.sysconf("SC_PAGE_SIZE")


def session_rss(sid: int, skip: int) -> int:
    """Sum of resident memory of every process in session ``sid`` (except pid ``skip``)."""
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == skip:
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as fh:
                stat = fh.read()
            # fields after the ")" that closes the command name: state ppid pgrp session …
            fields = stat[stat.rindex(b")") + 2:].split()
            if int(fields[3]) != sid:
                continue
            with open(f"/proc/{d}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            continue
    return total


@dataclass
class Run:
    tool: str
    home: str
    variant: str  # "" or e.g. "jobs=1"
    round: int
    ok: bool
    status: str  # "ok", "exit N", "timeout after N s", "killed: tree RSS over N MB"
    wall: float
    max_rss: int  # bytes, largest single process (/usr/bin/time -v)
    tree_rss: int  # bytes, largest sum over the process tree (sampled)
    cpu: float = 0.0  # user + system seconds of the tool and its children (/usr/bin/time -v)
    out_bytes: int = 0
    out_files: int = 0
    html_bytes: int = 0
    stderr_tail: str = ""


def measure(cmd: list, env: dict, timeout: float, mem_limit: int, workdir: Path) -> tuple:
    """Run cmd under /usr/bin/time -v; returns (status, ok, wall, max_rss, tree_rss, cpu, stderr tail)."""
    timef = workdir / "time.txt"
    errf = workdir / "stderr.txt"
    with open(errf, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-v", "-o", str(timef)] + [str(c) for c in cmd], env=env,
                             stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                             start_new_session=True, cwd=workdir)
        peak, status = 0, None
        while p.poll() is None:
            rss = session_rss(p.pid, p.pid)
            peak = max(peak, rss)
            elapsed = time.perf_counter() - t0
            if elapsed > timeout:
                status = f"timeout after {timeout:.0f} s"
            elif mem_limit and rss > mem_limit:
                status = f"killed: tree RSS over {mem_limit / 1e6:.0f} MB"
            if status:
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # the session we started, by its id
                except ProcessLookupError:
                    pass
                p.wait()
                break
            time.sleep(0.05)
        wall = time.perf_counter() - t0
    max_rss, cpu = 0, 0.0
    try:
        for line in timef.read_text().splitlines():
            if "Maximum resident set size" in line:
                max_rss = int(line.rsplit(":", 1)[1]) * 1024
            elif "User time (seconds)" in line or "System time (seconds)" in line:
                cpu += float(line.rsplit(":", 1)[1])
    except (OSError, ValueError):
        pass
    tail = errf.read_text(errors="replace")[-600:]
    if status is None:
        status = "ok" if p.returncode == 0 else f"exit {p.returncode}"
    # ccreport exits 1 when some input was bad but the site was built; count that as finished.
    ok = status == "ok" or (status == "exit 1" and cmd and "ccreport" in str(cmd[0]))
    return status, ok, wall, max(max_rss, 0), max(peak, max_rss), cpu, tail


# --- setup -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shape:
    """One home shape: how scale_home.py makes it, and which targets apply."""

    kind: str  # "many" (many sessions) or "giant" (one big session): the targets differ
    mb: float  # size at scale 1
    seed: int
    label: str
    small_only: bool = False  # cloned from the corpus' small sessions only


# The home shapes that matter: many small sessions, two scale_home.py homes of mixed sessions (150
# and 300 MB, the flags and seeds of the measurements in docs/benchmarks.md), and one big session.
SHAPES = {
    "small": Shape("many", 40, 7, "many small sessions (each < 200 KB)", small_only=True),
    "m150": Shape("many", 150, 11, "scale_home.py --mb 150 --seed 11"),
    "m300": Shape("many", 300, 3, "scale_home.py --mb 300 --seed 3"),
    "giant": Shape("giant", 1000, 1, "one big session (scale_home.py --giant-mb)"),
}
SMALL_SESSION = 200_000  # bytes of a main transcript, sub-agents included, for the "small" shape


def small_source(src: Path, dest: Path) -> Path:
    """A copy of ``src`` holding only its sessions under SMALL_SESSION bytes (with their sub-agents)."""
    if (dest / ".complete").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    for project in sorted((src / "projects").iterdir()):
        if not project.is_dir():
            continue
        for main in sorted(project.glob("*.jsonl")):
            side = project / main.stem
            extra = [f for f in side.rglob("*") if f.is_file()] if side.is_dir() else []
            size = main.stat().st_size + sum(f.stat().st_size for f in extra)
            if main.name.startswith("agent-") or not 0 < size < SMALL_SESSION:
                continue
            for f in [main] + extra:
                target = dest / "projects" / project.name / f.relative_to(project)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, target)
    (dest / ".complete").write_text("ok\n")
    return dest


def make_home(name: str, shape: Shape, mb: float, seed: int, homes: Path, src: Path, shared: Path) -> Path:
    dest = homes / f"{name}-{mb:g}mb-seed{seed}"
    done = dest / ".complete"
    if done.exists():
        log(f"reusing {dest}")
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    if shape.small_only:
        src = small_source(src, homes / "src-small")
    args = (["--mb", f"{mb:g}", "--seed", str(seed)] if shape.kind == "many"
            else ["--mb", "0", "--giant-mb", f"{mb:g}", "--seed", str(seed)])
    log(f"making {dest} ({shape.label}, {mb:g} MB)")
    sh([sys.executable, shared / "bench" / "scale_home.py", src, dest] + args)
    done.write_text("ok\n")
    return dest


def venv(out: Path, name: str, reqs: list[str], editable: Path | None = None) -> Path:
    d = out / f"venv-{name}"
    py = d / "bin" / "python"
    if not py.exists():
        log(f"creating venv {d}")
        sh([sys.executable, "-m", "venv", d])
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if editable is not None:
        sh(pip + ["-e", editable] + reqs, quiet=True)
        # pip byte-compiles what it installs (the peers' wheels), not an editable checkout: compiled
        # here, ccreport does not pay ~0.1 s per run compiling itself (PYTHONDONTWRITEBYTECODE set).
        sh([d / "bin" / "python", "-m", "compileall", "-q", editable / "ccreport"], quiet=True)
    else:
        sh(pip + reqs, quiet=True)
    return d


def baseline_source(out: Path) -> Path:
    """BASELINE's files, from this repository's history (git archive), under out/."""
    dest = out / f"src-{BASELINE}"
    if not (dest / "pyproject.toml").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", REPO, "archive", BASELINE], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return dest


def version_of(vdir: Path, dist: str) -> str:
    r = subprocess.run([vdir / "bin" / "python", "-c",
                        f"import importlib.metadata as m; print(m.version({dist!r}))"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "?"


FLOOR = r"""
import os, sys, time, orjson
root = sys.argv[1]
t0 = time.perf_counter(); n = lines = bad = 0
for dp, _, names in os.walk(root):
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(dp, name), "rb") as fh:
            for line in fh:
                n += len(line); lines += 1
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    bad += 1
print(orjson.dumps({"seconds": time.perf_counter() - t0, "bytes": n, "lines": lines, "bad": bad}).decode())
"""


def parse_floor(vdir: Path, home: Path, timeout: float) -> dict:
    r = subprocess.run([vdir / "bin" / "python", "-c", FLOOR, home / "projects"], capture_output=True,
                       text=True, timeout=timeout, check=True)
    return json.loads(r.stdout)


def settle(seconds: float) -> None:
    """Let the file system write back before the next run starts.

    ext4 without a journal (this machine's) skips inodes freed in the last 5 s (300 s while their
    inode table block is dirty) when it allocates new ones, and every skip costs a buffer lookup:
    creating files right after deleting a site of thousands of files measured 0.4-0.7 ms per file
    instead of 0.1 ms, and the CPU seconds of the same ccreport build went from 19.7 to 32.4 s. So
    no site is deleted while the benchmark runs (each run writes a fresh folder; the next benchmark
    deletes them and waits --fs-quiet seconds first), and each run starts after a sync and a pause:
    no tool pays for another's files."""
    os.sync()
    time.sleep(seconds)
    os.sync()


# --- the commands ------------------------------------------------------------------------------------
def command(tool: str, vdir: Path, home: Path, out: Path, jobs: int | None) -> list:
    bin_ = vdir / "bin"
    if tool in ("ccreport", BASE_TOOL):
        cmd = [bin_ / "ccreport", "build", "--home", home, "--out", out, "--quiet"]
        return cmd + (["--jobs", str(jobs)] if jobs else [])
    if tool == "claude-code-log":
        # The whole projects folder, every project, HTML (its default: per-session pages plus a
        # combined transcript per project and an index). No browser: --open-browser is not given.
        return [bin_ / "claude-code-log", home / "projects", "--all-projects", "-o", out]
    if tool == "claude-code-transcripts":
        # `all` builds the browsable archive (index → projects → sessions); agent files included
        # so it reads the same bytes as the other two.
        return [bin_ / "claude-code-transcripts", "all", "-s", home / "projects", "-o", out, "-q", "--include-agents"]
    raise ValueError(tool)


def clean_caches(home: Path) -> None:
    # claude-code-log keeps an SQLite cache beside the projects; a cold run starts without it.
    for p in (home / "projects").glob("claude-code-log-cache.db*"):
        p.unlink()


# --- report ------------------------------------------------------------------------------------------
def med(xs):
    return statistics.median(xs) if xs else None


def summarize(runs: list[Run], tool: str, home: str, variant: str = "") -> dict | None:
    rs = [r for r in runs if r.tool == tool and r.home == home and r.variant == variant]
    if not rs:
        return None
    ok = [r for r in rs if r.ok]
    return {"runs": len(rs), "finished": len(ok), "status": sorted({r.status for r in rs}),
            "wall": med([r.wall for r in ok]), "wall_min": min((r.wall for r in ok), default=None),
            "wall_max": max((r.wall for r in ok), default=None), "cpu": med([r.cpu for r in ok]),
            "max_rss": max((r.max_rss for r in ok), default=None), "tree_rss": max((r.tree_rss for r in ok), default=None),
            "out_bytes": med([r.out_bytes for r in ok]), "out_files": med([r.out_files for r in ok]),
            "html_bytes": med([r.html_bytes for r in ok]),
            "dnf_wall": max((r.wall for r in rs if not r.ok), default=None),
            "dnf_tree_rss": max((r.tree_rss for r in rs if not r.ok), default=None)}


def fmt_s(x):
    return "—" if x is None else f"{x:.2f} s"


def fmt_mb(x):
    return "—" if x is None else f"{x / 1e6:,.0f} MB" if x >= 10e6 else f"{x / 1e6:.1f} MB"


def write_report(data: dict, md: Path, svg: Path) -> list[str]:
    runs = [Run(**r) for r in data["runs"]]
    m = data["machine"]
    lines = ["# Benchmark results", "",
             f"Generated by `{data['command']}` on {data['date']} (scale {data['scale']:g}).", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM, Python {m['python']}, "
             f"Linux {m['kernel']}; load average at start {m['load_at_start'][0]:.2f}.", "",
             "Tools: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()) + ".", "",
             "Every run is cold: a fresh output folder (and claude-code-log's cache database deleted); "
             "no site is deleted while the benchmark runs (the next benchmark deletes them, then waits "
             f"{data.get('fs_quiet', 300):g} s) and each run starts after a sync and a "
             f"{data.get('settle', 6.0):g} s pause (`settle()`: ext4 here makes file creation slow for minutes "
             "after many deletions, so each tool would pay for the files of the run before it). "
             f"Times are medians of the finished runs; rounds alternate the tool order. Peak RSS is the "
             "largest single process (`/usr/bin/time -v`); tree RSS is the peak of the whole process tree "
             "sampled every 50 ms (what a pool of workers really costs). Ratio = tool time / ccreport time. "
             "CPU is user + system seconds of the tool and all its processes: on a busy machine it is the "
             "steadier figure (a single-process tool's wall time can never beat its CPU time; a pool's can).", ""]
    verdicts = []
    for h in data["homes"]:
        name = h["name"]
        jb = h["jsonl_bytes"]
        fl = h["floor"]
        lines += [f"## {name}: {jb / 1e6:,.1f} MB of JSONL in {h['jsonl_files']} files", "",
                  *([f"Home: {h['shape']}.", ""] if h.get("shape") else []),
                  f"Parse-only floor (read + orjson.loads of every line, one process): {fl['seconds']:.2f} s = "
                  f"{jb / 1e6 / fl['seconds']:.0f} MB/s.", "",
                  "| tool | runs done | wall (median) | min–max | MB/s | ratio vs ccreport | CPU (user+sys) | CPU ratio | peak RSS (1 proc) | tree RSS | output | files | output / JSONL |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        base = summarize(runs, "ccreport", name)
        for tool, variant in [("ccreport", ""), ("ccreport", "jobs=1"), (BASE_TOOL, ""), (BASE_TOOL, "jobs=1")] + [
                (t, "") for t in PEER_TOOLS]:
            s = summarize(runs, tool, name, variant)
            if s is None:
                continue
            label = tool + (f" ({variant})" if variant else "")
            if s["wall"] is None:
                lines.append(f"| {label} | 0/{s['runs']} | did not finish ({', '.join(s['status'])}) | — | — | — | — | — | — | "
                             f"≥ {fmt_mb(s['dnf_tree_rss'])} | — | — | — |")
                continue
            ratio = f"{s['wall'] / base['wall']:.1f}×" if base and base["wall"] else "—"
            cratio = f"{s['cpu'] / base['cpu']:.1f}×" if base and base["wall"] and base["cpu"] else "—"
            lines.append(f"| {label} | {s['finished']}/{s['runs']} | {fmt_s(s['wall'])} | {s['wall_min']:.2f}–{s['wall_max']:.2f} | "
                         f"{jb / 1e6 / s['wall']:.1f} | {ratio} | {s['cpu']:.2f} s | {cratio} | {fmt_mb(s['max_rss'])} | {fmt_mb(s['tree_rss'])} | "
                         f"{fmt_mb(s['out_bytes'])} | {s['out_files']:,.0f} | {s['out_bytes'] / jb:.2f}× |")
        lines.append("")
        j1 = summarize(runs, "ccreport", name, "jobs=1")
        if base and base["wall"]:
            verdicts += _speed_verdicts(runs, h, base, j1)
            verdicts += _baseline_verdict(runs, name, j1)
            verdicts.append((f"peak RSS ≤ 200 MB ({name})", base["tree_rss"] <= 200e6,
                             f"tree {fmt_mb(base['tree_rss'])}, largest process {fmt_mb(base['max_rss'])}"))
            verdicts.append((f"output ≤ 1.5× JSONL ({name})", base["out_bytes"] <= 1.5 * jb,
                             f"{base['out_bytes'] / jb:.2f}× ({fmt_mb(base['out_bytes'])} for {fmt_mb(jb)}; HTML alone "
                             f"{base['html_bytes'] / jb:.2f}×)"))
            if j1 and j1["wall"]:
                sp = j1["wall"] / base["wall"]
                verdicts.append((f"--jobs 1 → {data['jobs']} speed-up ({name})", sp > 1.2 if h["kind"] == "many" else None,
                                 f"{sp:.2f}× ({j1['wall']:.2f} s → {base['wall']:.2f} s)"
                                 + ("; one session is one process, so no speed-up is expected here" if h["kind"] == "giant" else "")))
            verdicts.append((f"throughput beside the parse floor ({name})", None,
                             f"{jb / 1e6 / base['wall']:.1f} MB/s vs floor {jb / 1e6 / fl['seconds']:.0f} MB/s "
                             f"({fl['seconds'] / base['wall'] * 100:.0f}% of the floor's speed)"))
    lines += ["## Targets", "", "| target | met | measured |", "|---|---|---|"]
    for what, met, detail in verdicts:
        lines.append(f"| {what} | {'—' if met is None else 'yes' if met else 'NO'} | {detail} |")
    lines += ["", "![benchmark chart](results.svg)", ""]
    if data["scale"] != 1:
        lines += [f"_Scaled run ({data['scale']:g}): the targets are defined for the full-size homes; "
                  "run without --scale for the real figures._", ""]
    md.write_text("\n".join(lines))
    svg.write_text(chart(data, runs))
    return [f"{'—' if met is None else 'MET' if met else 'NOT MET'}: {what}: {detail}" for what, met, detail in verdicts]


def _speed_verdicts(runs: list[Run], h: dict, base: dict, j1: dict | None) -> list[tuple]:
    """The speed targets on one home ("Speed, third round"): ≥ 4× the faster peer by wall time
    (default jobs), ≥ 3× by CPU seconds at --jobs 1, and where the home asks for it a per-core
    throughput at --jobs 1."""
    name, jb = h["name"], h["jsonl_bytes"]
    peers = [(t, summarize(runs, t, name)) for t in PEER_TOOLS]
    finished = [(t, p) for t, p in peers if p and p["wall"]]
    out = []
    if finished:
        t, p = min(finished, key=lambda tp: tp[1]["wall"])
        r = p["wall"] / base["wall"]
        out.append((f"cold build ≥ 4× faster than the faster peer ({name})", r >= 4,
                    f"{r:.1f}× ({t} {p['wall']:.2f} s vs ccreport {base['wall']:.2f} s)"))
        if j1 and j1["cpu"]:
            t, p = min(finished, key=lambda tp: tp[1]["cpu"])
            r = p["cpu"] / j1["cpu"]
            out.append((f"≥ 3× less CPU than the leaner peer at --jobs 1 ({name})", r >= 3,
                        f"{r:.1f}× ({t} {p['cpu']:.2f} CPU s vs ccreport --jobs 1 {j1['cpu']:.2f} CPU s)"))
    elif any(p for _, p in peers):
        out.append((f"cold build ≥ 4× faster than the faster peer ({name})", True, "no peer finished within its limits"))
    want = h.get("mbps_target")
    if want and j1 and j1["cpu"]:
        mbps = jb / 1e6 / j1["cpu"]
        out.append((f"≥ {want:g} MB/s per core at --jobs 1 ({name})", mbps >= want,
                    f"{mbps:.1f} MB/s ({jb / 1e6:.0f} MB in {j1['cpu']:.2f} CPU s; parse floor "
                    f"{jb / 1e6 / h['floor']['seconds']:.0f} MB/s)"))
    return out


def _baseline_verdict(runs: list[Run], name: str, j1: dict | None) -> list[tuple]:
    """CPU at --jobs 1, every feature on, against the code of one round ago on the same home."""
    was = summarize(runs, BASE_TOOL, name, "jobs=1")
    if not (j1 and j1["cpu"] and was and was["cpu"]):
        return []
    r = j1["cpu"] / was["cpu"]
    return [(f"CPU at --jobs 1 ≤ {BASE_CPU_BOUND:g}× {BASELINE}'s ({name})", r <= BASE_CPU_BOUND,
             f"{r:.2f}× ({j1['cpu']:.2f} CPU s vs {was['cpu']:.2f})")]


def chart(data: dict, runs: list[Run]) -> str:
    """Two panels per home (wall time, tree RSS), one bar per tool; plain SVG."""
    colors = {"ccreport": "#2f7d32", "ccreport (jobs=1)": "#81c784", "claude-code-log": "#c0504d",
              "claude-code-transcripts": "#4f81bd", BASE_TOOL: "#9e9e9e", f"{BASE_TOOL} (jobs=1)": "#cfcfcf"}
    series = [("ccreport", ""), ("ccreport", "jobs=1"), (BASE_TOOL, ""), (BASE_TOOL, "jobs=1"), ("claude-code-log", ""),
              ("claude-code-transcripts", "")]
    panels = []
    for h in data["homes"]:
        for metric, unit, key in (("wall time", "s", "wall"), ("CPU time (user+sys, all processes)", "s", "cpu"),
                                  ("peak memory (tree)", "MB", "tree_rss")):
            bars = []
            for tool, variant in series:
                s = summarize(runs, tool, h["name"], variant)
                if s is None:
                    continue
                label = tool + (f" ({variant})" if variant else "")
                v = s[key]
                dnf = v is None
                if dnf:
                    v = {"wall": s["dnf_wall"], "tree_rss": s["dnf_tree_rss"]}.get(key)
                v = (v or 0) / (1e6 if unit == "MB" else 1)
                bars.append((label, v, dnf))
            panels.append((f"{h['name']}: {metric}", unit, bars))
    W, bar_h, gap, left = 760, 22, 6, 220
    y = 40
    out = []
    for title, unit, bars in panels:
        out.append(f'<text x="10" y="{y}" font-weight="bold">{_x(title)}</text>')
        y += 10
        top = max([b[1] for b in bars] + [1e-9])
        for label, v, dnf in bars:
            w = max(1, (W - left - 140) * v / top)
            out.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{_x(label)}</text>')
            out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colors.get(label, "#888")}"'
                       + (' fill-opacity="0.35" stroke="#000" stroke-dasharray="4 2"' if dnf else "") + "/>")
            txt = f"{v:,.1f} {unit}" if v < 100 else f"{v:,.0f} {unit}"
            out.append(f'<text x="{left + w + 6:.1f}" y="{y + 15}">{_x(("≥ " + txt + " (did not finish)") if dnf else txt)}</text>')
            y += bar_h + gap
        y += 24
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{y}" viewBox="0 0 {W} {y}" '
            'font-family="sans-serif" font-size="13">'
            f'<rect width="{W}" height="{y}" fill="#fff"/>'
            f'<text x="10" y="20" font-size="15" font-weight="bold">ccreport vs peers, cold builds '
            f'(scale {data["scale"]:g}; shorter is better)</text>')
    return head + "".join(out) + "</svg>\n"


def _x(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- main --------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every home size (0.05 for a quick run)")
    ap.add_argument("--giant-mb", type=float, default=SHAPES["giant"].mb, help="size of the one-session home at scale 1")
    ap.add_argument("--runs", type=int, default=3, help="runs of ccreport on the many-sessions home (median reported)")
    ap.add_argument("--peer-runs", type=int, default=2, help="runs of each peer on the many-sessions home")
    ap.add_argument("--giant-runs", type=int, default=2, help="runs of ccreport on the giant home")
    ap.add_argument("--giant-peer-runs", type=int, default=1, help="runs of each peer on the giant home (they are slow)")
    ap.add_argument("--no-giant-jobs1", action="store_true",
                    help="skip ccreport --jobs 1 on the giant home (one session is one process anyway)")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds before a run is killed (many-sessions home)")
    ap.add_argument("--giant-timeout", type=float, default=300.0, help="seconds before a run is killed (giant home)")
    ap.add_argument("--mem-limit-mb", type=float, default=8000.0, help="kill a run whose process tree passes this RSS")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="ccreport --jobs for its main runs")
    ap.add_argument("--fs-quiet", type=float, default=300.0,
                    help="seconds to wait after deleting the last benchmark's sites (ext4: see settle())")
    ap.add_argument("--settle", type=float, default=6.0,
                    help="seconds to wait (after a sync) between deleting a site and the next run (see settle())")
    ap.add_argument("--no-jobs1", action="store_true", help="skip the ccreport --jobs 1 runs")
    ap.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset of " + ",".join(TOOLS))
    ap.add_argument("--homes", default=",".join(SHAPES), help="comma-separated subset of " + ",".join(SHAPES)
                    + ": " + "; ".join(f"{k} = {v.label}, {v.mb:g} MB" for k, v in SHAPES.items()))
    ap.add_argument("--seed", type=int, default=None, help="override every shape's seed")
    ap.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (bench/scale_home.py, corpus/real)")
    ap.add_argument("--src", type=Path, default=None, help="the Claude home that is cloned (default: SHARED/corpus/real)")
    ap.add_argument("--out", type=Path, default=HERE / "out", help="working folder (homes, venvs, sites)")
    ap.add_argument("--results", type=Path, default=HERE, help="where results.md/.json/.svg go")
    ap.add_argument("--budget-min", type=float, default=30.0,
                    help="after this many minutes of runs, repeats are skipped (every tool still gets its first run on every home)")
    ap.add_argument("--report-only", action="store_true", help="rewrite results.md/.svg from results.json and stop")
    ap.add_argument("--estimate-only", action="store_true", help="print the duration estimate and stop")
    a = ap.parse_args()
    tools = [t for t in a.tools.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            ap.error(f"unknown tool {t}")
    kinds = [k for k in a.homes.split(",") if k]
    for k in kinds:
        if k not in SHAPES:
            ap.error(f"unknown home shape {k} (known: {', '.join(SHAPES)})")
    shape_of = {k: SHAPES[k] for k in kinds}
    sizes = {k: (a.giant_mb if k == "giant" else SHAPES[k].mb) * a.scale for k in kinds}
    many = {k for k in kinds if shape_of[k].kind == "many"}

    plan = []  # (kind, tool, variant, runs, timeout)
    for kind in kinds:
        timeout = a.timeout if kind in many else a.giant_timeout
        for t in tools:
            if t in ("ccreport", BASE_TOOL):
                runs = a.runs if kind in many else a.giant_runs
            else:
                runs = a.peer_runs if kind in many else a.giant_peer_runs
            plan.append((kind, t, "", runs, timeout))
        for t in ("ccreport", BASE_TOOL):
            if t in tools and not a.no_jobs1 and a.jobs > 1 and (kind in many or not a.no_giant_jobs1):
                plan.append((kind, t, "jobs=1", a.runs if kind in many else 1, timeout))

    def estimate(rates: dict) -> tuple[float, float]:
        # Worst case: a tool that does not finish is not run again on that home, and repeats are
        # capped at 3× the first run's time, so each (home, tool) costs at most one timeout plus
        # its repeats.
        exp = worst = 0.0
        for kind, t, variant, runs, timeout in plan:
            key = t + ("-j1" if variant else "")
            one = min(timeout, sizes[kind] / rates[(key, shape_of[kind].kind)] + 1.5)
            exp += runs * one
            worst += timeout + (runs - 1) * min(timeout, 3 * one)
        floors = sum(2 * sizes[k] / rates[("parse-floor", shape_of[k].kind)] + 1 for k in kinds)
        homes = sum(sizes.values()) / 40.0  # scale_home.py writes ~40 MB/s (UUID rewriting)
        return exp + floors + homes + 90, worst + floors + homes + 90  # + ~90 s of venv installs

    if a.report_only:
        data = json.loads((a.results / "results.json").read_text())
        for v in write_report(data, a.results / "results.md", a.results / "results.svg"):
            print("  " + v)
        return 0

    exp, worst = estimate(GUESS_MBPS)
    log(f"plan: homes {', '.join(f'{k} {sizes[k]:g} MB' for k in kinds)}; tools {', '.join(tools)}; "
        f"{sum(p[3] for p in plan)} timed runs")
    log(f"estimated duration on an idle machine: ~{exp / 60:.0f} min (each run capped by its timeout: at most "
        f"{worst / 60:.0f} min; a busy machine is slower by its load, now {os.getloadavg()[0]:.1f})")
    if a.estimate_only:
        return 0

    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    a.results.mkdir(parents=True, exist_ok=True)
    fake_home = out / "fake-user-home"
    fake_home.mkdir(exist_ok=True)
    src = (a.src or a.shared / "corpus" / "real").resolve()
    homes = {k: make_home(k, shape_of[k], sizes[k], shape_of[k].seed if a.seed is None else a.seed, out / "homes", src,
                          a.shared.resolve()) for k in kinds}

    venvs = {}
    versions = {}
    # ccreport's venv always exists: the parse floor runs in it (it has orjson).
    venvs["ccreport"] = venv(out, "ccreport", [], editable=REPO)
    versions["ccreport"] = version_of(venvs["ccreport"], "ccreport") + " (this checkout)"
    for t in tools:
        if t in PEERS:
            venvs[t] = venv(out, t, [PEERS[t][0]])
            versions[t] = version_of(venvs[t], t)
        elif t == BASE_TOOL:
            venvs[t] = venv(out, t, [], editable=baseline_source(out))
            versions[t] = version_of(venvs[t], "ccreport") + f" (commit {BASELINE})"
    log("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))

    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_HOME", "CLAUDE_CONFIG_DIR", "BROWSER")}
    env.update(HOME=str(fake_home), BROWSER="true", PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")
    data = {"command": "python3 benchmarks/run.py " + " ".join(sys.argv[1:]), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "scale": a.scale, "machine": machine(), "versions": versions, "jobs": a.jobs, "settle": a.settle, "fs_quiet": a.fs_quiet, "homes": [], "runs": []}
    t_start = time.perf_counter()
    sites = out / "sites"
    if sites.exists():
        # Left by the last benchmark. Deleting thousands of files makes file creation slow here for
        # up to 5 minutes (see settle()): delete them, then wait that out before the first run.
        shutil.rmtree(sites, ignore_errors=True)
        log(f"deleted the sites of the last benchmark; waiting {a.fs_quiet:g} s for the file system (see settle())")
        os.sync()
        time.sleep(a.fs_quiet)
    for kind in kinds:
        home = homes[kind]
        jb, nfiles = jsonl_bytes(home)
        log(f"{kind}: {jb / 1e6:.1f} MB of JSONL in {nfiles} files; parse floor…")
        parse_floor(venvs["ccreport"], home, 600)  # once untimed: the page cache is warm for everyone
        fl = parse_floor(venvs["ccreport"], home, 600)
        log(f"  floor {fl['seconds']:.2f} s ({jb / 1e6 / fl['seconds']:.0f} MB/s)")
        name = f"{kind} ({sizes[kind]:g} MB)"
        data["homes"].append({"name": name, "kind": shape_of[kind].kind, "shape": shape_of[kind].label, "jsonl_bytes": jb,
                              "jsonl_files": nfiles, "floor": fl, "mbps_target": 90 if kind == "m300" else None})
        entries = [p for p in plan if p[0] == kind]
        gave_up: set = set()  # (tool, variant) that did not finish here: not run again on this home
        first_wall: dict = {}
        rounds = max(p[3] for p in entries)
        for rnd in range(rounds):
            order = entries[rnd % len(entries):] + entries[: rnd % len(entries)]  # rotate: alternate who goes first
            for _, tool, variant, runs, timeout in order:
                key = (tool, variant)
                if rnd >= runs or key in gave_up:
                    continue
                if rnd > 0 and time.perf_counter() - t_start > a.budget_min * 60:
                    log(f"  round {rnd + 1} {tool}{' ' + variant if variant else ''}: skipped (over the {a.budget_min:g} min budget)")
                    continue
                if key in first_wall:  # repeats: bounded by the first run, so one slow tool cannot eat the budget
                    timeout = min(timeout, max(60.0, 3 * first_wall[key]))
                # A fresh folder per run, deleted only when the whole benchmark is over (see settle()).
                site = sites / f"{kind}-{tool}{'-j1' if variant else ''}-r{rnd + 1}"
                if site.exists():
                    shutil.rmtree(site)
                site.parent.mkdir(parents=True, exist_ok=True)
                clean_caches(home)
                settle(a.settle)
                jobs = 1 if variant == "jobs=1" else a.jobs
                cmd = command(tool, venvs[tool], home, site, jobs if tool in ("ccreport", BASE_TOOL) else None)
                work = out / "work"
                work.mkdir(exist_ok=True)
                status, ok, wall, max_rss, tree_rss, cpu, tail = measure(cmd, env, timeout, int(a.mem_limit_mb * 1e6), work)
                r = Run(tool, name, variant, rnd + 1, ok, status, wall, max_rss, tree_rss, cpu, stderr_tail="" if ok else tail)
                if ok:
                    r.out_bytes, r.out_files, r.html_bytes = tree_size(site)
                    first_wall.setdefault(key, wall)
                else:
                    gave_up.add(key)
                data["runs"].append(asdict(r))
                log(f"  round {rnd + 1} {tool}{' ' + variant if variant else ''}: {status}, {wall:.2f} s (cpu {cpu:.2f} s), "
                    f"RSS {max_rss / 1e6:.0f} MB (tree {tree_rss / 1e6:.0f} MB), "
                    f"{r.out_bytes / 1e6:.1f} MB in {r.out_files} files")
                if not ok:
                    log("    stderr: " + tail.strip().replace("\n", " | ")[-300:])
                clean_caches(home)
        # results after each home, so an interrupted run still leaves a report
        (a.results / "results.json").write_text(json.dumps(data, indent=1))
        write_report(data, a.results / "results.md", a.results / "results.svg")
    (a.results / "results.json").write_text(json.dumps(data, indent=1))
    verdicts = write_report(data, a.results / "results.md", a.results / "results.svg")
    # The sites stay until the next benchmark starts (which deletes them and waits): deleting them
    # now would slow down whatever creates files on this disk in the next minutes.
    log(f"sites kept in {sites} ({tree_size(sites)[0] / 1e9:.1f} GB); the next benchmark deletes them")
    log(f"done in {(time.perf_counter() - t_start) / 60:.1f} min of runs → {a.results / 'results.md'}")
    for v in verdicts:
        print("  " + v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
