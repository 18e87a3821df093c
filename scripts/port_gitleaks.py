#!/usr/bin/env python3
"""Port gitleaks' default rules (config/gitleaks.toml, MIT) to ccreport/share/gitleaks_rules.json.

    python3 scripts/port_gitleaks.py PATH/TO/gitleaks.toml [--commit SHA]

The patterns stay in RE2 syntax: ccreport runs them with google-re2, the engine gitleaks writes
them for, whose matching time is linear in the text (Python's backtracking ``re`` spent 30 s on
400 KB of hostile text with two of these rules). Two changes for redaction:

* the end-of-token group most rules close with (a quote, a space, ``;``, an escaped newline or the
  end) is dropped: in a transcript a key is as often followed by ``.``, ``,``, ``)`` or ``<``, and
  the rule would not match at all. ccreport extends a match that stops inside a run of token
  characters to the end of the run instead (share/secrets.py);
* rules that only look at file paths (``path``, alone or with a regex: both must match in
  gitleaks) are left out: an export has no file paths to test. Allowlists of paths likewise.

Every pattern is compiled with re2 before the file is written.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

import re2

OUT = Path(__file__).resolve().parent.parent / "ccreport" / "share" / "gitleaks_rules.json"
END = "(?:[\\x60'\"\\s;]|\\\\[nr]|$)"


def port(cfg: dict) -> tuple[list, dict, list]:
    rules, dropped = [], []
    for r in cfg["rules"]:
        if "regex" not in r or "path" in r:
            dropped.append(r["id"])
            continue
        allow = [{"target": a.get("regexTarget", "secret"), "regexes": a.get("regexes", []),
                  "stopwords": [w.lower() for w in a.get("stopwords", [])], "and": a.get("condition") == "AND"}
                 for a in r.get("allowlists", []) if not a.get("paths")]
        rules.append({"id": r["id"], "regex": r["regex"].removesuffix(END),
                      "keywords": [k.lower() for k in r["keywords"]], "entropy": r.get("entropy", 0), "group": r.get("secretGroup", 0), "allow": allow})
    g = cfg.get("allowlist", {})
    glob = {"regexes": g.get("regexes", []), "stopwords": [w.lower() for w in g.get("stopwords", [])]}
    return rules, glob, dropped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("toml", type=Path)
    ap.add_argument("--commit", default="")
    a = ap.parse_args()
    cfg = tomllib.loads(a.toml.read_text())
    rules, glob, dropped = port(cfg)
    for pat in [r["regex"] for r in rules] + [x for r in rules for al in r["allow"] for x in al["regexes"]] \
            + glob["regexes"]:
        re2.compile(pat)
    data = {"source": f"gitleaks {cfg.get('minVersion', '')} config/gitleaks.toml {a.commit}".strip(),
            "license": "MIT, Copyright (c) 2019 Zachary Rice (gitleaks); ported by scripts/port_gitleaks.py",
            "dropped_path_rules": dropped, "allowlist": glob, "rules": rules}
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    ends = sum(1 for r in cfg["rules"] if r.get("regex", "").endswith(END))
    print(f"{len(rules)} rules → {OUT} ({ends} end groups dropped; {len(dropped)} path rules left out: "
          f"{', '.join(dropped)})")


if __name__ == "__main__":
    main()
