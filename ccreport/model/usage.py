"""Token usage and cost of a session, a project, a day, the whole home, as plain data: each API response
counted once per session, replayed copies not at all (the counting rules are in docs/model.md).
"""

from __future__ import annotations

import operator
from typing import Any, Iterable

from ccreport.source.reading import read_transcript
from ccreport.model.forks import copied, fork_ref
from ccreport.model.kinds import cost_state
from ccreport.model.messages import USAGE_KEYS
from ccreport.model.prices import UNITS_PER_DOLLAR, counts_cost, price_of

# The fields a usage record carries: the four API counters, plus the 1-hour share of cache writes.
FIELDS = USAGE_KEYS + ("cache_write_1h",)


def _counts(u: Any) -> list | None:
    """A response's usage as the FIELDS list (a counter that is missing or not an int counts 0), or
    None when it has none of them."""
    if not isinstance(u, dict):
        return None
    out, found = [0, 0, 0, 0, 0], False
    for i, k in enumerate(USAGE_KEYS):
        v = u.get(k)
        if v.__class__ is int or (isinstance(v, int) and not isinstance(v, bool)):
            out[i], found = v, True
    cc = u.get("cache_creation")
    if isinstance(cc, dict) and isinstance(cc.get("ephemeral_1h_input_tokens"), int):
        out[4], found = cc["ephemeral_1h_input_tokens"], True
    return out if found else None


def add_into(acc: dict, rec: dict) -> None:
    """Sum one report record into ``acc`` (a record of _rec's shape)."""
    for key in acc:
        acc[key] += rec.get(key, 0)


# A running sum is a list of ints: the FIELDS, then responses, cost units, unpriced tokens.
NSUM = len(FIELDS) + 3


def _vec(u: list, model: str | None) -> list:
    """The running-sum contribution of one response (usage as the FIELDS list)."""
    inp, out, write, read, write_1h = u  # (the FIELDS' order)
    c = counts_cost(model, inp, out, write, write_1h, read)
    return [inp, out, write, read, write_1h, 1, c or 0, inp + out + write + read if c is None else 0]


def _acc(acc: list, vec: list, sign: int = 1) -> None:
    # (in place: the by-model and by-day sums are lists held by their dicts)
    acc[:] = map(operator.add if sign > 0 else operator.sub, acc, vec)


def _rec(acc: list) -> dict:
    """A running sum as a report record (of zeros: an empty one)."""
    n = len(FIELDS)
    return dict(zip(FIELDS, acc[:n])) | {"responses": acc[n], "cost": acc[n + 1] / UNITS_PER_DOLLAR,
                                         "unpriced_tokens": acc[n + 2]}


class TranscriptUsage:
    """One transcript's API responses, kept beside the site and resumed when the file grows (docs/model.md).

    ``groups``: a row per response group, in first-seen order: ``[mid, rid, usage, model, day, lines,
    last]`` (``usage`` as the FIELDS list, ``lines`` = lines with usage in the group, ``last`` = the
    line number of its last one; a line without ``message.id`` is its own group), beside running sums.
    """

    def __init__(self, data: dict | None = None) -> None:
        self.groups: dict[tuple, list] = {}
        self.total = [0] * NSUM
        self.by_model: dict[str, list] = {}
        self.by_day: dict[str, list] = {}
        # A forked transcript's copied prefix (model.forks): its responses are the parent's, counted there.
        self.fork: dict | None = None
        self.forked_lines = 0
        # Claude Code's own figure: the last ``cost-state`` line (model.kinds.cost_state), beside ours.
        self.claude: dict | None = None
        if isinstance(data, dict):
            self.fork = data.get("fork") if isinstance(data.get("fork"), dict) else None
            self.forked_lines = data.get("forked_lines") or 0
            self.claude = data.get("claude") if isinstance(data.get("claude"), dict) else None
            for r in data.get("rows") or []:
                self.groups[_key(r[0], r[1], r[6])] = r
            sums = data.get("sums") or {}
            self.total = sums.get("total") or self.total
            self.by_model = sums.get("by_model") or {}
            self.by_day = sums.get("by_day") or {}

    def tokens(self) -> dict:
        """The four API counters over the transcript's responses (the token cell of its index row)."""
        return dict(zip(USAGE_KEYS, self.total))

    def to_json(self) -> dict:
        out = {"rows": list(self.groups.values()), "claude": self.claude,
               "sums": {"total": self.total, "by_model": self.by_model, "by_day": self.by_day}}
        if self.fork is not None:
            out.update(fork=self.fork, forked_lines=self.forked_lines)
        return out

    def _add(self, row: list, sign: int) -> None:
        vec = _vec(row[2], row[3])
        _acc(self.total, vec, sign)
        _acc(self.by_model.setdefault(row[3] or "(no model)", [0] * NSUM), vec, sign)
        _acc(self.by_day.setdefault(row[4], [0] * NSUM), vec, sign)

    def feed(self, obj: dict | None, line: int) -> None:
        if not isinstance(obj, dict):
            return
        if self._forked(obj, line):
            return
        if obj.get("type") != "assistant":
            if obj.get("type") == "cost-state":
                self.claude = cost_state(obj) or self.claude  # written many times: the last one holds
            return
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return
        counts = _counts(msg.get("usage"))
        if counts is None:
            return
        mid = msg.get("id") if isinstance(msg.get("id"), str) else None
        rid = obj.get("requestId") if isinstance(obj.get("requestId"), str) else ""
        key = _key(mid, rid, line)
        g = self.groups.get(key)
        if g is None:
            model = msg.get("model") if isinstance(msg.get("model"), str) else None
            ts = obj.get("timestamp")
            day = ts[:10] if isinstance(ts, str) and len(ts) >= 10 else "unknown"
            g = self.groups[key] = [mid, rid, counts, model, day, 1, line]
            self._add(g, 1)
            return
        if line <= g[6]:
            return  # counted before this incremental run re-read it
        g[5] += 1
        g[6] = line
        if sum(counts[:4]) > sum(g[2][:4]):  # (the four API counters: USAGE_KEYS)
            self._add(g, -1)
            g[2] = counts
            self._add(g, 1)

    def _forked(self, obj: dict, line: int) -> bool:
        """Whether the line is one a fork copied from its parent (not counted). The copied lines
        run from the fork-context-ref line ("at") to the last one copied ("last"): a resumed read
        that feeds some of them again finds them in that range."""
        f = self.fork
        if obj.get("type") == "fork-context-ref" and (f is None or line > f.get("last", f.get("at", 0))):
            ref = fork_ref(obj)
            self.fork = f = dict(ref, at=line, last=line) if ref else None
        if f is None or line <= f["at"]:
            return False
        if line <= f["last"]:
            return True
        if copied(f, obj):
            f["last"] = line
            self.forked_lines += obj.get("type") == "assistant"
            return True
        return False

    def tap(self, entries: Iterable):
        """Pass ``entries`` through (to the renderer), feeding each one on the way."""
        for e in entries:
            self.feed(e.obj, e.line)
            yield e


def _key(mid: str | None, rid: str, line: int) -> tuple:
    return (mid, rid) if mid else ("#", line)


def merge_ledgers(ledgers: list[tuple[str, str, TranscriptUsage]]) -> dict:
    """The session report from its transcripts' ledgers: ``(transcript id, kind, ledger)``, in
    session order. The main transcript's running sums are taken as they are; only the rows of the
    others are merged (docs/model.md)."""
    total, by_model, by_day, by_tr = [0] * NSUM, {}, {}, {}
    main_id, main = next(((tid, led) for tid, kind, led in ledgers if kind == "main"), (None, None))
    if main is not None and main.groups:
        total = list(main.total)
        by_model = {model: list(sums) for model, sums in main.by_model.items()}
        by_day = {day: list(sums) for day, sums in main.by_day.items()}
        by_tr[main_id] = list(main.total)
    others = [(tid, led) for tid, kind, led in ledgers if led is not main and led.groups]
    replayed = 0
    main_ids = {r[0] for r in main.groups.values() if r[0]} if main is not None else set()
    groups: dict[tuple, list] = {}
    for tid, led in others:
        for mid, rid, u, model, day, lines, last in led.groups.values():
            if mid and mid in main_ids:
                replayed += lines
                continue
            key = (mid, rid) if mid else (tid, last)
            g = groups.get(key)
            if g is None:
                groups[key] = [u, model, day, tid]
            elif sum(u[: len(USAGE_KEYS)]) > sum(g[0][: len(USAGE_KEYS)]):
                g[0] = u
    for u, model, day, tid in groups.values():
        vec = _vec(u, model)
        _acc(total, vec)
        _acc(by_model.setdefault(model or "(no model)", [0] * NSUM), vec)
        _acc(by_day.setdefault(day, [0] * NSUM), vec)
        _acc(by_tr.setdefault(tid, [0] * NSUM), vec)
    return {"total": _rec(total), "by_model": {m: _rec(v) for m, v in by_model.items()},
            "by_day": {d: _rec(v) for d, v in sorted(by_day.items())},
            "by_transcript": {t: _rec(v) for t, v in by_tr.items()}, "replayed_lines": replayed,
            "forked_lines": sum(led.forked_lines for _, _, led in ledgers),
            "unpriced_models": sorted(m for m in by_model if price_of(m) is None),
            "claude_code": _claude_figure(ledgers, main)}


def _claude_figure(ledgers: list, main) -> dict | None:
    """Claude Code's own cost of the session (``cost-state``): the main transcript's, else the
    largest an agent file holds; ``sessions`` counts the sessions that recorded one."""
    found = [led.claude for _, _, led in ledgers if led.claude]
    if not found:
        return None
    best = main.claude if main is not None and main.claude else max(found, key=lambda c: c.get("cost", 0))
    return {"cost": best.get("cost", 0.0), "sessions": 1, "unknown_model_cost": bool(best.get("unknown_model_cost")),
            "models": dict(best.get("models") or {})}


def merge_reports(reports: Iterable[dict]) -> dict:
    """Sum session reports into a project (or home) report (by_transcript is dropped)."""
    total, by_model, by_day = _rec([0] * NSUM), {}, {}
    unpriced: set[str] = set()
    replayed = forked = 0
    claude: dict | None = None
    for r in reports:
        add_into(total, r["total"])
        for m, rec in r["by_model"].items():
            add_into(by_model.setdefault(m, _rec([0] * NSUM)), rec)
        for d, rec in r["by_day"].items():
            add_into(by_day.setdefault(d, _rec([0] * NSUM)), rec)
        unpriced.update(r.get("unpriced_models") or [])
        replayed += r.get("replayed_lines", 0)
        forked += r.get("forked_lines", 0)
        cc = r.get("claude_code")
        if cc:
            claude = claude or {"cost": 0.0, "sessions": 0, "unknown_model_cost": False, "models": {}}
            claude["cost"] += cc.get("cost", 0.0)
            claude["sessions"] += cc.get("sessions", 0)
            claude["unknown_model_cost"] |= bool(cc.get("unknown_model_cost"))
            for m, c in (cc.get("models") or {}).items():
                claude["models"][m] = claude["models"].get(m, 0.0) + c
    return {"total": total, "by_model": by_model, "by_day": dict(sorted(by_day.items())),
            "replayed_lines": replayed, "forked_lines": forked, "unpriced_models": sorted(unpriced),
            "claude_code": claude}


def session_report(session) -> dict:
    """Read one session's transcripts (streaming) and count its usage: for ``ccreport stats``."""
    ledgers = []
    for t in session.transcripts:
        ledger = TranscriptUsage()
        ledgers.append((t.id, t.kind, ledger))
        try:
            for e in read_transcript(t):  # from the source store when the home lost it
                ledger.feed(e.obj, e.line)
        except OSError:
            continue
    return merge_ledgers(ledgers)


# --- display helpers (shared by the pages and the terminal) -------------------------------------
def fmt_cost(rec: dict) -> str:
    c = rec.get("cost") or 0.0
    s = f"${c:,.2f}" if c >= 0.01 or c == 0 else "<$0.01"
    if rec.get("unpriced_tokens"):
        s += f" + {rec['unpriced_tokens']:,} tokens of unpriced models"
    return s


def fmt_tokens(rec: dict) -> dict:
    return {"input": f"{rec.get('input_tokens', 0):,}", "output": f"{rec.get('output_tokens', 0):,}",
            "cache_write": f"{rec.get('cache_creation_input_tokens', 0):,}",
            "cache_read": f"{rec.get('cache_read_input_tokens', 0):,}", "responses": f"{rec.get('responses', 0):,}",
            "cost": fmt_cost(rec)}


def session_cost(report: dict | None) -> str:
    """The short cost cell of an index row ("" when there is no usage part)."""
    if not report or not report["total"].get("responses"):
        return ""
    return fmt_cost(report["total"])
