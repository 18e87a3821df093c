"""One session → GitHub Markdown, split into parts that each fit a comment (``--max-chars``); see
docs/export.md."""

from __future__ import annotations

import glob
import html
import re
from collections import Counter
from pathlib import Path

import orjson

from ccreport.model.messages import Message, ToolCall, injected_text
from ccreport.render.codelang import fence_language
from ccreport.render.markup import human_size, show_invisible, strip_ansi
from ccreport.render.message import local_date
from ccreport.render.tools import summary_text
from ccreport.render.tools.base import extra_of, short
from ccreport.render.tools.files import edit_lines
from ccreport.share.export import Export, ExportOptions, TranscriptInfo, agent_file, agent_link, all_files
from ccreport.share.mdsafe import inline_text
from ccreport.share.parts import Block, Code, Packer, Prose, Raw, Sink
from ccreport.share.redact import Redactor
from ccreport.source.home import Session, Transcript

JSON_OPTS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS


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
    if content is None or isinstance(content, str):
        return content or "", []
    if not isinstance(content, list):
        return _json(content), []
    texts, notes = [], []
    for b in content:
        btype = b.get("type") if isinstance(b, dict) else None
        if btype == "text":
            texts.append(_s(b.get("text")))
        elif btype in ("image", "document"):
            notes.append(_media_note(b))
        elif btype == "tool_reference":
            texts.append(f"[tool: {_s(b.get('tool_name'))}]")
        elif isinstance(b, str):
            texts.append(b)
        else:
            texts.append(_json(b))
    return "\n".join(texts), notes


def _media_note(b: dict) -> str:
    src = b.get("source") if isinstance(b.get("source"), dict) else {}
    media = _s(src.get("media_type")) or b.get("type", "file")
    size = ", " + human_size(len(src["data"]) * 3 // 4) if isinstance(src.get("data"), str) else ""
    return f"*[{html.escape(_s(b.get('type')))}: {html.escape(media)}{size} — not included in Markdown]*\n\n"


def _call_input(call: ToolCall) -> list:
    inp = call.input if isinstance(call.input, dict) else None
    name = call.name
    if inp is not None:
        if name in ("Bash", "PowerShell") and isinstance(inp.get("command"), str):
            # The description is in the fold's summary line (summary_text), not repeated here.
            rest = {k: v for k, v in inp.items() if k not in ("command", "description")}
            items = [Code(inp["command"], "bash" if name == "Bash" else "powershell", "**Command:**\n\n")]
            if rest:
                items.append(Code(_json(rest), "json", "**Options:**\n\n"))
            return items
        if name in ("Edit", "MultiEdit"):
            # The site's diff (render.tools.files.edit_lines): the recorded patch with the file's own
            # line numbers (@@ -111,7), else one made from the strings (which can only count from 1).
            lines = [f"--- {_s(inp.get('file_path'))}", f"+++ {_s(inp.get('file_path'))}"]
            return [Code("\n".join(lines + edit_lines(inp, extra_of(call))), "diff", "**Edit:**\n\n")]
        if name == "Write" and isinstance(inp.get("content"), str):
            return [Code(inp["content"], fence_language(_s(inp.get("file_path"))), f"**Write** ({len(inp['content']):,} characters):\n\n")]
        if name in ("Task", "Agent") and isinstance(inp.get("prompt"), str):
            rest = {k: v for k, v in inp.items() if k != "prompt"}
            return [Code(_json(rest), "json", "**Input:**\n\n"), Code(inp["prompt"], "", "**Prompt:**\n\n")]
    return [Code(_json(call.input), "json", "**Input:**\n\n")]


def _call_result(call: ToolCall) -> list:
    r = call.result
    if r is None:
        return [Raw("*No result recorded.*\n\n")]
    stdout, stderr = _s(extra_of(call).get("stdout")), _s(extra_of(call).get("stderr"))
    if call.name in ("Bash", "PowerShell") and (stdout or stderr):
        items = []
        if stdout:
            items.append(Code(strip_ansi(stdout), "", "**Output:**\n\n"))
        if stderr:
            items.append(Code(strip_ansi(stderr), "", "**Stderr:**\n\n"))
        return items
    text, notes = _result_text(r.content)
    label = "**Error:**\n\n" if r.is_error else "**Result:**\n\n"
    items: list = [Code(strip_ansi(text), "", label)] if text or not notes else []
    items.extend(Raw(n) for n in notes)
    return items


def injected(entry: dict, text: str) -> bool:
    """User text Claude Code put there (context, command output, reminders), not typed by a person."""
    return bool(entry.get("isMeta")) or injected_text(text)


def injected_label(text: str) -> str:
    s = text.strip()
    return re.sub(r"<[^>]*>", " ", s) or s


HELD_MAX = 64  # injected blocks held back for the first prompt; more are shown where they are
NOTES_SHOWN = 30  # hook notes listed in a turn's fold (the count goes on)
QUIET_LEVELS = ("info", "suggestion")  # a system note at these levels is bookkeeping (hooks running)
# "Running PostToolUse:Edit..." and "PostToolUse:Edit [ruff format] completed successfully": the hook's event
_HOOK_NAME = re.compile(r"(?:Running )?([A-Z][A-Za-z]+(?::[^\s.…]+)?)")


class MdRenderer:
    """Messages → blocks. Keeps who spoke last, so a run of assistant messages gets one heading, and
    holds what Claude Code injected before the first prompt until that prompt has been shown: a
    reader meets the question first, the context folded after it."""

    def __init__(self, agent_links: dict):
        self.agent_links = agent_links  # agent id → markdown link target
        self.last_role: str | None = None
        self.held: list[Block] | None = []  # None once the first prompt is out
        self.notes: list[str] = []  # the turn's hook notes, shown as one fold when it ends (turn_notes)

    def finish(self):
        """What is still held back (a transcript without any typed prompt)."""
        held, self.held = self.held or [], None
        yield from held

    def turn_notes(self):
        """The hook notes of the turn that ends ("Running PostToolUse:Edit…", one per call of a hooked
        tool): one fold for the turn, not a fold per note between the calls."""
        notes, self.notes = self.notes, []
        if notes:
            names = Counter(m.group(1) if (m := _HOOK_NAME.match(n)) else "note" for n in notes)
            what = " · ".join(f"{k} ×{v}" if v > 1 else k for k, v in names.most_common(4))
            lines = "".join(f"- {inline_text(short(n, 200))}\n" for n in notes[:NOTES_SHOWN])
            more = f"- *… {len(notes) - NOTES_SHOWN} more*\n" if len(notes) > NOTES_SHOWN else ""
            yield Block([Raw(lines + more + "\n")], f"Hook notes ({len(notes)}): {what}")

    def heading(self, role: str, m: Message) -> list[Raw]:
        """The speaker's heading, or nothing when the same role spoke last."""
        if role == self.last_role:
            return []
        self.last_role = role
        when = local_date(m.timestamp)
        icon = "👤" if role == "User" else "🤖"
        return [Raw(f"### {icon} {role}" + (f" <sub>{html.escape(when)}</sub>" if when else "") + "\n\n")]

    def blocks(self, m: Message):
        fn = getattr(self, f"_{m.kind}", None)
        yield from (fn(m) if fn else self._other(m))

    def _user(self, m: Message):
        entry = m.entry or {}
        for btype, payload in m.blocks:
            if btype == "text":
                if entry.get("isCompactSummary"):
                    self.last_role = None
                    yield Block([Prose(payload)], "Summary of the earlier conversation (compaction)")
                elif injected(entry, payload):
                    block = Block([Code(payload)], f"Injected by Claude Code: {injected_label(payload)}")
                    if self.held is not None and len(self.held) < HELD_MAX:
                        self.held.append(block)
                    else:
                        yield block
                else:
                    yield from self.turn_notes()
                    yield Block(self.heading("User", m) + [Prose(payload, quoted=True)])
                    yield from self.finish()
            elif btype in ("image", "document"):
                yield Block(self.heading("User", m) + [Raw(_media_note(payload))])
            else:
                yield Block([Code(_json(payload), "json")], "Unrecognised content block")

    def _assistant(self, m: Message):
        entry = m.entry or {}
        yield from self.finish()  # no typed prompt before the answer (a slash command): the context stays in place
        heading = self.heading("Assistant", m)
        if heading:
            yield Block(heading)
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
        aid = extra_of(call).get("agentId")
        if isinstance(aid, str) and aid in self.agent_links:
            items.append(Raw(f"[Sub-agent transcript {html.escape(aid)} →]({self.agent_links[aid]})\n\n"))
        text = summary_text(call)
        summary = (f"{call.name}: {text}" if text.strip() else call.name) + (" — error" if r is not None and r.is_error else "")
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
        if content and sub == "note" and (e.get("level") in QUIET_LEVELS or e.get("toolUseID")):
            self.notes.append(" ".join(strip_ansi(content).split()))
        elif content:
            yield Block([Code(strip_ansi(content))], f"System ({sub}): {strip_ansi(content)}")

    def _meta(self, m: Message):
        return iter(())  # bookkeeping lines (snapshots, titles, queue…): not part of a shared conversation

    _context = _meta  # what Claude Code told the model (system prompt, environment, account): not shared

    def _notice(self, m: Message):
        att = (m.entry or {}).get("attachment")
        att = att if isinstance(att, dict) else {}
        words = " ".join(_s(att.get(k)) for k in ("hookEvent", "hookName", "taskId", "status") if att.get(k))
        text = next((_s(att[k]) for k in ("deltaSummary", "stderr", "error", "content") if att.get(k)), "")
        yield Block([Code(strip_ansi(text))] if text else [], f"{_s(att.get('type')) or 'notice'}: {strip_ansi(words)}")

    def _malformed(self, m: Message):
        yield Block([Code(m.raw or "")], f"Malformed line {m.line}: {m.error or ''}")

    def _empty(self, m: Message):  # a run of {} and blank lines: one counted line (model.folds)
        r = m.run
        yield Block([Raw(f"*{r['count']:,} empty line(s), lines {r['first']:,}–{r['last']:,}.*\n\n")])

    def _malformed_run(self, m: Message):  # malformed lines past the first few of a run (model.folds)
        r = m.run
        names = ", ".join(f"{k} ×{v:,}" for k, v in r["names"].items())
        shown = "" if r["raw_lines"] == r["count"] else f", the first {r['raw_lines']:,} shown"
        yield Block([Code(r["raw"])], f"{r['count']:,} malformed lines {r['first']:,}–{r['last']:,}{shown}: {names}")

    def _other(self, m: Message):
        t = _s((m.entry or {}).get("type"))
        yield Block([Code(_json(m.entry), "json")], f"Entry of type {t or '?'} (line {m.line})")


def _slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces → '-'."""
    return re.sub(r" ", "-", re.sub(r"[^\w\- ]", "", text.strip().lower()))


def doc_header(ex: Export, info: TranscriptInfo, extra: str = "") -> Block:
    bits = [f"Session `{ex.session.id}`"]
    if info.cwd:
        bits.append(info.cwd)
    if info.git_branch:
        bits.append(f"branch {info.git_branch}")
    if info.first_ts:
        bits.append(f"{local_date(info.first_ts)} → {local_date(info.last_ts)}")
    if info.models:
        bits.append(", ".join(info.models[:3]))
    notes = (["secrets and home paths redacted"] if ex.redactor is not None else []) + ex.omitted()
    if extra:
        notes.append(extra)
    line = " · ".join(bits) + (f" · *{'; '.join(notes)}*" if notes else "")
    # (the title as plain text: Prose would demote a heading, and a title is one line of text anyway;
    # names, paths and the title: a bidi control or zero-width character shows as its code point)
    return Block([Raw("# " + inline_text(short(show_invisible(strip_ansi(ex.title(info))), 200)) + "\n\n"),
                  Prose(show_invisible(line)),
                  Raw("<sub>Exported by ccreport.</sub>\n\n")])


# --- the document -------------------------------------------------------------------------------
def _render_doc(ex: Export, transcript: Transcript | None, sink: Sink, title_extra: str = "") -> int:
    """Render one transcript (and, inline, the agents') into parts handed to ``sink``; returns their number."""
    redactor = ex.redactor
    packer = Packer(ex.opts.max_chars, sink.emit, ex.session.id)
    sink.packer = packer
    # The header needs the title, which may be at the end of the transcript: a cheap first pass
    # over the (redacted) entries finds it without rendering.
    info = TranscriptInfo()
    if transcript is not None:
        saved = dict(redactor.counts) if redactor is not None else None
        for _ in ex.chunks(transcript, info):
            pass
        if redactor is not None:
            redactor.counts = saved  # counted once, by the rendering pass below
    packer.add(doc_header(ex, info, title_extra))
    inline = ex.agents if ex.opts.agents == "inline" else []
    if inline:
        toc = "".join(f"- [{html.escape(ex.agent_heading(t)[0])}]({ex.agent_links[t.id]})\n" for t in inline)
        packer.add(Block([Raw(f"**Sub-agent transcripts:**\n\n{toc}\n")]))
    if transcript is None:
        packer.add(Block([Raw("*This session has no main transcript (only sub-agent files).*\n\n")]))
    else:
        _add_transcript(ex, transcript, packer)
    for t in inline:
        name, desc = ex.agent_heading(t)
        packer.add(Block([Raw(f"## Sub-agent transcript {html.escape(t.id)}\n\n"),
                          Prose(f"**{name}**" + (f" — {desc}" if desc else ""))]))
        _add_transcript(ex, t, packer)
    return packer.finish()


def _add_transcript(ex: Export, t: Transcript, packer: Packer) -> None:
    r = MdRenderer(ex.agent_links)
    for chunk in ex.chunks(t, TranscriptInfo()):
        for m in chunk:
            for b in r.blocks(m):
                packer.add(b)
    for b in (*r.turn_notes(), *r.finish()):
        packer.add(b)


def _remove_stale_parts(out: Path, files: list[Path]) -> None:
    """Parts of an earlier, longer export to the same FILE would read as part of this one."""
    stem = out.name.removesuffix(".md")
    keep = {f.name for f in files}
    for p in out.parent.glob(f"{glob.escape(stem)}.part*.md"):
        if re.fullmatch(re.escape(stem) + r"\.part\d+\.md", p.name) and p.name not in keep:
            p.unlink(missing_ok=True)


def export_md(session: Session, out: Path | None, opts: ExportOptions, redactor: Redactor | None,
              stdout=None):
    """Write the Markdown export. Returns the files written, or (stdout) the number of parts."""
    ex = Export(session, opts, redactor)
    agents = ex.agents
    # With --agents link there is always a FILE: run_export refuses stdout.
    inline = opts.agents == "inline"
    ex.agent_links = {t.id: "#" + _slug("Sub-agent transcript " + t.id) if inline else agent_link(out, t, ".md")
                      for t in agents}
    sink = Sink(out, stdout, ex.batch)
    with all_files(ex):
        n = _render_doc(ex, session.main, sink)
        if out is None:
            return n
        if opts.agents == "link":
            for t in agents:
                agent_sink = Sink(agent_file(out, t, ".md"), None, ex.batch)
                _render_doc(ex, t, agent_sink, title_extra=f"sub-agent transcript {t.id} of {out.name}")
                sink.files.extend(agent_sink.files)
    _remove_stale_parts(out, sink.files)
    return sink.files
