"""Issue 29, point 3: every kind of the secret table (tests/secret_kinds.py, ≥ 80 kinds) planted in
every place of a session — the prompt, a tool input, a tool result, a ``toolUseResult``, a thinking
block, the answer (tests/planted.py: one session per place, one turn per kind) — and exported as
the single-file HTML, as Markdown parts and as ``--summary``: no secret survives, nor any
distinctive 8-character piece of one (a piece every secret of its kind shares, such as
``sk-ant-api03-``, is format, not secret). The same exports with ``--no-redact`` show every secret
in every place the format shows, so the places do reach the output."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import cmarkgfm
import pytest
from click.testing import CliRunner

from ccreport.cli import cli
from planted import PLACES, place_session
from secret_kinds import CONTEXT_ONLY, KINDS, fragments
from util import make_home

FORMATS = {"html": ("--format", "html"), "md": ("--format", "md"), "summary": ("--format", "md", "--summary")}
# A summary keeps each prompt, a line per tool call (the command and its description) and each
# turn's final answer; thinking, tool output and toolUseResult are left out.
SUMMARY_SHOWS = {"prompt", "tool-input", "answer"}


def _text(kind: str) -> str:
    secret, context = KINDS[kind]
    return context if kind in CONTEXT_ONLY else f"{context} (and pasted bare: {secret})."


def _sid(place: str) -> str:
    return f"5ec7e7{PLACES.index(place):02d}-1111-4000-8000-000000000000"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    texts = [_text(k) for k in KINDS]
    files = {f"{_sid(p)}.jsonl": place_session(p, _sid(p), texts) for p in PLACES}
    return make_home(tmp_path_factory.mktemp("places") / "home", {"-srv-proj": files})


def _visible(raw: str, fmt: str) -> str:
    """What a reader sees: the HTML's text, or the Markdown as GitHub renders it and with its
    backslash escapes undone (an autolink keeps them in its text)."""
    if fmt == "html":
        return unescape(re.sub(r"<[^>]*>", "", raw))
    html = cmarkgfm.github_flavored_markdown_to_html(raw)
    return unescape(re.sub(r"<[^>]*>", "", html)) + "\n" + re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", raw)


def _export(home: Path, place: str, fmt: str, out: Path, *extra: str) -> str:
    res = CliRunner().invoke(cli, ["export", _sid(place), "--home", str(home), *FORMATS[fmt], "-o", str(out), *extra],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    files = sorted(out.parent.glob(out.stem + "*"))
    assert files
    return "\n".join(t + "\n" + _visible(t, fmt) for t in (p.read_text(encoding="utf-8") for p in files))


def _survivors(text: str) -> dict:
    grams = {text[i:i + 8] for i in range(len(text) - 7)}
    return {k: sorted(fragments(k) & grams)[:3] for k in KINDS if fragments(k) & grams}


def test_the_table_has_80_kinds_each_with_distinctive_pieces():
    assert len(KINDS) >= 80
    assert len({s for s, _c in KINDS.values()}) == len(KINDS)
    # at least half of each secret's pieces are its own (not its format's)
    assert [k for k, (s, _c) in KINDS.items() if len(fragments(k)) < (len(s) - 7) / 2] == []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("place", PLACES)
def test_no_secret_nor_piece_of_one_survives(home, tmp_path, place, fmt):
    text = _export(home, place, fmt, tmp_path / f"x.{'html' if fmt == 'html' else 'md'}")
    assert _survivors(text) == {}, f"{place} / {fmt}"
    if fmt != "summary" or place in SUMMARY_SHOWS:
        assert text.count("[REDACTED:") >= len(KINDS)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("place", PLACES)
def test_without_redaction_every_place_shows_every_secret(home, tmp_path, place, fmt):
    if fmt == "summary" and place not in SUMMARY_SHOWS:
        pytest.skip(f"a summary does not show the {place}")
    text = _export(home, place, fmt, tmp_path / f"x.{'html' if fmt == 'html' else 'md'}", "--no-redact")
    missing = [k for k, (s, _c) in KINDS.items() if s not in text]
    assert missing == [], f"{place} / {fmt}: these never reach the output, so the test above proves nothing for them"


def test_every_bare_rule_has_a_kind_of_the_table():
    """Each rule of share/bare_rules.json reports at least one kind of the table (planted in its
    context, and bare where it is not secret by context alone) under its own name."""
    from ccreport.share.bare_rules import bare_rules
    from ccreport.share.redact import Redactor

    r = Redactor(homes=[])
    for kind, (secret, context) in KINDS.items():
        r.text(context)
        if kind not in CONTEXT_ONLY:
            r.text(f"({secret})")
    assert sorted({k for k, _p, _w, _e in bare_rules()} - set(r.counts)) == []


@pytest.mark.parametrize("text", [
    "mysql -u root -p -h db.internal shop",  # -p then a flag: mysql asks for the password
    "brew install mysql && mkdir -p /tmp/data; sshpass -V | grep -p x",  # another command's -p
    "curl -s https://x.test/a | docker run -u 1000:1000 img",  # another command's -u uid:gid
    "psql --no-password -h db shop",
    "mysql -u root --password=$DB_PASS shop",
    "sshpass -p \"${SSH_PW}\" ssh host",
    "usage: tool --password PASSWORD",
    "echo \"$TOKEN\" | docker login -u me --password-stdin ghcr.io",
    "self.total_input_tokens = sum(p.get('input_tokens', 0) for p in projects)",
    "input_tokens=usage.input_tokens, show_tokens=show_tokens",
    "tokenizer = await load(model)",
    "MyVeryLongComponentNameHere.render.someOtherVeryLongFunctionNameXyz",
    "key-00000000000000000000000000000000 and the AC/DC tour",
])
def test_what_only_looks_like_a_password_stays(text):
    from ccreport.share.redact import Redactor

    assert Redactor(homes=[]).text(text) == text


def test_every_rule_compiles():
    """Rules are compiled when first woken (share/secrets.Rule.pat): each must compile, on RE2 all
    but the ones that need look-arounds."""
    import re2

    from ccreport.share import secrets

    rules = secrets.ruleset().rules
    assert len(rules) >= 217 + 46 and all(r.pat is not None for r in rules)
    assert sorted({r.kind for r in rules if r.engine is not re2}) == ["email"]
