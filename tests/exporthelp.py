"""A small synthetic session for the export tests, and checks of exported Markdown structure."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from markdown_it import MarkdownIt

from planted import SECRETS, planted_text
from util import assistant, make_home, tool_result, user

SID = "5e55a0e1-0000-4000-8000-000000000001"
AGENT = "a1b2c3d"
PROJECT = "-home-" + SECRETS["home-user"] + "-proj"
CWD = f"/home/{SECRETS['home-user']}/proj"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
# Text of each message that must be visible in the HTML export.
MARKS = ["PROMPT-MARK-1", "THINK-MARK-2", "ANSWER-MARK-3", "RESULT-MARK-4", "PROMPT-MARK-5", "FINAL-MARK-6",
         "AGENT-MARK-7"]


def _ts(n: int) -> str:
    return f"2025-06-01T10:{n:02d}:00.000Z"


def session_entries() -> list:
    secret_text = planted_text()
    kw = {"sid": SID, "cwd": CWD}
    hostile = ("Here is `</details>` and </details> <details><summary>x</summary> <script>alert(1)</script>\n"
               "<!-- comment --> <img src=https://example.com/x.png> and an open fence:\n```python\nprint('<b>')")
    return [
        user("u1", f"PROMPT-MARK-1 please look. {secret_text}", ts=_ts(0), **kw),
        assistant("a1", [{"type": "thinking", "thinking": f"THINK-MARK-2 the key is {SECRETS['github-token']}",
                          "signature": "sig"}], parent="u1", mid="m1", ts=_ts(1), **kw),
        assistant("a2", [{"type": "text", "text": f"ANSWER-MARK-3 {hostile}"}], parent="a1", mid="m1", ts=_ts(1), **kw),
        assistant("a3", [{"type": "tool_use", "id": "t1", "name": "Bash",
                          "input": {"command": f"export GITHUB_TOKEN={SECRETS['github-oauth']} && cat {CWD}/.env",
                                    "description": "read env"}}], parent="a2", mid="m2", ts=_ts(2), **kw),
        tool_result("r1", "t1", f"RESULT-MARK-4\n{secret_text}\n````\nbackticks ``````` inside",
                    parent="a3", ts=_ts(3), extra={"stdout": f"RESULT-MARK-4\n{secret_text}", "stderr": "",
                                                  "interrupted": False}, **kw),
        assistant("a4", [{"type": "tool_use", "id": "t2", "name": "Read",
                          "input": {"file_path": f"{CWD}/src/app.py"}}], parent="r1", mid="m3", ts=_ts(4), **kw),
        tool_result("r2", "t2", "     1→print('hi')  # " + SECRETS["aws-access-key-id"], parent="a4", ts=_ts(5), **kw),
        assistant("a5", [{"type": "tool_use", "id": "t3", "name": "Task",
                          "input": {"description": "explore", "prompt": f"look in {CWD}", "subagent_type": "Explore"}}],
                  parent="r2", mid="m4", ts=_ts(6), **kw),
        tool_result("r3", "t3", [{"type": "text", "text": "agent done"}], parent="a5", ts=_ts(7),
                    extra={"agentId": AGENT, "status": "completed"}, **kw),
        user("u2", [{"type": "text", "text": "PROMPT-MARK-5 see the picture"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}],
             parent="r3", ts=_ts(8), **kw),
        '{"type": "user", "broken": "' + SECRETS["slack-token"],  # malformed line holding a secret
        assistant("a6", [{"type": "text", "text": "FINAL-MARK-6 done. Deployed with " + SECRETS["stripe-key"]}],
                  parent="u2", mid="m5", ts=_ts(9), **kw),
        {"type": "ai-title", "aiTitle": "Planted secrets session", "sessionId": SID},
    ]


def agent_entries() -> list:
    kw = {"sid": SID, "cwd": CWD, "isSidechain": True, "agentId": AGENT}
    return [
        user("g1", f"look in {CWD}", ts=_ts(6), **kw),
        assistant("g2", [{"type": "text", "text": f"AGENT-MARK-7 found {SECRETS['google-api-key']} in {CWD}/cfg"}],
                  parent="g1", mid="gm1", ts=_ts(7), **kw),
    ]


def make_export_home(root: Path, extra_sessions: dict | None = None) -> Path:
    files = {f"{SID}.jsonl": session_entries(), f"{SID}/subagents/agent-{AGENT}.jsonl": agent_entries()}
    files.update(extra_sessions or {})
    home = make_home(root, {PROJECT: files})
    (root / "projects" / PROJECT / SID / "subagents" / f"agent-{AGENT}.meta.json").write_text(
        '{"agentType": "Explore", "description": "explore ' + CWD + '"}')
    return home


# --- Markdown structure ------------------------------------------------------------------------
_md = MarkdownIt("commonmark")
_CLOSER = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
_OURS_BLOCK = re.compile(r"^(<details><summary>[^<>]*</summary>|</details>|<!-- ccreport export: [^<>]* -->|<!-- end of list -->)\n?$")
_OURS_INLINE = {"<sub>", "</sub>"}


def md_problems(text: str) -> list[str]:
    """What is structurally wrong with one exported Markdown document (empty list: nothing)."""
    problems = []
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as CommonMark (and GitHub) read line ends
    lines = text.split("\n")
    depth = 0
    for t in _md.parse(text):
        if t.type == "html_block":
            if not _OURS_BLOCK.match(t.content):
                problems.append(f"foreign HTML block: {t.content[:80]!r}")
                continue
            if t.content.startswith("<!--"):
                continue
            depth += -1 if t.content.startswith("</") else 1
            if depth < 0:
                problems.append("</details> without <details>")
                depth = 0
        elif t.type == "inline" and t.children:
            for c in t.children:
                if c.type == "html_inline" and c.content not in _OURS_INLINE:
                    problems.append(f"foreign inline HTML: {c.content[:80]!r}")
        elif t.type == "fence" and t.level == 0:
            # A fence inside a quote or list ends with its container, at the latest at the blank
            # line before our next unindented structural line; a top-level one must be closed.
            s, e = t.map
            last = lines[e - 1] if e - 1 > s else ""
            m = _CLOSER.match(last)
            if not (m and m.group(1)[0] == t.markup[0] and len(m.group(1)) >= len(t.markup)):
                problems.append(f"unclosed fence opened on line {s + 1}")
    if depth:
        problems.append(f"{depth} <details> left open")
    return problems


# --- what GitHub shows (cmark-gfm, the library GitHub renders comments with) ------------------------
# Tags cmark-gfm makes from Markdown, and the raw HTML an export writes itself (details, summary, sub).
GITHUB_TAGS = {"p", "a", "code", "pre", "em", "strong", "ul", "ol", "li", "blockquote", "h1", "h2", "h3", "h4",
               "h5", "h6", "hr", "br", "img", "del", "table", "thead", "tbody", "tr", "th", "td", "input",
               "details", "summary", "sub"}


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.open_details, self.problems, self.text = [], 0, [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.open_details += tag == "details"

    def handle_endtag(self, tag):
        if tag == "details":
            self.open_details -= 1
            if self.open_details < 0:
                self.problems.append("</details> closes nothing")

    def handle_data(self, data):
        self.text.append(data)


def github_view(md: str) -> tuple[str, list[str]]:
    """(the text GitHub shows for ``md``, what is wrong with it): cmark-gfm renders the comment (raw HTML
    let through, as GitHub's renderer does before its sanitiser keeps details/summary/sub); the HTML
    must hold only Markdown's tags and ours, balanced folds, and no terminal escapes."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    out = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    p = _Tags()
    p.feed(out)
    p.close()
    problems = list(p.problems) + [f"unexpected <{t}>" for t in sorted(set(p.tags) - GITHUB_TAGS)]
    if p.open_details:
        problems.append(f"{p.open_details} <details> left open")
    text = "".join(p.text)
    if "\x1b" in out:
        problems.append("terminal escape shown: " + repr(re.search("\x1b.{0,8}", out)[0]))
    return text, problems
