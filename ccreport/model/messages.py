"""Turn a stream of entries into messages: the conversation as a reader sees it, every line in some
message. The builder streams, its ``carry`` plain data to resume from a page start (docs/model.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ccreport.source.jsonl import Entry
from ccreport.model.forks import copied, fork_ref
from ccreport.model.teams import has_teammate_message, teammate_messages
from ccreport.model import folds, tasks, warmup
from ccreport.model.kinds import CONTEXT_ATTACHMENTS, NOTICE_ATTACHMENTS, attachment_type, is_new_bookkeeping
from ccreport.model.text import to_text

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
# Lines that carry no conversation of their own: shown as small folded notes, never dropped.
META_TYPES = {
    "file-history-snapshot",
    "queue-operation",
    "last-prompt",
    "permission-mode",
    "ai-title",
    "custom-title",
    "agent-name",
    "summary",
    "pr-link",
    "teleported-from",
    "progress",
    "attachment",
}
# Prefixes of user text that Claude Code injected rather than a person typed.
NOT_TYPED = (
    "<command-",
    "<local-command",
    "<bash-",
    "Caveat:",
    "<system-reminder>",
    "<task-notification>",
    "<ide_",
    "<user-memory-input>",
    "[Request interrupted",
    "This session is being continued",
    "[SUGGESTION MODE",
)
# Calls on closed pages that still wait for their result (kept so the late result can link back).
LATE_CALLS_KEEP = 2000


@dataclass(slots=True)
class ToolResult:
    tool_use_id: str
    content: Any  # str, or a list of blocks (text / image / tool_reference …)
    is_error: bool
    extra: Any  # the line's toolUseResult (object, string or list) or None
    line: int
    timestamp: str | None = None
    denial: str | None = None  # the line's toolDenialKind (2.1.2xx): why the call was denied ("automode-blocked")


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    input: Any
    line: int
    result: ToolResult | None = None
    sidechain_line: int | None = None  # inline sub-agent run started at this line
    reply_line: int | None = None  # SendMessage: the teammate's reply, when it came on the same page
    reply_later: bool = False  # SendMessage: its page closed before the reply (the site links it forward)
    board: list | None = None  # Task* calls: the task board after this call's change (model.tasks)


@dataclass
class Message:
    kind: str  # user | assistant | system | meta | context | notice | malformed | result | other
    line: int  # first JSONL line: the anchor (#L<line>)
    entry: dict | None  # the first entry (envelope fields for display)
    blocks: list = field(default_factory=list)  # (type, payload) pairs
    lines: list[int] = field(default_factory=list)
    timestamp: str | None = None
    model: str | None = None
    usage: dict | None = None
    msg_id: str | None = None
    sidechain: bool = False
    # kind == "result": the late/orphan result, and where its call was
    late_call: dict | None = None
    forked: bool = False  # a line copied from the parent of a forked transcript (model.forks)
    # a teammate's message answering a SendMessage: {"id", "line", "page"} of that call
    reply_to: dict | None = None
    # kind == "malformed"
    raw: str | None = None
    error: str | None = None
    size: int = 0
    aborted: bool = False  # kind == "assistant": a line of it has isAbortedMidStream (the stream was cut)
    # kinds "empty" and "malformed_run", and a "meta"/"context" note past its rows: the lines folded
    # into this message, counted (model.folds); None for every other message
    run: dict | None = None

    @property
    def calls(self):
        return [b[1] for b in self.blocks if b[0] == "tool_use"]


def injected_text(text: str) -> bool:
    """User text Claude Code put there (context, command output, reminders), not typed by a person."""
    s = text.strip()
    return s.startswith(NOT_TYPED) or (s.startswith("<") and s.endswith(">"))


def typed_prompt_text(entry: dict) -> str | None:
    """THE definition of a prompt a person typed (titles, the outline's turns, the summary export):
    the user line's text blocks that Claude Code did not inject, joined — an IDE context block
    (``<ide_opened_file>``…) may come first in the same line. None for injected, meta and
    tool-result lines, and a teammate's message."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary") or entry.get("isSidechain"):
        return None
    origin = entry.get("origin")
    if isinstance(origin, dict) and origin.get("kind") not in (None, "human"):
        return None  # a hook, a task notification, a peer session (2.1.2xx): sent, not typed
    msg = entry.get("message")
    if not isinstance(msg, dict):
        return None
    content = msg.get("content")
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                texts.append(b["text"])
            elif isinstance(b, dict) and b.get("type") == "tool_result" and not texts:
                return None  # a tool's result (what follows it is the result's note, not a prompt)
    typed = [t.lstrip() for t in texts if t.strip() and not injected_text(t) and not has_teammate_message(t)]
    return "\n\n".join(typed) or None


class Builder:
    """Feed entries in file order; take finished messages from ``out`` as they appear."""

    def __init__(self, carry: dict | None = None):
        # The state that continues across pages: plain data (JSON-serialisable).
        self.carry = carry if carry is not None else {
            "late_calls": {},  # tool_use_id → [name, line, page] for calls closed without result
            "titles": {},  # custom / ai / summary / prompt
            "counts": {},  # entry type → lines
            "messages": 0,
            "first_ts": None,
            "last_ts": None,
            "cwd": None,
            "git_branch": None,
            "models": [],
            "tasks": {},  # the task board so far (model.tasks)
        }
        self.carry.setdefault("tasks", {})
        self.out: list[Message] = []  # messages of the current (open) page, in order
        self.open_calls: dict[str, ToolCall] = {}  # calls on the open page still without a result
        self.by_msg_id: dict[str, Message] = {}  # assistant messages on the open page
        self.page_no = 1
        self._last_meta: Message | None = None  # the page's last message while it is a meta note (_emit clears it)
        self._run: Message | None = None  # the page's last message while it is a fold of empty or malformed lines
        self.task_prompts: dict[str, ToolCall] = {}  # Task prompts on the open page (inline sidechains)
        self.sent: dict[str, ToolCall] = {}  # SendMessage calls on the open page, by recipient
        self._copying = False  # the line being fed was copied from a fork's parent
        self._turn_context: Message | None = None  # this turn's context block (model.kinds.CONTEXT_ATTACHMENTS)
        self._answered = False  # an assistant message came since the turn's context block began

    def close_page(self) -> list[Message]:
        """Hand over the open page's messages and start a new page."""
        msgs, self.out = self.out, []
        late = self.carry["late_calls"]
        for cid, call in self.open_calls.items():
            late[cid] = [call.name, call.line, self.page_no]
            while len(late) > LATE_CALLS_KEEP:
                late.pop(next(iter(late)))
        self.open_calls = {}
        self.by_msg_id = {}
        self.task_prompts = {}
        for call in self.sent.values():  # the reply, if one comes, is on a later page
            call.reply_later = True
        self.sent = {}
        self._last_meta = None
        self._run = None
        self._turn_context = None
        self.page_no += 1
        return msgs

    def feed(self, e: Entry) -> None:
        c = self.carry
        if not e.obj:  # not an object (None), or {}: folded in runs (model.folds)
            self._no_content(e)
            return
        obj = e.obj
        etype = obj.get("type")
        key = etype if isinstance(etype, str) else "(no type)"
        c["counts"][key] = c["counts"].get(key, 0) + 1
        self._note_envelope(obj)
        if etype in ("user", "assistant"):
            warmup.note(c, obj)  # (a sub-agent file: is it a warm-up run?)
        if etype == "fork-context-ref":
            c["fork"] = fork_ref(obj)
        self._copying = copied(c.get("fork"), obj)
        if etype == "fork-context-ref":
            self._emit(Message("fork", e.line, obj, lines=[e.line], timestamp=_ts(obj)))
        elif etype == "assistant":
            self._assistant(e, obj)
        elif etype == "user":
            self._user(e, obj)
        elif etype == "system":
            self._emit(Message("system", e.line, obj, lines=[e.line], timestamp=_ts(obj), sidechain=bool(obj.get("isSidechain"))))
        elif etype == "attachment" and attachment_type(obj) in CONTEXT_ATTACHMENTS:
            self._context(e, obj)
        elif etype == "attachment" and attachment_type(obj) in NOTICE_ATTACHMENTS:
            self._emit(Message("notice", e.line, obj, lines=[e.line], timestamp=_ts(obj),
                               sidechain=bool(obj.get("isSidechain"))))
        elif isinstance(etype, str) and (etype in META_TYPES or is_new_bookkeeping(etype)):
            self._note_title(obj)
            self._meta(e, obj)
        else:
            # Unknown entry type (or a user-made line such as {"type":"message"}): shown generically.
            self._emit(Message("other", e.line, obj, lines=[e.line], timestamp=_ts(obj), size=e.size))

    def _note_envelope(self, obj: dict) -> None:
        # (every line passes here: plain comparisons, the two fields spelt out, no loop)
        c = self.carry
        ts = obj.get("timestamp")
        if isinstance(ts, str) and ts:
            first, last = c["first_ts"], c["last_ts"]
            if not first or ts < first:
                c["first_ts"] = ts
            if not last or ts > last:
                c["last_ts"] = ts
        if c["cwd"] is None:
            v = obj.get("cwd")
            if isinstance(v, str) and v:
                c["cwd"] = v
        if c["git_branch"] is None:
            v = obj.get("gitBranch")
            if isinstance(v, str) and v:
                c["git_branch"] = v

    def _note_title(self, obj: dict) -> None:
        t = self.carry["titles"]
        etype = obj.get("type")
        if etype == "custom-title" and isinstance(obj.get("customTitle"), str):
            t["custom"] = obj["customTitle"]
        elif etype == "ai-title" and isinstance(obj.get("aiTitle"), str):
            t["ai"] = obj["aiTitle"]
        elif etype == "agent-name" and isinstance(obj.get("agentName"), str) and obj["agentName"].strip():
            t["agent"] = obj["agentName"]

    def _no_content(self, e: Entry) -> None:
        counts = self.carry["counts"]
        key = "(no type)" if e.obj is not None else "(malformed)"
        counts[key] = counts.get(key, 0) + 1
        self._copying = False
        empty = folds.empty_line(e)
        m = self._run
        if m is None:
            shown = self.out[-folds.MALFORMED_SHOWN:]
            if not empty and (len(shown) < folds.MALFORMED_SHOWN or any(x.kind != "malformed" for x in shown)):
                self._emit(Message("malformed", e.line, None, lines=[e.line], raw=e.raw, error=e.error, size=e.size))
                return
            m = Message(folds.EMPTY, e.line, None, lines=[e.line], run=folds.new_run(e))
            self._emit(m)
            self._run = m
        if not empty:
            m.kind = folds.MALFORMED_RUN  # (a run that began with empty lines holds a malformed one now)
        folds.add(m.run, e)

    def joins_run(self, e: Entry) -> bool:
        """Would this line be folded into the open page's last message (a run of empty or malformed lines)?"""
        return self._run is not None and not e.obj

    def _emit(self, m: Message) -> None:
        self._last_meta = None
        self._run = None
        m.forked = self._copying
        self.carry["messages"] += 1
        self.out.append(m)

    def _meta(self, e: Entry, obj: dict) -> None:
        # Consecutive bookkeeping lines share one folded note so they do not crowd the page.
        m = self._last_meta
        if m is None:
            m = Message("meta", e.line, obj, timestamp=_ts(obj))
            self._emit(m)
            self._last_meta = m
        _add_row(m, e, obj)

    def _context(self, e: Entry, obj: dict) -> None:
        # One folded block per turn: what Claude Code told the model (system prompt, CLAUDE.md, the
        # machine, tools on offer) comes as many large lines at the start of each turn.
        m = self._turn_context
        if m is None:
            m = Message("context", e.line, obj, timestamp=_ts(obj), sidechain=bool(obj.get("isSidechain")))
            self._emit(m)
            self._turn_context = m
        _add_row(m, e, obj)

    def _assistant(self, e: Entry, obj: dict) -> None:
        msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
        content = msg.get("content")
        mid = msg.get("id") if isinstance(msg.get("id"), str) else None
        m = self.by_msg_id.get(mid) if mid else None
        if m is None:
            m = Message("assistant", e.line, obj, timestamp=_ts(obj), msg_id=mid, sidechain=bool(obj.get("isSidechain")))
            model = msg.get("model")
            m.model = model if isinstance(model, str) else None
            if m.model and m.model not in self.carry["models"] and m.model != "<synthetic>":
                self.carry["models"].append(m.model)
            self._emit(m)
            self._answered = True
            if mid:
                self.by_msg_id[mid] = m
        m.lines.append(e.line)
        if obj.get("isAbortedMidStream") is True:
            m.aborted = True
        raw_usage = msg.get("usage") if isinstance(msg.get("usage"), dict) else {}
        usage = {k: raw_usage[k] for k in USAGE_KEYS if isinstance(raw_usage.get(k), int)}
        if usage and sum(usage.values()) >= sum((m.usage or {}).values()):
            m.usage = usage
        if isinstance(content, str):
            if content:
                m.blocks.append(("text", content))
        elif isinstance(content, list):
            for b in content:
                self._assistant_block(m, b, e.line)
        elif content is not None or not msg:
            # A message we cannot read as blocks (e.g. the raw SSE-stream anomaly, docs/formats.md F1).
            m.blocks.append(("unknown", msg if msg else obj))

    def _assistant_block(self, m: Message, b: Any, line: int) -> None:
        if not isinstance(b, dict):
            m.blocks.append(("unknown", b))
            return
        bt = b.get("type")
        if bt == "text":
            m.blocks.append(("text", to_text(b.get("text", ""))))
        elif bt in ("thinking", "redacted_thinking"):
            m.blocks.append((bt, b))
        elif bt == "tool_use":
            cid = b.get("id") if isinstance(b.get("id"), str) else f"line{line}"
            name = b.get("name") if isinstance(b.get("name"), str) else "(unnamed tool)"
            call = ToolCall(cid, name, b.get("input"), line)
            self.open_calls[cid] = call
            m.blocks.append(("tool_use", call))
            if name == "SendMessage" and isinstance(call.input, dict):
                self._note_sent(call)
            if name in ("Task", "Agent") and isinstance(call.input, dict):
                prompt = call.input.get("prompt")
                if isinstance(prompt, str):
                    self.task_prompts[prompt[:500]] = call
        else:
            m.blocks.append(("unknown", b))

    def _user(self, e: Entry, obj: dict) -> None:
        msg = obj.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if "prompt" not in self.carry["titles"]:
            text = typed_prompt_text(obj)
            if text:
                self.carry["titles"]["prompt"] = text[:300]
            elif obj.get("isSidechain") and "task" not in self.carry["titles"] and isinstance(content, str) and content.strip():
                # An old-layout sub-agent's prompt (its lines are sidechain lines, no typed prompt):
                # what its pages are named by when no description says what it was asked to do.
                self.carry["titles"]["task"] = content[:300]
        blocks = []
        if isinstance(content, str):
            blocks.append(("text", content))
        elif isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    self._result(e, obj, b)
                elif isinstance(b, str):
                    blocks.append(("text", b))
                elif isinstance(b, dict) and b.get("type") == "text":
                    blocks.append(("text", to_text(b.get("text"))))
                elif isinstance(b, dict) and b.get("type") in ("image", "document"):
                    blocks.append((b["type"], b))
                else:
                    blocks.append(("unknown", b))
            if content and not blocks:
                return  # only tool results (most user lines): each went to its call, no message made
        elif content is not None or not isinstance(msg, dict):
            blocks.append(("unknown", msg if msg is not None else obj))
        m = Message("user", e.line, obj, blocks, [e.line], _ts(obj), sidechain=bool(obj.get("isSidechain")))
        if isinstance(content, (str, list)):
            self._note_reply(m)
        # Inline sub-agent run (≤ 2.0.2): its first line repeats the Task prompt; link both ways.
        if obj.get("isSidechain") and obj.get("parentUuid") is None and isinstance(content, str):
            call = self.task_prompts.pop(content[:500], None)
            if call is not None:
                call.sidechain_line = e.line
                m.late_call = {"id": call.id, "name": call.name, "line": call.line, "page": None, "sidechain": True}
        if self._answered:  # a user message after an answer starts a new turn (and context block)
            self._turn_context, self._answered = None, False
        self._emit(m)

    def _note_sent(self, call: ToolCall) -> None:
        """A SendMessage: its recipient's next message is the reply (on a later page: by the carry)."""
        to = call.input.get("to") or call.input.get("recipient")
        if isinstance(to, str) and to:
            sent = self.carry.setdefault("sent", {})
            sent.pop(to, None)
            sent[to] = [call.id, call.line, self.page_no]
            while len(sent) > LATE_CALLS_KEEP:
                sent.pop(next(iter(sent)))
            self.sent[to] = call

    def _note_reply(self, m: Message) -> None:
        """A teammate's message after a SendMessage to that teammate: linked both ways."""
        for _, text in (b for b in m.blocks if b[0] == "text"):
            if not isinstance(text, str) or not has_teammate_message(text):
                continue
            for tm in teammate_messages(text):
                info = self.carry.get("sent", {}).pop(tm.sender, None)
                if info is not None and m.reply_to is None:
                    m.reply_to = {"id": info[0], "line": info[1], "page": info[2], "to": tm.sender}
                call = self.sent.pop(tm.sender, None)
                if call is not None:
                    call.reply_line = m.line

    def _result(self, e: Entry, obj: dict, b: dict) -> None:
        cid = b.get("tool_use_id") if isinstance(b.get("tool_use_id"), str) else ""
        denial = obj.get("toolDenialKind")
        res = ToolResult(cid, b.get("content"), bool(b.get("is_error")), obj.get("toolUseResult"), e.line, _ts(obj),
                         denial if isinstance(denial, str) and denial else None)
        call = self.open_calls.pop(cid, None)
        if call is not None:
            call.result = res
            if tasks.apply(self.carry["tasks"], call.name, call.input, res):
                call.board = tasks.snapshot(self.carry["tasks"])
            return
        late = self.carry["late_calls"].pop(cid, None)
        info = {"id": cid, "name": late[0], "line": late[1], "page": late[2]} if late else None
        if late and tasks.apply(self.carry["tasks"], late[0], None, res):
            info["board"] = tasks.snapshot(self.carry["tasks"])
        m = Message("result", e.line, obj, lines=[e.line], timestamp=_ts(obj), sidechain=bool(obj.get("isSidechain")), late_call=info)
        m.blocks.append(("tool_result", res))
        self._emit(m)


def set_summary_title(carry: dict, text: str | None) -> None:
    """The title a legacy summary line gives the session. Not read from the transcript's own lines:
    a summary names the session holding its leafUuid, usually another file (source.summaries)."""
    if text:
        carry["titles"]["summary"] = text
    else:
        carry["titles"].pop("summary", None)


def _add_row(m: Message, e: Entry, obj: dict) -> None:
    """One more line of a folded note: a row of its own, or past ``FOLD_ROWS`` counted (model.folds)."""
    if len(m.blocks) < folds.FOLD_ROWS:
        m.lines.append(e.line)
        m.blocks.append(("entry", (e.line, obj, e.size)))
        return
    if m.run is None:
        m.run = folds.new_run(e)
    folds.count(m.run, e, folds.line_type(obj))


def title_of(carry: dict) -> str | None:
    t = carry["titles"]
    return t.get("custom") or t.get("agent") or t.get("ai") or t.get("summary") or t.get("prompt")


def _ts(obj: dict) -> str | None:
    ts = obj.get("timestamp")
    return ts if isinstance(ts, str) else None
