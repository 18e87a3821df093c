"""Usage reports (model.usage) as the page templates show them: formatted totals, models, the day chart."""

from __future__ import annotations

from ccreport.model.usage import fmt_tokens
from ccreport.render.chart import day_chart


def view(report: dict | None, label: str = "Activity per day") -> dict | None:
    """What the page templates show of a report: formatted totals, models, the day chart."""
    if not report:
        return None
    t = report["total"]
    models = sorted(report["by_model"].items(), key=lambda kv: -(kv[1].get("cost") or 0) - kv[1].get("output_tokens", 0) / 1e9)
    return {"total": fmt_tokens(t), "has_usage": t.get("responses", 0) > 0,
            "models": [dict(fmt_tokens(r), name=m) for m, r in models],
            "unpriced": report.get("unpriced_models") or [], "replayed": report.get("replayed_lines", 0),
            "days": len(report.get("by_day") or {}), "chart": day_chart(report.get("by_day") or {}, label)}
