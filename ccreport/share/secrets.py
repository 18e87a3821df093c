"""Find secrets in a string with gitleaks' rule set (gitleaks_rules.json, MIT, ported by
scripts/port_gitleaks.py), the keys known by their prefix alone (bare_rules.json) and the kinds
gitleaks does not cover as text (e-mail addresses, ``Authorization: Basic``, Azure account keys,
passwords on command lines: ``sshpass -p``, ``mysql -p``, ``curl -u``, ``--password`` …). Used by
``share.redact.Redactor``; see docs/export.md.

gitleaks' patterns run on google-re2, the engine they are written for: its time is linear in the
text, where Python's backtracking ``re`` took 30 s on 400 KB of hostile text with two of them
(transcript text is hostile). Our own rules run on RE2 too, but the e-mail one, whose look-arounds
RE2 lacks: it stays on ``re`` (benchmarks/redaction.py times every rule on hostile text).

gitleaks' semantics are kept: a rule runs only when one of its keywords is in the lower-cased
text; its secret is the first non-empty capture group (or ``group``); a secret at or below the
rule's Shannon entropy is ignored, and so is one an allowlist (the rule's or the global one)
accepts. One thing is added for redaction: a secret that ends inside a run of token characters is
extended to the end of that run, so a longer token of a known prefix is not half shown.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import re2

from ccreport.share.bare_rules import bare_rules

RULES_FILE = Path(__file__).with_name("gitleaks_rules.json")
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_+/=.-]*")

# A command-line value: quoted (spaces allowed), or bare up to a shell separator; never a next flag.
# The flag must belong to the command named: no ``;``, ``&`` or ``|`` between them (``mysql … &&
# mkdir -p /tmp/x`` holds no password).
_VALUE = r"""(?:'([^'\n]{1,200})'|"([^"\n]{1,200})"|([^\s"'`;|&<>()-][^\s"'`;|&<>()]{1,199}))"""

# Values of those that stand for a password rather than being one (``-p PASSWORD``, ``<pw>``).
_PLACEHOLDER = r"^(?:[A-Z_]{2,}|<[^>]*>|\{[^}]*\}|\[[^\]]*\]|[xX]+|\.\.\.|…)$"
_ON_COMMAND_LINES = ("mysql-password", "cli-password", "curl-user-password")
_LOOK_AROUNDS = ("email",)  # our rules that need look-arounds, which RE2 lacks: on Python's re

# Kinds gitleaks matches only in a context an export rarely has (curl -H, a .env of one vendor), or
# not at all: (kind, pattern, secret group, lower-case keywords).
OWN_RULES = [
    ("email", r"(?<![\w.%+-])(?!(?:git|noreply|no-reply)@)[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
              r"(?!example\.(?:com|org|net)\b)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b"
              r"(?![@-])", 0, ("@",)),
    ("basic-auth",
     r"(?i)\b(?:authorization|proxy-authorization)[\"']?\s*[:=]\s*[\"']?basic\s+([A-Za-z0-9+/]{6,}={0,2})",
     1, ("basic",)),
    ("mysql-password", r"\b(?:mysql|mariadb)(?:dump|admin|sh|import|check|slap)?\b[^\n;&|]{0,400}?\s(?:-p|--password=?)"
                       r"(?:\s*)" + _VALUE, 0, ("mysql", "mariadb")),
    ("azure-account-key",
     r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)\s*=\s*([A-Za-z0-9+/%]{16,}={0,2})",
     1, ("accountkey", "sharedaccess", "sig=")),
    ("curl-user-password", r"\bcurl\b[^\n;&|]{0,400}?\s(?:-u|--user)(?:=|\s*)[\"']?[^\s:\"']{1,100}:([^\s\"'@]{3,})",
     1, ("curl",)),
    # Passwords given on command lines: the value after the flag, quoted or not (never a next flag).
    ("cli-password", r"\bsshpass\b[^\n;&|]{0,200}?\s-p\s*" + _VALUE, 0, ("sshpass",)),
    # --password / --db-password … of any command, not --no-password (spelt without look-arounds: RE2)
    ("cli-password", r"(?i)(?:^|[^\w-])--(?:[a-mo-z][a-z]*-|n(?:[a-np-z][a-z]*)?-|no[a-z]+-)?(?:password|passwd|pass)"
                     r"(?:=|\s+)" + _VALUE, 0, ("--",)),
    ("cli-password", r"\bredis-cli\b[^\n;&|]{0,400}?\s-a\s*" + _VALUE, 0, ("redis-cli",)),
    ("cli-password", r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)\b[^\n;&|]{0,100}?\blogin\b[^\n;&|]{0,300}?\s-p\s*"
     + _VALUE, 0, ("login",)),
    ("cli-password", r"\bldap\w*\b[^\n;&|]{0,400}?\s-w\s*" + _VALUE, 0, ("ldap",)),
    ("cli-password", r"\bhtpasswd\b(?:\s+-[A-Za-z]+)*\s+-[A-Za-z]*b[A-Za-z]*(?:\s+-[A-Za-z]+)*\s+\S+\s+\S+\s+" + _VALUE,
     0, ("htpasswd",)),
    ("cli-password", r"\bsmbclient\b[^\n;&|]{0,300}?\s(?:-U|--user)(?:=|\s*)[\"']?[^\s%\"']{1,100}%([^\s\"']{2,})",
     1, ("smbclient",)),
    ("cli-password", r"\s-pass(?:in|out)?\s+(?:pass|env):([^\s\"']{2,})", 1, ("pass:",)),
    ("cli-password", r"(?:^|[^A-Za-z0-9_])(?:SSHPASS|MYSQL_PWD|REDISCLI_AUTH|PGPASS)\s*=\s*" + _VALUE, 0,
     ("sshpass", "mysql_pwd", "rediscli_auth", "pgpass")),
]


@dataclass(frozen=True, slots=True)
class _Allow:
    target: str  # "secret", "match" or "line": what the regexes are tried on
    regexes: tuple  # compiled by re2
    stopwords: tuple[str, ...]
    both: bool  # condition AND: regexes and stopwords must both hold


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    regex: str
    keywords: tuple[str, ...]
    entropy: float = 0.0
    group: int = 0
    allow: tuple[_Allow, ...] = ()
    engine: object = re2  # the module that compiles ``regex``: re2, or re for look-arounds

    @property
    def pat(self):
        """The compiled pattern (re2's and re's have the same match interface), compiled when the
        rule is first woken: an export wakes a few of the 280 rules, and compiling all of them
        cost each run ~0.1 s."""
        return _compiled(self.engine, self.regex)


@cache
def _compiled(engine, regex: str):
    return engine.compile(regex)


@dataclass(frozen=True, slots=True)
class RuleSet:
    rules: tuple[Rule, ...]
    by_keyword: dict  # keyword → indexes of the rules it wakes
    inside: dict  # word → the words (keywords and the caller's) inside it, itself included
    words: re.Pattern  # finds, at every position of lower-cased text, the longest word there
    glob: _Allow  # gitleaks' global allowlist

    def present(self, low: str) -> frozenset:
        """The words in the lower-cased text: one pass for all of them (a test per word costs
        250 scans of every string)."""
        return frozenset().union(*(self.inside[w] for w in set(self.words.findall(low))))


def _trie(words: list[str]) -> str:
    """A regular expression for any of ``words`` that branches on one character at a time (an
    alternation of 250 words would try each of them at every position), longest first."""
    heads: dict[str, list[str]] = {}
    for w in words:
        heads.setdefault(w[0], []).append(w[1:])
    alts = []
    for c in sorted(heads):
        rest = [w for w in heads[c] if w]
        tail = _trie(rest) if rest else ""
        if rest and "" in heads[c]:
            tail = f"(?:{tail})?"
        alts.append(re.escape(c) + tail)
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def _allow(a: dict) -> _Allow:
    return _Allow(a.get("target", "secret"), tuple(re2.compile(x) for x in a["regexes"]),
                  tuple(a["stopwords"]), a.get("and", False))


@cache
def ruleset(extra: tuple[str, ...] = ()) -> RuleSet:
    """The rules, read once per process (gitleaks' first, then ours); ``extra`` are the caller's
    own trigger words, found in the same pass (``present``)."""
    data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    rules = [Rule(r["id"], r["regex"], tuple(r["keywords"]), r["entropy"], r["group"],
                  tuple(_allow(a) for a in r["allow"])) for r in data["rules"]]
    placeholder = (_Allow("secret", (re2.compile(_PLACEHOLDER),), (), False),)
    rules += [Rule(k, p, kw, group=g, allow=placeholder if k in _ON_COMMAND_LINES else (),
                   engine=re if k in _LOOK_AROUNDS else re2) for k, p, g, kw in OWN_RULES]
    rules += [Rule(k, p, kw, ent) for k, p, kw, ent in bare_rules()]
    by_keyword: dict[str, list[int]] = {}
    for i, r in enumerate(rules):
        for k in r.keywords:
            by_keyword.setdefault(k, []).append(i)
    words = sorted(set(by_keyword) | set(extra))
    # A word found at a position hides the shorter ones inside it: they count as present too.
    inside = {w: frozenset(v for v in words if v in w) for w in words}
    glob = _allow({"regexes": data["allowlist"]["regexes"], "stopwords": data["allowlist"]["stopwords"]})
    return RuleSet(tuple(rules), by_keyword, inside, re.compile(f"(?=({_trie(words)}))"), glob)


def _allowed(a: _Allow, secret: str, match: str, line: str) -> bool:
    target = match if a.target == "match" else line if a.target == "line" else secret
    by_regex = bool(target) and any(p.search(target) for p in a.regexes)
    low = secret.lower()
    by_word = any(w in low for w in a.stopwords)
    if a.both:
        return (by_regex or not a.regexes) and (by_word or not a.stopwords)
    return by_regex or by_word


def _secret_span(rule: Rule, m: re.Match) -> tuple[int, int]:
    if rule.group:
        return m.span(rule.group)
    for g in range(1, rule.pat.groups + 1):
        if m.group(g):
            return m.span(g)
    return m.span()


def find(s: str, rs: RuleSet | None = None, present: frozenset | None = None) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, kind) of the secrets in ``s``, in order; ``present``: the words
    of ``rs.present(s.lower())`` when the caller has them already."""
    rs = rs or ruleset()
    present = rs.present(s.lower()) if present is None else present
    woken = sorted({i for w in present for i in rs.by_keyword.get(w, ())})
    spans: list[tuple[int, int, str]] = []
    for i in woken:
        rule = rs.rules[i]
        for m in rule.pat.finditer(s):
            start, end = _secret_span(rule, m)
            secret = s[start:end]
            if not secret or "[REDACTED" in secret or (rule.entropy and entropy(secret) <= rule.entropy):
                continue
            whole = m.group()
            line = s[s.rfind("\n", 0, start) + 1: (s.find("\n", end) + 1 or len(s) + 1) - 1]
            if _allowed(rs.glob, secret, whole, line) or any(_allowed(a, secret, whole, line) for a in rule.allow):
                continue
            if end < len(s) and (s[end].isalnum() or s[end] in "_-"):  # a token cut short: take all of it
                end = _TOKEN_TAIL.match(s, end).end()
            spans.append((start, end, rule.kind))
    return _merge(spans)


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping finds become one (the first rule's kind)."""
    out: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans, key=lambda x: (x[0], -x[1])):
        if out and start < out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end, out[-1][2])
            continue
        out.append((start, end, kind))
    return out
