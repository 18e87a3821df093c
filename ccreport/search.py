"""The offline search index: per-session parts, bundled per project, searched in the browser.

Why this shape:

* The browser blocks ``fetch``/module loads from ``file://``, but a classic ``<script src>`` works.
  So every project's index is a script, ``site/search/<project dir>.js``, that hands its data to
  ``ccreportSearch.add(...)``; ``site/search/manifest.js`` lists the projects. ``assets/search.js``
  injects them on demand and builds a MiniSearch index (vendored, MIT) over the documents.
* Splitting per project keeps one page load small and lets the reader search one project without
  loading the rest.
* Incremental builds: ``collect_session`` runs inside ``build_session`` and writes the session's
  part (``site/.ccreport/search/<project>/<session>.json``) and its usage
  (``site/.ccreport/usage/<project>/<session>.json``). ``bundle`` then only concatenates the parts
  of the sessions the catalog still has — cheap, so it can run after every (incremental) build.

A document is one message's searchable text in one of three kinds: ``p`` (a prompt: user text),
``a`` (an answer: assistant text and thinking), ``t`` (a tool call: name, input and result). Each
text is capped (see CAPS) so a 1 GB home does not make a 1 GB index; the cap is the first
characters, because the start of a tool result is what a reader remembers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .home import Catalog, Session
from .jsonl import Reader
from .model import Builder, Message
from .pages import paginate
from .usage import SessionUsage, merge_reports
from .write import Writer

# Characters kept per document part. Prompts and answers are short in practice; tool results are
# where the bulk is (file contents, command output).
CAPS = {"prompt": 4000, "answer": 4000, "thinking": 2000, "tool_input": 1000, "tool_result": 2000}
PARTS = ".ccreport/search"
USAGE_PARTS = ".ccreport/usage"
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


def collect_session(s: Session, out: Path, page_size: int, info: dict, writer: Writer | None = None) -> dict:
    """Read a session once more (streaming) to write its search part and its usage part.

    Pages are cut exactly as the renderer cuts them (same paginate, same page size), so every
    document's link names the page that holds the message. Returns the session's usage report.
    """
    writer = writer or Writer(out)
    usage = SessionUsage()
    docs: list[list] = []
    skipped = 0
    for t in s.transcripts:
        usage.start(t.id, t.kind)
        sub = f"{t.slug}/" if t.slug else ""
        try:
            with open(t.path, "rb") as fh:
                entries = _tap(Reader(fh), usage)
                for page in paginate(entries, Builder(), page_size):
                    prefix = sub + _page_name(page.no)
                    for m in page.messages:
                        try:
                            docs.extend(message_docs(m, prefix))
                        except Exception:  # an odd message must not cost the session its pages
                            skipped += 1
        except OSError:
            continue  # the render already reported the unreadable file
    report = usage.report()
    rel = f"{s.project.dir_name}/{s.id}.json"
    part = {"session": [s.id, info.get("title") or s.id, f"p/{s.project.dir_name}/{s.id}/", info.get("first_ts") or ""],
            "docs": docs, "skipped": skipped}
    writer.write(f"{PARTS}/{rel}", json.dumps(part, ensure_ascii=False, separators=(",", ":")))
    writer.write(f"{USAGE_PARTS}/{rel}", json.dumps(report, separators=(",", ":")))
    return report


def _tap(entries, usage: SessionUsage):
    for e in entries:
        usage.feed(e.obj)
        yield e


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def bundle(out: Path, catalog: Catalog, titles: dict, writer: Writer | None = None) -> dict:
    """Concatenate the parts of every session still in the catalog into per-project scripts and
    the manifest; sum the usage parts. Returns {"home": report, "projects": {dir: report},
    "sessions": {dir: {id: report}}, "index_bytes": n} for the index pages and ``stats``."""
    writer = writer or Writer(out)
    projects_manifest = []
    usage_projects: dict[str, dict] = {}
    usage_sessions: dict[str, dict] = {}
    total_bytes = 0
    for p in catalog.projects:
        sessions, docs = [], []
        reports = {}
        for sid in sorted(p.sessions):
            part = _read_json(out / PARTS / p.dir_name / f"{sid}.json")
            if part:
                idx = len(sessions)
                sessions.append(part["session"])
                docs.extend([idx] + d for d in part["docs"])
            rep = _read_json(out / USAGE_PARTS / p.dir_name / f"{sid}.json")
            if rep:
                reports[sid] = rep
        usage_sessions[p.dir_name] = reports
        usage_projects[p.dir_name] = merge_reports(reports.values())
        title = titles.get(p.dir_name, p.dir_name)
        data = {"project": p.dir_name, "title": title, "sessions": sessions, "docs": docs}
        script = "ccreportSearch.add(" + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + ");\n"
        raw = script.encode("utf-8")
        writer.write(f"{BUNDLES}/{p.dir_name}.js", raw)
        total_bytes += len(raw)
        projects_manifest.append({"dir": p.dir_name, "title": title, "docs": len(docs), "bytes": len(raw),
                                  "file": f"{BUNDLES}/{p.dir_name}.js"})
    manifest = "ccreportSearch.manifest(" + json.dumps({"projects": projects_manifest}, ensure_ascii=False,
                                                         separators=(",", ":")) + ");\n"
    writer.write(f"{BUNDLES}/manifest.js", manifest)
    return {"home": merge_reports(usage_projects.values()), "projects": usage_projects, "sessions": usage_sessions,
            "index_bytes": total_bytes + len(manifest.encode())}
