"""Nothing is lost: every user text, assistant text, non-empty thinking, tool call and tool result of
every transcript shows up in the text of its own session's pages (folded <details> count as shown).

The check is per session folder, not the whole site, so a piece shown on the wrong session's page
does not count. A piece is "shown" when the first words of its text appear, in order, in the
session's visible text (tool calls and results: the words of their first line, since tool views lay
them out by lines). What the renderer turns into structure is taken out of the expected words
first: the tags Claude Code wraps around injected text (their *contents* must show), web-link
targets and list numbers in markdown, ANSI escapes, the line-number gutter of Read results and the
"Found N files" line of Grep/Glob results (stated as "N files").
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

from ccreport.source.home import discover
from util import SAMPLE_HOME

WORDS = re.compile(r"[^\W_]+")
PHRASE = 8  # words per probe
# The tags Claude Code wraps around text it injects (docs/formats.md F3): the page shows their contents.
TAG = re.compile(r"</?(?:command-name|command-args|local-command-stdout|local-command-stderr|local-command-caveat|"
                 r"bash-input|bash-stdout|bash-stderr|system-reminder|task-notification|task-id|tool-use-id|"
                 r"output-file|status|summary|tool_use_error|user-memory-input|ide_[a-z_]+)>")
# markdown links: only web/mail links become links (their target is an attribute, not text)
MD_LINK_TARGET = re.compile(r"\]\((?:https?:|mailto:)[^)\s]*\)", re.I)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\\\)")
# Grep/Glob results start with a count line that the file-list view states as "N files".
FOUND = re.compile(r"\A(?:Found (\d+) files?|No (?:files|matches) found)\s*$", re.M)
LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s", re.M)
# <command-message> repeats the command's name (shown once) or says it is running.
COMMAND_MESSAGE = re.compile(r"<command-message>.*?</command-message>", re.S)
# Read results number their lines ("    12→text"); the page shows the file with its own gutter.
READ_GUTTER = re.compile(r"^ *\d+(?:→|\t)", re.M)
INLINE_TAG = re.compile(r"</?(?:span|a|em|strong|b|i|u|s|del|ins|code|kbd|mark|sub|sup|small|abbr|time)\b[^>]*>", re.I)


def pieces(obj: dict):
    """(kind, text) of every piece a reader must be able to see in one entry."""
    t, msg = obj.get("type"), obj.get("message")
    if t not in ("user", "assistant") or not isinstance(msg, dict):
        return
    c = msg.get("content")
    if isinstance(c, str):
        yield f"{t} text", c
        return
    for b in c if isinstance(c, list) else []:
        if not isinstance(b, dict):
            continue
        bt = b.get("type")
        if bt == "text" and isinstance(b.get("text"), str):
            yield f"{t} text", b["text"]
        elif bt == "thinking" and (b.get("thinking") or "").strip():
            yield "thinking", b["thinking"]
        elif bt == "tool_use":
            yield "tool call", str(b.get("name") or "")
            inp = b.get("input")
            if isinstance(inp, dict):
                for v in inp.values():
                    if isinstance(v, str) and v.strip():
                        yield "tool call", v
        elif bt == "tool_result":
            rc = b.get("content")
            if isinstance(rc, list):
                for x in rc:
                    if isinstance(x, dict) and x.get("type") == "text" and isinstance(x.get("text"), str):
                        yield "tool result", x["text"]
            elif isinstance(rc, str):
                yield "tool result", rc


def expected_words(kind: str, text: str) -> list[str]:
    text = text[:2000]
    text = COMMAND_MESSAGE.sub(" ", text)
    if kind in ("assistant text", "thinking"):  # rendered as markdown
        text = MD_LINK_TARGET.sub("] ", text)
        text = LIST_NUMBER.sub(" ", text)
    text = ANSI.sub("", text)  # colours become classes
    if kind == "tool result":
        text = READ_GUTTER.sub("", text)
        text = FOUND.sub(lambda m: f"{m.group(1) or 0} file" + ("" if m.group(1) == "1" else "s"), text, count=1)
    text = TAG.sub(" ", text)
    if kind.startswith("tool"):
        # Tool views lay their input and output out by lines (a diff interleaves old and new lines,
        # file lists become rows): the probe is the first line that has words.
        line = next((ln for ln in text.splitlines() if WORDS.search(ln)), "")
        return WORDS.findall(line)[:PHRASE]
    return WORDS.findall(text)[:PHRASE]


def visible_words(folder: Path) -> str:
    parts = []
    for page in sorted(folder.rglob("*.html")):
        s = page.read_text(encoding="utf-8")
        s = re.sub(r"<(script|style)\b.*?</\1>", " ", s, flags=re.S | re.I)
        s = INLINE_TAG.sub("", s)  # inline markup (highlighting spans, links) never splits a word
        s = re.sub(r"<[^>]+>", " ", s)  # block boundaries separate words
        # The folded source of a convention shows the tags themselves: take them out on this side
        # too, so both sides compare the same words.
        parts.append(" ".join(WORDS.findall(TAG.sub(" ", unescape(s)))))
    return " " + " ".join(parts) + " "


def check(home: Path, site: Path) -> tuple[dict, dict, list[str]]:
    found: dict[str, int] = {}
    total: dict[str, int] = {}
    misses: list[str] = []
    for s in discover(home).sessions():
        hay = visible_words(site / "p" / s.project.dir_name / s.id)
        for t in s.transcripts:
            with open(t.path, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(obj, dict):
                        continue
                    for kind, text in pieces(obj):
                        words = expected_words(kind, text)
                        if not words:
                            continue
                        total[kind] = total.get(kind, 0) + 1
                        if f" {' '.join(words)} " in hay:
                            found[kind] = found.get(kind, 0) + 1
                        else:
                            misses.append(f"{t.path.relative_to(home)}:{n} {kind}: {' '.join(words)!r}")
    return found, total, misses


def _report(found, total):
    return ", ".join(f"{k} {found.get(k, 0)}/{v}" for k, v in sorted(total.items()))


def test_every_piece_of_the_corpus_is_visible(corpus_home, corpus_site):
    out, res = corpus_site
    found, total, misses = check(corpus_home, out)
    assert misses == [], f"{_report(found, total)}\n" + "\n".join(misses[:20])
    assert set(total) == {"user text", "assistant text", "thinking", "tool call", "tool result"}
    assert sum(total.values()) > 2000


def test_every_piece_of_the_sample_home_is_visible(sample_site):
    out, _ = sample_site
    found, total, misses = check(SAMPLE_HOME, out)
    assert misses == [], f"{_report(found, total)}\n" + "\n".join(misses[:20])
    assert total["thinking"] >= 3 and total["tool call"] >= 20 and total["tool result"] >= 15


def test_the_check_notices_a_missing_piece(tmp_path, build_site):
    from util import assistant, make_home, user

    home = make_home(tmp_path / "h", {"-p": {"s1.jsonl": [
        user("u1", "Please rename the frobnicator module to widget factory now"),
        assistant("a1", [{"type": "text", "text": "Renamed the frobnicator module as you asked today"}]),
    ]}})
    out = tmp_path / "site"
    build_site(home, out)
    found, total, misses = check(home, out)
    assert misses == [] and sum(found.values()) == 2
    for page in (out / "p/-p/s1/page-0001.html", out / "p/-p/s1/index.html"):  # (the outline shows the answer too)
        page.write_text(page.read_text().replace("frobnicator module as", "frob module as"))
    _, _, misses = check(home, out)
    assert len(misses) == 1 and "assistant text" in misses[0]
