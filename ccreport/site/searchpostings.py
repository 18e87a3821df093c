"""A unit's postings as the index writes them (site.search makes them while its pages render): per
term, each posting's step from the term's previous document in hex, comma-separated. This runs
once for every posting of the archive, so its loops are C loops over all of a unit's postings at
once. Why this shape: docs/search.md.
"""

from __future__ import annotations

from collections import deque
from itertools import accumulate, chain, repeat
from operator import and_, itemgetter, setitem, sub

from ccreport.site.searchtext import SHIFT

DOCUMENT = ~((1 << SHIFT) - 1)  # a posting's document number (its bits above kind and weight)


def encode(postings: dict[str, list[int]], last: dict | None = None) -> dict[str, str]:
    """term → postings as written: each document a step from the one before (the first from 0,
    or from the term's document in ``last``: term → its previous posting & DOCUMENT), in hex. Every
    loop is in C, over all the terms' postings at once: the steps of the flat list (each posting
    less its predecessor's document), each term's first put right, and one %-format of them all
    whose format string gives each term its "%x,%x,…" and a NUL between terms, split there (no
    string per posting: a fifth fewer instructions than splitting at every comma and joining)."""
    lists = postings.values()
    flat = list(chain.from_iterable(lists))
    before = [0]
    before += map(and_, flat, repeat(DOCUMENT))
    steps = list(map(sub, flat, before))  # (map stops at flat's end: before has one more)
    lens = list(map(len, lists))
    ends = list(accumulate(lens))
    firsts = map(itemgetter(0), lists)
    if last:
        firsts = map(sub, firsts, map(last.get, postings, repeat(0)))
    deque(map(setitem, repeat(steps), [0, *ends[:-1]], firsts), 0)
    return dict(zip(postings, ("\0".join(map(_HEX_FORMATS.__getitem__, lens)) % tuple(steps)).split("\0")))


class _HexFormats(dict):
    """n → "%x,%x,…" (n times), kept for the small n that most terms have."""

    def __missing__(self, n: int) -> str:
        fmt = ",".join(["%x"] * n)
        if n <= 64:
            self[n] = fmt
        return fmt


_HEX_FORMATS = _HexFormats()
