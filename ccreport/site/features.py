"""The features that keep a slice of a transcript's state (site.state.SLICES), behind one protocol:
``begin`` from the saved state, take each entry of the types the feature names (as it is read),
each message of the kinds it names (as its page is rendered) and each written page, ``end`` with
the new slice (as the TranscriptState fields it owns). site.transcript calls the protocol over the
transcript's list of features (``for_transcript``), not each feature; an entry or a message goes
only to the features that name its type or kind, so a feature with nothing to do for it costs nothing
(the per-entry taps were a measured cost: issue 27).

The closed turns (model.turns, site.closedturns) are not here: the turn lines are part of a page's
body, so the page's render feeds them itself.
"""

from __future__ import annotations

import orjson

from ccreport.layout import page_name, reply_page
from ccreport.model.messages import typed_prompt_text
from ccreport.model.teams import TeamFacts, has_teammate_message, teammate_messages
from ccreport.model.turns import changed_paths
from ccreport.model.workflows import run_id_of
from ccreport.render.resources import env
from ccreport.site.filehistory import SEES
from ccreport.site.state import TranscriptState
from ccreport.source.homefiles import prompt_key


class Feature:
    """A feature's part of one transcript's read (the base does nothing)."""

    slice = ""  # the slice of the state it owns (site.state.SLICES: its fields and version); "": none
    kinds: frozenset = frozenset()  # the message kinds (model.messages.Message.kind) ``message`` takes
    types: frozenset | None = frozenset()  # the entry types (its "type") ``entry`` takes; None: every entry

    def begin(self, saved: TranscriptState | None, no: int, line: int) -> None:
        """The read starts at page ``no``, line ``line``; ``saved``: the state it resumes (None: line 1)."""

    def entry(self, obj: dict | None, line: int) -> None:
        """An entry of one of ``types`` (its parsed line; None when malformed), as it is read."""

    def message(self, page, m) -> None:
        """A message of one of ``kinds`` on ``page``, as its page is rendered."""

    def page(self, page) -> None:
        """``page`` was written."""

    def end(self) -> dict:
        """The new slice: TranscriptState field → value."""
        return {}


class Usage(Feature):
    """The transcript's usage ledger (model.usage.TranscriptUsage): every entry, for the forks it
    follows. Its slice is the session's (SessionState.ledgers), saved by site.session."""

    slice = "usage"
    types = None

    def __init__(self, ledger):
        self.entry = ledger.feed


class FileHistory(Feature):
    """The pairing of an edit with the file's backup before it (site.filehistory.BeforeEdits)."""

    types = SEES

    def __init__(self, before_edits):
        self.entry = before_edits.see


class Teams(Feature):
    """What the transcript's lines say of its team: teamName, a teammate's colour, the team calls."""

    slice = "teams"
    kinds = frozenset(("user", "assistant"))

    def begin(self, saved, no, line):
        # a copy (re-fed lines change nothing)
        self.team = orjson.loads(orjson.dumps(saved.team)) if saved is not None and saved.team else None

    def message(self, page, m):
        if m.entry is None or m.forked:
            return
        facts = TeamFacts(self.team)
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
            self.team = facts.data

    def end(self):
        return {"team": self.team}


class Typed(Feature):
    """The main transcript's typed prompts: [line, source.homefiles.prompt_key] (history.jsonl is
    matched on these)."""

    slice = "typed"
    kinds = frozenset(("user",))

    def begin(self, saved, no, line):
        self.typed = [x for x in saved.typed if x[0] < line] if saved is not None else []

    def message(self, page, m):
        if isinstance(m.entry, dict) and (typed := typed_prompt_text(m.entry)):
            self.typed.append([m.line, prompt_key(typed)])

    def end(self):
        return {"typed": self.typed}


class Workflows(Feature):
    """The Workflow runs the pages show a card of: run id → [page no, its card as rendered]."""

    slice = "workflows"
    kinds = frozenset(("assistant",))

    def __init__(self, cards: dict):
        self.cards = cards  # run id → its card (render.context.RenderContext.workflow_runs)

    def begin(self, saved, no, line):
        self.refs = {k: v for k, v in saved.run_refs.items() if v[0] < no} if saved is not None else {}

    def message(self, page, m):
        for call in m.calls:
            rid = run_id_of(call) if call.name == "Workflow" else None
            if rid is not None and rid not in self.refs:  # its card shows the run's files (site/plan.py)
                self.refs[rid] = [page.no, self.cards.get(rid)]

    def end(self):
        return {"run_refs": self.refs}


class Replies(Feature):
    """The way from a SendMessage to its reply on a later page (layout.reply_page): written as "no
    reply yet" when the call's page closes, then as a redirect by the reply's page."""

    slice = "replies"
    def __init__(self, writer, rel: str):
        self.writer, self.rel = writer, rel

    def begin(self, saved, no, line):
        self.replies = {k: v for k, v in saved.replies.items() if v < no} if saved is not None else {}

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
            self.replies[name] = page.no

    def end(self):
        return {"replies": self.replies}


class Changes(Feature):
    """A sub-agent's changes: the files it wrote or edited, for the outline row of the prompt that
    started it (model.turns.changed_paths; the last page's are found again: kept once)."""

    slice = "changes"
    def begin(self, saved, no, line):
        self.changed = list(saved.changed) if saved is not None else []

    def page(self, page):
        changed_paths(page.messages, self.changed)

    def end(self):
        return {"changed": self.changed}


class Search(Feature):
    """The transcript's part of the session's search index (site.search.SessionIndex)."""

    slice = "search"
    def __init__(self, index, transcript_id: str):
        self.index, self.tid = index, transcript_id

    def begin(self, saved, no, line):
        self.index.begin(self.tid, no)

    def page(self, page):
        self.index.page(self.tid, page.no, page.messages)

    def end(self):
        return {"search": self.index.end(self.tid)}


def for_transcript(run, kind: str, transcript_id: str, rel: str, ledger) -> list[Feature]:
    """The features of one transcript's read (``run``: site.transcript.SessionRun; ``ledger``: its
    model.usage.TranscriptUsage)."""
    features: list[Feature] = [Usage(ledger), Teams(), Workflows(run.workflow_runs), Replies(run.writer, rel)]
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
