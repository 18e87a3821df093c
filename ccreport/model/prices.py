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


def _units(dollars_per_mtok: float) -> int:
    return round(dollars_per_mtok * 10_000)  # units per token


# model name → its per-token units (input, output, 5-minute cache write, 1-hour cache write, cache
# read), or None: the table is searched once per model, not once per response (a transcript has
# tens of thousands of responses and a handful of models).
_RATES: dict = {}


def _rates(model: str | None) -> tuple[int, int, int, int, int] | None:
    r = _RATES.get(model, False) if model is None or isinstance(model, str) else False
    if r is not False:
        return r
    p = price_of(model)
    r = None if p is None else (_units(p[0]), _units(p[1]), _units(p[0] * CACHE_WRITE_5M),
                                _units(p[0] * CACHE_WRITE_1H), _units(p[0] * CACHE_READ))
    if (model is None or isinstance(model, str)) and len(_RATES) < 4096:  # (names come from transcripts)
        _RATES[model] = r
    return r


def cost_units(model: str | None, usage: dict) -> int | None:
    """The cost of one usage record in integer units (UNITS_PER_DOLLAR), or None for a model without a
    known price."""
    get = usage.get
    return counts_cost(model, get("input_tokens", 0), get("output_tokens", 0), get("cache_creation_input_tokens", 0),
                       get("cache_write_1h", 0), get("cache_read_input_tokens", 0))


def counts_cost(model: str | None, inp: int, out: int, write: int, write_1h: int, read: int) -> int | None:
    """cost_units of the counts themselves (model.usage keeps them as a list: no dict per response)."""
    r = _rates(model)
    if r is None:
        return None
    write_1h = min(write_1h, write)
    return inp * r[0] + out * r[1] + (write - write_1h) * r[2] + write_1h * r[3] + read * r[4]
