"""Usage reports (model.usage) as the page templates show them: formatted totals, models, and a
bar chart of activity over days as inline SVG (docs/render.md says why it is drawn this way)."""

from __future__ import annotations

from datetime import date, timedelta

from markupsafe import Markup

from ccreport.model.usage import fmt_tokens
from ccreport.render.markup import esc

WIDTH, HEIGHT, PAD = 640, 120, 18
MAX_BARS = 120  # longer spans are drawn per week (or coarser) so bars stay visible
# The widest a bar gets: a span of one or a few days draws thin bars from the left, not one block
# across the chart (40 units, a sixteenth of it, read as a wall of colour beside a lone date).
BAR_MAX = 16.0


def _days(by_day: dict) -> list[tuple[str, dict]]:
    known = sorted(d for d in by_day if len(d) == 10 and d[4] == "-")
    if not known:
        return []
    try:
        first, last = date.fromisoformat(known[0]), date.fromisoformat(known[-1])
    except ValueError:
        return [(d, by_day[d]) for d in known]
    out, d = [], first
    while d <= last:
        key = d.isoformat()
        out.append((key, by_day.get(key, {})))
        d += timedelta(days=1)
    return out


def day_chart(by_day: dict, label: str = "Activity per day") -> Markup:
    """SVG bars of API responses per day (gaps filled with empty days). Empty string without data."""
    days = _days(by_day or {})
    if not days:
        return Markup("")
    step = max(1, -(-len(days) // MAX_BARS))  # days per bar
    bars = []
    for i in range(0, len(days), step):
        chunk = days[i:i + step]
        bars.append((chunk[0][0], chunk[-1][0], sum(r.get("responses", 0) for _, r in chunk),
                     sum(r.get("output_tokens", 0) for _, r in chunk), sum(r.get("cost", 0.0) or 0.0 for _, r in chunk)))
    peak = max(b[2] for b in bars) or 1
    bw = min(BAR_MAX, (WIDTH - 2) / len(bars))
    unit = "day" if step == 1 else f"{step} days"
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT + PAD}" width="100%" '
             f'role="img" aria-labelledby="chart-t">'
             f'<title id="chart-t">{esc(label)}: API responses per {unit}, {esc(days[0][0])} to {esc(days[-1][0])}, '
             f'peak {peak:,}</title>',
             f'<line class="axis" x1="0" y1="{HEIGHT}" x2="{WIDTH}" y2="{HEIGHT}"/>']
    for n, (d0, d1, resp, out_tok, cost) in enumerate(bars):
        h = round(resp / peak * (HEIGHT - 4), 1)
        span = d0 if d0 == d1 else f"{d0} – {d1}"
        tip = f"{span}: {resp:,} responses, {out_tok:,} output tokens" + (f", ${cost:,.2f}" if cost else "")
        parts.append(f'<rect class="bar" x="{n * bw + 1:.1f}" y="{HEIGHT - h:.1f}" width="{max(bw - 1, 0.5):.1f}" '
                     f'height="{max(h, 0.0):.1f}"><title>{esc(tip)}</title></rect>')
    parts.append(f'<text class="tick" x="0" y="{HEIGHT + PAD - 4}">{esc(days[0][0])}</text>')
    if days[-1][0] != days[0][0]:
        parts.append(f'<text class="tick" x="{WIDTH}" y="{HEIGHT + PAD - 4}" text-anchor="end">{esc(days[-1][0])}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def view(report: dict | None, label: str = "Activity per day") -> dict | None:
    """What the page templates show of a report: formatted totals, models, the day chart."""
    if not report:
        return None
    t = report["total"]
    models = sorted(report["by_model"].items(), key=lambda kv: -(kv[1].get("cost") or 0) - kv[1].get("output_tokens", 0) / 1e9)
    return {"total": fmt_tokens(t), "has_usage": t.get("responses", 0) > 0,
            "models": [dict(fmt_tokens(r), name=m) for m, r in models],
            "unpriced": report.get("unpriced_models") or [], "replayed": report.get("replayed_lines", 0),
            "forked": report.get("forked_lines", 0),
            "days": len(report.get("by_day") or {}), "chart": day_chart(report.get("by_day") or {}, label),
            "claude": claude_view(report.get("claude_code"))}


def claude_view(cc: dict | None) -> dict | None:
    """Claude Code's own cost (its ``cost-state`` lines) as the pages show it beside ccreport's."""
    if not cc:
        return None
    models = sorted((cc.get("models") or {}).items(), key=lambda kv: -kv[1])
    return {"cost": f"${cc.get('cost', 0.0):,.2f}", "sessions": cc.get("sessions", 1),
            "models": [{"name": m, "cost": f"${c:,.2f}"} for m, c in models],
            "unknown": bool(cc.get("unknown_model_cost"))}
