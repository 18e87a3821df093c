"""A turn's quiet figures line (model, responses, tokens, cost, duration) and the note a page that
starts inside a turn opens with. Fed by model.turns; the pages put one line after each prompt."""

from __future__ import annotations

from ccreport.layout import page_name
from ccreport.model.prices import UNITS_PER_DOLLAR
from ccreport.model.text import cut_words, plain_text
from ccreport.model.turns import Figures, Turn, duration_s
from ccreport.render.markup import esc


def fmt_count(n: int) -> str:
    """A token count as people say it: 950, 12 k, 1.2 M."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.0f} k" if n >= 10_000 else f"{n / 1000:.1f} k"
    return f"{n / 1_000_000:.1f} M"


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def fmt_units(units: int, unpriced: int = 0) -> str:
    dollars = units / UNITS_PER_DOLLAR
    s = "" if not units else (f"${dollars:,.2f}" if dollars >= 0.01 else "<$0.01")
    return s + (f"{' + ' if s else ''}{fmt_count(unpriced)} unpriced tokens" if unpriced else "")


def tool_counts(tools: dict) -> str:
    """"6 Read · 5 Bash · 1 Write": most used first."""
    return " · ".join(f"{n} {name}" for name, n in sorted(tools.items(), key=lambda kv: -kv[1]))


def figures_text(f: Figures, start_ts: str | None) -> list[str]:
    """The parts of a figures line, plain text: models, responses, tokens, cost, duration."""
    u = f.usage
    inputs = u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0)
    parts = [", ".join(f.models)] if f.models else []
    if f.responses:
        parts.append(f"{f.responses} response{'' if f.responses == 1 else 's'}")
    if u:
        parts.append(f"{fmt_count(inputs)} in / {fmt_count(u.get('output_tokens', 0))} out")
    cost = fmt_units(f.cost_units, f.unpriced)
    if cost:
        parts.append(cost)
    dur = fmt_duration(duration_s(start_ts, f.end_ts)) if start_ts and f.end_ts else ""
    if dur:
        parts.append(dur)
    return parts


def turn_line(key: str, f: Figures, start_ts: str | None) -> str:
    """One quiet line under a prompt (or at the top of a page, for the turn it continues); the
    exact token counts on hover."""
    parts = figures_text(f, start_ts)
    u = f.usage
    exact = (f"in {u.get('input_tokens', 0):,} · out {u.get('output_tokens', 0):,} · cache read "
             f"{u.get('cache_read_input_tokens', 0):,} · cache write {u.get('cache_creation_input_tokens', 0):,}")
    return (f'<div class="turnline" id="{key}" title="{esc(exact)}">'
            f'<span class="who">Claude</span> {esc(" · ".join(parts)) or "(no response on this page)"}</div>')


def continues_note(turn: Turn) -> dict:
    """What a page that starts inside a turn says about it (the template links it)."""
    return {"no": turn.no, "prompt": cut_words(plain_text(turn.prompt), 120), "url": f"{page_name(turn.page)}#L{turn.line}",
            "page": turn.page, "ts": turn.ts}
