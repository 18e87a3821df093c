#!/usr/bin/env python3
"""Where a cold `--jobs 1` build's CPU goes, stage by stage, without a profiler's overhead:

    python3 benchmarks/stages.py HOME [--search off] [--out DIR] [FUNCTION ...]

builds HOME cold in this process with a timer (``time.thread_time``: the build's own thread, not
the source store's copy thread) around each FUNCTION, given as ``module.name`` or
``module.Class.method`` *where it is looked up* (``ccreport.site.transcript.message_html``, as
site.transcript imported it). Each figure is the function's own time: the time of the timed
functions it calls is taken off. A generator's body runs outside its call, so the reading chain
(the JSONL reader, the usage and file-history taps, ``paginate``) is not timed here: its cost
shows in the caller that drives it. cProfile inflates small calls many times over (the issue's
profile gave the taps 1.2 s of a 7.1 s build; this harness, 0.15 s of 3 s), so use this or a
sampling profiler for shares.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from ccreport.site.build import Options, build  # noqa: E402

DEFAULT = ["ccreport.site.transcript.message_html", "ccreport.site.transcript.write_page",
           "ccreport.site.session.render_transcript", "ccreport.site.session.update_session",
           "ccreport.site.write.Writer.write", "ccreport.site.session.write_session_overview",
           "ccreport.model.messages.Builder.feed", "ccreport.model.usage.TranscriptUsage.feed",
           "ccreport.site.filehistory.BeforeEdits.see", "ccreport.model.turns.Turns.feed_page",
           "jinja2.environment.Template.render", "ccreport.site.build._write_indexes",
           "ccreport.site.search.SessionIndex.page", "ccreport.site.search.SessionIndex.end",
           "ccreport.site.build._write_search", "ccreport.site.build._start"]


def _owner(path: str):
    """The module (or class in it) that holds the last name of ``path``."""
    try:
        return importlib.import_module(path)
    except ImportError:
        parent, _, name = path.rpartition(".")
        return getattr(_owner(parent), name)


def timed(spec: str, totals: dict, stack: list) -> None:
    where, _, name = spec.rpartition(".")
    owner = _owner(where)
    f = getattr(owner, name)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        t = time.thread_time()
        stack.append(0.0)
        try:
            return f(*args, **kwargs)
        finally:
            spent, inner = time.thread_time() - t, stack.pop()
            totals[spec] = totals.get(spec, 0.0) + spent - inner
            if stack:
                stack[-1] += spent
    setattr(owner, name, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home", type=Path)
    ap.add_argument("functions", nargs="*", default=DEFAULT)
    ap.add_argument("--search", choices=("on", "off"), default="on")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_intermixed_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="ccreport-stages-")) / "site"
    shutil.rmtree(out, ignore_errors=True)
    totals: dict = {}
    stack: list = []
    for spec in a.functions:
        timed(spec, totals, stack)
    t0, p0 = time.thread_time(), time.process_time()
    build(a.home, out, Options(jobs=1, search=a.search == "on"))
    t1, p1 = time.thread_time() - t0, time.process_time() - p0
    print(f"build: {t1:.3f} s CPU in its thread, {p1:.3f} s in the process (the store's copy thread too)")
    for spec, s in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"{s:8.3f} s {100 * s / t1:5.1f} %  {spec}")
    print(f"{t1 - sum(totals.values()):8.3f} s {100 * (t1 - sum(totals.values())) / t1:5.1f} %  the rest")
    if a.out is None:
        shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
