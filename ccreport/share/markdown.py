"""One session → GitHub Markdown, split into parts that each fit a comment (``--max-chars``).

The document is a sequence of *blocks*, each balanced on its own: a heading, a quoted prompt, the
assistant's prose, or a ``<details>`` fold (tool call, thinking, injected text) holding fenced
blocks and prose. A block that does not fit in the room left goes to the next part; one that does
not fit in a part at all is cut into pieces (mdsafe) and its fold is closed and reopened
("continued") around each cut, so every part is a valid document with balanced folds and fences.

Parts are streamed: only the part being filled is held. A single part is written as FILE (or to
stdout); several as FILE.part1.md, FILE.part2.md… or on stdout separated by PART_MARKER lines.
"""

from __future__ import annotations

import glob
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ccreport.share.export import (ExportOptions, TranscriptInfo, agent_file, agent_heading, agents_to_export, session_title,
                     transcript_chunks, write_atomic)
from ccreport.source.home import Session, Transcript
from ccreport.render.markup import human_size, strip_ansi
from ccreport.share.mdsafe import code_pieces, prose, prose_pieces, quoted_prose
from ccreport.model.messages import NOT_TYPED, Message, ToolCall
from ccreport.share.redact import Redactor
from ccreport.render.message import local_date

PART_MARKER = "<!-- ccreport: part break -->"
# Room kept at the top of every part for its "part N" line.
HEADER_RESERVE = 200
SUMMARY_MAX = 120
JSON_OPTS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS


# --- blocks -------------------------------------------------------------------------------------
@dataclass
class Code:
    text: str
    lang: str = ""
    label: str = ""  # markdown shown above the fence (ours, never transcript text)


@dataclass
class Prose:
    text: str
    quoted: bool = False


@dataclass
class Raw:
    text: str  # markdown we wrote ourselves (balanced, short)


@dataclass
class Block:
    items: list = field(default_factory=list)
    summary: str | None = None  # set: the block is a <details> fold with this (plain text) summary

    def _open(self, cont: bool) -> str:
        if self.summary is None:
            return ""
        s = _one_line(self.summary, SUMMARY_MAX) + (" (continued)" if cont else "")
        return f"<details><summary>{html.escape(s)}</summary>\n\n"

    def _close(self) -> str:
        return "</details>\n\n" if self.summary is not None else ""

    def render(self) -> str:
        return self._open(False) + "".join(_item_md(i) for i in self.items) + self._close()

    def pieces(self, limit: int) -> list[str]:
        """The items cut to fit ``limit`` each (the fold's open/close are added by the packer)."""
        out = []
        for i in self.items:
            out.extend(_item_pieces(i, limit))
        return out


def _one_line(s: str, n: int) -> str:
    s = " ".join(strip_ansi(s).split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _item_md(i) -> str:
    if isinstance(i, Raw):
        return i.text
    if isinstance(i, Prose):
        return _prose_md(i.quoted)(i.text)
    return _code_md(i.text, i.lang, i.label) + "\n"


def _prose_md(quoted: bool):
    if quoted:
        return lambda t: quoted_prose(t).rstrip("\n") + "\n\n"
    return lambda t: prose(t).rstrip("\n") + "\n\n"


def _code_md(text, lang, label):
    return code_pieces(text, lang, 10**12, label)[0]


def _item_pieces(i, limit: int) -> list[str]:
    if isinstance(i, Raw):
        return [i.text]
    if isinstance(i, Prose):
        return prose_pieces(i.text, limit, _prose_md(i.quoted))
    label = i.label
    cont = label.replace(":**", " (continued):**") if label else ""
    return [p + "\n" for p in code_pieces(i.text, i.lang, limit - 1, label, cont)]


# --- parts --------------------------------------------------------------------------------------
class Packer:
    """Fill parts of at most ``limit`` characters with blocks; hand each full part to ``emit``."""

    def __init__(self, limit: int, emit, session_id: str):
        self.limit = limit
        self.emit = emit
        self.sid = session_id[:40]
        self.buf: list[str] = []
        self.size = 0
        self.no = 1
        self.budget = limit - HEADER_RESERVE

    def header(self, no: int) -> str:
        h = f"<!-- ccreport export: session {self.sid}, part {no} -->\n\n"
        if no > 1:
            h += f"*Part {no} of the exported session `{self.sid}` (continued).*\n\n"
        return h

    def _flush(self):
        self.emit(self.no, "".join(self.buf))
        self.no += 1
        self.buf, self.size = [], 0

    def _put(self, s: str):
        if self.size + len(s) > self.budget:
            self._flush()
        self.buf.append(s)
        self.size += len(s)

    def add(self, block: Block):
        s = block.render()
        if self.size + len(s) <= self.budget:
            self.buf.append(s)
            self.size += len(s)
            return
        if len(s) <= self.budget:
            self._flush()
            self._put(s)
            return
        # Too big for any part: cut it, reopening its fold after every cut.
        o_first, o_cont, close = block._open(False), block._open(True), block._close()
        room = self.budget - max(len(o_first), len(o_cont)) - len(close)
        pieces = block.pieces(room)
        open_ = o_first
        group: list[str] = []
        glen = 0
        for p in pieces:
            if group and self.size + len(open_) + glen + len(p) + len(close) > self.budget:
                self._put_group(open_, group, close)
                open_, group, glen = o_cont, [], 0
                self._flush()
            elif not group and self.size + len(open_) + len(p) + len(close) > self.budget:
                self._flush()
            group.append(p)
            glen += len(p)
        if group:
            self._put_group(open_, group, close)

    def _put_group(self, open_, group, close):
        s = open_ + "".join(group) + close
        self.buf.append(s)
        self.size += len(s)

    def finish(self) -> int:
        """Emit the last part; returns the number of parts."""
        if self.buf or self.no == 1:
            self.emit(self.no, "".join(self.buf), last=True)
            return self.no
        return self.no - 1


# --- messages → blocks --------------------------------------------------------------------------
def _json(v) -> str:
    try:
        return orjson.dumps(v, option=JSON_OPTS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(v)


def _s(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def _result_text(content) -> tuple[str, list[str]]:
    """(text of a tool_result's content, notes about parts that are not text)."""
    notes = []
    if content is None:
        return "", notes
    if isinstance(content, str):
        return content, notes
    if isinstance(content, list):
        texts = []
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text":
                texts.append(_s(b.get("text")))
            elif isinstance(b, dict) and b.get("type") in ("image", "document"):
                notes.append(_media_note(b))
            elif isinstance(b, dict) and b.get("type") == "tool_reference":
                texts.append(f"[tool: {_s(b.get('tool_name'))}]")
            elif isinstance(b, str):
                texts.append(b)
            else:
                texts.append(_json(b))
        return "\n".join(texts), notes
    return _json(content), notes


def _media_note(b: dict) -> str:
    src = b.get("source") if isinstance(b.get("source"), dict) else {}
    media = _s(src.get("media_type")) or b.get("type", "file")
    size = ""
    if isinstance(src.get("data"), str):
        size = ", " + human_size(len(src["data"]) * 3 // 4)
    return f"*[{html.escape(_s(b.get('type')))}: {html.escape(media)}{size} — not included in Markdown]*\n\n"


def _lang_for(path: str) -> str:
    m = re.search(r"\.([A-Za-z0-9]{1,10})$", path or "")
    ext = m.group(1).lower() if m else ""
    return {"py": "python", "js": "javascript", "ts": "typescript", "tsx": "tsx", "jsx": "jsx", "rs": "rust",
            "go": "go", "sh": "bash", "md": "markdown", "json": "json", "yml": "yaml", "yaml": "yaml",
            "toml": "toml", "html": "html", "css": "css", "rb": "ruby", "java": "java", "c": "c", "h": "c",
            "cpp": "cpp", "sql": "sql"}.get(ext, "")


def _call_summary(call: ToolCall) -> str:
    inp = call.input if isinstance(call.input, dict) else {}
    for key in ("description", "command", "file_path", "path", "pattern", "url", "query", "prompt", "skill"):
        if isinstance(inp.get(key), str) and inp[key].strip():
            if key == "description" and call.name not in ("Task", "Agent"):
                continue
            return f"{call.name}: {inp[key]}"
    return call.name


def _call_input(call: ToolCall) -> list:
    inp = call.input if isinstance(call.input, dict) else None
    name = call.name
    if inp is not None:
        if name in ("Bash", "PowerShell") and isinstance(inp.get("command"), str):
            rest = {k: v for k, v in inp.items() if k != "command"}
            items = [Code(inp["command"], "bash" if name == "Bash" else "powershell", "**Command:**\n\n")]
            if rest:
                items.append(Code(_json(rest), "json", "**Options:**\n\n"))
            return items
        if name in ("Edit", "MultiEdit"):
            import difflib

            edits = inp.get("edits") if name == "MultiEdit" and isinstance(inp.get("edits"), list) else [inp]
            lines = [f"--- {_s(inp.get('file_path'))}", f"+++ {_s(inp.get('file_path'))}"]
            for e in edits:
                if isinstance(e, dict):
                    lines.extend(list(difflib.unified_diff(_s(e.get("old_string")).splitlines(),
                                                           _s(e.get("new_string")).splitlines(), lineterm="", n=3))[2:])
            return [Code("\n".join(lines), "diff", "**Edit:**\n\n")]
        if name == "Write" and isinstance(inp.get("content"), str):
            return [Code(inp["content"], _lang_for(_s(inp.get("file_path"))), f"**Write** ({len(inp['content']):,} characters):\n\n")]
        if name in ("Task", "Agent") and isinstance(inp.get("prompt"), str):
            rest = {k: v for k, v in inp.items() if k != "prompt"}
            return [Code(_json(rest), "json", "**Input:**\n\n"), Code(inp["prompt"], "", "**Prompt:**\n\n")]
    return [Code(_json(call.input), "json", "**Input:**\n\n")]


def _call_result(call: ToolCall) -> list:
    r = call.result
    if r is None:
        return [Raw("*No result recorded.*\n\n")]
    label = "**Error:**\n\n" if r.is_error else "**Result:**\n\n"
    x = r.extra if isinstance(r.extra, dict) else {}
    if call.name in ("Bash", "PowerShell") and ("stdout" in x or "stderr" in x) and (_s(x.get("stdout")) or _s(x.get("stderr"))):
        items = []
        if _s(x.get("stdout")):
            items.append(Code(strip_ansi(_s(x["stdout"])), "", "**Output:**\n\n"))
        if _s(x.get("stderr")):
            items.append(Code(strip_ansi(_s(x["stderr"])), "", "**Stderr:**\n\n"))
        return items
    text, notes = _result_text(r.content)
    items: list = [Code(strip_ansi(text), "", label)] if text or not notes else []
    items.extend(Raw(n) for n in notes)
    return items


class MdRenderer:
    """Messages → blocks. Keeps who spoke last, so a run of assistant messages gets one heading."""

    def __init__(self, opts: ExportOptions, agent_links: dict):
        self.opts = opts
        self.agent_links = agent_links  # agent id → markdown link target
        self.last_role: str | None = None

    def heading(self, role: str, m: Message) -> Raw | None:
        if role == self.last_role:
            return None
        self.last_role = role
        when = local_date(m.timestamp)
        icon = {"User": "👤", "Assistant": "🤖"}.get(role, "•")
        return Raw(f"### {icon} {role}" + (f" <sub>{html.escape(when)}</sub>" if when else "") + "\n\n")

    def blocks(self, m: Message):
        fn = getattr(self, f"_{m.kind}", None)
        yield from (fn(m) if fn else self._other(m))

    def _user(self, m: Message):
        entry = m.entry or {}
        for btype, payload in m.blocks:
            if btype == "text":
                s = payload.strip()
                if entry.get("isCompactSummary"):
                    self.last_role = None
                    yield Block([Prose(payload)], "Summary of the earlier conversation (compaction)")
                elif entry.get("isMeta") or s.startswith(NOT_TYPED) or (s.startswith("<") and s.endswith(">")):
                    label = re.sub(r"<[^>]*>", " ", s) or s
                    yield Block([Code(payload)], f"Injected by Claude Code: {label}")
                else:
                    h = self.heading("User", m)
                    yield Block(([h] if h else []) + [Prose(payload, quoted=True)])
            elif btype in ("image", "document"):
                h = self.heading("User", m)
                yield Block(([h] if h else []) + [Raw(_media_note(payload))])
            else:
                yield Block([Code(_json(payload), "json")], "Unrecognised content block")

    def _assistant(self, m: Message):
        entry = m.entry or {}
        h = self.heading("Assistant", m)
        if h:
            yield Block([h])
        for btype, payload in m.blocks:
            if btype == "text":
                if payload.strip():
                    if entry.get("isApiErrorMessage") or entry.get("error"):
                        yield Block([Raw("**API error:**\n\n"), Prose(payload)])
                    else:
                        yield Block([Prose(payload)])
            elif btype == "thinking":
                text = _s(payload.get("thinking"))
                if text.strip():
                    yield Block([Prose(text)], f"Thinking ({len(text.split()):,} words)")
            elif btype == "redacted_thinking":
                yield Block([Raw("*Thinking redacted by the API.*\n\n")])
            elif btype == "tool_use":
                yield self._call(payload)
            else:
                yield Block([Code(_json(payload), "json")], "Unrecognised content block")

    def _call(self, call: ToolCall) -> Block:
        items = _call_input(call) + _call_result(call)
        r = call.result
        aid = r.extra.get("agentId") if r is not None and isinstance(r.extra, dict) else None
        if isinstance(aid, str) and aid in self.agent_links:
            items.append(Raw(f"[Sub-agent transcript {html.escape(aid)} →]({self.agent_links[aid]})\n\n"))
        summary = _call_summary(call) + (" — error" if r is not None and r.is_error else "")
        return Block(items, summary)

    def _result(self, m: Message):
        res = m.blocks[0][1]
        info = m.late_call or {}
        where = f"the {info.get('name')} call on line {info.get('line')}" if info else "a call not in this transcript"
        text, notes = _result_text(res.content)
        yield Block([Code(strip_ansi(text))] + [Raw(n) for n in notes], f"Result of {where}")

    def _system(self, m: Message):
        e = m.entry or {}
        content = _s(e.get("content"))
        sub = _s(e.get("subtype")) or "note"
        if sub == "compact_boundary":
            self.last_role = None
            yield Block([Raw("---\n\n*The conversation was compacted here.*\n\n")])
            return
        if not content:
            return
        yield Block([Code(strip_ansi(content))], f"System ({sub}): {content}")

    def _meta(self, m: Message):
        return iter(())  # bookkeeping lines (snapshots, titles, queue…): not part of a shared conversation

    def _malformed(self, m: Message):
        yield Block([Code(m.raw or "")], f"Malformed line {m.line}: {m.error or ''}")

    def _other(self, m: Message):
        t = _s((m.entry or {}).get("type"))
        yield Block([Code(_json(m.entry), "json")], f"Entry of type {t or '?'} (line {m.line})")


def _slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces → '-'."""
    return re.sub(r" ", "-", re.sub(r"[^\w\- ]", "", text.strip().lower()))


def _doc_header(session: Session, info: TranscriptInfo, opts: ExportOptions, redactor, extra: str = "") -> Block:
    bits = [f"Session `{session.id}`"]
    if info.cwd:
        bits.append(info.cwd)
    if info.git_branch:
        bits.append(f"branch {info.git_branch}")
    if info.first_ts:
        bits.append(f"{local_date(info.first_ts)} → {local_date(info.last_ts)}")
    if info.models:
        bits.append(", ".join(info.models[:3]))
    notes = []
    if redactor is not None:
        notes.append("secrets and home paths redacted")
    if not opts.thinking:
        notes.append("thinking omitted")
    if not opts.tools:
        notes.append("tool calls omitted")
    if extra:
        notes.append(extra)
    line = " · ".join(bits) + (f" · *{'; '.join(notes)}*" if notes else "")
    return Block([Prose("# " + _one_line(session_title(session, info), 200)), Prose(line),
                  Raw("<sub>Exported by ccreport.</sub>\n\n")])


# --- the document -------------------------------------------------------------------------------
class _Sink:
    """Where finished parts go: files (FILE, or FILE.partN.md) or a stream."""

    def __init__(self, out: Path | None, stream, header):
        self.out, self.stream, self.header = out, stream, header
        self.first: str | None = None
        self.files: list[Path] = []
        self.count = 0

    def part_path(self, no: int) -> Path:
        name = self.out.name
        stem = name[:-3] if name.endswith(".md") else name
        return self.out.with_name(f"{stem}.part{no}.md")

    def emit(self, no: int, text: str, last: bool = False):
        self.count = no
        if no == 1 and last:  # the whole document fits: no part header, no numbered file
            self._write(self.out, text, first=True)
            return
        if no == 1:
            self.first = text
            return
        if self.first is not None:
            self._write(self.part_path(1) if self.out else None, self.header(1) + self.first, first=True)
            self.first = None
        self._write(self.part_path(no) if self.out else None, self.header(no) + text, first=False)

    def _write(self, path: Path | None, text: str, first: bool):
        if path is None:
            if not first:
                self.stream.write("\n" + PART_MARKER + "\n\n")
            self.stream.write(text)
            return
        write_atomic(path, lambda fh: fh.write(text))
        self.files.append(path)


def _render_doc(session: Session, transcript: Transcript | None, opts: ExportOptions, redactor: Redactor | None,
                sink_out: Path | None, stream, agents: list[Transcript], agent_links: dict,
                title_extra: str = "") -> tuple[int, list[Path], TranscriptInfo]:
    packer_holder = {}
    sink = _Sink(sink_out, stream, lambda no: packer_holder["p"].header(no))
    packer = Packer(opts.max_chars, sink.emit, session.id)
    packer_holder["p"] = packer
    # The header needs the title, which may be at the end of the transcript: a cheap first pass
    # over the (redacted) entries finds it without rendering.
    info = TranscriptInfo()
    if transcript is not None:
        saved = dict(redactor.counts) if redactor is not None else None
        for _ in transcript_chunks(transcript, opts, redactor, info):
            pass
        if redactor is not None:
            redactor.counts = saved  # counted once, by the rendering pass below
    packer.add(_doc_header(session, info, opts, redactor, title_extra))
    if opts.agents == "inline" and agents:
        toc = "".join(f"- [{html.escape(agent_heading(t, redactor)[0])}](#{_slug('Sub-agent transcript ' + t.id)})\n" for t in agents)
        packer.add(Block([Raw(f"**Sub-agent transcripts:**\n\n{toc}\n")]))
    r = MdRenderer(opts, agent_links)
    shown = TranscriptInfo()
    if transcript is None:
        packer.add(Block([Raw("*This session has no main transcript (only sub-agent files).*\n\n")]))
    else:
        for chunk in transcript_chunks(transcript, opts, redactor, shown):
            for m in chunk:
                for b in r.blocks(m):
                    packer.add(b)
    if opts.agents == "inline":
        for t in agents:
            name, desc = agent_heading(t, redactor)
            packer.add(Block([Raw(f"## Sub-agent transcript {html.escape(t.id)}\n\n"),
                              Prose(f"**{name}**" + (f" — {desc}" if desc else ""))]))
            ar = MdRenderer(opts, agent_links)
            for chunk in transcript_chunks(t, opts, redactor, TranscriptInfo()):
                for m in chunk:
                    for b in ar.blocks(m):
                        packer.add(b)
    n = packer.finish()
    return n, sink.files, info


def _remove_stale_parts(out: Path, files: list[Path]) -> None:
    """Parts of an earlier, longer export to the same FILE would read as part of this one."""
    stem = out.name[:-3] if out.name.endswith(".md") else out.name
    keep = {f.name for f in files}
    for p in out.parent.glob(f"{glob.escape(stem)}.part*.md"):
        if re.fullmatch(re.escape(stem) + r"\.part\d+\.md", p.name) and p.name not in keep:
            p.unlink(missing_ok=True)


def export_md(session: Session, out: Path | None, opts: ExportOptions, redactor: Redactor | None,
              stdout=None):
    """Write the Markdown export. Returns the files written, or (stdout) the number of parts."""
    agents = agents_to_export(session, opts)
    links = {}
    if opts.agents == "inline":
        links = {t.id: "#" + _slug("Sub-agent transcript " + t.id) for t in agents}
    elif opts.agents == "link" and out is not None:
        links = {t.id: agent_file(out, t, ".md").name for t in agents}
    n, files, _ = _render_doc(session, session.main, opts, redactor, out, stdout, agents, links)
    if out is None:
        return n
    _remove_stale_parts(out, files)
    if opts.agents == "link":
        for t in agents:
            _, afiles, _ = _render_doc(session, t, opts, redactor, agent_file(out, t, ".md"), None, [], links,
                                       title_extra=f"sub-agent transcript {t.id} of {out.name}")
            files.extend(afiles)
    return files
