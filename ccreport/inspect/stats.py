"""``ccreport stats``: the figures the site's pages show (same ``usage.merge_ledgers`` rules), summed per
session, project, day and model straight from the home. Nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

from ccreport.inspect.terminal import printable
from ccreport.source.activity import project_path
from ccreport.source.archive import with_archive
from ccreport.source.home import discover
from ccreport.model.usage import fmt_cost, merge_reports, session_report


def collect(home: Path, store: Path | None = None) -> dict:
    """{"home": report, "projects": {dir: report + {"sessions": {id: report}}}, "problems": [...]};
    with ``store``, the sessions it kept after the home lost them count too (read from it)."""
    catalog = with_archive(discover(home), store)  # no archive there: the home alone
    projects = {}
    for p in catalog.projects:
        sessions = {sid: session_report(s) for sid, s in sorted(p.sessions.items())}
        projects[p.dir_name] = merge_reports(sessions.values()) | {"path": project_path(p), "sessions": sessions}
    return {"home": merge_reports(projects.values()), "projects": projects, "problems": list(catalog.problems)}


def _row(label: str, r: dict, width: int) -> str:
    return (f"{label:<{width}} {r.get('responses', 0):>9,} {r.get('input_tokens', 0):>12,} {r.get('output_tokens', 0):>12,} "
            f"{r.get('cache_creation_input_tokens', 0):>13,} {r.get('cache_read_input_tokens', 0):>14,}  {fmt_cost(r)}")


def _table(title: str, rows: list[tuple[str, dict]], width: int = 40) -> list[str]:
    rows = [(printable(label), r) for label, r in rows]  # (paths and model names from the home)
    width = max([width, len(title)] + [len(label) for label, _ in rows])  # labels whole: paths are not cut
    head = f"{title:<{width}} {'responses':>9} {'input':>12} {'output':>12} {'cache write':>13} {'cache read':>14}  cost"
    return [head, "-" * len(head)] + [_row(label, r, width) for label, r in rows] + [""]


def render_text(data: dict) -> str:
    h = data["home"]
    out = _table("Home (all projects)", [("total", h["total"])])
    out += _table("Project", sorted(((r["path"], r["total"]) for r in data["projects"].values()),
                                    key=lambda kv: -(kv[1].get("cost") or 0)))
    out += _table("Model", sorted(h["by_model"].items(), key=lambda kv: -(kv[1].get("cost") or 0)))
    out += _table("Day (UTC)", list(h["by_day"].items()), width=12)
    out += _claude_table(data)
    notes = [f"{h.get('replayed_lines', 0)} replayed lines of compaction / side-question runs not counted.",
             "Cost at API list prices (ccreport/model/prices.py); a subscription is not billed per token."]
    if h.get("forked_lines"):
        notes.append(f"{h['forked_lines']} response lines copied into forked sessions not counted (their parents count them).")
    cc = h.get("claude_code")
    if cc:
        notes.append(f"Claude Code's own cost (its cost-state lines, {cc['sessions']} session(s)): ${cc['cost']:,.2f}. "
                     "The cost column is ccreport's:")
        notes.append("assistant-line tokens at list prices; Claude Code's own figure also counts background models")
        notes.append("(titles, summaries) that never appear as assistant lines, and its own price table.")
    if h.get("unpriced_models"):
        notes.append("No price known for " + ", ".join(h["unpriced_models"]) + ": tokens only.")
    return printable("\n".join(out + notes)) + "\n"  # (model names in the notes too)


def _claude_table(data: dict) -> list[str]:
    """Sessions whose transcript holds Claude Code's own cost (cost-state lines): both figures side by side."""
    rows = [(f"{d[:30]}/{sid[:8]}", r) for d, p in data["projects"].items() for sid, r in p["sessions"].items()
            if r.get("claude_code")]
    if not rows:
        return []
    head = f"{'Session (cost by ccreport / by Claude Code)':<40} {'ccreport':>12} {'Claude Code':>12}"
    return [head, "-" * len(head)] + [f"{label:<40} {fmt_cost(r['total']):>12} {'$' + format(r['claude_code']['cost'], ',.2f'):>12}"
                                      for label, r in rows] + [""]


def render_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"
