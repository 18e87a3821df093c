"""Benchmark of `ccreport serve --watch`: append → visible latency, and requests/s under local load.

    .venv/bin/python benchmarks/live.py [--appends 25] [--clients 8] [--seconds 10] [--home DIR]

1. Latency: a server (`ccreport serve --watch`, its own process) serves a home; Debian's chromium
   opens the session's last page; the benchmark appends one line at a time to the transcript and
   measures, on one clock, from just before the write to the moment the page's DOM holds the new
   message (a MutationObserver stamps it). Median and p95 over --appends appends, and the same
   for each stage of an append (see STAGES below), printed on stderr with the load average.
2. Load: --clients threads with keep-alive connections hammer pages, then the API, for --seconds
   each, on 127.0.0.1 only. Requests/s and the error count (any non-200 or socket error).

--home copies that Claude home to a temporary folder first (the original is never written);
without it a small synthetic home is made (3 sessions). Everything lives under /tmp/serve-bench-*.
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
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve_helpers import PROJECT, SID, append, make_live_home  # noqa: E402
from util import CHROMIUM, CHROMIUM_ARGS, user  # noqa: E402


def start_server(home: Path, site: Path, watch: bool, page_size: int = 50) -> tuple[subprocess.Popen, str]:
    exe = Path(sys.executable).with_name("ccreport")
    cmd = [str(exe), "serve", "--home", str(home), "--out", str(site), "--port", "0", "-q", "-j", "2",
           "--page-size", str(page_size)]
    if watch:
        cmd.append("--watch")
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        m = re.search(r"at (http://\S+/)", line)
        if m:
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, m.group(1)
    proc.kill()
    raise SystemExit("the server did not start")


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


# --- 1. append → visible ----------------------------------------------------------------------------
# The stages of one append, each from the end of the one before (wall clock, ms):
#   watch    file write → the rebuild starts (inotify, watchfiles' step/debounce, rescan)
#   pages    the session's pages rendered and written (build.update_session)
#   rest     the rest of the build (indexes, search bundle, state) before the push
#   push     → live.js has the event (SSE)
#   fetch    → live.js has the changed messages' HTML (in the event when small, else fetched)
#   parse    → DOMParser done
#   merge    → the message is in the DOM
# The stamps come from the event (build stamps, "at") and live.js's performance marks; a second
# EventSource in the page keeps a copy of each event for the benchmark. serve pushes a session's pages before it
# rebuilds the indexes, so "rest" is only what lies between the two (the indexes come after).
STAGES = ("watch", "pages", "rest", "push", "fetch", "parse", "merge")


def breakdown(t0: float, ev: dict | None, marks: dict, seen: float) -> dict | None:
    if not ev or "stamps" not in ev["data"] or not all(k in marks for k in ("event", "fetched", "parsed")):
        return None
    st = {k: v * 1000 for k, v in ev["data"]["stamps"].items()}
    pushed = ev["data"]["at"] * 1000  # when the event left (an early push leaves before the build ends)
    return {"watch": st["start"] - t0, "pages": st["sessions"] - st["start"], "rest": pushed - st["sessions"],
            "push": marks["event"] - pushed, "fetch": marks["fetched"] - marks["event"],
            "parse": marks["parsed"] - marks["fetched"], "merge": seen - marks["parsed"]}


def latency(url: str, transcript: Path, rel_page: str, appends: int, page_size: int) -> tuple[list[float], list[dict]]:
    from playwright.sync_api import sync_playwright

    out, parts = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url + rel_page)
        page.wait_for_selector("body[data-live-stream=open]", timeout=30_000)
        # Stamp each new message the moment it enters the DOM (epoch ms, like time.time()), and
        # each event the moment it arrives (a second stream, the benchmark's own).
        page.evaluate("""() => {
            const now = () => performance.timeOrigin + performance.now();
            window.__seen = {};
            window.__events = [];
            new MutationObserver(ms => { for (const m of ms) for (const n of m.addedNodes)
                if (n.id) window.__seen[n.id] = now(); })
              .observe(document.getElementById('messages'), {childList: true});
            const es = new EventSource(document.body.dataset.root + '__events');
            es.addEventListener('change', e => window.__events.push({recv: now(), data: JSON.parse(e.data)}));
        }""")
        page.wait_for_function("() => window.__events.length > 0", timeout=30_000)  # the hello
        # Each append is one message; the page closes at page_size messages and the rest would go
        # to a new page (which this page only links to): measure the appends that fit, and say so.
        have = page.evaluate("document.querySelectorAll('#messages > [id]').length")
        if have + appends > page_size:
            print(f"note: the last page holds {have} of {page_size} messages: appends after the "
                  f"{page_size - have}th would spill to a new page; measuring {page_size - have}",
                  file=sys.stderr)
            appends = page_size - have
        with open(transcript, "rb") as fh:
            line = sum(1 for _ in fh)
        for i in range(appends):
            line += 1
            entry = user(f"bench{i}", f"benchmark message {i}", sid=transcript.stem,
                         ts=f"2025-07-01T10:00:{i % 60:02d}.000Z")
            time.sleep(0.4)  # one append at a time: each one is its own rebuild
            page.evaluate("() => { window.__events = []; }")
            t0 = time.time() * 1000
            append(transcript, [entry])
            try:
                page.wait_for_function(f"() => window.__seen['L{line}'] !== undefined", timeout=30_000)
            except Exception:
                ids = page.eval_on_selector_all("#messages > [id]", "els => els.map(e => e.id)")
                raise SystemExit(f"append {i}: line {line} did not appear on {rel_page} within 30 s "
                                 f"(the page shows {ids[-5:]}; events: {page.evaluate('window.__events')})") from None
            got = page.evaluate(f"""() => {{
                const m = {{}};
                for (const e of performance.getEntriesByType('mark'))
                    if (e.name.startsWith('ccreport-live:')) m[e.name.slice(14)] = performance.timeOrigin + e.startTime;
                const ev = window.__events.find(e => (e.data.urls || []).some(u => '{rel_page}'.endsWith(u)));
                return {{seen: window.__seen['L{line}'], marks: m, ev: ev || null}};
            }}""")
            out.append(got["seen"] - t0)
            b = breakdown(t0, got["ev"], got["marks"], got["seen"])
            if b:
                parts.append(b)
        browser.close()
    return out, parts


def summarize(parts: list[dict]) -> dict:
    keys = STAGES
    return {k: {"p50": round(statistics.median(b[k] for b in parts), 1),
                "p95": round(pct([b[k] for b in parts], 95), 1)} for k in keys} if parts else {}


# --- 2. load ------------------------------------------------------------------------------------------
def load(url: str, paths: list[str], clients: int, seconds: float) -> dict:
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    assert host in ("127.0.0.1", "localhost"), "load only against the loopback"
    counts = [0] * clients
    errors = [0] * clients
    stop = time.monotonic() + seconds

    def client(k):
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        i = k
        while time.monotonic() < stop:
            path = paths[i % len(paths)]
            i += 1
            try:
                conn.request("GET", path)
                resp = conn.getresponse()
                resp.read()
                if resp.status != 200:
                    errors[k] += 1
                else:
                    counts[k] += 1
            except (OSError, http.client.HTTPException):
                errors[k] += 1
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    return {"requests": sum(counts), "errors": sum(errors), "rps": sum(counts) / took, "seconds": round(took, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--appends", type=int, default=25, help="at most page size - 11 with the synthetic home")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--home", type=Path, help="a Claude home to copy (default: a small synthetic one)")
    ap.add_argument("--session", help="with --home: the session id (or a unique prefix) to append to (default: the biggest main file)")
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--page-size", type=int, default=50,
                    help="the appends must stay on the open last page: raise it for a --home whose last page is nearly full")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="serve-bench-", dir="/tmp"))
    try:
        if args.home:
            home = tmp / "home"
            shutil.copytree(args.home, home, symlinks=True)
            mains = [p for p in (home / "projects").glob("*/*.jsonl") if not p.name.startswith("agent-")]
            if args.session:
                found = [p for p in mains if p.stem.startswith(args.session)]
                if len(found) != 1:
                    raise SystemExit(f"--session {args.session}: {len(found)} main transcripts start with it")
                transcript = found[0]
            else:
                transcript = max(mains, key=lambda p: p.stat().st_size)
            project, sid = transcript.parent.name, transcript.stem
        else:
            # 11 messages: the appends stay on the first page (size 50), as a live session's last page.
            home = make_live_home(tmp / "home", turns=5)
            transcript = home / "projects" / PROJECT / f"{SID}.jsonl"
            project, sid = PROJECT, SID
        site = tmp / "site"
        proc, url = start_server(home, site, watch=True, page_size=args.page_size)
        try:
            pages = sorted((site / "p" / project / sid).glob("page-*.html"))
            rel_last = pages[-1].relative_to(site).as_posix()
            lat, parts = latency(url, transcript, rel_last, args.appends, args.page_size)
            result = {"home": str(args.home or "synthetic (3 sessions)"), "page_size": args.page_size,
                      "appends": len(lat), "last_page": rel_last,
                      "latency_ms": {"p50": round(statistics.median(lat), 1), "p95": round(pct(lat, 95), 1),
                                     "min": round(min(lat), 1), "max": round(max(lat), 1)},
                      "breakdown_ms": summarize(parts), "load_average": os.getloadavg()}
            if not args.skip_load:
                page_paths = ["/", f"/p/{project}/index.html", f"/p/{project}/{sid}/index.html", "/" + rel_last,
                              "/" + pages[0].relative_to(site).as_posix()]
                api_paths = [f"/api/sessions/{sid}/transcript?limit=50", f"/api/sessions/{sid}/transcripts",
                             f"/api/sessions/{sid}/transcript?limit=50&before=200", f"/api/sessions/{sid}/transcript?after=1&limit=20"]
                result["pages"] = load(url, page_paths, args.clients, args.seconds)
                result["api"] = load(url, api_paths, args.clients, args.seconds)
                result["clients"] = args.clients
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        print(json.dumps(result, indent=2))
        lat_ms = result["latency_ms"]
        print(f"append → visible: p50 {lat_ms['p50']} ms, p95 {lat_ms['p95']} ms over {result['appends']} appends "
              f"(page size {args.page_size}, load average {result['load_average'][0]:.2f})", file=sys.stderr)
        for k, v in result["breakdown_ms"].items():
            print(f"  {k:6s} p50 {v['p50']:7.1f}  p95 {v['p95']:7.1f} ms", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
