"""Issue 29, point 3: what redaction takes out of the real corpus, listed (tests/redaction_audit.py:
transcript, kind, digest, length and shape of each value, never the value) and compared with a
reviewed list, tests/golden/redaction/corpus.txt, where every item carries a note saying whether
it is a plausible secret or an accepted false positive. A new over-eager rule shows up here as a
diff. Skipped without the corpus; UPDATE_GOLDEN=1 rewrites the list (keeping the notes of items
still found; review the new ones and note them)."""

from __future__ import annotations

import os

import pytest

from redaction_audit import home_redactions
from util import CORPUS, TESTS

EXPECTED = TESTS / "golden" / "redaction" / "corpus.txt"


def _reviewed() -> dict[str, str]:
    """item → its note, from the reviewed file (comment lines start with '#')."""
    items = {}
    for line in EXPECTED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            item, _, note = line.partition("  # ")
            items[item.rstrip()] = note.strip()
    return items


@pytest.mark.skipif(not (CORPUS / "projects").is_dir(), reason="the real corpus is not on this machine")
def test_what_the_corpus_loses_to_redaction_is_the_reviewed_list():
    found = home_redactions(CORPUS)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        old = _reviewed() if EXPECTED.is_file() else {}
        head = [ln for ln in EXPECTED.read_text(encoding="utf-8").splitlines() if ln.startswith("#")] \
            if EXPECTED.is_file() else ["# <transcript> <kind> <sha256[:12]> <length> <shape> ×<count>  # note"]
        body = [f"{item}  # {old.get(item) or 'NOT REVIEWED'}" for item in found]
        EXPECTED.write_text("\n".join(head + body) + "\n", encoding="utf-8")
    reviewed = _reviewed()
    assert found == list(reviewed), "redaction of the corpus changed: review the diff (UPDATE_GOLDEN=1 rewrites)"
    assert [i for i, note in reviewed.items() if not note or note == "NOT REVIEWED"] == []
