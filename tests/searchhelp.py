"""The reference the build's incremental search and usage collection is checked against: one
streaming read of a whole session, documents in bundle order and its usage report."""

from __future__ import annotations

from ccreport.layout import page_in_session
from ccreport.model.messages import Builder
from ccreport.model.pages import paginate
from ccreport.model.usage import TranscriptUsage, merge_ledgers
from ccreport.site.search import page_docs
from ccreport.source.home import Session
from ccreport.source.jsonl import Reader


def read_session(s: Session, page_size: int) -> tuple[list[list], dict]:
    ledgers = []
    docs: list[list] = []
    for t in s.transcripts:
        led = TranscriptUsage()
        ledgers.append((t.id, t.kind, led))
        try:
            with open(t.path, "rb") as fh:
                for page in paginate(led.tap(Reader(fh)), Builder(), page_size):
                    docs.extend(page_docs(page.messages, page_in_session(t.id, page.no)))
        except OSError:
            continue
    return docs, merge_ledgers(ledgers)
