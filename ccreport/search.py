"""The offline search index: per-session parts, bundled per project, searched in the browser.

Why this shape:

* The browser blocks ``fetch``/module loads from ``file://``, but a classic ``<script src>`` works.
  So every project's index is a script, ``site/search/<project dir>.js``, that hands its data to
  ``ccreportSearch.add(...)`` and names its chunk scripts (``ccreportSearch.chunk(...)``); ``site/search/manifest.js`` lists the projects. ``assets/search.js``
  injects them on demand and builds a MiniSearch index (vendored, MIT) over the documents.
* Splitting per project keeps one page load small and lets the reader search one project without
  loading the rest.
* Incremental builds: the renderer (build._write_page) computes the documents of every page it
  writes and writes them beside it as a part (``site/.ccreport/parts/<project>/<session>/
  <transcript>~<page>.json``, state, not site), so an append re-indexes only the pages it
  re-renders and never re-reads the session. ``bundle`` then splices the parts into chunk
  scripts: closed pages (which never change) CHUNK_PAGES at a time, written once; the open pages
  in a small per-session tail. ``search/<project>.js`` only lists sessions and chunks, and the
  manifest only projects, so an append rewrites one tail of at most CHUNK_PAGES pages, whatever
  the session's size.
  Usage is collected the same way (usage.TranscriptUsage, fed by the renderer's reader) and kept
  in the same folder (``<transcript>~usage.json``).
* Few folders: every file and folder a build creates costs an inode, and on ext4 that was a
  third of a cold build's system time. So one folder of parts per session, and the site's search
  scripts of a session sit directly in its project's folder (``search/<project>/<session>~tail.js``).
  The ``~`` separated names stay distinct because what follows the last ``~`` has a fixed shape
  (``NNNN.json``, ``usage.json``, ``tail.js``, ``NNNN-<hash>.js``).

A document is one message's searchable text in one of three kinds: ``p`` (a prompt: user text),
``a`` (an answer: assistant text and thinking), ``t`` (a tool call: name, input and result). Each
text is capped (see CAPS) so a 1 GB home does not make a 1 GB index; the cap is the first
characters, because the start of a tool result is what a reader remembers.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import orjson

from .home import Catalog, Session
from .jsonl import Reader
from .model import Builder, Message
from .pages import paginate
from .usage import SessionUsage, merge_reports
from .write import Writer

# Characters kept per document part. Prompts and answers are short in practice; tool results are
# where the bulk is (file contents, command output).
CAPS = {"prompt": 4000, "answer": 4000, "thinking": 2000, "tool_input": 1000, "tool_result": 2000}
PARTS = ".ccreport/parts"
OLD_PARTS = (".ccreport/search", ".ccreport/usage")  # the folders of earlier layouts (format 1)
BUNDLES = "search"


def _page_name(no: int) -> str:
    return f"page-{no:04d}.html"


def _cap(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n]


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
    return _cap(" ".join(out), n)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return _cap(content, CAPS["tool_result"])
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return _cap("\n".join(parts), CAPS["tool_result"])
    return ""


def message_docs(m: Message, prefix: str) -> list[list]:
    """[kind, url, timestamp, text] documents of one message; prefix = "<sub>page-NNNN.html"."""
    docs: list[list] = []
    ts = m.timestamp or ""
    if m.kind == "user":
        text = " ".join(b[1] for b in m.blocks if b[0] == "text" and isinstance(b[1], str))
        if text.strip():
            docs.append(["p", f"{prefix}#L{m.line}", ts, _cap(text, CAPS["prompt"])])
    elif m.kind == "assistant":
        parts = []
        for btype, payload in m.blocks:
            if btype == "text" and isinstance(payload, str):
                parts.append(payload)
            elif btype == "thinking" and isinstance(payload, dict) and isinstance(payload.get("thinking"), str):
                parts.append(_cap(payload["thinking"], CAPS["thinking"]))
        text = _cap("\n".join(p for p in parts if p), CAPS["answer"])
        if text.strip():
            docs.append(["a", f"{prefix}#L{m.line}", ts, text])
        for call in m.calls:
            text = call.name + " " + _strings(call.input, CAPS["tool_input"])
            anchor = call.line
            if call.result is not None:
                text += "\n" + _result_text(call.result.content)
                anchor = call.result.line  # the result's block carries this id inside the call's <details>
            docs.append(["t", f"{prefix}#L{anchor}", ts, text])
    elif m.kind == "result":
        for btype, res in m.blocks:
            if btype == "tool_result":
                name = (m.late_call or {}).get("name") or "tool result"
                docs.append(["t", f"{prefix}#L{m.line}", ts, name + "\n" + _result_text(res.content)])
    return docs


def page_docs(messages, prefix: str) -> tuple[list[list], int]:
    """The documents of one page's messages, and how many messages could not be indexed."""
    docs: list[list] = []
    skipped = 0
    for m in messages:
        try:
            docs.extend(message_docs(m, prefix))
        except Exception:  # an odd message must not cost the session its pages
            skipped += 1
    return docs, skipped


def part_dir(project: str, session_id: str) -> str:
    """The folder (under the output folder) of a session's parts: search documents and usage."""
    return f"{PARTS}/{project}/{session_id}"


def part_name(transcript_id: str, no: int) -> str:
    return f"{transcript_id}~{no:04d}.json"


def write_page_part(writer: Writer, project: str, session_id: str, transcript_id: str, no: int,
                    docs: list, skipped: int = 0) -> None:
    """One rendered page's documents (a JSON array of [kind, url, time, text]): written with the
    page, so an append re-indexes only the pages it re-renders. The bundle step splices these
    bytes as they are (no parsing), which keeps it to a read and a write of the project's index."""
    writer.write(f"{part_dir(project, session_id)}/{part_name(transcript_id, no)}", orjson.dumps(docs))


def ledger_path(project: str, session_id: str, transcript_id: str) -> str:
    return f"{part_dir(project, session_id)}/{transcript_id}~usage.json"


def read_session(s: Session, page_size: int) -> tuple[list[list], dict]:
    """Read a whole session (streaming) in one pass: its documents in bundle order, and its usage
    report. Not used by the build (which collects both while it renders, page by page); kept as
    the reference the incremental collection is checked against."""
    usage = SessionUsage()
    docs: list[list] = []
    for t in s.transcripts:
        usage.start(t.id, t.kind)
        sub = f"{t.slug}/" if t.slug else ""
        led = usage.ledgers[-1][2]
        try:
            with open(t.path, "rb") as fh:
                for page in paginate(led.tap(Reader(fh)), Builder(), page_size):
                    docs.extend(page_docs(page.messages, sub + _page_name(page.no))[0])
        except OSError:
            continue
    return docs, usage.report()


def collect_session(s: Session, out: Path, page_size: int, info: dict, writer: Writer | None = None) -> dict:
    """The session's usage report from one more full read. Kept for callers of the first
    version; the build no longer calls it (and it writes nothing now: see read_session)."""
    return read_session(s, page_size)[1]


def _read_part(path: Path) -> bytes | None:
    """A page part's bytes, when they look like what write_page_part writes (an array)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    return raw if raw.startswith(b"[") and raw.endswith(b"]") else None


def remove_tree(out: Path, rel: str) -> None:
    """Delete a folder of parts (state, not site files) and everything in it."""
    shutil.rmtree(out / rel, ignore_errors=True)


def prune_page_parts(out: Path, project: str, session_id: str, transcript_id: str, pages: list, keep: int) -> None:
    """Drop the parts of pages past ``keep`` (all of the transcript's pages when 0)."""
    d = out / part_dir(project, session_id)
    if keep == 0:
        prefix = f"{transcript_id}~"
        try:
            names = [n for n in os.listdir(d) if n.startswith(prefix) and n[len(prefix):-5].isdigit()]
        except OSError:
            return
        for n in names:
            (d / n).unlink(missing_ok=True)
        return
    for p in pages:
        if p[0] > keep:
            try:
                (d / part_name(transcript_id, p[0])).unlink()
            except OSError:
                pass


# Closed pages per chunk script. A transcript's closed pages never change, so each full group of
# CHUNK_PAGES of them is written once, under a name made from its pages' HTML hashes; the pages
# still open go in the session's small tail script, the only one an append rewrites.
CHUNK_PAGES = 20
CHUNK_FORMAT = "1"  # part of every chunk name: a new chunk layout gets new names, not stale files


def _chunks(t: dict) -> tuple[list[tuple[str, list[int]]], list[int]]:
    """A transcript's full chunks as [(name, page numbers)] and the page numbers left for the tail.
    The last page may still grow; a chunk is full when CHUNK_PAGES pages before it are closed."""
    nos = [p[0] for p in t.get("pages", [])]
    hashes = t.get("hashes", {})
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


def _chunk_script(rel: str, sid: str, parts: list[bytes]) -> bytes:
    # {"file", "session", "pages": [[[kind, url, time, text], ...] per page]}: parts go in as written.
    head = orjson.dumps({"file": rel, "session": sid})
    return b"ccreportSearch.chunk(" + head[:-1] + b',"pages":[' + b",".join(parts) + b"]});\n"


def _parts(d: Path, tid: str, nos: list[int]) -> list[bytes]:
    out = []
    for no in nos:
        raw = _read_part(d / part_name(tid, no))
        if raw and raw != b"[]":
            out.append(raw)
    return out


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


def bundle(out: Path, catalog: Catalog, titles: dict, writer: Writer | None = None, sessions: dict | None = None,
           infos: dict | None = None, only: set | None = None, rendered: set | None = None) -> dict:
    """Write the per-project search scripts (only the projects in ``only`` when given) and the
    manifest, from the page parts; sum the session usage reports. ``sessions`` is the build
    state's {(project, session id): state} (loaded from ``out`` when not given) and ``infos`` the
    {project: [session row]} of the indexes; a session's row carries its usage report.
    ``rendered``: the (project, session id) re-rendered by this build; the tails of the others
    are kept as they are when present (None: all are made again).

    Per project: ``search/<project>.js`` lists the sessions and the chunk scripts (it changes only
    when a chunk or session comes or goes); ``search/<project>/<session>~<transcript>~NNNN-<hash>.js``
    holds CHUNK_PAGES closed pages (written once); ``search/<project>/<session>~tail.js`` the rest.
    Returns {"home": report, "projects": {dir: report}, "sessions": {dir: {id: report}}}."""
    writer = writer or Writer(out)
    if sessions is None:
        from .state import State

        sessions = State.load(out).sessions
    if infos is None:
        infos = {}
        for (pdir, _), st in sessions.items():
            if st.get("info"):
                infos.setdefault(pdir, []).append(st["info"])
    projects_manifest = []
    usage_projects: dict[str, dict] = {}
    usage_sessions: dict[str, dict] = {}
    for p in catalog.projects:
        rows = {i["id"]: i for i in infos.get(p.dir_name, [])}
        reports = {sid: rows[sid]["usage_report"] for sid in sorted(p.sessions)
                   if sid in rows and rows[sid].get("usage_report")}
        usage_sessions[p.dir_name] = reports
        usage_projects[p.dir_name] = merge_reports(reports.values())
        title = titles.get(p.dir_name, p.dir_name)
        rel = f"{BUNDLES}/{p.dir_name}.js"
        projects_manifest.append({"dir": p.dir_name, "title": title, "file": rel})
        if only is not None and p.dir_name not in only:
            continue
        index, chunks = [], []
        keep: dict[str, set[str]] = {}
        for sid in sorted(p.sessions):
            st = sessions.get((p.dir_name, sid))
            if not st or sid not in rows:
                continue
            info = rows[sid]
            index.append([sid, info.get("title") or sid, f"p/{p.dir_name}/{sid}/", info.get("first_ts") or ""])
            pdir_rel = f"{BUNDLES}/{p.dir_name}"
            files = keep.setdefault(sid, set())
            d = out / part_dir(p.dir_name, sid)
            tail_parts = []
            for tid, t in st.get("transcripts", {}).items():
                full, rest = _chunks(t)
                for name, nos in full:
                    fname = f"{sid}~{tid}~{name}.js"
                    crel = f"{pdir_rel}/{fname}"
                    files.add(fname)
                    chunks.append(crel)
                    # Named by its pages' HTML hashes: present = up to date, except after a full
                    # build (new code may index the same pages differently; identical bytes are
                    # not rewritten by the writer).
                    if rendered is None or not (out / crel).exists():
                        writer.write(crel, _chunk_script(crel, sid, _parts(d, tid, nos)))
                tail_parts.append((tid, rest))
            fname = f"{sid}~tail.js"
            trel = f"{pdir_rel}/{fname}"
            files.add(fname)
            chunks.append(trel)
            if rendered is None or (p.dir_name, sid) in rendered or not (out / trel).exists():
                writer.write(trel, _chunk_script(trel, sid, [raw for tid, nos in tail_parts for raw in _parts(d, tid, nos)]))
        _prune_chunks(out / BUNDLES / p.dir_name, keep,
                      None if rendered is None else {sid for (pd, sid) in rendered if pd == p.dir_name})
        # {"project", "title", "sessions": [[id, title, url, first time]], "chunks": [file, ...]}
        head = orjson.dumps({"project": p.dir_name, "title": title, "sessions": index, "chunks": chunks})
        writer.write(rel, b"ccreportSearch.add(" + head + b");\n")
    # Only what changes when projects come and go: an append must not rewrite it.
    manifest = "ccreportSearch.manifest(" + json.dumps({"projects": projects_manifest}, ensure_ascii=False,
                                                         separators=(",", ":")) + ");\n"
    writer.write(f"{BUNDLES}/manifest.js", manifest)
    return {"home": merge_reports(usage_projects.values()), "projects": usage_projects, "sessions": usage_sessions}


def remove_project(out: Path, project: str, deleted: list) -> None:
    """A project gone from the home: its search script (a site file) and its parts (state)."""
    try:
        (out / BUNDLES / f"{project}.js").unlink()
        deleted.append(str(out / BUNDLES / f"{project}.js"))
    except FileNotFoundError:
        pass
    shutil.rmtree(out / BUNDLES / project, ignore_errors=True)  # its chunk scripts
    shutil.rmtree(out / PARTS / project, ignore_errors=True)


def remove_old_layouts(out: Path) -> None:
    """Delete the parts folders of earlier layouts (a full rebuild makes the current ones)."""
    for rel in OLD_PARTS:
        shutil.rmtree(out / rel, ignore_errors=True)
