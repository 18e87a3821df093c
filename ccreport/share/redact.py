"""Take secrets and home directories out of every string of every transcript entry (keys too, base64
payloads excepted) before anything is rendered; see docs/export.md."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.share import secrets
from ccreport.source.home import Transcript
from ccreport.source.jsonl import lines
from ccreport.source.reading import open_transcript

# Values of KEY=value assignments that are clearly not secrets (numbers, booleans, references).
_HARMLESS_VALUE = re.compile(r"^(?:\d+(?:\.\d+)?|true|false|null|none|yes|no|\$.*|\[REDACTED.*|<[^>]*>|\*+|x+|\.\.\.|…)$", re.I)
# A password=… that names where the password is (``--password=$DB_PASS``), not the password.
_REFERENCE = re.compile(r"^(?:\$.*|<[^>]*>|\*+|\[REDACTED.*)$")
# Values of NAME=value that are code, not a secret (seen in real transcripts: ``x_token =
# sum(p.get(…``, ``= usage.input_tokens``, ``token_usage=token_usage_str``): a call or a bracket, a
# dotted name of letters, or a name that itself says token / secret / password / key.
_CODE_VALUE = re.compile(r"^(?:.*[(\[].*|[A-Za-z_]+(?:\.[A-Za-z_]+)+|[A-Za-z_]*(?:token|secret|passw|key|credential)[A-Za-z_]*)$",
                         re.I)
# Names that look secret in NAME=value / "name": "value" (matched case-insensitively).
SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token", "api_key", "api-key", "apikey", "access_key",
                "access-key", "private_key", "private-key", "credential", "auth_key", "auth-key")
_SECRET_NAME = r"[A-Za-z0-9_.-]*?(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN(?!S|IZ)|API[_-]?KEY|APIKEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|CREDENTIALS?|AUTH[_-]?KEY)[A-Za-z0-9_]*"


# (kind, pattern, group, triggers): the group of the match that is replaced (0 = all of it); triggers are
# lower-case substrings one of which any match must contain, so a string holding none of them skips the
# (much slower) regular expression. Order matters: specific key formats come before the generic assignment
# rules, so a GitHub token in ``GITHUB_TOKEN=ghp_…`` is reported as a github-token.
_RULES = [
    # A key block, with or without its END line (a truncated paste is still a key).
    ("private-key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\n]*)"), 0, ("private key",)),
    ("anthropic-key", re.compile(r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}"), 0, ("sk-ant-",)),
    ("openai-key", re.compile(r"(?<![\w-])sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}"), 0, ("sk-",)),
    ("aws-access-key-id", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA|AGPA)[A-Z0-9]{16}(?![A-Za-z0-9])"), 0, ("akia", "asia", "abia", "acca", "aida", "aroa", "aipa", "anpa", "anva", "apka", "agpa")),
    ("aws-secret-key", re.compile(r"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), 1, ("secret",)),
    ("github-token", re.compile(r"(?<![A-Za-z0-9_])(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}"), 0, ("ghp_", "gho_", "ghs_", "ghu_", "ghr_")),
    ("github-token", re.compile(r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}"), 0, ("github_pat_",)),
    ("slack-token", re.compile(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}"), 0, ("xox", "xapp-")),
    ("slack-token", re.compile(r"(?<![A-Za-z0-9])xapp-\d-[A-Za-z0-9-]{10,}"), 0, ("xox", "xapp-")),
    ("stripe-key", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), 0, ("_live_", "_test_")),
    ("google-api-key", re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}"), 0, ("aiza",)),
    ("jwt", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0, ("eyj",)),
    ("bearer-token", re.compile(r"(?i)\bbearer\s+(?!\[REDACTED)([A-Za-z0-9._~+/-]{20,}=*)"), 1, ("bearer",)),
    # scheme://user:password@host — only the password goes.
    ("url-password", re.compile(r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@\"'<>]{0,200}:([^\s/@\"'<>]{1,200})@"), 1, ("://",)),
    # Connection strings: Password=…; Pwd=…;
    ("connection-string-password", re.compile(r"(?i)(?<![A-Za-z0-9_])(?:password|pwd)\s*=\s*([^;\s\"']{1,200})(?=;|\s|$|[\"'])"), 1, ("password", "pwd")),
    # NAME=value (env files, shell exports, command lines) and "name": "value" (JSON, YAML).
    ("secret-assignment", re.compile(r"(?i)(?<![A-Za-z0-9_])" + _SECRET_NAME + r"\s*=\s*[\"']?([^\s\"'`,;]{3,})"), 1, SECRET_WORDS),
    ("secret-assignment", re.compile(r"(?i)[\"']?(?<![A-Za-z0-9_])" + _SECRET_NAME + r"[\"']?\s*:\s*[\"']([^\"'\n]{3,})[\"']"), 1, SECRET_WORDS),
]


def _home_rules(extra_homes: list[str] | None) -> list[tuple[re.Pattern, tuple]]:
    """(pattern, literal triggers — one must be in the string for the pattern to be tried)."""
    if extra_homes is None:  # this user's
        extra_homes = sorted({str(Path.home()), os.environ.get("HOME") or str(Path.home())}, key=len, reverse=True)
    pats = [
        (r"/Users/[^/\s\"'\\:<>]+", ("/Users/",)),
        (r"/home/[^/\s\"'\\:<>]+", ("/home/",)),
        (r"(?i)\b[A-Z]:(?:\\\\|\\|/)Users(?:\\\\|\\|/)[^\\/\s\"':<>]+", (":\\", ":/")),
        # Claude Code's encoded project folder names (-Users-name-…, -home-name-…).
        (r"(?<![\w-])-(?:Users|home)-[A-Za-z0-9_.]+(?=-|\b)", ("-Users-", "-home-")),
    ]
    for h in extra_homes:
        if len(h) > 1:  # not "", "/" or "~"
            h = h.rstrip("/")
            pats.insert(0, (re.escape(h) + r"(?![\w.-])", (h,)))
    return [(re.compile(p), t) for p, t in pats]


@dataclass
class Redactor:
    """Redacts strings and entries; ``counts`` says what it replaced, by kind."""

    patterns: list[str] = field(default_factory=list)  # --redact-pattern values
    homes: list[str] | None = None  # homes besides /Users/*, /home/*, C:\Users\* (default: this user's)
    counts: dict = field(default_factory=dict)
    accounts: set = field(default_factory=set)  # literal account e-mails / ids found by learn_accounts
    log: list | None = None  # when a list: (kind, value) of every replacement, for audits of what is redacted

    def __post_init__(self):
        self._rules = list(_RULES)
        for i, p in enumerate(self.patterns):
            self._rules.append(("custom" if len(self.patterns) == 1 else f"custom-{i + 1}", re.compile(p), 0, ()))
        self._homes = _home_rules(self.homes)
        self._vetted_rules = secrets.ruleset(tuple(sorted({t for r in _RULES for t in r[3]})))

    # --- strings --------------------------------------------------------------------------------
    def text(self, s: str) -> str:
        if not s:
            return s
        if self.accounts:  # account e-mail and ids this session's files hold (see learn_accounts)
            s = self._accounts(s)
        if len(s) >= 8:
            # The words that wake each rule, found in one pass. A replacement only takes text out and
            # puts "[REDACTED:kind]" in (no word spans its brackets), so the set stays good enough.
            present = self._vetted_rules.present(s.lower())
            for kind, pat, group, triggers in self._rules:
                if triggers and present.isdisjoint(triggers):
                    continue
                s = pat.sub(lambda m, k=kind, g=group: self._replace(m, k, g), s)
            s = self._vetted(s, present)
        for pat, triggers in self._homes:
            if not any(t in s for t in triggers):
                continue
            s, n = pat.subn("~", s)
            if n:
                self.counts["home-path"] = self.counts.get("home-path", 0) + n
        return s

    def _vetted(self, s: str, present: frozenset) -> str:
        """The vetted rule set (share.secrets: gitleaks' rules and ours) on what the rules above left."""
        found = secrets.find(s, self._vetted_rules, present)
        if not found:
            return s
        out, at = [], 0
        for start, end, kind in found:
            self._count(kind, s[start:end])
            out += (s[at:start], f"[REDACTED:{kind}]")
            at = end
        out.append(s[at:])
        return "".join(out)

    def _replace(self, m: re.Match, kind: str, group: int) -> str:
        whole, value = m.group(0), m.group(group)
        not_secret = (kind == "secret-assignment" and (_HARMLESS_VALUE.match(value) or _CODE_VALUE.match(value))) \
            or (kind == "connection-string-password" and _REFERENCE.match(value)) if value is not None else True
        if not_secret or (not group and whole.startswith("[REDACTED")):
            return whole
        self._count(kind, value)
        start, end = m.start(group) - m.start(0), m.end(group) - m.start(0)
        return whole[:start] + f"[REDACTED:{kind}]" + whole[end:]

    def _count(self, kind: str, value: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n
        if self.log is not None:
            self.log += [(kind, value)] * n

    def _accounts(self, s: str) -> str:
        for value in self.accounts:
            if value in s:
                self._count("account-id", value, s.count(value))
                s = s.replace(value, "[REDACTED:account-id]")
        return s

    # --- entries -------------------------------------------------------------------------------
    def value(self, v):
        """A redacted copy of a JSON value: every string (keys too), base64 payloads excepted."""
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            skip_data = v.get("type") == "base64"
            out = {}
            for k, x in v.items():  # (keys of parsed JSON are always strings)
                keep = (skip_data and k == "data") or (k == "base64" and isinstance(x, str))
                if isinstance(x, str) and x and _ACCOUNT_ID_KEY.match(k):
                    self._count("account-id", x)
                    out[k] = "[REDACTED:account-id]"  # by its name: whatever shape the id has
                else:
                    out[self.text(k)] = x if keep else self.value(x)
            return out
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def summary(self) -> str:
        if not self.counts:
            return "redaction: nothing found to redact"
        parts = ", ".join(f"{n} {k}" for k, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"redacted: {parts}"


def compile_patterns(patterns) -> list[str]:
    """Check --redact-pattern values; raises ValueError with a readable message."""
    for p in patterns:
        try:
            pat = re.compile(p)
        except re.error as exc:
            raise ValueError(f"invalid --redact-pattern {p!r}: {exc}") from None
        if pat.fullmatch(""):
            # It would "redact" the empty string between every two characters.
            raise ValueError(f"--redact-pattern {p!r} matches the empty string")
    return list(patterns)


# --- account identifiers (Claude Code 2.1.2xx, docs/formats.md F6, F8) --------------------------------------
# The account e-mail sits in ``session_context`` attachments, the account and organisation UUIDs in
# ``bridge-session`` lines. They are found structurally, before the export starts, and every later
# occurrence of the same value, in any line, is replaced.
_ACCOUNT_MARKERS = (b'"session_context"', b'"bridge-session"')
_ACCOUNT_KEY = re.compile(r"(?i)^(?:owner)?(?:account|organi[sz]ation|org)[_-]?(?:uuid|id)?$|e-?mail")
# Fields that hold an account or organisation id (bridge-session's ownerAccountUuid and
# ownerOrganizationUuid, the accountUuid / organizationUuid of earlier versions): redacted wherever
# a line carries them, by name.
_ACCOUNT_ID_KEY = re.compile(r"(?i)^(?:owner)?(?:account|organi[sz]ation|org)[_-]?(?:uuid|id)$")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


def account_values(obj) -> set[str]:
    """The account e-mails and account/organisation ids one parsed line holds (empty for other lines)."""
    if not isinstance(obj, dict):
        return set()
    att = obj.get("attachment")
    if obj.get("type") == "attachment" and isinstance(att, dict) and att.get("type") == "session_context":
        found = {v for k, v in att.items() if isinstance(v, str) and _ACCOUNT_KEY.search(k) and v}
        stack = [att, obj.get("rendered")]
        while stack:  # every e-mail address in any string of the attachment
            v = stack.pop()
            if isinstance(v, str):
                found.update(_EMAIL.findall(v))
            elif isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
        return found
    if obj.get("type") == "bridge-session":
        return {v for k, v in obj.items() if isinstance(v, str) and len(v) >= 6 and _ACCOUNT_KEY.search(k)}
    return set()


def learn_accounts(redactor: Redactor, path: Path | Transcript) -> None:
    """Add the account values of one transcript to ``redactor.accounts``: one bounded pass over its
    lines (jsonl.lines: a line past the cap is skipped, never held), a byte search per line before
    any parsing (most files hold neither line type). Not mmap: every page it touches counts as
    resident, so a 1 GiB transcript cost 1 GiB of RSS. A Transcript the home lost is read from the
    site's archive."""
    import orjson

    try:
        with (open_transcript(path) if isinstance(path, Transcript) else open(path, "rb")) as fh:
            for ln in lines(fh):
                if ln.cut or not any(marker in ln.data for marker in _ACCOUNT_MARKERS):
                    continue
                try:
                    redactor.accounts |= account_values(orjson.loads(ln.data))
                except orjson.JSONDecodeError:
                    pass
    except OSError:
        return
