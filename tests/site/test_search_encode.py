"""The index's posting work done in C loops gives what the plain definitions give: postings
encoded as hex steps (site.searchpostings.encode), each term in its shard (_by_shard against shard_of),
a text's terms with their weights (searchtext.weighed_once against counts and weight), and
counts (C loops over the UTF-8 bytes) against terms (the regex: what search.js does) on any text."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from ccreport.site import search, searchtext
from ccreport.site.search import SHIFT, _by_shard, shard_of
from ccreport.site.searchpostings import encode as _encode


def _steps(postings: dict[str, list[int]], last: dict) -> dict[str, str]:
    """The encoding by its definition: each posting less the document of the one before (the
    first less the term's document in ``last``, or 0), in hex, joined with commas."""
    high = ~((1 << SHIFT) - 1)
    out = {}
    for term, ps in postings.items():
        prev, hexes = last.get(term, 0), []
        for p in ps:
            hexes.append("%x" % (p - prev))
            prev = p & high
        out[term] = ",".join(hexes)
    return out


def _random_postings(rng: random.Random, terms: int) -> dict[str, list[int]]:
    postings = {}
    for i in range(terms):
        docs = sorted(rng.sample(range(3000), rng.choice((1, 1, 1, 2, 5, 40))))
        postings[f"t{i}"] = [d << SHIFT | rng.randrange(4) << 6 | rng.randrange(1, 64) for d in docs]
    return postings


def test_encode_gives_the_steps_of_each_term():
    rng = random.Random(25)
    for terms in (0, 1, 7, 500):
        postings = _random_postings(rng, terms)
        assert _encode(postings) == _steps(postings, {})
        # A later segment: each term's first step from its last document in the segments before.
        last = {t: ps[-1] & ~((1 << SHIFT) - 1) for t, ps in postings.items() if rng.random() < 0.5}
        later = {t: [p + (4000 << SHIFT) for p in ps] for t, ps in postings.items()}
        assert _encode(later, last) == _steps(later, last)


def test_every_term_is_put_in_its_shard():
    words = ["tool", "tooling", "too", "to", "file", "files", "fil", "is", "isx", "a", "日本", "日本語",
             "x" * 40, "_private", "0x1f", "tool:bash", "tool:edit", "file:renderer.py", "file:a", "is:error"]
    search._PREFIX_SHARDS.clear()
    for _ in range(2):  # (the prefixes looked up, then found)
        by_shard = _by_shard({w: i for i, w in enumerate(words)})
        placed = {term: n for n, flat in by_shard.items() for term in flat[::2]}
        assert placed == {w: shard_of(w) for w in words}
        assert all(flat[1::2] == [words.index(t) for t in flat[::2]] for flat in by_shard.values())


def test_a_text_is_weighed_as_counted_once_or_again():
    text = "Parse the numbered lines; parse_numbered lines again. 日本語テキスト " * 20
    for shown in (text, text[:100], "", "   "):
        c, length = searchtext.counts(shown)
        expected = ([*c], [searchtext.weight(n, length) for n in c.values()])
        assert searchtext.weighed_once(shown) == expected
        assert searchtext.weighed_once(shown) == expected  # (the second time from what was kept)


_ODD = ["Σ", "ΟΔΟΣ.Β", "ς", "İstanbul", "\u212aelvin", "ÉCOLE", "日本語テキスト", "한국어", "ǅ", "ß", "ﬃ",
        "\ud800", "x" * 45, "Ω" * 41, "_A_", "a.B", "1,234", "\u2028", "\u00a0", "—", "🙂", "é" * 3]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(_ODD), st.sampled_from([" ", ".", "\n", ": "])),
                max_size=20).map("".join))
def test_counts_are_the_terms_of_the_text_without_their_order(text):
    c, length = searchtext.counts(text)
    expected = searchtext.terms(text)
    assert c == Counter(expected) and length == len(expected)


# Each process deflates the same payloads (a few in a shuffled order, some twice) and prints the
# digest of what it wrote for each, in the payloads' order: a build must write the same bytes every
# time (ISA-L's deflate gave other bytes in 1 process of 10: docs/search.md).
_DEFLATE_RUN = """
import hashlib, json, random, sys
from ccreport.site.search import deflated
payloads = json.load(sys.stdin)
order = list(range(len(payloads)))
random.Random(int(sys.argv[1])).shuffle(order)
out = {}
for i in order + order[: len(order) // 3]:
    assert out.setdefault(i, deflated(payloads[i])) == deflated(payloads[i])
print(hashlib.sha256("".join(out[i] for i in range(len(payloads))).encode()).hexdigest())
"""


def test_deflate_gives_the_same_bytes_in_every_process():
    import base64
    import json
    import subprocess
    import sys
    import zlib

    rng = random.Random(7)
    words = ["parse", "numbered", "lines", "TypeError:", "unsupported", "operand", "日本語", "{", "}", "\n", "_x1"]
    payloads = [[["t", f"page-{i:04}.html#L{j}", "2025-01-01T00:00:00Z", "Bash\tx.py",
                  " ".join(rng.choices(words, k=rng.randrange(10, 3000)))] for j in range(rng.randrange(1, 33))]
                for i in range(40)]
    payloads += [{f"term{t}": [f"{rng.getrandbits(56):014x}", ",".join(f"{rng.randrange(1 << 20):x}" for _ in range(rng.randrange(1, 400)))]
                  for t in range(rng.randrange(50, 500))} for _ in range(20)]
    for p in payloads:  # (what the page and site.search.inflated read back: any zlib stream)
        assert json.loads(zlib.decompress(base64.b64decode(search.deflated(p)))) == p
    digests = {subprocess.run([sys.executable, "-c", _DEFLATE_RUN, str(seed)], input=json.dumps(payloads),
                              capture_output=True, text=True, check=True).stdout for seed in range(8)}
    assert len(digests) == 1
