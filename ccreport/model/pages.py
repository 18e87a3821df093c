"""Cut a transcript's messages into pages that never change once full. Re-reading from a page's first
byte reproduces the same pages, so an incremental build resumes at the last page (docs/model.md).
"""

from __future__ import annotations

import orjson
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ccreport.source.jsonl import Entry
from ccreport.model.messages import Builder, Message

DEFAULT_PAGE_SIZE = 50


@dataclass
class Page:
    no: int  # 1-based
    first_line: int
    first_offset: int
    carry: dict  # model state at the page's first line (for resuming)
    messages: list[Message] = field(default_factory=list)
    closed: bool = False  # full: a later page exists and this one will not change


def _continues(b: Builder, e: Entry) -> bool:
    """Does this line continue an assistant message already on the open page, or a fold of empty or
    malformed lines (model.folds: one message however many lines)?"""
    obj = e.obj
    if not obj:
        return b.joins_run(e)
    if obj.get("type") != "assistant":
        return False
    msg = obj.get("message")
    mid = msg.get("id") if isinstance(msg, dict) else None
    return isinstance(mid, str) and mid in b.by_msg_id


def paginate(entries: Iterable[Entry], builder: Builder, page_size: int = DEFAULT_PAGE_SIZE,
             first_no: int = 1, first_line: int = 1, first_offset: int = 0) -> Iterator[Page]:
    """Yield pages in order; every page but the last comes out closed."""
    builder.page_no = first_no
    page = Page(first_no, first_line, first_offset, _snapshot(builder.carry))
    cap = 2 * page_size
    for e in entries:
        n = len(builder.out)
        if n >= page_size and not _continues(builder, e) and (not builder.open_calls or n >= cap):
            page.messages = builder.close_page()
            page.closed = True
            yield page
            page = Page(page.no + 1, e.line, e.offset, _snapshot(builder.carry))
        builder.feed(e)
    page.messages = builder.out
    yield page


def _snapshot(carry: dict) -> dict:
    # The carry is plain JSON data by design; a JSON round trip is a fast deep copy of it.
    return orjson.loads(orjson.dumps(carry))
