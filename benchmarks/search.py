#!/usr/bin/env python3
"""Search at scale: build cost, index size and the search box in chromium from file://, before and
after the sharded index (issue 17).

    python3 benchmarks/search.py --homes DIR [--before 3286ec8] [--queries 20] [--skip-1g]

1. makes (or reuses) two homes in DIR with ../shared/bench/scale_home.py: `h300` (--mb 300
   --seed 3) and `h1g` (--mb 1000 --seed 5: ~2,800 sessions);
2. checks the `--before` commit out into a temporary git worktree and, for each home, builds the
   site cold with that code and with this checkout, alternately (wall time of `ccreport build`,
   default --jobs);
3. measures the index on disk (search/ and the build's unit records) against the JSONL bytes;
4. draws queries from the home's own words (seeded) and, for each, opens a cold chromium page
   (headless, --no-sandbox --disable-gpu --disable-background-networking) from file://, types the
   query and records the time from the input event to the first results, the bytes of the search
   scripts the query loaded and the page's JS heap after it;
5. on this checkout's 300 MB site: one appended message, rebuilt: the search files written and
   their bytes; then a rebuild with no change.

Writes a Markdown table to stdout and DIR/search-results.json. Run on an idle machine for figures
that mean something.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
HOMES = {"h300": ["--mb", "300", "--seed", "3"], "h1g": ["--mb", "1000", "--seed", "5"]}


def make_home(root: Path, name: str) -> Path:
    home = root / name
    if not (home / "projects").is_dir():
        subprocess.run([sys.executable, str(SHARED / "bench/scale_home.py"), str(SHARED / "corpus/real"), str(home),
                        *HOMES[name]], check=True, stdout=subprocess.DEVNULL)
    return home


def jsonl_bytes(home: Path) -> int:
    return sum(p.stat().st_size for p in (home / "projects").rglob("*.jsonl"))


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def build(code: Path, home: Path, out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(code))
    t0 = time.perf_counter()
    # cwd = the code: `python -m` puts the current folder before PYTHONPATH
    subprocess.run([sys.executable, "-m", "ccreport", "build", "--home", str(home.resolve()), "--out",
                    str(out.resolve()), "-q"], check=True, env=env, cwd=code)
    return time.perf_counter() - t0


def draw_queries(home: Path, n: int, seed: int = 11) -> list[str]:
    """Words of the home's user and assistant texts (4–12 letters), one or two to a query."""
    rnd = random.Random(seed)
    files = sorted((home / "projects").rglob("*.jsonl"))
    words: list[str] = []
    while len(words) < 4 * n:
        f = rnd.choice(files)
        with open(f, "rb") as fh:
            fh.seek(rnd.randrange(max(1, f.stat().st_size - 20000)))
            chunk = fh.read(20000).decode("utf-8", "replace")
        texts = re.findall(r'"text":"((?:[^"\\]|\\.){20,400})"', chunk)
        if texts:
            words += [w.lower() for w in re.findall(r"\b[A-Za-z]{4,12}\b", rnd.choice(texts))][:3]
    rnd.shuffle(words)
    return [" ".join(words[i:i + (1 + i % 2)]) for i in range(0, 3 * n, 3)][:n]


OBSERVE = """() => {
  window.__t = {};
  const q = document.getElementById('search-q');
  q.addEventListener('input', () => { if (!window.__t.input) window.__t.input = performance.now(); }, true);
  new MutationObserver(() => {
    const s = document.getElementById('search-status');
    if (!window.__t.first && s.hasAttribute('data-count')) window.__t.first = performance.now();
  }).observe(document.getElementById('search-panel'), {subtree: true, childList: true, attributes: true});
}"""


def browse(site: Path, queries: list[str]) -> dict:
    from playwright.sync_api import sync_playwright

    site = site.resolve()
    times, loaded, heaps, counts, engine = [], [], [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for q in queries:
            ctx = browser.new_context()  # a cold page: nothing cached, nothing loaded
            page = ctx.new_page()
            files: list[str] = []
            page.on("request", lambda r: files.append(r.url) if "/search/" in r.url else None)
            page.goto((site / "index.html").as_uri())
            page.evaluate(OBSERVE)
            page.fill("#search-q", q)
            page.wait_for_selector("#search-status[data-count]", timeout=600_000)
            t = page.evaluate("window.__t")
            # the hits' documents too (the code before this change had none to wait for)
            page.wait_for_selector("#search-status[data-hits], #search-status[data-count]:not([data-ms])")
            times.append(t["first"] - t["input"])
            engine.append(float(page.get_attribute("#search-status", "data-ms") or 0))
            loaded.append(sum(_size(site, u) for u in set(files)))
            cdp = ctx.new_cdp_session(page)
            cdp.send("Performance.enable")
            m = {x["name"]: x["value"] for x in cdp.send("Performance.getMetrics")["metrics"]}
            heaps.append(m.get("JSHeapUsedSize", 0))
            counts.append(int(page.get_attribute("#search-status", "data-count") or 0))
            ctx.close()
        browser.close()
    return {"ms_median": statistics.median(times), "ms_max": max(times), "bytes_median": statistics.median(loaded),
            "bytes_max": max(loaded), "heap_max": max(heaps), "results_median": statistics.median(counts),
            "search_ms_median": statistics.median(engine),
            "queries": len(queries)}


def _size(site: Path, url: str) -> int:
    from urllib.parse import unquote, urlsplit

    path = Path(unquote(urlsplit(url).path))
    try:
        return path.stat().st_size
    except OSError:
        return 0


def append_cost(home: Path, out: Path) -> dict:
    """One message appended to the largest main transcript of the 300 MB home, rebuilt in-process."""
    sys.path.insert(0, str(REPO))
    from ccreport.site.build import Options, build as build_site

    target = max((p for p in (home / "projects").rglob("*.jsonl") if "subagents" not in p.parts),
                 key=lambda p: p.stat().st_size)
    last = json.loads(target.read_bytes().rstrip().rsplit(b"\n", 1)[-1])
    line = {"type": "user", "uuid": "bench-append", "parentUuid": last.get("uuid"), "sessionId": last.get("sessionId"),
            "timestamp": "2030-01-01T00:00:00.000Z", "message": {"role": "user", "content":
            "benchmark appended prompt: please check the parse_numbered helper and the recorder again"}}
    original = target.read_bytes()
    try:
        with open(target, "ab") as fh:
            fh.write((json.dumps(line) + "\n").encode())
        res = build_site(home, out, Options())
        search = [w for w in res.written if "/search/" in w]
        again = build_site(home, out, Options())
        return {"files": len(search), "bytes": sum(Path(w).stat().st_size for w in search),
                "written": sorted(Path(w).relative_to(out).as_posix() for w in search),
                "no_change_search_files": len([w for w in again.written if "/search/" in w])}
    finally:
        target.write_bytes(original)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--homes", type=Path, required=True)
    ap.add_argument("--before", default="3286ec8")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--before-queries-1g", type=int, default=5, help="the old code loads the whole index per page")
    ap.add_argument("--skip-1g", action="store_true")
    a = ap.parse_args()
    a.homes.mkdir(parents=True, exist_ok=True)
    old = Path(tempfile.mkdtemp(prefix="ccreport-before-"))
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(old), a.before], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = {}
    try:
        for name in ["h300"] + ([] if a.skip_1g else ["h1g"]):
            home = make_home(a.homes, name)
            queries = draw_queries(home, a.queries)
            row = {"jsonl": jsonl_bytes(home), "queries": queries}
            for label, code in (("before", old), ("after", REPO)):
                out = a.homes / f"site-{name}-{label}"
                row[f"build_{label}"] = build(code, home, out)
                row[f"index_{label}"] = tree_bytes(out / "search")
                row[f"state_{label}"] = tree_bytes(out / ".ccreport/units")
                n = a.before_queries_1g if (label == "before" and name == "h1g") else len(queries)
                row[f"browser_{label}"] = browse(out, queries[:n])
                print(name, label, json.dumps({k: v for k, v in row.items() if label in k}), file=sys.stderr)
            if name == "h300":
                row["append"] = append_cost(home, a.homes / f"site-{name}-after")
            results[name] = row
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
    (a.homes / "search-results.json").write_text(json.dumps(results, indent=1))
    print(table(results))


def table(results: dict) -> str:
    rows = ["| home | | build (s) | index / JSONL | first results, median (ms) | bytes loaded per query, median |"
            " JS heap, max (MB) |", "|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        for label in ("before", "after"):
            b = r[f"browser_{label}"]
            rows.append(f"| {name} ({r['jsonl'] / 1e6:.0f} MB JSONL) | {label} | {r[f'build_{label}']:.1f} | "
                        f"{r[f'index_{label}'] / r['jsonl']:.3f} | {b['ms_median']:.0f} (max {b['ms_max']:.0f}, "
                        f"{b['queries']} queries) | {b['bytes_median'] / 1e6:.2f} MB (max {b['bytes_max'] / 1e6:.1f}) | "
                        f"{b['heap_max'] / 1e6:.0f} |")
        rows.append(f"| {name} | after ÷ before | {r['build_after'] / r['build_before']:.2f}× | | | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
