"""Token usage and cost of a session, a project, a day, the whole home (FORMAT.md §8).

Counting rules, in the order they apply:

* One API response is written as several ``assistant`` lines that repeat its usage; a response is
  the group (``message.id``, ``requestId``) and counts once, with its largest usage (the last line).
  This is the same rule as ``model.Builder`` applies per transcript, but over the whole session, so
  a response that shows up in two files of the session still counts once.
* Compaction, side-question and prompt-suggestion runs replay the parent conversation: a line in a
  non-main transcript whose ``message.id`` also occurs in the main transcript is a replayed copy and
  is not counted (its requestId may differ, which is why the id alone decides). The main transcript
  is therefore fed first.
* Sub-agents (``agent-*.jsonl``) are their own API traffic: counted once, attributed to that
  sub-agent, and included in the session total. ``progress``/``agent_progress`` copies of their
  messages in the parent are not ``assistant`` lines and so never counted.
* Days are UTC calendar days of the line's timestamp (the site is built for any time zone).
* Cost comes from ``prices.py``; tokens of models without a price are reported as such.

Everything here is plain data (dicts of ints/floats/strings) so it can be written as JSON part
files beside the site and summed later without re-reading transcripts.
"""

from __future__ import annotations

from typing import Any, Iterable

from .model import USAGE_KEYS
from .prices import cost

# The fields a usage record carries: the four API counters, plus the 1-hour share of cache writes.
FIELDS = USAGE_KEYS + ("cache_write_1h",)


def empty() -> dict:
    return dict.fromkeys(FIELDS, 0) | {"responses": 0, "cost": 0.0, "unpriced_tokens": 0}


def _clean(u: Any) -> dict | None:
    if not isinstance(u, dict):
        return None
    out = {k: u[k] for k in USAGE_KEYS if isinstance(u.get(k), int) and not isinstance(u.get(k), bool)}
    cc = u.get("cache_creation")
    if isinstance(cc, dict) and isinstance(cc.get("ephemeral_1h_input_tokens"), int):
        out["cache_write_1h"] = cc["ephemeral_1h_input_tokens"]
    return out or None


def _total(u: dict) -> int:
    return sum(u.get(k, 0) for k in USAGE_KEYS)


def add_into(acc: dict, rec: dict) -> dict:
    """Sum one usage record (or another accumulator) into acc."""
    for k in FIELDS:
        acc[k] = acc.get(k, 0) + rec.get(k, 0)
    acc["responses"] = acc.get("responses", 0) + rec.get("responses", 0)
    acc["cost"] = acc.get("cost", 0.0) + (rec.get("cost") or 0.0)
    acc["unpriced_tokens"] = acc.get("unpriced_tokens", 0) + rec.get("unpriced_tokens", 0)
    return acc


class SessionUsage:
    """Feed the entries of one session's transcripts, main transcript first; then ``report()``."""

    def __init__(self) -> None:
        self.groups: dict[str, list] = {}  # (msg id|request id) → [usage, model, day, transcript id]
        self.main_ids: set[str] = set()
        self.replayed = 0  # lines skipped as copies of the main conversation
        self._tid = "main"
        self._main = True

    def start(self, transcript_id: str, kind: str) -> None:
        self._tid = transcript_id
        self._main = kind == "main"

    def feed(self, obj: dict | None) -> None:
        if not isinstance(obj, dict) or obj.get("type") != "assistant":
            return
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return
        usage = _clean(msg.get("usage"))
        if usage is None:
            return
        mid = msg.get("id") if isinstance(msg.get("id"), str) else None
        if mid and self._main:
            self.main_ids.add(mid)
        elif mid and mid in self.main_ids:
            self.replayed += 1
            return
        rid = obj.get("requestId") if isinstance(obj.get("requestId"), str) else ""
        key = f"{mid or id(obj)}|{rid}"
        model = msg.get("model") if isinstance(msg.get("model"), str) else None
        ts = obj.get("timestamp")
        day = ts[:10] if isinstance(ts, str) and len(ts) >= 10 else "unknown"
        g = self.groups.get(key)
        if g is None:
            self.groups[key] = [usage, model, day, self._tid]
        elif _total(usage) > _total(g[0]):
            g[0] = usage

    def feed_all(self, entries: Iterable) -> None:
        for e in entries:
            self.feed(e.obj)

    def report(self) -> dict:
        """{"total", "by_model", "by_day", "by_transcript", "replayed_lines", "unpriced_models"}."""
        total, by_model, by_day, by_tr = empty(), {}, {}, {}
        unpriced: list[str] = []
        for usage, model, day, tid in self.groups.values():
            rec = dict(usage, responses=1)
            c = cost(model, usage)
            if c is None:
                rec["unpriced_tokens"] = _total(usage)
                name = model or "(no model)"
                if name not in unpriced:
                    unpriced.append(name)
            else:
                rec["cost"] = c
            add_into(total, rec)
            add_into(by_model.setdefault(model or "(no model)", empty()), rec)
            add_into(by_day.setdefault(day, empty()), rec)
            add_into(by_tr.setdefault(tid, empty()), rec)
        return {"total": total, "by_model": by_model, "by_day": dict(sorted(by_day.items())),
                "by_transcript": by_tr, "replayed_lines": self.replayed, "unpriced_models": sorted(unpriced)}


def merge_reports(reports: Iterable[dict]) -> dict:
    """Sum session reports into a project (or home) report (by_transcript is dropped)."""
    total, by_model, by_day = empty(), {}, {}
    unpriced: set[str] = set()
    replayed = 0
    for r in reports:
        add_into(total, r["total"])
        for m, rec in r["by_model"].items():
            add_into(by_model.setdefault(m, empty()), rec)
        for d, rec in r["by_day"].items():
            add_into(by_day.setdefault(d, empty()), rec)
        unpriced.update(r.get("unpriced_models") or [])
        replayed += r.get("replayed_lines", 0)
    return {"total": total, "by_model": by_model, "by_day": dict(sorted(by_day.items())),
            "replayed_lines": replayed, "unpriced_models": sorted(unpriced)}


def session_report(session) -> dict:
    """Read one session's transcripts (streaming) and count its usage: for ``ccreport stats``."""
    from .jsonl import read_entries

    su = SessionUsage()
    for t in ([session.main] if session.main else []) + list(session.agents):
        su.start(t.id, t.kind)
        try:
            su.feed_all(read_entries(t.path))
        except OSError:
            continue
    return su.report()


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


def view(report: dict | None, label: str = "Activity per day") -> dict | None:
    """What the page templates show of a report: formatted totals, models, the day chart."""
    if not report:
        return None
    from .chart import day_chart

    t = report["total"]
    models = sorted(report["by_model"].items(), key=lambda kv: -(kv[1].get("cost") or 0) - kv[1].get("output_tokens", 0) / 1e9)
    return {"total": fmt_tokens(t), "has_usage": t.get("responses", 0) > 0,
            "models": [dict(fmt_tokens(r), name=m) for m, r in models],
            "unpriced": report.get("unpriced_models") or [], "replayed": report.get("replayed_lines", 0),
            "days": len(report.get("by_day") or {}), "chart": day_chart(report.get("by_day") or {}, label)}


def session_cost(report: dict | None) -> str:
    """The short cost cell of an index row ("" when there is no usage part)."""
    if not report or not report["total"].get("responses"):
        return ""
    return fmt_cost(report["total"])
