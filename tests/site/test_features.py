"""The features' protocol (site.features): each feature ends with a slice of its own type (or none),
a feature is handed only the messages of the kinds it names, and a feature added beside the others
keeps its slice through the state database with no change to TranscriptState or site.transcript."""

from __future__ import annotations

from dataclasses import dataclass, field

from ccreport.site import features, transcript
from ccreport.site.build import Options, build
from ccreport.site.state import State
from incrhelp import append, lines_of
from util import make_home

PROJ = "-home-u-proj"
SID = "11111111-2222-3333-4444-555555555555"


def test_each_feature_ends_with_its_own_slice_and_sees_only_its_kinds(tmp_path, monkeypatch):
    seen: list = []

    class Recorder(features.Feature):
        kinds = frozenset(("user",))

        def message(self, page, m):
            seen.append(m.kind)

    ended = []
    real = features.for_transcript

    def for_transcript(*args):
        got = real(*args) + [Recorder()]
        for f in got:
            end = f.end
            f.end = lambda f=f, end=end: ended.append((f, end())) or ended[-1][1]
        return got

    monkeypatch.setattr(transcript, "for_transcript", for_transcript)
    home = make_home(tmp_path / "home", {PROJ: {f"{SID}.jsonl": lines_of(4, sid=SID)}})
    assert build(home, tmp_path / "site", Options(page_size=3, jobs=1)).errors == []
    assert seen == ["user"] * 4  # 4 prompts, 4 answers: only the prompts were handed over
    names = {type(f).__name__ for f, _ in ended}
    assert {"Usage", "TurnLines", "Teams", "Typed", "Workflows", "Replies", "Search", "Recorder"} <= names
    for f, new in ended:
        assert (new is None) if f.SLICE is None else type(new) is f.SLICE, type(f).__name__
    saved = State.load(tmp_path / "site").session((PROJ, SID)).transcripts["main"]
    assert set(saved.slices) == set(features.SLICE_TYPES)
    assert [t["line"] for t in saved.slices["turns"].turns] == [1, 3, 5, 7]  # the turns come through the protocol


@dataclass
class PromptLines(features.Slice):
    lines: list = field(default_factory=list)


class Prompts(features.Feature):
    """A feature the code does not have: the lines of the user messages."""

    NAME, SLICE = "prompt-lines", PromptLines
    kinds = frozenset(("user",))

    def begin(self, saved, no, line):
        self.lines = [x for x in saved.lines if x < line] if saved is not None else []

    def message(self, page, m):
        self.lines.append(m.line)

    def end(self):
        return PromptLines(self.lines)


def test_a_new_feature_keeps_its_slice_across_an_append(tmp_path, monkeypatch):
    real = features.for_transcript
    monkeypatch.setattr(transcript, "for_transcript", lambda *args: real(*args) + [Prompts()])
    monkeypatch.setattr(features, "FEATURES", features.FEATURES + (Prompts,))
    monkeypatch.setitem(features.SLICE_TYPES, Prompts.NAME, PromptLines)
    home = make_home(tmp_path / "home", {PROJ: {f"{SID}.jsonl": lines_of(4, sid=SID)}})
    out, opts = tmp_path / "site", Options(page_size=3, jobs=1)
    assert build(home, out, opts).errors == []
    main = lambda: State.load(out).session((PROJ, SID)).transcripts["main"]  # noqa: E731
    assert main().slices[Prompts.NAME] == PromptLines([1, 3, 5, 7])
    append(home / "projects" / PROJ / f"{SID}.jsonl", lines_of(2, start=4, sid=SID))
    res = build(home, out, opts)
    assert res.errors == [] and main().slices[Prompts.NAME] == PromptLines([1, 3, 5, 7, 9, 11])
    assert "page-0001.html" not in {p.rsplit("/", 1)[-1] for p in map(str, res.written)}  # resumed, not read anew
