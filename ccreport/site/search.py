"""The offline search index: documents of each page as it is rendered, written as classic scripts
(chunks of closed pages written once, a small tail per session, one list per project) that
assets/search.js loads from file://. Why this shape: docs/search.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ccreport.layout import SEARCH_MANIFEST, search_chunk, search_folder, search_project, search_tail, session_dir
from ccreport.model.messages import Message
from ccreport.site.state import SessionState, TranscriptState
from ccreport.site.write import Writer
from ccreport.source.home import Catalog, Project

# Characters kept per document part. Prompts and answers are short in practice; tool results are
# where the bulk is (file contents, command output).
CAPS = {"prompt": 4000, "answer": 4000, "thinking": 2000, "tool_input": 1000, "tool_result": 2000}


def _strings(value: Any, n: int) -> str:
    """The string leaves of a JSON value (tool inputs, structured results), capped at n characters."""
    out: list[str] = []
    size = 0
    stack = [value]
    while stack and size < n:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
            size += len(v) + 1
        elif isinstance(v, dict):
            stack.extend(reversed([x for k, x in v.items() if k not in ("source", "signature", "data")]))
        elif isinstance(v, list):
            stack.extend(reversed(v))
    return " ".join(out)[:n]


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content[:CAPS["tool_result"]]
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts)[:CAPS["tool_result"]]
    return ""


def message_docs(m: Message, prefix: str) -> list[list]:
    """[kind, url, timestamp, text] documents of one message; prefix = "<sub>page-NNNN.html"."""
    docs: list[list] = []
    ts = m.timestamp or ""
    if m.kind == "user":
        text = " ".join(b[1] for b in m.blocks if b[0] == "text" and isinstance(b[1], str))
        if text.strip():
            docs.append(["p", f"{prefix}#L{m.line}", ts, text[:CAPS["prompt"]]])
    elif m.kind == "assistant":
        parts = []
        for btype, payload in m.blocks:
            if btype == "text" and isinstance(payload, str):
                parts.append(payload)
            elif btype == "thinking" and isinstance(payload, dict) and isinstance(payload.get("thinking"), str):
                parts.append(payload["thinking"][:CAPS["thinking"]])
        text = "\n".join(p for p in parts if p)[:CAPS["answer"]]
        if text.strip():
            docs.append(["a", f"{prefix}#L{m.line}", ts, text])
        for call in m.calls:
            text = call.name + " " + _strings(call.input, CAPS["tool_input"])
            anchor = call.line
            if call.result is not None:
                text += "\n" + _result_text(call.result.content)
                anchor = call.result.line  # the result's block carries this id inside the call's <details>
            docs.append(["t", f"{prefix}#L{anchor}", ts, text])
    elif m.kind == "result":  # one block: ("tool_result", the result)
        name = (m.late_call or {}).get("name") or "tool result"
        docs.append(["t", f"{prefix}#L{m.line}", ts, name + "\n" + _result_text(m.blocks[0][1].content)])
    return docs


def page_docs(messages, prefix: str) -> list[list]:
    """The documents of one page's messages (one that cannot be indexed is left out)."""
    docs: list[list] = []
    for m in messages:
        try:
            docs.extend(message_docs(m, prefix))
        except Exception:  # an odd message must not cost the session its pages
            continue
    return docs


def load_tail_docs(out: Path, project: str, session_id: str) -> dict | None:
    """{transcript id: {page no: documents}} of the pages in the session's tail script, read back
    from it (None when it is missing or unreadable)."""
    try:
        raw = (out / search_tail(project, session_id)).read_bytes()
    except OSError:
        return None
    head, tail = b"ccreportSearch.chunk(", b");\n"
    if not (raw.startswith(head) and raw.endswith(tail)):
        return None
    try:
        data = orjson.loads(raw[len(head):-len(tail)])
        docs: dict = {}
        for (tid, no), page in zip(data["keys"], data["pages"], strict=True):
            docs.setdefault(tid, {})[str(no)] = page
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return docs


def missing_chunks(out: Path, project: str, session_id: str, transcript_id: str, state: TranscriptState) -> bool:
    """Is a full chunk of this transcript missing from the site (deleted by hand)? Its pages'
    documents are not kept once it is written: only a read from line 1 makes it again."""
    return any(not (out / search_chunk(project, session_id, transcript_id, name)).exists()
               for name, _ in chunks(state.pages, state.hashes)[0])


@dataclass
class SessionSearch:
    """Writes one session's search scripts: its transcripts' full chunks (each written once, or
    again with ``rewrite``: a read from line 1 may index the same pages differently) and its tail."""

    writer: Writer
    project: str
    session_id: str

    def flush_chunks(self, transcript_id: str, state: TranscriptState, tdocs: dict, done: set, rewrite: bool) -> None:
        """Write the transcript's full chunks not written yet (``done``: names already handled) and
        drop their pages' documents from ``tdocs``: called while a long transcript is rendered, so
        the documents held in memory never exceed a chunk's and the tail's."""
        for name, nos in chunks(state.pages, state.hashes)[0]:
            if name in done or not self._write_chunk(transcript_id, name, nos, tdocs, rewrite):
                continue  # not all rendered in this run: write() sees to it
            for n in nos:
                tdocs.pop(str(n), None)
            done.add(name)

    def _write_chunk(self, transcript_id: str, name: str, nos: list[int], tdocs: dict, rewrite: bool) -> bool:
        """Write one full chunk unless it is in the site already (and not ``rewrite``). False when
        its pages' documents are not all at hand: a partial chunk is never written."""
        crel = search_chunk(self.project, self.session_id, transcript_id, name)
        if rewrite or not (self.writer.out / crel).exists():
            pages = [tdocs.get(str(n)) for n in nos]
            if any(p is None for p in pages):
                return False
            self.writer.write(crel, _chunk_script(crel, self.session_id, [orjson.dumps(p) for p in pages if p]))
        return True

    def write(self, transcripts: dict[str, TranscriptState], docs: dict, rewrite: bool) -> None:
        """Write each full chunk not yet in the site and the tail. ``transcripts``: id → state, in
        session order; ``docs``: id → {page no (str): documents} of the pages rendered now or kept
        from before (chunks flushed while a transcript rendered have none left: left as written)."""
        tail: list[bytes] = []
        keys: list = []
        for tid, t in transcripts.items():
            tdocs = docs.get(tid) or {}
            full, rest = chunks(t.pages, t.hashes)
            for name, nos in full:
                self._write_chunk(tid, name, nos, tdocs, rewrite)
            for n in rest:
                # Every tail page is named, an empty one too: the next update needs to know it had none.
                if str(n) in tdocs:
                    keys.append([tid, n])
                    tail.append(orjson.dumps(tdocs[str(n)]))
        trel = search_tail(self.project, self.session_id)
        self.writer.write(trel, _chunk_script(trel, self.session_id, tail, keys))


# Closed pages per chunk script, written once under a name made from their HTML hashes (docs/search.md).
CHUNK_PAGES = 20
CHUNK_FORMAT = "1"  # part of every chunk name: a new chunk layout gets new names, not stale files


def chunks(pages: list, hashes: dict) -> tuple[list[tuple[str, list[int]]], list[int]]:
    """A transcript's full chunks as [(name, page numbers)] and the page numbers left for the tail
    (``pages``, ``hashes``: as in state.TranscriptState). The last page may still grow; a chunk is
    full when CHUNK_PAGES pages before it are closed."""
    nos = [p[0] for p in pages]
    full = []
    closed = len(nos) - 1
    k = 0
    while (k + 1) * CHUNK_PAGES <= closed:
        group = nos[k * CHUNK_PAGES:(k + 1) * CHUNK_PAGES]
        hs = [hashes.get(str(n)) for n in group]
        if not all(isinstance(h, str) for h in hs):
            break  # no hash to name it by: these pages stay in the tail
        digest = hashlib.sha1((CHUNK_FORMAT + ":" + ",".join(hs)).encode()).hexdigest()[:12]
        full.append((f"{k + 1:04d}-{digest}", group))
        k += 1
    return full, nos[k * CHUNK_PAGES:]


def _chunk_script(rel: str, sid: str, parts: list[bytes], keys: list | None = None) -> bytes:
    # {"file", "session", ["keys": [[transcript, page no] per page],] "pages": [[[kind, url, time, text], ...]
    # per page]}: parts go in as encoded. A tail names its pages (keys): an update reads them back.
    head = orjson.dumps({"file": rel, "session": sid} | ({"keys": keys} if keys is not None else {}))
    return b"ccreportSearch.chunk(" + head[:-1] + b',"pages":[' + b",".join(parts) + b"]});\n"


def _prune_chunks(base: Path, keep: dict[str, set[str]], rendered: set | None) -> None:
    """Delete the search scripts in ``base`` (search/<project>/) no longer listed: those of
    sessions that are gone and, in the sessions re-rendered (or all when ``rendered`` is None),
    stale chunks. ``keep``: session id → the file names it owns (``<session>~…``). Folders are
    left from an earlier layout: they go too."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    owned = {name for files in keep.values() for name in files}
    for name in names:
        if name in owned:
            continue
        sid = name.split("~", 1)[0] if "~" in name else None
        if sid in keep and rendered is not None and sid not in rendered:
            continue
        path = base / name
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


def _project_script(out: Path, project: Project, title: str, sessions: dict[tuple[str, str], SessionState],
                    rendered: set | None) -> bytes:
    """``search/<project>.js``: the project's sessions and the chunk scripts their updates wrote
    (it changes only when a chunk or session comes or goes). Stale scripts of the sessions in
    ``rendered`` (all when None) are deleted on the way."""
    index, scripts = [], []
    keep: dict[str, set[str]] = {}
    for sid in sorted(project.sessions):
        st = sessions.get((project.dir_name, sid))
        if st is None:
            continue
        index.append([sid, st.info.title or sid, session_dir(project.dir_name, sid) + "/", st.info.first_ts or ""])
        mine = [search_chunk(project.dir_name, sid, tid, name)
                for tid, t in st.transcripts.items() for name, _ in chunks(t.pages, t.hashes)[0]]
        mine.append(search_tail(project.dir_name, sid))
        keep[sid] = {rel.rsplit("/", 1)[1] for rel in mine}
        scripts.extend(mine)
    _prune_chunks(out / search_folder(project.dir_name), keep, rendered)
    # {"project", "title", "sessions": [[id, title, url, first time]], "chunks": [file, ...]}
    head = orjson.dumps({"project": project.dir_name, "title": title, "sessions": index, "chunks": scripts})
    return b"ccreportSearch.add(" + head + b");\n"


def bundle(catalog: Catalog, titles: dict, writer: Writer, sessions: dict[tuple[str, str], SessionState],
           only: set | None, rendered: set | None) -> None:
    """Write the per-project search scripts (only the projects in ``only`` when given) and the
    manifest. ``sessions`` is the build state's {(project, session id): SessionState};
    ``rendered``: the (project, session id) updated by this build: stale scripts are looked for
    only among theirs (None: among all)."""
    manifest = []
    for p in catalog.projects:
        title = titles.get(p.dir_name, p.dir_name)
        rel = search_project(p.dir_name)
        manifest.append({"dir": p.dir_name, "title": title, "file": rel})
        if only is None or p.dir_name in only:
            mine = None if rendered is None else {sid for (pd, sid) in rendered if pd == p.dir_name}
            writer.write(rel, _project_script(writer.out, p, title, sessions, mine))
    # Only what changes when projects come and go: an append must not rewrite it.
    writer.write(SEARCH_MANIFEST, "ccreportSearch.manifest(" + json.dumps(
        {"projects": manifest}, ensure_ascii=False, separators=(",", ":")) + ");\n")
