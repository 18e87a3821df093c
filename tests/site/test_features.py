"""The features' protocol (site.features): each feature's new slice is the fields of the slice it
names in site.state.SLICES, and a feature is handed only the messages of the kinds it names."""

from __future__ import annotations

from ccreport.site import features, transcript
from ccreport.site.build import Options, build
from ccreport.site.state import SLICES
from incrhelp import lines_of
from util import make_home

PROJ = "-home-u-proj"
SID = "11111111-2222-3333-4444-555555555555"


def test_each_feature_ends_with_the_fields_of_its_slice_and_sees_only_its_kinds(tmp_path, monkeypatch):
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
    assert {"Usage", "Teams", "Typed", "Workflows", "Replies", "Search", "Recorder"} <= names
    for f, new in ended:
        assert set(new) == (set(SLICES[f.slice][0]) if f.slice else set()), type(f).__name__
