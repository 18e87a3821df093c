"""The features that keep a slice of a transcript's state, behind one protocol: ``begin`` from the
saved slice, take each entry of the types the feature names (as it is read), open each page (what it
adds to the page's body: ``open``), take each message of the kinds it names (as its page is
rendered) and each written page, ``end`` with the new slice. site.transcript calls the protocol over
the transcript's list of features (``for_transcript``), not each feature; an entry or a message goes
only to the features that name its type or kind, so a feature with nothing to do for it costs nothing
(the per-entry taps were a measured cost: issue 27).

Each feature declares its NAME, the VERSION of its slice and the slice's type (``SLICE``, a typed
dataclass defined beside it): TranscriptState holds the slices by NAME (site.state) and the state
database saves each as a row of its own with its version (site.statedb), so a feature's change bumps
its VERSION, not site.state.FORMAT (a slice of another version renders its transcript from line 1).
Adding a feature touches neither TranscriptState nor site.transcript: a class here, and its place in
``for_transcript`` and ``FEATURES``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import ClassVar

import orjson

from ccreport.layout import page_name, reply_page
from ccreport.model.messages import typed_prompt_text
from ccreport.model.teams import TeamFacts, has_teammate_message, teammate_messages
from ccreport.model.turns import Turns, changed_paths
from ccreport.model.workflows import run_id_of
from ccreport.render.resources import env
from ccreport.render.turns import continues_note, turn_line
from ccreport.site.filehistory import SEES
from ccreport.source.homefiles import prompt_key


@dataclass
class Slice:
    """A feature's part of a TranscriptState, saved as a row of its own: ``to_row`` (its fields:
    orjson writes a dataclass field for field) and back (``from_row``)."""

    @classmethod
    def from_row(cls, data: dict) -> "Slice":
        """The slice of its row (or of a transcript's whole state in the files of old: site.stateimport)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})

    def to_row(self):
        return self


@dataclass
class Inserts:
    """What a feature adds to a page's body (``Feature.open``): items (id, HTML) before its first
    message, items after a message (by its line), and the note the page opens with (None: none)."""

    lead: list = field(default_factory=list)
    after: dict = field(default_factory=dict)
    continues: dict | None = None


class Feature:
    """A feature's part of one transcript's read (the base does nothing)."""

    NAME: ClassVar[str] = ""  # its slice's name (its row's "feature"); "": it keeps none
    VERSION: ClassVar[int] = 1  # its slice's version: another one renders the transcript from line 1
    SLICE: ClassVar[type | None] = None  # its slice's type (in TranscriptState.slices); None: none there
    kinds: frozenset = frozenset()  # the message kinds (model.messages.Message.kind) ``message`` takes
    types: frozenset | None = frozenset()  # the entry types (its "type") ``entry`` takes; None: every entry
    kept: Slice | None = None  # the new slice, from ``begin`` on

    def begin(self, saved, no: int, line: int) -> None:
        """The read starts at page ``no``, line ``line``; ``saved``: the slice it resumes (None: line 1)."""

    def entry(self, obj: dict | None, line: int) -> None:
        """An entry of one of ``types`` (its parsed line; None when malformed), as it is read."""

    def open(self, page) -> Inserts | None:
        """``page`` is about to be rendered: what the feature adds to its body (None: nothing)."""
        return None

    def message(self, page, m) -> None:
        """A message of one of ``kinds`` on ``page``, as its page is rendered."""

    def page(self, page) -> None:
        """``page`` was written."""

    def end(self) -> Slice | None:
        """The new slice (None: it keeps none in TranscriptState)."""
        return self.kept


@dataclass
class UsageSlice(Slice):
    """The saved ledger; its row is the ledger itself."""

    ledger: dict | None = None  # model.usage.TranscriptUsage.to_json(); None: none saved (read from line 1)

    @classmethod
    def from_row(cls, data) -> "UsageSlice":
        return cls(data if isinstance(data, dict) else None)

    def to_row(self):
        return self.ledger


class Usage(Feature):
    """The transcript's usage ledger (model.usage.TranscriptUsage, made from the saved one by
    site.transcript, whose figures it gives): every entry, for the forks it follows."""

    NAME, SLICE = "usage", UsageSlice
    types = None

    def __init__(self, ledger):
        self.ledger, self.entry = ledger, ledger.feed

    def end(self):
        return UsageSlice(self.ledger.to_json())


class FileHistory(Feature):
    """The pairing of an edit with the file's backup before it (site.filehistory.BeforeEdits)."""

    types = SEES

    def __init__(self, before_edits):
        self.entry = before_edits.see


@dataclass
class TurnsSlice(Slice):
    """The turns (model.turns) not yet moved out to the ``turns`` table (site.closedturns)."""

    turns: list = field(default_factory=list)  # model.turns.Turn of every prompt still here, as plain data
    turns_mark: dict | None = None  # model.turns.Turns.mark() at the last page's first line
    closed_turns: dict | None = None  # the closed turns moved out (site.closedturns): {"count", "first"}; None: none


class TurnLines(Feature):
    """The prompts and what followed each (model.turns): the quiet line after each prompt on its
    page, the note of a page that starts inside a turn, and the outline's turns (site.overview)."""

    NAME, SLICE = "turns", TurnsSlice

    def begin(self, saved, no, line):
        self.turns = Turns.resume(saved.turns, saved.turns_mark, (saved.closed_turns or {}).get("count", 0)) \
            if saved is not None else Turns()
        self.mark, self.closed = (saved.turns_mark, saved.closed_turns) if saved is not None else (None, None)

    def open(self, page):
        open_turn = self.turns.turns[-1] if self.turns.turns else None
        self.mark = self.turns.mark()
        parts = self.turns.feed_page(page.messages, page.no)
        out = Inserts(after={turn.line: [(f"turn-L{turn.line}", turn_line(f"turn-L{turn.line}", figs, turn.ts))]
                             for turn, figs in parts if turn is not None and turn.page == page.no})
        if parts and open_turn is not None and parts[0][0] is open_turn:
            out.lead.append(("turn-cont", turn_line("turn-cont", parts[0][1], None)))
            out.continues = continues_note(open_turn)
        return out

    def end(self):
        return TurnsSlice(self.turns.to_json(), self.mark, self.closed)


@dataclass
class TeamsSlice(Slice):
    team: dict | None = None  # model.teams.TeamFacts of its lines: team names, members, task board


class Teams(Feature):
    """What the transcript's lines say of its team: teamName, a teammate's colour, the team calls."""

    NAME, SLICE = "teams", TeamsSlice
    kinds = frozenset(("user", "assistant"))

    def begin(self, saved, no, line):
        # a copy (re-fed lines change nothing)
        self.kept = TeamsSlice(orjson.loads(orjson.dumps(saved.team)) if saved is not None and saved.team else None)

    def message(self, page, m):
        if m.entry is None or m.forked:
            return
        facts = TeamFacts(self.kept.team)
        if isinstance(m.entry.get("teamName"), str):
            facts.entry(m.entry)
        for btype, payload in m.blocks:
            if btype == "text" and isinstance(payload, str) and has_teammate_message(payload):
                for tm in teammate_messages(payload):
                    facts.message(tm)
            elif btype == "tool_use":
                r = payload.result
                facts.call(payload.name, payload.input, r.extra if r is not None else None)
        if facts.data != {"teams": [], "members": {}, "tasks": {}}:
            self.kept.team = facts.data


@dataclass
class TypedSlice(Slice):
    typed: list = field(default_factory=list)  # [line, source.homefiles.prompt_key] of each typed prompt


class Typed(Feature):
    """The main transcript's typed prompts (history.jsonl is matched on them: site.extras)."""

    NAME, SLICE = "typed", TypedSlice
    kinds = frozenset(("user",))

    def begin(self, saved, no, line):
        self.kept = TypedSlice([x for x in saved.typed if x[0] < line] if saved is not None else [])

    def message(self, page, m):
        if isinstance(m.entry, dict) and (typed := typed_prompt_text(m.entry)):
            self.kept.typed.append([m.line, prompt_key(typed)])


@dataclass
class WorkflowsSlice(Slice):
    run_refs: dict = field(default_factory=dict)  # run id → [page no, its card as rendered]


class Workflows(Feature):
    """The Workflow runs the pages show a card of (a card that changes re-renders its page: site.plan)."""

    NAME, SLICE = "workflows", WorkflowsSlice
    kinds = frozenset(("assistant",))

    def __init__(self, cards: dict):
        self.cards = cards  # run id → its card (render.context.RenderContext.workflow_runs)

    def begin(self, saved, no, line):
        self.kept = WorkflowsSlice({k: v for k, v in saved.run_refs.items() if v[0] < no} if saved is not None else {})

    def message(self, page, m):
        for call in m.calls:
            rid = run_id_of(call) if call.name == "Workflow" else None
            if rid is not None and rid not in self.kept.run_refs:  # its card shows the run's files (site/plan.py)
                self.kept.run_refs[rid] = [page.no, self.cards.get(rid)]


@dataclass
class RepliesSlice(Slice):
    replies: dict = field(default_factory=dict)  # reply page name (layout.reply_page) → last page that wrote it


class Replies(Feature):
    """The way from a SendMessage to its reply on a later page (layout.reply_page): written as "no
    reply yet" when the call's page closes, then as a redirect by the reply's page."""

    NAME, SLICE = "replies", RepliesSlice

    def __init__(self, writer, rel: str):
        self.writer, self.rel = writer, rel

    def begin(self, saved, no, line):
        self.kept = RepliesSlice({k: v for k, v in saved.replies.items() if v < no} if saved is not None else {})

    def page(self, page):
        env_, out = env().get_template("redirect.html"), []
        for m in page.messages:
            for call in m.calls:
                if call.name == "SendMessage" and call.reply_later:
                    to = (call.input.get("to") or call.input.get("recipient")) if isinstance(call.input, dict) else None
                    out.append((reply_page(call.id), dict(
                        target=f"{page_name(page.no)}#L{call.line}", label="No reply yet", what="message sent",
                        note=f"No reply from {to or 'this teammate'} is recorded after this message (yet).")))
            info = m.reply_to
            if info and isinstance(info.get("id"), str) and info.get("page") != page.no:
                out.append((reply_page(info["id"]), dict(target=f"{page_name(page.no)}#L{m.line}", label="Reply",
                                                          what=f"reply from {info.get('to') or 'the teammate'}")))
        for name, args in out:
            self.writer.write(f"{self.rel}/{name}", env_.render(**args))
            self.kept.replies[name] = page.no


@dataclass
class ChangesSlice(Slice):
    changed: list = field(default_factory=list)  # the files a sub-agent wrote or edited (model.turns.changed_paths)


class Changes(Feature):
    """A sub-agent's changes: the files it wrote or edited, for the outline row of the prompt that
    started it (model.turns.changed_paths; the last page's are found again: kept once)."""

    NAME, SLICE = "changes", ChangesSlice

    def begin(self, saved, no, line):
        self.kept = ChangesSlice(list(saved.changed) if saved is not None else [])

    def page(self, page):
        changed_paths(page.messages, self.kept.changed)


@dataclass
class SearchSlice(Slice):
    search: dict | None = None  # its search unit's record (site.search.SessionIndex.end); None: not indexed


class Search(Feature):
    """The transcript's part of the session's search index (site.search.SessionIndex)."""

    NAME, SLICE = "search", SearchSlice

    def __init__(self, index, transcript_id: str):
        self.index, self.tid = index, transcript_id

    def begin(self, saved, no, line):
        self.index.begin(self.tid, no)

    def page(self, page):
        self.index.page(self.tid, page.no, page.messages)

    def end(self):
        return SearchSlice(self.index.end(self.tid))


def for_transcript(run, kind: str, transcript_id: str, rel: str, ledger) -> list[Feature]:
    """The features of one transcript's read (``run``: site.transcript.SessionRun; ``ledger``: its
    model.usage.TranscriptUsage)."""
    features: list[Feature] = [Usage(ledger), TurnLines(), Teams(), Workflows(run.workflow_runs),
                               Replies(run.writer, rel)]
    if run.before_edits is not None and run.before_edits.files is not None:
        features.append(FileHistory(run.before_edits))
    features.append(Typed() if kind == "main" else Changes())
    if run.search is not None:
        features.append(Search(run.search, transcript_id))
    return features


def by_kind(features: list[Feature]) -> dict[str, list[Feature]]:
    """Message kind → the features that take it (a message of no kind here goes to none)."""
    out: dict[str, list[Feature]] = {}
    for f in features:
        for kind in f.kinds:
            out.setdefault(kind, []).append(f)
    return out


def tapped(entries, features: list[Feature]):
    """The entries, each handed on the way to the features that take its type."""
    every = [f.entry for f in features if f.types is None]
    by_type: dict[str, list] = {}
    for f in features:
        for t in f.types or ():
            by_type.setdefault(t, []).append(f.entry)
    for e in entries:
        obj = e.obj
        for feed in every:
            feed(obj, e.line)
        if by_type and isinstance(obj, dict) and isinstance(kind := obj.get("type"), str):  # (hostile: any JSON)
            for feed in by_type.get(kind, ()):
                feed(obj, e.line)
        yield e


FEATURES = (Usage, FileHistory, TurnLines, Teams, Typed, Workflows, Replies, Changes, Search)  # (for_transcript's)
SLICE_TYPES: dict[str, type] = {f.NAME: f.SLICE for f in FEATURES if f.SLICE is not None}  # NAME → its slice's type


def versions() -> dict[str, int]:
    """Each feature's NAME → its slice's version (the state database keeps the rows of these only)."""
    return {f.NAME: f.VERSION for f in FEATURES if f.NAME}
