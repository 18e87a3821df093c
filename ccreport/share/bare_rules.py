"""Secrets known by their shape alone, found without a ``NAME=`` beside them (issue 29, point 3).

Many of gitleaks' rules (share/gitleaks_rules.json) want a keyword context such as
``mailgun_key = key-…``: pasted bare into a prompt or printed by a tool, the same key passes. Each
rule here is the prefix-only variant of such a rule (named as gitleaks names it, so the counts
agree) or a vendor format gitleaks lacks. A rule goes here only when its literal prefix (or a
shape as telling: ``<32 hex>-us12``, ``<id>:AA…``) makes a match in ordinary text unlikely;
fixed-length ones end at a word boundary so a longer word of the same start is left alone, and
an entropy floor keeps ``key-0000…`` and identifiers out. Those gitleaks kinds whose secret has no
prefix (Okta ``00…``, Sumo Logic ``su…``, Beamer ``b_…``, Yandex ``YC…``, the plain hex and
base62 keys) still need their keyword context.

The rules are data, in bare_rules.json: RE2 patterns (share/secrets.py runs them beside gitleaks'
own, in the same keyword pass); the secret is the first non-empty group, else the whole match.
Account ids (a Twilio Account SID, the account of an AWS ARN) are redacted too: docs/security.md
promises account ids stay out of a shared file.
"""

from __future__ import annotations

import json
from pathlib import Path

RULES_FILE = Path(__file__).with_name("bare_rules.json")


def bare_rules() -> list[tuple[str, str, tuple[str, ...], float]]:
    """(kind, RE2 pattern, lower-case keywords that wake it, entropy floor) of every rule."""
    data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    return [(r["kind"], r["regex"], tuple(r["keywords"]), float(r["entropy"])) for r in data["rules"]]
