#!/usr/bin/env python3
"""Redaction speed: the whole redactor over a home's entries, the export of the home's biggest
session in the three formats (single-file HTML, Markdown parts, --summary; best of 5 each, in this
process), and the secret rules (share/secrets.py) on hostile text made to wake all of them at once
(the slowest three rules per text are named).

    PYTHONPATH=. python3 benchmarks/redaction.py [HOME]     # default: ../shared/corpus/real

Run it with PYTHONPATH pointing at another checkout to compare two versions of the rules.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from ccreport.share import secrets
from ccreport.share.redact import Redactor
from ccreport.source.jsonl import read_entries


def corpus(home: Path) -> None:
    objs = [e.obj for p in sorted((home / "projects").rglob("*.jsonl")) for e in read_entries(p) if e.obj]
    best = min(_timed(lambda: [Redactor().value(o) for o in objs]) for _ in range(3))
    print(f"{len(objs):,} entries of {home}: redacted in {best:.2f} s (best of 3)")


def exports(home: Path) -> None:
    from ccreport.share.export import ExportOptions
    from ccreport.share.run import run_export

    biggest = max((home / "projects").glob("*/*.jsonl"), key=lambda p: p.stat().st_size)
    forms = {"html": ExportOptions(format="html"), "md": ExportOptions(format="md"),
             "summary": ExportOptions(format="md", summary=True)}
    with tempfile.TemporaryDirectory(prefix="ccreport-bench-") as tmp:
        times = {name: min(_timed(lambda o=o, n=name: run_export(home, biggest.stem, f"{tmp}/{n}.out", o))
                           for _ in range(5)) for name, o in forms.items()}
    print(f"export of {biggest.stem} ({biggest.stat().st_size / 1e6:.1f} MB), best of 5: "
          + ", ".join(f"{k} {v:.3f} s" for k, v in times.items()))


def hostile() -> None:
    rs = secrets.ruleset()
    kws = sorted(rs.by_keyword)
    texts = {
        "every keyword, 200 times": " ".join(kws) * 200,
        "keyword_value= pairs": "".join(k + "_" + "a1" * 30 + "=" for k in kws) * 40,
        "keywords in long words": ("".join(k + "x" * 60 for k in kws) + "\n") * 40,
        "curl lines without -u/-H": ("curl " + "-H 'x' " * 50 + "\r\n") * 2000,
        "e-mail-like": ("a" * 60 + "@" + "b." * 100 + " ") * 300,
        "mysql without -p": ("mysql " + "-x " * 200 + "\n") * 300,
    }
    for name, t in texts.items():
        total = _timed(lambda: secrets.find(t, rs))
        present = rs.present(t.lower())
        per = sorted((_timed(lambda r=rs.rules[i]: list(r.pat.finditer(t))), rs.rules[i].kind)
                     for i in {i for w in present for i in rs.by_keyword.get(w, ())})
        slow = ", ".join(f"{k} {s:.2f} s" for s, k in per[-3:])
        print(f"{name:28} {len(t) / 1e3:6.0f} KB {total:6.2f} s   slowest: {slow}")


def _timed(fn) -> float:
    """CPU seconds of this process: on a shared machine wall time mostly measures the neighbours."""
    t = time.process_time()
    fn()
    return time.process_time() - t


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
    home = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    corpus(home)
    exports(home)
    hostile()
