"""Issue 18, point 4: every kind of the secret table (tests/secret_kinds.py, ≥ 80 kinds since issue 29) planted in
four places — user text, a Bash input, a tool result and a toolUseResult — of a test home, exported
as HTML and as Markdown: none of the secrets is in any output file. The same exports with
--no-redact show every secret, so each place does reach the output."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from ccreport.share.redact import Redactor
from secret_kinds import CONTEXT_ONLY, KINDS, planted_lines
from util import assistant, make_home, tool_result, user

PROJECT = "-srv-proj"
PLACES = ("user-text", "bash-input", "tool-result", "tool-use-result")


def _text() -> str:
    bare = " ".join(f"({s})." for k, (s, _c) in KINDS.items() if k not in CONTEXT_ONLY)
    return planted_lines() + "\nAnd in prose: " + bare


def _session(place: str, sid: str) -> list:
    text, kw = _text(), {"sid": sid, "cwd": "/srv/proj"}
    call = assistant("a1", [{"type": "tool_use", "id": "t1", "name": "Bash",
                             "input": {"command": text if place == "bash-input" else "env", "description": "look"}}],
                     parent="u1", **kw)
    structured = {"stdout": text, "stderr": "", "interrupted": False} if place == "tool-use-result" else None
    result = tool_result("r1", "t1", text if place == "tool-result" else "done", parent="a1", extra=structured, **kw)
    return [user("u1", text if place == "user-text" else "please check the deployment", **kw), call, result,
            assistant("a2", [{"type": "text", "text": "All done."}], parent="r1", mid="m2", **kw)]


def _sid(place: str) -> str:
    return f"5ec7e7{PLACES.index(place):02d}-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("secrets")
    return make_home(root / "home", {PROJECT: {f"{_sid(p)}.jsonl": _session(p, _sid(p)) for p in PLACES}})


def test_the_table_is_wide_enough():
    assert len(KINDS) >= 40 and len(set(s for s, _c in KINDS.values())) == len(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_is_redacted_in_its_context_and_bare(kind):
    secret, context = KINDS[kind]
    r = Redactor(homes=[])
    forms = [context] + ([] if kind in CONTEXT_ONLY else [f"see {secret}, then", f"({secret}).", f"`{secret}`"])
    for text in forms:
        out = r.text(text)
        assert secret not in out and "[REDACTED:" in out, (kind, text, out)


def _export(home: Path, place: str, fmt: str, out: Path, *extra: str) -> str:
    res = CliRunner().invoke(cli, ["export", _sid(place), "--home", str(home), "--format", fmt, "-o", str(out), *extra],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    raw = "".join(p.read_text(encoding="utf-8") for p in sorted(out.parent.glob(out.stem + "*")))
    # Code views colour tokens in spans: the text a reader sees is checked too.
    return raw + "\n" + unescape(re.sub(r"<[^>]*>", "", raw)) if fmt == "html" else raw


@pytest.mark.parametrize("fmt", ["html", "md"])
@pytest.mark.parametrize("place", PLACES)
def test_no_kind_leaks_from_any_place(home, tmp_path, place, fmt):
    text = _export(home, place, fmt, tmp_path / f"x.{fmt}")
    leaks = [k for k, (s, _c) in KINDS.items() if s in text]
    assert leaks == [], f"{place} / {fmt}: {leaks}"
    assert text.count("[REDACTED:") >= len(KINDS)  # (in HTML: twice, raw and as text)


@pytest.mark.parametrize("fmt", ["html", "md"])
@pytest.mark.parametrize("place", PLACES)
def test_without_redaction_every_place_shows_every_secret(home, tmp_path, place, fmt):
    text = _export(home, place, fmt, tmp_path / f"x.{fmt}", "--no-redact")
    missing = [k for k, (s, _c) in KINDS.items() if s not in text]
    assert missing == [], f"{place} / {fmt}: the secrets never reach the output, so the test above proves nothing"
