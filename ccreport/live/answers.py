"""The transcript API's answers, kept while their file is unchanged (issue 29 point 6): reading a
transcript through the model costs about a second per 100 MB, and a client polling an idle session
asked the same question again and again. See docs/live.md."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

KEEP = 16  # answers kept (least recently used dropped first); each is at most LIMIT_MAX messages, capped


def file_key(path: Path) -> tuple | None:
    """What says the file is unchanged: its path, inode, size and modification time (None: no file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class AnswerCache:
    """Answers by (file key, question). An answer is kept only when the file's key was the same before
    and after it was read, so a file written meanwhile is read again next time."""

    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self.answers: OrderedDict[tuple, Any] = OrderedDict()
        self.lock = threading.Lock()  # serve answers from many threads

    def get(self, path: Path, question: tuple, compute: Callable[[], Any]) -> Any:
        before = file_key(path)
        if before is None:
            return compute()
        key = (before, question)
        with self.lock:
            if key in self.answers:
                self.answers.move_to_end(key)
                return self.answers[key]
        answer = compute()
        if file_key(path) == before:
            with self.lock:
                self.answers[key] = answer
                while len(self.answers) > self.keep:
                    self.answers.popitem(last=False)
        return answer
