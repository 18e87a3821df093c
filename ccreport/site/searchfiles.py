"""The term index's files as written: shard scripts (``search/t/``), the blocks of frequent terms
(``search/b/``) and the empty pending delta, how they are read back, and where an update writes
(IndexOut). A full build (site.searchindex) and a merge of the pending delta (site.searchdelta)
both write them through here. Why this shape: docs/search.md.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.layout import search_block, search_shard
from ccreport.site.search import deflated, inflated
from ccreport.site.write import Writer, remove

BIG = 65_536  # characters of a term's postings above which they go into blocks (see entry)
# At most 2^3 blocks a term (was 2^8): a query reads all of a term's blocks whatever their number,
# so more blocks only make more files; eight still keep what a merge rewrites for one session's
# append to an eighth of the term. (On the 300 MB home's complete index this took its files from
# 3,775 to 3,759 only: its 1,292 block files are mostly those of many terms with one to four.)
MAX_BLOCK_BITS = 3
# search/delta.js of a build with nothing pending (site.searchdelta writes the others)
EMPTY_DELTA = b'ccreportSearch.delta({"cuts":{},"terms":{},"shards":[]});\n'


def load_script(out: Path, rel: str, head: bytes) -> object:
    try:
        raw = (out / rel).read_bytes()
        if raw.startswith(head) and raw.endswith(b");\n"):
            return orjson.loads(raw[len(head):-3])
    except (OSError, orjson.JSONDecodeError):
        pass
    return None


def shard_head(n: int) -> bytes:
    return b"ccreportSearch.shard(" + str(n).encode() + b","


def block_head(name: str) -> bytes:
    return b'ccreportSearch.block("' + name.encode() + b'",'


def shard_script(n: int, entries: dict) -> bytes:
    """Shard n as written: its entries (term → postings inline, or where its blocks are) in term
    order, deflated (hex postings shrink to a quarter: the 300 MB home's shards 37 → 10 MB, and a
    query loads a quarter of the bytes; see docs/search.md)."""
    return shard_head(n) + b'"' + deflated(entries, orjson.OPT_SORT_KEYS).encode("ascii") + b'");\n'


def read_shard(out: Path, n: int) -> dict | None:
    """Shard n's entries as written (None: no shard, or not one)."""
    try:
        raw = (out / search_shard(n)).read_bytes()
    except OSError:
        return None
    head = shard_head(n) + b'"'
    if raw.startswith(head) and raw.endswith(b'");\n'):
        return inflated(raw[len(head):-4], dict)
    return None


def in_blocks(e) -> bool:
    """Whether a shard entry puts its term's postings in blocks ([k, size, hash], see entry)."""
    return isinstance(e, list) and bool(e) and isinstance(e[0], int)


def term_hash(term: str) -> str:
    return hashlib.sha1(term.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass
class IndexOut:
    """Where the update writes: the site, its writer, the deleted files' list and every index file
    this update produced (written or already identical)."""

    out: Path
    writer: Writer
    deleted: list
    keep: set = field(default_factory=set)

    def write(self, rel: str, data: bytes) -> None:
        self.keep.add(rel)
        self.writer.write(rel, data)

    def remove(self, rel: str) -> None:
        remove(self.out / rel, self.deleted)


def entry(o: IndexOut, term: str, flat: list, old):
    """The shard entry of a term: its postings inline ([unit, postings, ...]), or when they are
    long, [k, size, hash] with the postings in 2^k blocks by the top k bits of the units' session (so an append
    rewrites one block, and a query on a frequent term loads blocks of ≤ ~BIG characters)."""
    size = sum(map(len, flat)) + 3 * len(flat)
    old_blocks = set()
    if in_blocks(old):
        old_blocks = {search_block(old[2], old[0], b) for b in range(1 << old[0])}
    if size <= BIG:
        for rel in old_blocks:
            o.remove(rel)
        return flat or None
    k = min(MAX_BLOCK_BITS, (size // BIG).bit_length())
    h = term_hash(term)
    groups: dict[int, list] = {}
    for i in range(0, len(flat), 2):
        groups.setdefault(int(flat[i][:8], 16) >> (32 - k), []).extend(flat[i:i + 2])
    new_blocks = set()
    for b in range(1 << k):
        rel = search_block(h, k, b)
        new_blocks.add(rel)
        o.write(rel, block_head(f"{h}-{k}-{b}") + orjson.dumps(groups.get(b, [])) + b");\n")
    for rel in old_blocks - new_blocks:
        o.remove(rel)
    return [k, size, h]


def names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []
