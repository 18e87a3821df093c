"""`ccreport export --summary`: one session as ONE GitHub comment (under ``--max-chars``): each prompt, a
folded line per tool call (tools/summary_text: a command's description, an edit's ± lines), the turn's
final answer, and the files changed. Long sessions get shorter texts, then only their first and last
turns, until the comment fits; see docs/export.md."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ccreport.model.messages import Message, ToolCall, typed_prompt_text
from ccreport.model.turns import prompt_of
from ccreport.render.message import local_date
from ccreport.render.tools import summary_text
from ccreport.render.tools.base import input_of, short, tool_summary
from ccreport.render.tools.files import change_counts
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


@dataclass
class Digest:
    turns: list[Turn] = field(default_factory=list)
    context: list[str] = field(default_factory=list)  # what Claude Code injected before the first prompt
    changes: dict[str, Change] = field(default_factory=dict)

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
    counts = change_counts(call)
    path = tool_summary(call) or str(input_of(call).get("file_path") or "")
    if counts is not None and path and not failed:
        c = d.changes.setdefault(path, Change(path))
        c.added, c.removed, c.calls = c.added + counts[0], c.removed + counts[1], c.calls + 1
        c.written = c.written or call.name == "Write"


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
    d = Digest()
    if ex.session.main is not None:
        for chunk in ex.chunks(ex.session.main, info):
            for m in chunk:
                if m.kind == "user":
                    _user(d, m)
                elif m.kind == "assistant":
                    _assistant(d, m)
    return d


# --- writing ------------------------------------------------------------------------------------
def _tools_line(tools: Counter) -> str:
    return " · ".join(f"{n} {name}" for name, n in tools.most_common(6)) + (" · …" if len(tools) > 6 else "")


def _turn_blocks(no: int, t: Turn, level: tuple, context: list[str]) -> list[Block]:
    p_cap, a_cap, s_cap = level
    when = local_date(t.when) if t.when else ""
    head = f"### {no}. Prompt" if t.prompt is not None else "### Before the first prompt"
    out = [Block([Raw(head + (f" <sub>{when}</sub>" if when else "") + "\n\n")]
                 + ([Prose(_keep(t.prompt, p_cap), quoted=True)] if t.prompt else []))]
    if context:
        items = "".join(f"- {inline_text(c)}\n" for c in context)
        out.append(Block([Raw(items + "\n")], f"Context injected by Claude Code ({len(context)})"))
    n = sum(t.tools.values())
    if n:
        lines = "".join(f"- {inline_text(s)}\n" for s in t.steps[:s_cap])
        rest = n - min(len(t.steps), s_cap)
        more = f"- *… {rest} more*\n" if rest and lines else ""
        summary = f"{n} tool call{'s' if n != 1 else ''}: {_tools_line(t.tools)}" + (
            f" · {t.errors} failed" if t.errors else "")
        out.append(Block([Raw(lines + more + "\n")], summary) if lines else Block([Raw(f"*{summary}*\n\n")]))
    if t.answer:
        out.append(Block([Raw("**Answer:**\n\n"), Prose(_keep(t.answer, a_cap))]))
    return out


def _files_block(d: Digest, shown: int) -> list[Block]:
    if not d.changes:
        return []
    rows = sorted(d.changes.values(), key=lambda c: c.path)
    # A code span shows its text as is (no escapes inside): without backticks and on one line, it cannot end early.
    lines = "".join(f"- `{short(c.path, 160).replace('`', '')}` +{c.added} −{c.removed}"
                    + (f" ({c.calls} changes)" if c.calls > 1 else "") + "\n" for c in rows[:shown])
    if len(rows) > shown:
        lines += f"- *… {len(rows) - shown} more files*\n"
    return [Block([Raw(f"### Files changed ({len(rows)})\n\n" + lines + "\n")])]


def render(ex: Export, info: TranscriptInfo, d: Digest, level: tuple, keep: int | None = None,
           files: int = FILES_SHOWN) -> str:
    """The summary at one level of detail; ``keep``: only the first and last ``keep`` turns."""
    calls = sum(sum(t.tools.values()) for t in d.turns)
    prompts = sum(t.prompt is not None for t in d.turns)
    blocks = [doc_header(ex, info, "summary: prompts, final answers, one line per tool call"),
              Block([Raw(f"**{prompts} prompt{'s' if prompts != 1 else ''} · {calls} tool calls · "
                         f"{len(d.changes)} files changed**\n\n")])]
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
            blocks.extend(_turn_blocks(no - (d.turns[0].prompt is None), t, level, d.context if no == first else []))
    blocks.extend(_files_block(d, files))
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
    sink = Sink(out, stdout, ex.batch)
    with all_files(ex):
        sink.emit(1, fit(ex, info, d, opts.max_chars), last=True)
    return sink.files
