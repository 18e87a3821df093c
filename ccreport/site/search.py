"""The offline search index: per-session parts, bundled per project, searched in the browser.

Why this shape:

* The browser blocks ``fetch``/module loads from ``file://``, but a classic ``<script src>`` works.
  So every project's index is a script, ``site/search/<project dir>.js``, that hands its data to
  ``ccreportSearch.add(...)`` and names its chunk scripts (``ccreportSearch.chunk(...)``); ``site/search/manifest.js`` lists the projects. ``assets/search.js``
  injects them on demand and builds a MiniSearch index (vendored, MIT) over the documents.
* Splitting per project keeps one page load small and lets the reader search one project without
  loading the rest.
* Incremental builds: the renderer (build._write_page) computes the documents of every page it
  writes, so an append re-indexes only the pages it re-renders and never re-reads the session.
  A session's closed pages (which never change) go CHUNK_PAGES at a time into chunk scripts,
  written once and never read again; the pages not in a full chunk go in the session's small
  tail script, which names the (transcript, page) of each page it holds, so that an append, which
  re-renders only the last page, reads the other pages' documents back from it and writes it
  again. ``search/<project>.js`` only lists sessions and chunks, and the manifest only projects,
  so an append rewrites one tail of at most CHUNK_PAGES pages, whatever the session's size.
  Usage is collected the same way (usage.TranscriptUsage, fed by the renderer's reader); its
  ledgers are kept in the session's state file (state.py).
* Few files: every file and folder a build creates costs an inode, and creating them was up to a
  third of a cold build's time on ext4 (0.1-0.7 ms each here). So no parts files beside the state
  (there were one per page and one per ledger), and the search scripts of a session sit directly
  in its project's folder (``search/<project>/<session>~tail.js``, ``<session>~<transcript>~NNNN-<hash>.js``);
  the names stay distinct because what follows the last ``~`` has a fixed shape.

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

from ccreport.source.home import Catalog, Session
from ccreport.source.jsonl import Reader
from ccreport.model.messages import Builder, Message
from ccreport.model.pages import paginate
from ccreport.model.usage import SessionUsage, merge_reports
from ccreport.site.write import Writer

# Characters kept per document part. Prompts and answers are short in practice; tool results are
# where the bulk is (file contents, command output).
CAPS = {"prompt": 4000, "answer": 4000, "thinking": 2000, "tool_input": 1000, "tool_result": 2000}
OLD_PARTS = (".ccreport/search", ".ccreport/usage", ".ccreport/parts")  # parts folders of formats 1-3
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


def load_tail_docs(out: Path, project: str, session_id: str) -> dict | None:
    """{transcript id: {page no: documents}} of the pages in the session's tail script, read back
    from it (None when it is missing or unreadable)."""
    try:
        raw = (out / tail_rel(project, session_id)).read_bytes()
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


def chunk_rel(project: str, session_id: str, transcript_id: str, name: str) -> str:
    return f"{BUNDLES}/{project}/{session_id}~{transcript_id}~{name}.js"


def tail_rel(project: str, session_id: str) -> str:
    return f"{BUNDLES}/{project}/{session_id}~tail.js"


def missing_chunks(out: Path, project: str, session_id: str, transcript_id: str, summary: dict) -> bool:
    """Is a full chunk of this transcript missing from the site (deleted by hand)? Its pages'
    documents are not kept once it is written: only a read from line 1 makes it again."""
    return any(not (out / chunk_rel(project, session_id, transcript_id, name)).exists()
               for name, _ in _chunks(summary)[0])


def flush_chunks(writer: Writer, out: Path, project: str, session_id: str, transcript_id: str, summary: dict,
                 tdocs: dict, rewrite: bool, done: set) -> None:
    """Write the transcript's full chunks not written yet (``done``: names already handled) and
    drop their pages' documents from ``tdocs``: called while a long transcript is rendered, so
    the documents held in memory never exceed a chunk's and the tail's."""
    for name, nos in _chunks(summary)[0]:
        if name in done or not _write_chunk(writer, out, project, session_id, transcript_id, name, nos, tdocs,
                                            rewrite):
            continue  # not all rendered in this run: write_session_search sees to it
        for n in nos:
            tdocs.pop(str(n), None)
        done.add(name)


def _write_chunk(writer: Writer, out: Path, project: str, session_id: str, transcript_id: str, name: str,
                 nos: list[int], tdocs: dict, rewrite: bool) -> bool:
    """Write one full chunk unless it is in the site already (and not ``rewrite``). False when its
    pages' documents are not all at hand: a partial chunk is never written."""
    crel = chunk_rel(project, session_id, transcript_id, name)
    if rewrite or not (out / crel).exists():
        pages = [tdocs.get(str(n)) for n in nos]
        if any(p is None for p in pages):
            return False
        writer.write(crel, _chunk_script(crel, session_id, [orjson.dumps(p) for p in pages if p]))
    return True


def write_session_search(writer: Writer, out: Path, project: str, session_id: str, transcripts: dict,
                         docs: dict, rewrite: bool = False) -> dict:
    """Write the session's search scripts: each full chunk not yet in the site (all of them when
    ``rewrite``) and the tail. ``transcripts``: id → summary (pages, hashes), in session order;
    ``docs``: id → {page no (str): documents} of the pages rendered now or kept from before.
    Returns the documents of the tail pages."""
    keep: dict = {}
    tail: list[bytes] = []
    keys: list = []
    for tid, t in transcripts.items():
        tdocs = docs.get(tid) or {}
        full, rest = _chunks(t)
        for name, nos in full:
            # (chunks flushed while the transcript rendered have no documents left: left as written)
            _write_chunk(writer, out, project, session_id, tid, name, nos, tdocs, rewrite)
        kept = {str(n): tdocs[str(n)] for n in rest if str(n) in tdocs}
        keep[tid] = kept
        for n in rest:
            # Every tail page is named, an empty one too: the next update needs to know it had none.
            if str(n) in kept:
                keys.append([tid, n])
                tail.append(orjson.dumps(kept[str(n)]))
    trel = tail_rel(project, session_id)
    writer.write(trel, _chunk_script(trel, session_id, tail, keys))
    return keep


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


chunked = _chunks  # the public name (build.py)


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


def bundle(out: Path, catalog: Catalog, titles: dict, writer: Writer | None = None, sessions: dict | None = None,
           infos: dict | None = None, only: set | None = None, rendered: set | None = None) -> dict:
    """Write the per-project search scripts (only the projects in ``only`` when given) and the
    manifest, listing the chunk and tail scripts the sessions' updates wrote; sum the session
    usage reports. ``sessions`` is the build state's {(project, session id): state} (loaded from
    ``out`` when not given) and ``infos`` the {project: [session row]} of the indexes; a
    session's row carries its usage report. ``rendered``: the (project, session id) updated by
    this build: stale scripts are looked for only among theirs (None: among all).

    Per project: ``search/<project>.js`` lists the sessions and the chunk scripts (it changes only
    when a chunk or session comes or goes); ``search/<project>/<session>~<transcript>~NNNN-<hash>.js``
    holds CHUNK_PAGES closed pages (written once); ``search/<project>/<session>~tail.js`` the rest.
    Returns {"home": report, "projects": {dir: report}, "sessions": {dir: {id: report}}}."""
    writer = writer or Writer(out)
    if sessions is None:
        from ccreport.site.state import State

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
            # The session's scripts themselves are written by its update (write_session_search).
            files = keep.setdefault(sid, set())
            for tid, t in st.get("transcripts", {}).items():
                for name, _ in _chunks(t)[0]:
                    crel = chunk_rel(p.dir_name, sid, tid, name)
                    files.add(crel.rsplit("/", 1)[1])
                    chunks.append(crel)
            trel = tail_rel(p.dir_name, sid)
            files.add(trel.rsplit("/", 1)[1])
            chunks.append(trel)
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


def remove_old_layouts(out: Path) -> None:
    """Delete the parts folders of earlier layouts (formats 1-3), no longer read."""
    for rel in OLD_PARTS:
        shutil.rmtree(out / rel, ignore_errors=True)
