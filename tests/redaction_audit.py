"""What the export's redactor takes out of a home, listed for review (issue 29, point 3): one line
per transcript, kind and value. The value itself is never written (a real corpus may hold real
keys and addresses): its digest, length and shape (letters → a, digits → 9, others kept) are.
tests/share/test_corpus_redactions.py compares the list with a reviewed file, so a new, over-eager
rule shows up as a diff."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

from ccreport.share.redact import Redactor, learn_accounts
from ccreport.source.jsonl import read_entries


def shape(value: str) -> str:
    s = re.sub(r"[A-Za-z]", "a", re.sub(r"[0-9]", "9", value))
    return s if len(s) <= 24 else s[:12] + "…" + s[-8:]


def transcript_redactions(path: Path) -> Counter:
    """(kind, digest, length, shape) → how often, over every entry of one transcript, as an export
    redacts it (the line's parsed value; its raw text only where it did not parse)."""
    r = Redactor(homes=[], log=[])
    learn_accounts(r, path)
    for e in read_entries(path):
        if e.obj is not None:
            r.value(e.obj)
        else:
            r.text(e.raw)
    return Counter((k, hashlib.sha256(v.encode()).hexdigest()[:12], len(v), shape(v)) for k, v in r.log)


def home_redactions(home: Path) -> list[str]:
    """Every transcript of the home, sorted: ``<path> <kind> <digest> <length> <shape> ×<count>``."""
    out = []
    projects = home / "projects"
    for path in sorted(projects.rglob("*.jsonl")):
        rel = path.relative_to(projects).as_posix()
        for (kind, digest, n, sh), count in sorted(transcript_redactions(path).items()):
            out.append(f"{rel} {kind} {digest} {n} {sh} ×{count}")
    return out
