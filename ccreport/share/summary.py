"""`ccreport export --summary`: one session as ONE GitHub comment (under ``--max-chars``): each prompt, a
folded line per tool call (tools/summary_text: a command's description, an edit's ± lines), the turn's
final answer, and the files changed. Long sessions get shorter texts, then only their first and last
turns, until the comment fits; see docs/export.md."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ccreport.model.messages import Message, ToolCall, typed_prompt_text
from ccreport.model.turns import duration_s, prompt_of
from ccreport.model.usage import fmt_cost, session_report
from ccreport.render.message import local_date
from ccreport.render.tools import summary_text
from ccreport.render.turns import fmt_duration
from ccreport.render.tools.base import input_of, short, tool_summary
from ccreport.render.tools.files import change_counts, line_count
from ccreport.share.export import Export, ExportOptions, TranscriptInfo, all_files
from ccreport.share.markdown import doc_header, injected, injected_label
from ccreport.share.mdsafe import inline_text
from ccreport.share.parts import Block, Prose, Raw, Sink, no_ansi
from ccreport.share.redact import Redactor
from ccreport.source.home import Session

KEEP_TEXT = 4_000  # characters of a prompt or an answer kept while reading (the first level shows at most this)
KEEP_STEPS = 60  # tool-call lines kept per turn (the rest are counted by tool)
KEEP_CONTEXT = 30  # injected items listed after the first prompt
FILES_SHOWN = 100
# (prompt, answer, tool lines per turn): the first level whose comment fits is used.
LEVELS = ((4_000, 4_000, 60), (1_500, 2_000, 25), (700, 1_000, 12), (300, 500, 6), (160, 240, 3), (100, 120, 0))


@dataclass
class Turn:
    """One prompt and what followed it until the next prompt."""

    line: int
    when: str | None
    prompt: str | None  # None: what happened before the first typed prompt
    steps: list[str] = field(default_factory=list)  # one line per tool call (the first KEEP_STEPS)
    tools: Counter = field(default_factory=Counter)  # every call, by tool name
    errors: int = 0
    answer: str = ""  # the last text the assistant wrote in the turn


@dataclass
class Change:
    """One file the session edited or wrote."""

    path: str
    added: int = 0
    removed: int = 0
    calls: int = 0
    written: bool = False
    by_agent: bool = False  # changed (also) by a sub-agent


@dataclass
class Digest:
    turns: list[Turn] = field(default_factory=list)
    context: list[str] = field(default_factory=list)  # what Claude Code injected before the first prompt
    changes: dict[str, Change] = field(default_factory=dict)
    figures: list[str] = field(default_factory=list)  # the header's duration, cost and models (session_figures)

    def turn(self, m: Message) -> Turn:
        if not self.turns:
            self.turns.append(Turn(m.line, m.timestamp, None))
        return self.turns[-1]


def _keep(text: str, n: int) -> str:
    """At most ``n`` characters, cut at a line or word end when one is near, saying how much was left out."""
    text = text.strip()
    if len(text) <= n:
        return text
    cut = text[:n]
    at = max(cut.rfind("\n"), cut.rfind(" "))
    cut = cut[:at] if at > n * 0.7 else cut
    return f"{cut.rstrip()} … *[{len(text) - len(cut):,} more characters]*"


# --- reading ------------------------------------------------------------------------------------
def _user(d: Digest, m: Message) -> None:
    """A turn starts where the outline's does (model.turns.prompt_of: a typed prompt or a slash command)."""
    entry = m.entry or {}
    if entry.get("isCompactSummary") or m.sidechain:
        return
    prompt = prompt_of(m)
    if not any(t.prompt is not None for t in d.turns) and (prompt is None or typed_prompt_text(entry) is not None):
        for btype, payload in m.blocks:  # (a command's own text is its prompt, not context)
            if btype == "text" and payload.strip() and injected(entry, payload) and len(d.context) < KEEP_CONTEXT:
                d.context.append(short(no_ansi(injected_label(payload)), 100))
    if prompt is not None:
        d.turns.append(Turn(m.line, m.timestamp, _keep(prompt, KEEP_TEXT)))


def _call(d: Digest, turn: Turn, call: ToolCall) -> None:
    turn.tools[call.name] += 1
    failed = call.result is not None and call.result.is_error
    turn.errors += failed
    if len(turn.steps) < KEEP_STEPS:
        turn.steps.append(f"{call.name}: {short(no_ansi(summary_text(call)), 200)}" + (" — error" if failed else ""))
    _change(d, call)


def _change(d: Digest, call: ToolCall, by_agent: bool = False) -> None:
    """Count a call that changes a file (Edit, MultiEdit, Write; NotebookEdit: its new cell's lines)."""
    if call.result is not None and call.result.is_error:
        return
    inp = input_of(call)
    if call.name == "NotebookEdit":
        path, counts = str(inp.get("notebook_path") or ""), (line_count(str(inp.get("new_source") or "")), 0)
    else:
        path, counts = tool_summary(call) or str(inp.get("file_path") or ""), change_counts(call)
    if counts is not None and path:
        c = d.changes.setdefault(path, Change(path))
        c.added, c.removed, c.calls = c.added + counts[0], c.removed + counts[1], c.calls + 1
        c.written = c.written or call.name == "Write"
        c.by_agent = c.by_agent or by_agent


def _assistant(d: Digest, m: Message) -> None:
    if m.sidechain:
        return
    turn = d.turn(m)
    for btype, payload in m.blocks:
        if btype == "text" and payload.strip():
            turn.answer = _keep(payload, KEEP_TEXT)
        elif btype == "tool_use":
            _call(d, turn, payload)


def collect(ex: Export, info: TranscriptInfo) -> Digest:
    """The main transcript's turns, and the files every transcript changed: a sub-agent's edits are
    the session's changes too (whatever --agents says about showing its transcript)."""
    d = Digest()
    if ex.session.main is not None:
        for chunk in ex.chunks(ex.session.main, info):
            for m in chunk:
                if m.kind == "user":
                    _user(d, m)
                elif m.kind == "assistant":
                    _assistant(d, m)
    for t in ex.session.agents:
        for chunk in ex.chunks(t, TranscriptInfo()):
            for m in chunk:
                for btype, payload in m.blocks if m.kind == "assistant" else ():
                    if btype == "tool_use":
                        _change(d, payload, by_agent=True)
    return d


def session_figures(ex: Export, info: TranscriptInfo) -> list[str]:
    """How long the session ran (first line to last), what it cost (every transcript, sub-agents'
    included, each response counted once: model.usage) and the models that answered, costliest first."""
    out = []
    span = duration_s(info.first_ts, info.last_ts) if info.first_ts and info.last_ts else None
    if span is not None:
        out.append(f"{fmt_duration(span)} from first to last message")
    report = session_report(ex.session)
    if report["total"].get("responses"):
        out.append(fmt_cost(report["total"]))
        models = sorted((m for m in report["by_model"] if not m.startswith(("<", "("))),
                        key=lambda m: -report["by_model"][m].get("cost", 0))
        out.extend([", ".join(models[:4]) + (f" and {len(models) - 4} more" if len(models) > 4 else "")]
                   if models else [])
    return out


# --- writing ------------------------------------------------------------------------------------
_HOME = re.compile(r"(?<![\w.~-])(?:/Users|/home)/[^/\s`'\"]+(?=/|\s|$)|(?<![\w.~-])[A-Za-z]:\\Users\\[^\\\s]+")


class Paths:
    """Paths as a reviewer reads them: relative to the session's folder (its cwd: where Claude Code
    ran, the repository), and a home folder as ``~`` even with --no-redact."""

    def __init__(self, cwd: str | None):
        base = (cwd or "").rstrip("/\\")
        # the folder's own path is "."; a path inside it loses the folder and its separator
        self.inside = re.compile(r"(?<![\w.~/-])" + re.escape(base) + r"(?:[/\\]|(?=[\s`'\"),;:]|$))") \
            if len(base) > 1 else None

    def __call__(self, text: str) -> str:
        if self.inside is not None:
            text = self.inside.sub(lambda m: "" if m.group(0)[-1:] in "/\\" else ".", text)
        return _HOME.sub("~", text)


def _tools_line(tools: Counter) -> str:
    return " · ".join(f"{n} {name}" for name, n in tools.most_common(6)) + (" · …" if len(tools) > 6 else "")


def _turn_blocks(no: int, t: Turn, level: tuple, context: list[str], rel: Paths) -> list[Block]:
    p_cap, a_cap, s_cap = level
    when = local_date(t.when) if t.when else ""
    head = f"### {no}. Prompt" if t.prompt is not None else "### Before the first prompt"
    out = [Block([Raw(head + (f" <sub>{when}</sub>" if when else "") + "\n\n")]
                 + ([Prose(_keep(rel(t.prompt), p_cap), quoted=True)] if t.prompt else []))]
    if context:
        items = "".join(f"- {inline_text(c)}\n" for c in context)
        out.append(Block([Raw(items + "\n")], f"Context injected by Claude Code ({len(context)})"))
    n = sum(t.tools.values())
    if n:
        lines = "".join(f"- {inline_text(rel(s))}\n" for s in t.steps[:s_cap])
        rest = n - min(len(t.steps), s_cap)
        more = f"- *… {rest} more*\n" if rest and lines else ""
        summary = f"{n} tool call{'s' if n != 1 else ''}: {_tools_line(t.tools)}" + (
            f" · {t.errors} failed" if t.errors else "")
        out.append(Block([Raw(lines + more + "\n")], summary) if lines else Block([Raw(f"*{summary}*\n\n")]))
    if t.answer:
        out.append(Block([Raw("**Answer:**\n\n"), Prose(_keep(rel(t.answer), a_cap))]))
    return out


def _files_block(d: Digest, shown: int, rel: Paths) -> list[Block]:
    if not d.changes:
        return []
    rows = sorted(d.changes.values(), key=lambda c: rel(c.path))
    # A code span shows its text as is (no escapes inside): without backticks and on one line, it cannot end early.
    lines = "".join(f"- `{short(rel(c.path), 160).replace('`', '')}` +{c.added} −{c.removed}"
                    + (f" ({c.calls} changes)" if c.calls > 1 else "") + (" *by a sub-agent*" if c.by_agent else "")
                    + "\n" for c in rows[:shown])
    if len(rows) > shown:
        lines += f"- *… {len(rows) - shown} more files*\n"
    return [Block([Raw(f"### Files changed ({len(rows)})\n\n" + lines + "\n")])]


def _folder(cwd: str | None) -> str | None:
    """The session's folder by its name (the header names the repository, not where it lives)."""
    return re.split(r"[/\\]", cwd.rstrip("/\\"))[-1] or cwd if cwd else None


def _figures_block(d: Digest) -> Block:
    calls = sum(sum(t.tools.values()) for t in d.turns)
    prompts = sum(t.prompt is not None for t in d.turns)
    agents = sum(c.by_agent for c in d.changes.values())
    files = f"{len(d.changes)} file{'s' if len(d.changes) != 1 else ''} changed" + (
        f" ({agents} by sub-agents)" if agents else "")
    bits = [f"{prompts} prompt{'s' if prompts != 1 else ''}", f"{calls} tool call{'s' if calls != 1 else ''}", files]
    return Block([Raw(f"**{inline_text(' · '.join(bits + d.figures))}**\n\n")])


def render(ex: Export, info: TranscriptInfo, d: Digest, level: tuple, keep: int | None = None,
           files: int = FILES_SHOWN) -> str:
    """The summary at one level of detail; ``keep``: only the first and last ``keep`` turns."""
    rel = Paths(info.cwd)
    blocks = [doc_header(ex, replace(info, cwd=_folder(info.cwd), models=[]),
                         "summary: prompts, final answers, one line per tool call"), _figures_block(d)]
    turns = list(enumerate(d.turns, 1))
    if keep is not None and len(turns) > 2 * keep:
        left = len(turns) - 2 * keep
        turns = turns[:keep] + [(0, None)] + turns[len(turns) - keep:]
    first = next((no for no, t in turns if t is not None and t.prompt is not None), None)
    for no, t in turns:
        if t is None:
            blocks.append(Block([Raw(f"*… {left} more prompts and their answers: the full transcript is in "
                                     "`ccreport export --format md`.*\n\n")]))
        else:
            blocks.extend(_turn_blocks(no - (d.turns[0].prompt is None), t, level,
                                       d.context if no == first else [], rel))
    blocks.extend(_files_block(d, files, rel))
    return "".join(b.render() for b in blocks)


def _floor(d: Digest, level: tuple, keep: int | None = None) -> int:
    """Characters the texts alone take at ``level`` (rendering only adds): a level or a number of turns
    whose floor is over the limit is not rendered at all, so a long session costs a few renders."""
    p_cap, a_cap, s_cap = level
    turns = d.turns if keep is None or len(d.turns) <= 2 * keep else d.turns[:keep] + d.turns[-keep:] if keep else []
    return sum(min(len(t.prompt or ""), p_cap) + min(len(t.answer), a_cap) + sum(map(len, t.steps[:s_cap]))
               for t in turns)


def fit(ex: Export, info: TranscriptInfo, d: Digest, limit: int) -> str:
    """The most detailed summary that is at most ``limit`` characters."""
    for level in LEVELS:
        if _floor(d, level) > limit:
            continue
        text = render(ex, info, d, level)
        if len(text) <= limit:
            return text
    lo, hi = 0, len(d.turns) // 2  # the most first-and-last turns that fit, by bisection
    best = None
    while lo <= hi:
        mid = (lo + hi) // 2
        text = render(ex, info, d, LEVELS[-1], keep=mid) if _floor(d, LEVELS[-1], mid) <= limit else None
        if text is not None and len(text) <= limit:
            best, lo = text, mid + 1
        else:
            hi = mid - 1
    return best if best is not None else render(ex, info, d, LEVELS[-1], keep=0, files=5)


def export_summary(session: Session, out: Path | None, opts: ExportOptions, redactor: Redactor | None,
                   stdout=None) -> list[Path]:
    """Write the summary to ``out`` (or ``stdout``): always one part. Returns the files written."""
    ex = Export(session, opts, redactor)
    info = TranscriptInfo()
    d = collect(ex, info)
    d.figures = session_figures(ex, info)
    sink = Sink(out, stdout, ex.batch)
    with all_files(ex):
        sink.emit(1, fit(ex, info, d, opts.max_chars), last=True)
    return sink.files
