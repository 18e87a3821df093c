#!/usr/bin/env python3
"""Port gitleaks' default rules (config/gitleaks.toml, MIT) to ccreport/share/gitleaks_rules.json.

    python3 scripts/port_gitleaks.py PATH/TO/gitleaks.toml [--commit SHA]

gitleaks writes its rules for Go's RE2; Python's ``re`` differs in four ways that occur in them,
translated here: a ``(?i)`` in the middle of a pattern (Python only takes flags at the start: it
becomes a scoped ``(?i:…)`` up to the next ``|`` or the end of its group, and again after that
``|``, as RE2 keeps it), ``\\z`` (→ ``\\Z``), POSIX classes such as
``[[:alnum:]]``, and a literal ``[`` inside a class (escaped); a leading lazy ``[\\w.-]{0,50}?`` is
split off (see ``split_lead``). ``\\w``, ``\\d``, ``\\s`` and ``\\b``
are ASCII in RE2: ccreport compiles the patterns with ``re.ASCII``. Rules that only look at file
paths (``path`` with no regex, or with one: both must match in gitleaks) are left out: an export
has no file paths to test. Every translated pattern is compiled before the file is written.
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "ccreport" / "share" / "gitleaks_rules.json"
POSIX = {"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z",
         "space": r"\t\n\v\f\r ", "xdigit": "0-9A-Fa-f", "word": r"\w", "punct": r"!-/:-@\[-`{-~"}


def translate(p: str) -> str:
    p = re.sub(r"\[:(\w+):\]", lambda m: POSIX[m.group(1)], p)
    out: list[str] = []
    closers: list[int] = []  # per open group: how many scoped (?i: groups to close with it
    pending = 0  # scoped groups opened at the top level
    i, in_class = 0, False
    while i < len(p):
        c = p[i]
        if c == "\\":
            nxt = p[i + 1]
            out.append("\\Z" if nxt == "z" else p[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and out[-1] not in ("[", "[^"):
                in_class = False
            out.append("\\[" if c == "[" else c)
        elif c == "[":
            in_class = True
            if p.startswith("[^", i):
                out.append("[^")
                i += 2
                if p[i] == "]":  # a leading "]" is literal
                    out.append("\\]")
                    i += 1
                continue
            out.append("[")
            if i + 1 < len(p) and p[i + 1] == "]":
                out.append("\\]")
                i += 1
        elif p.startswith("(?i)", i) and (i > 0):
            out.append("(?i:")
            i += 4
            if closers:
                closers[-1] += 1
            else:
                pending += 1
            continue
        elif c == "(":
            closers.append(0)
            out.append(c)
        elif c == ")":
            out.append(")" * closers.pop() + ")")
        elif c == "|":
            # RE2 keeps a flag set mid-group across "|": close the scoped groups and open them again.
            k = closers[-1] if closers else pending
            out.append(")" * k + "|" + "(?i:" * k)
        else:
            out.append(c)
        i += 1
    return "".join(out) + ")" * pending


_LEAD = re.compile(r"^(\(\?i\))?\[\\w\.-\]\{0,(\d+)\}\?")


def split_lead(regex: str) -> tuple[str, int]:
    """Half of gitleaks' rules start with a lazy ``[\\w.-]{0,50}?`` before their keywords: in a
    backtracking engine that makes every position of the text a start tried up to 50 times (the
    generic rule alone was 3× the rest of redaction). The secret never lies in it, so the pattern
    is kept without it and ccreport finds where the match began by scanning back (``lead`` chars
    of ``[\\w.-]`` at most), for the allowlists that look at the whole match."""
    m = _LEAD.match(regex)
    if not m:
        return regex, 0
    return (m.group(1) or "") + regex[m.end():], int(m.group(2))


# Most rules end a token with this: a quote, a space, ";", an escaped newline or the end. In a
# transcript a key is as often followed by ".", ",", ")" or "<" (prose, markdown, HTML), and the
# rule would then not match at all. For redaction the end is dropped: ccreport extends a match that
# stops inside a run of token characters to the end of the run instead (share/secrets.py).
_END = "(?:[\\x60'\"\\s;]|\\\\[nr]|$)"


def port(cfg: dict) -> tuple[list, dict, list]:
    rules, dropped = [], []
    for r in cfg["rules"]:
        if "regex" not in r or "path" in r:
            dropped.append(r["id"])
            continue
        allow = [{"target": a.get("regexTarget", "secret"), "regexes": [translate(x) for x in a.get("regexes", [])],
                  "stopwords": [w.lower() for w in a.get("stopwords", [])], "and": a.get("condition") == "AND"}
                 for a in r.get("allowlists", []) if not a.get("paths")]
        regex, lead = split_lead(translate(r["regex"]))
        regex = regex.removesuffix(_END)
        rules.append({"id": r["id"], "regex": regex, "lead": lead, "keywords": [k.lower() for k in r["keywords"]],
                      "entropy": r.get("entropy", 0), "group": r.get("secretGroup", 0), "allow": allow})
    g = cfg.get("allowlist", {})
    glob = {"regexes": [translate(x) for x in g.get("regexes", [])],
            "stopwords": [w.lower() for w in g.get("stopwords", [])]}
    return rules, glob, dropped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("toml", type=Path)
    ap.add_argument("--commit", default="")
    a = ap.parse_args()
    cfg = tomllib.loads(a.toml.read_text())
    rules, glob, dropped = port(cfg)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a FutureWarning (nested set…) is a translation to fix
        for pat in [r["regex"] for r in rules] + [x for r in rules for al in r["allow"] for x in al["regexes"]] \
                + glob["regexes"]:
            re.compile(pat, re.ASCII)
    data = {"source": f"gitleaks {cfg.get('minVersion', '')} config/gitleaks.toml {a.commit}".strip(),
            "license": "MIT, Copyright (c) 2019 Zachary Rice (gitleaks); translated by scripts/port_gitleaks.py",
            "dropped_path_rules": dropped, "allowlist": glob, "rules": rules}
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(rules)} rules → {OUT} ({len(dropped)} path rules left out: {', '.join(dropped)})")


if __name__ == "__main__":
    main()
