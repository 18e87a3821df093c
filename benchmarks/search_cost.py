#!/usr/bin/env python3
"""What the search index costs a cold build, in one process (issue 25, point 4):

    python3 benchmarks/search_cost.py HOME [--rounds 5] [--browse 20] [--append]

builds HOME cold with ``--jobs 1`` in this process, the index on and off (Options.search, the
CCREPORT_SEARCH=off switch) alternately, ``--rounds`` times each (the index's caches emptied
before each, as in a new process), and prints the CPU seconds
(user + system of this process: a --jobs 1 build has no workers) of each run, the best of each
mode and their ratio, with the load average before and after (the machine is shared: the best of
alternated runs is the figure that means something). Then the index of the last build: its bytes
against the home's JSONL and its file count; with ``--browse N``, N queries drawn from the home's
own words run in chromium from file:// (benchmarks/search.py's browse: time to first results and
bytes loaded); with ``--append``, one message appended and the site rebuilt: the search files
written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from ccreport.site.build import Options, build  # noqa: E402


def forget_caches() -> None:
    """What the builds before left in this process's caches of the index, as a cold build (a new
    process) has none: above all the counts of repeated texts (searchtext.weighed_once), which
    spared the "on" runs after the first most of the corpus's tokenizing (1.71x measured with
    them, ~1.85x without)."""
    import importlib
    from ccreport.site import search, searchtext
    searchtext._SEEN.clear()
    searchtext._seen_chars[0] = 0
    searchtext._TABLES.clear()  # (the weights by document length)
    search._fnv_shard.cache_clear()
    search.unit_key.cache_clear()
    getattr(search, "_PREFIX_SHARDS", {}).clear()
    try:  # (the hex formats of small posting counts; code before it had no such module)
        importlib.import_module("ccreport.site.searchpostings")._HEX_FORMATS.clear()
    except ImportError:
        pass


def cold(home: Path, out: Path, search: bool) -> float:
    shutil.rmtree(out, ignore_errors=True)
    forget_caches()
    t0 = time.process_time()
    build(home, out, Options(jobs=1, search=search))
    return time.process_time() - t0


def index_figures(home: Path, out: Path) -> dict:
    jsonl = sum(p.stat().st_size for p in (home / "projects").rglob("*.jsonl"))
    files = [p for p in (out / "search").rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    return {"jsonl": jsonl, "index_bytes": size, "index_files": len(files), "index_ratio": size / jsonl}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--browse", type=int, default=0)
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="ccreport-search-cost-")) / "site"
    runs: dict[str, list] = {"on": [], "off": []}
    load0 = os.getloadavg()
    for i in range(a.rounds):
        for mode in (("off", "on") if i % 2 else ("on", "off")):
            runs[mode].append(cold(a.home, out, mode == "on"))
            print(f"round {i} {mode}: {runs[mode][-1]:.2f} CPU s (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
    res = {"cpu_on": runs["on"], "cpu_off": runs["off"], "best_on": min(runs["on"]), "best_off": min(runs["off"]),
           "cpu_ratio": min(runs["on"]) / min(runs["off"]), "load_before": load0, "load_after": os.getloadavg()}
    cold(a.home, out, True)
    res.update(index_figures(a.home, out))
    if a.browse:
        import search as bench  # benchmarks/search.py
        b = bench.browse(out, bench.draw_queries(a.home, a.browse))
        res["browse"] = {k: b[k] for k in b if not isinstance(b[k], list)}
        res["ms_median"] = statistics.median(b.get("ms", [b["ms_median"]]))
    if a.append:
        import search as bench
        res["append"] = bench.append_cost(a.home, out)
    print(json.dumps(res, indent=1, default=str))


if __name__ == "__main__":
    main()
