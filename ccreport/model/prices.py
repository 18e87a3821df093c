"""Anthropic API list prices, in US dollars per million tokens, used to put a cost on usage: what the
traffic would cost on the API, not a bill (source and limits in docs/model.md).
"""

from __future__ import annotations

# (name patterns, input, output): the patterns of one price, most specific first. The rows keep the
# order patterns are tried in, so "opus-4-5" comes before "opus-4" (cache rates follow from input).
PRICE_ROWS: list[tuple[tuple[str, ...], float, float]] = [
    (("opus-4-7", "opus-4-6", "opus-4-5"), 5.0, 25.0),  # 4-7 assumed equal to 4.5/4.6 (the 4.5+ Opus list price)
    (("opus-4-1", "opus-4", "claude-3-opus"), 15.0, 75.0),
    (("sonnet-4-5", "sonnet-4", "3-7-sonnet", "3-5-sonnet"), 3.0, 15.0),
    (("haiku-4-5",), 1.0, 5.0),
    (("3-5-haiku",), 0.8, 4.0),
    (("claude-3-haiku",), 0.25, 1.25),
]
CACHE_WRITE_5M = 1.25
CACHE_WRITE_1H = 2.0
CACHE_READ = 0.1


def price_of(model: str | None) -> tuple[float, float] | None:
    """(input, output) $/MTok for a model name, or None when it is not in the table."""
    name = (model or "").lower()
    for patterns, inp, out in PRICE_ROWS:
        if any(pattern in name for pattern in patterns):
            return inp, out
    return None


# Costs are also kept as integers, in 1e-10 dollar units: sums exact in any order (why: docs/model.md).
UNITS_PER_DOLLAR = 10_000_000_000


def cost_units(model: str | None, usage: dict) -> int | None:
    """The cost of one usage record in integer units (UNITS_PER_DOLLAR), or None for a model without a
    known price."""
    p = price_of(model)
    if p is None:
        return None
    inp, out = p
    per = lambda dollars_per_mtok: round(dollars_per_mtok * 10_000)  # noqa: E731 — units per token
    write = usage.get("cache_creation_input_tokens", 0)
    write_1h = min(usage.get("cache_write_1h", 0), write)
    return (usage.get("input_tokens", 0) * per(inp) + usage.get("output_tokens", 0) * per(out)
            + (write - write_1h) * per(inp * CACHE_WRITE_5M) + write_1h * per(inp * CACHE_WRITE_1H)
            + usage.get("cache_read_input_tokens", 0) * per(inp * CACHE_READ))
