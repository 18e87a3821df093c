"""The file as it was before an edit: Claude Code backs a file up under
``file-history/<session>/<hash>@v<N>`` just before an Edit/Write first changes it in a turn, and
writes a ``file-history-snapshot`` line with ``isSnapshotUpdate`` (or a ``file-history-delta``) whose
``messageId`` is the uuid of the assistant line holding that call (docs/formats.md F1, F6).

``BeforeEdits`` watches the entries of one read as they stream by and pairs each such call with its
backup; the backup is copied next to the session's pages the first time a page links it. A pair is
used only when both lines are on the page being written, so a read resumed at a page start links
exactly what a read from line 1 does.
"""

from __future__ import annotations

import functools
from pathlib import PurePosixPath

from ccreport.layout import file_history_dir
from ccreport.source.homefiles import BACKUP_NAME, HomeFiles

EDITS = ("Edit", "MultiEdit", "Write")
SEES = frozenset(("assistant", "file-history-snapshot", "file-history-delta"))  # the entry types ``see`` takes


def _same_file(call_path: str, tracked: str) -> bool:
    """``tracked`` is absolute, or relative to the session's cwd."""
    if not call_path or not tracked:
        return False
    return call_path == tracked or PurePosixPath(call_path).parts[-len(PurePosixPath(tracked).parts):] == \
        PurePosixPath(tracked).parts


class BeforeEdits:
    def __init__(self, files: HomeFiles | None, project: str, session_id: str, writer):
        self.files, self.sid, self.writer = files, session_id, writer
        self.dest = file_history_dir(project, session_id)
        self.calls: dict[str, tuple] = {}  # call id → (its assistant line's uuid, file path, line)
        self.backups: dict[str, list] = {}  # that uuid → [(tracked path, backup name, line)]

    def see(self, obj: dict, line: int) -> None:
        """One entry of the read (of a type in SEES; site.transcript feeds them, when ``files``)."""
        t = obj.get("type")
        if t == "assistant" and isinstance(obj.get("uuid"), str):
            content = (obj.get("message") or {}).get("content") if isinstance(obj.get("message"), dict) else None
            for b in content if isinstance(content, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in EDITS \
                        and isinstance(b.get("id"), str) and isinstance(b.get("input"), dict):
                    path = b["input"].get("file_path")
                    self.calls[b["id"]] = (obj["uuid"], path if isinstance(path, str) else "", line)
        elif t == "file-history-snapshot" and obj.get("isSnapshotUpdate") is True:
            snap = obj.get("snapshot") if isinstance(obj.get("snapshot"), dict) else {}
            tracked = snap.get("trackedFileBackups") if isinstance(snap.get("trackedFileBackups"), dict) else {}
            for path, b in tracked.items():
                self._backup(obj.get("messageId"), path, b, line)
        elif t == "file-history-delta":
            self._backup(obj.get("messageId"), obj.get("trackingPath"), obj.get("backup"), line)

    def _backup(self, mid, path, b, line: int) -> None:
        name = b.get("backupFileName") if isinstance(b, dict) else None
        if isinstance(mid, str) and isinstance(path, str) and isinstance(name, str) and BACKUP_NAME.fullmatch(name):
            self.backups.setdefault(mid, []).append((path, name, line))

    def urls(self, call_ids: set, first_line: int) -> dict:
        """call id → site-relative URL of the file before it, for the calls of a page starting at
        ``first_line``."""
        out = {}
        for cid in sorted(call_ids & self.calls.keys()):
            mid, path, cline = self.calls[cid]
            if cline < first_line:
                continue
            name = next((n for p, n, bl in self.backups.get(mid, ()) if bl >= first_line and _same_file(path, p)), None)
            url = self._copy(name) if name else None
            if url:
                out[cid] = url
        return out

    @functools.cache
    def _copy(self, name: str) -> str | None:
        data = self.files.backup(self.sid, name)
        if data is None:
            return None
        self.writer.write(f"{self.dest}/{name}.txt", data)
        return f"{self.dest}/{name}.txt"
