"""`ccreport export` (HTML and Markdown), redaction, Markdown parts, and `ccreport list`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccreport.cli import cli
from ccreport.share.export import ExportOptions
from ccreport.share.parts import PART_MARKER, Block, Code, Packer, Prose, Raw
from ccreport.share.run import run_export
from ccreport.share.redact import Redactor
from exporthelp import AGENT, CWD, MARKS, PROJECT, SID, make_export_home, md_problems
from planted import SECRETS, planted_text
from util import assistant, tool_result, user
from util import TESTS

GOLDEN = TESTS / "golden" / "export"


@pytest.fixture
def home(tmp_path):
    return make_export_home(tmp_path / "home")


def _run(args, **kw):
    return CliRunner().invoke(cli, args, catch_exceptions=False, **kw)


def _leaks(text: str) -> list[str]:
    return [k for k, v in SECRETS.items() if v in text]


# --- redaction ----------------------------------------------------------------------------------
def test_each_planted_secret_is_replaced_by_its_kind():
    r = Redactor(homes=[])
    out = r.text(planted_text())
    assert _leaks(out) == []
    for kind in ("anthropic-key", "openai-key", "aws-access-key-id", "aws-secret-key", "github-token", "slack-token",
                 "stripe-key", "google-api-key", "jwt", "private-key", "url-password", "connection-string-password",
                 "secret-assignment"):
        assert f"[REDACTED:{kind}]" in out, kind
    assert "~/project/src/app.py" in out and "~\\y" in out
    assert r.counts["github-token"] == 4 and r.counts["home-path"] == 3


def test_redaction_keeps_ordinary_text_and_base64_payloads():
    r = Redactor(homes=[])
    plain = "MAX_TOKENS=4096 input_tokens: 10; see https://example.com/a?b=c and task-identifier-with-words"
    assert r.text(plain) == plain
    entry = {"message": {"content": [{"type": "image", "source": {"type": "base64", "data": "AKIA" + "A" * 16}}]},
             "cwd": "/Users/someone/x"}
    out = r.value(entry)
    assert out["message"]["content"][0]["source"]["data"] == "AKIA" + "A" * 16
    assert out["cwd"] == "~/x"


def test_current_home_and_custom_patterns():
    r = Redactor(patterns=[r"PROJ-\d+"], homes=["/srv/people/zed"])
    assert r.text("/srv/people/zed/code PROJ-123 /srv/people/zedd") == "~/code [REDACTED:custom] /srv/people/zedd"
    assert r.summary().startswith("redacted: 1 custom, 1 home-path")


# --- both formats: nothing planted gets out -----------------------------------------------------
@pytest.mark.parametrize("fmt", ["html", "md"])
def test_no_secret_or_home_path_in_export(home, tmp_path, fmt):
    out = tmp_path / f"x.{fmt}"
    res = _run(["export", SID[:8], "--home", str(home), "--format", fmt, "-o", str(out)])
    assert res.exit_code == 0, res.output
    texts = [p.read_text() for p in tmp_path.glob("x*")]
    assert texts
    for t in texts:
        assert _leaks(t) == [], fmt
        assert "/home/" not in t and "/Users/" not in t
    body = "".join(texts)
    for mark in MARKS:
        assert mark in body, mark
    # A summary of what was redacted goes to stderr.
    assert "redacted:" in res.stderr and "github-token" in res.stderr and "home-path" in res.stderr


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_no_redact_shows_the_planted_text(home, tmp_path, fmt):
    # Proves the planted secrets reach the output unless redaction removes them.
    out = tmp_path / f"x.{fmt}"
    res = _run(["export", SID, "--home", str(home), "--format", fmt, "-o", str(out), "--no-redact"])
    assert res.exit_code == 0
    text = out.read_text()
    assert SECRETS["github-oauth"] in text and SECRETS["home-user"] in text
    assert "redaction is off" in res.stderr


def test_agents_link_writes_files_and_none_leaves_them_out(home, tmp_path):
    out = tmp_path / "s.md"
    res = _run(["export", SID, "--home", str(home), "-o", str(out), "--agents", "link"])
    assert res.exit_code == 0, res.stderr
    agent = tmp_path / f"s.agent-{AGENT}.md"
    assert agent.is_file() and "AGENT-MARK-7" in agent.read_text()
    assert f"](s.agent-{AGENT}.md)" in out.read_text() and "AGENT-MARK-7" not in out.read_text()
    assert _leaks(agent.read_text()) == []
    html = tmp_path / "s.html"
    assert _run(["export", SID, "--home", str(home), "-o", str(html), "--agents", "link"]).exit_code == 0
    assert (tmp_path / f"s.agent-{AGENT}.html").is_file()
    assert f'href="s.agent-{AGENT}.html"' in html.read_text()
    res = _run(["export", SID, "--home", str(home), "--format", "md", "--agents", "none"])
    assert "AGENT-MARK-7" not in res.stdout and "FINAL-MARK-6" in res.stdout


def test_no_thinking_no_tools(home):
    res = _run(["export", SID, "--home", str(home), "--format", "md", "--no-thinking", "--no-tools"])
    assert res.exit_code == 0
    assert "THINK-MARK-2" not in res.stdout and "RESULT-MARK-4" not in res.stdout
    assert "ANSWER-MARK-3" in res.stdout and "FINAL-MARK-6" in res.stdout
    assert md_problems(res.stdout) == []


# --- Markdown: parts and structure ---------------------------------------------------------------
def _big_session(n: int = 12) -> list:
    hostile = "</details>\n<details><summary>x</summary>\n<script>alert(1)</script>\n```\nunclosed fence"
    out, prev = [], None
    for i in range(n):
        out.append(user(f"u{i}", f"prompt {i} ünïcödé 🙂 {hostile}" + " words" * (i * 40), parent=prev, sid=SID,
                        ts=f"2025-06-01T10:{i % 60:02d}:00.000Z"))
        out.append(assistant(f"a{i}", [{"type": "text", "text": f"answer {i}\n\n```py\n" + "x = '<b>'\n" * (i * 30)},
                                       {"type": "tool_use", "id": f"t{i}", "name": "Bash",
                                        "input": {"command": "echo " + "`" * 7 + " </details>"}}],
                             parent=f"u{i}", sid=SID, mid=f"m{i}", ts=f"2025-06-01T10:{i % 60:02d}:01.000Z"))
        body = ("line with ``` fences ```` and </details> and 🙂 " * 3 + "\n") * (i * 20) + "é" * (i * 500)
        out.append(tool_result(f"r{i}", f"t{i}", body, parent=f"a{i}", sid=SID))
        prev = f"r{i}"
    return out


@pytest.mark.parametrize("limit", [2_000, 7_919, 65_000])
def test_parts_never_exceed_the_limit_and_each_is_balanced(tmp_path, limit):
    from util import make_home

    home = make_home(tmp_path / "h", {"-p": {f"{SID}.jsonl": _big_session()}})
    out = tmp_path / "big.md"
    res = _run(["export", SID, "--home", str(home), "-o", str(out), "--max-chars", str(limit)])
    assert res.exit_code == 0, res.stderr
    parts = sorted(tmp_path.glob("big.part*.md"), key=lambda p: int(re.search(r"part(\d+)", p.name).group(1)))
    assert len(parts) > 1 and not out.exists()
    if limit == 2_000:  # a later, shorter export to the same FILE leaves no stale parts behind
        assert _run(["export", SID, "--home", str(home), "-o", str(out), "--max-chars", "4000"]).exit_code == 0
        again = list(tmp_path.glob("big.part*.md"))
        assert 1 < len(again) < len(parts)
        parts = sorted(again, key=lambda p: int(re.search(r"part(\d+)", p.name).group(1)))
        limit = 4_000
    joined = ""
    for p in parts:
        text = p.read_text(encoding="utf-8")  # valid UTF-8: no code point was cut
        assert len(text) <= limit, (p.name, len(text))
        assert md_problems(text) == [], p.name
        joined += text
    for i in range(12):
        assert f"prompt {i} ünïcödé" in joined and f"answer {i}" in joined


def test_stdout_parts_are_separated_by_a_marker(tmp_path):
    from util import make_home

    home = make_home(tmp_path / "h", {"-p": {f"{SID}.jsonl": _big_session(6)}})
    res = _run(["export", SID, "--home", str(home), "--format", "md", "--max-chars", "5000"])
    assert res.exit_code == 0
    parts = res.stdout.split("\n" + PART_MARKER + "\n\n")
    assert len(parts) > 2
    n = len(parts)
    for i, p in enumerate(parts, 1):
        assert len(p) <= 5000 and md_problems(p) == []
        assert f"part {i} of {n} -->" in p
        assert (f"*Part {i} of {n}, continued from part {i - 1}.*" in p) == (i > 1)
        assert (f"*Continued in part {i + 1} of {n}.*" in p) == (i < n)
    assert f"{len(parts)} Markdown parts" in res.stderr


_text = st.lists(st.sampled_from(list("ab <>/`~\n\r#*-é🙂&!\t") + ["</details>", "<details>", "```", "````", "\n\n",
                                                             "<summary>", "<!--", "    ", "> ", "- "]),
                 max_size=120).map("".join)


@settings(max_examples=int(os.environ.get("EXPORT_FUZZ_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.tuples(_text, st.booleans(), st.booleans()), min_size=1, max_size=8),
       limit=st.integers(min_value=700, max_value=3000))
def test_packer_keeps_any_content_balanced_and_within_limit(texts, limit):
    parts = []
    # The longest part lines there can be (the number of parts is known only at the end).
    p = Packer(limit, lambda no, text, last=False: parts.append(p.header(999, 999) + text + p.footer(998, 999)), SID)
    for text, folded, as_code in texts:
        item = Code(text * 5) if as_code else Prose(text * 5, quoted=not folded)
        p.add(Block([Raw("**x:**\n\n"), item], "summary <b> & " + text[:30] if folded else None))
    p.finish()
    for part in parts:
        assert len(part) <= limit
        assert md_problems(part) == [], part


def _message_lines(path: Path) -> list[int]:
    from ccreport.source.jsonl import read_entries
    from ccreport.model.messages import Builder

    b = Builder()
    for e in read_entries(path):
        b.feed(e)
    return [m.line for m in b.out]


def test_blocks_cannot_reach_into_each_other():
    # A list at the end of one block must not take the next block's indented lines into its item
    # (where "    <details>" would be HTML instead of code).
    parts = []
    p = Packer(10_000, lambda no, text, last=False: parts.append(text), SID)
    p.add(Block([Prose("- item one\n- item two")]))
    p.add(Block([Prose("    <details>\n    hidden\n\nafter")]))
    p.add(Block([Prose("1. x\n\n   ```\n   open fence in a list")], "fold"))
    p.add(Block([Prose("    </details>")]))
    p.finish()
    assert len(parts) == 1 and md_problems(parts[0]) == []


# --- HTML in a browser -------------------------------------------------------------------------------
@pytest.mark.browser
def test_html_export_loads_offline_and_shows_every_message(home, tmp_path, browser):
    out = tmp_path / "s.html"
    assert _run(["export", SID, "--home", str(home), "-o", str(out)]).exit_code == 0
    url = out.resolve().as_uri()
    page = browser.new_page()
    blocked, errors = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(url)
    assert blocked == [] and errors == []
    text = page.inner_text("body")
    for mark in MARKS[:2] + MARKS[3:]:  # thinking (THINK-MARK-2) sits in a closed fold
        assert mark in page.content()
    assert "PROMPT-MARK-1" in text and "FINAL-MARK-6" in text and "AGENT-MARK-7" in text
    # Every message of both transcripts (as the site's model groups them) is an element of the page.
    expected = [f"L{n}" for n in _message_lines(home / "projects" / PROJECT / f"{SID}.jsonl")]
    expected += [f"A1-L{n}" for n in _message_lines(home / "projects" / PROJECT / SID / "subagents" / f"agent-{AGENT}.jsonl")]
    assert len(expected) == 11
    present = page.evaluate("ids => ids.filter(i => document.getElementById(i) && document.getElementById(i).classList.contains('msg'))", expected)
    assert present == expected
    # The inline image loaded from its data: URL; the inline script ran under the CSP (times localised).
    assert page.evaluate("() => [...document.images].every(i => i.complete && i.naturalWidth > 0)")
    assert page.locator("time[data-local]").count() > 0
    # Folded blocks open like on the site; the agent link jumps inside the file.
    page.locator("details.tool[data-tool=Bash] > summary").click()
    assert "RESULT-MARK-4" in page.inner_text("details.tool[data-tool=Bash]")
    assert page.locator(f'a[href="#agent-{AGENT}"]').count() >= 1
    page.close()


def test_html_is_self_contained(home, tmp_path):
    out = tmp_path / "s.html"
    assert _run(["export", SID, "--home", str(home), "-o", str(out)]).exit_code == 0
    html = out.read_text()
    assert "default-src 'none'" in html and "'unsafe-inline'" not in html
    assert not re.search(r'<(script|link|img|iframe)\b[^>]*\b(src|href)="(?!data:|#)', html)
    assert 'src="data:image/png;base64,' in html
    assert len(re.findall(r"<script>", html)) == 1 and len(re.findall(r"<style>", html)) == 1
    # Agent sections get their own anchor prefix, so #L<n> of the main transcript stays unique.
    main, _, agent = html.partition('<section class="agent-transcript"')
    main_ids = set(re.findall(r'\bid="([^"]+)"', main))
    agent_ids = set(re.findall(r'\bid="([^"]+)"', agent))
    assert "A1-L1" in agent_ids and "L1" in main_ids and not (main_ids & agent_ids)


# --- golden outputs ------------------------------------------------------------------------------------
def _golden(name: str, actual: str):
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.is_file(), f"missing {path}: run with UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8"), f"{name} changed; if intended, rerun with UPDATE_GOLDEN=1"


def test_golden_markdown(home):
    res = _run(["export", SID, "--home", str(home), "--format", "md"], env={"HOME": "/nonexistent-home"})
    _golden("small.md", res.stdout)


def test_golden_html_body(home, tmp_path):
    out = tmp_path / "s.html"
    _run(["export", SID, "--home", str(home), "-o", str(out)], env={"HOME": "/nonexistent-home"})
    html = out.read_text()
    # The <main> part only: the inlined stylesheet and script change with the site's assets.
    main = html[html.index("<main"): html.index("</main>") + 7]
    _golden("small.html", main + "\n")


# --- CLI ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec,msg", [("../etc", "not a valid session id"), ("zzzz", "no session zzzz"),
                                      ("/tmp/elsewhere.jsonl", "no transcript at")])
def test_export_rejects_bad_sessions_with_one_line(home, spec, msg):
    res = _run(["export", spec, "--home", str(home)])
    assert res.exit_code != 0
    assert msg in res.stderr and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_export_ambiguous_prefix_and_bad_options(home, tmp_path):
    other = "5e55a0e1-0000-4000-8000-000000000002"
    make_export_home(home, {f"{other}.jsonl": [user("x", "hi", sid=other)]})
    res = _run(["export", "5e55", "--home", str(home)])
    assert res.exit_code != 0 and "ambiguous" in res.stderr
    res = _run(["export", SID, "--home", str(home), "--format", "md", "--agents", "link"])
    assert res.exit_code != 0 and "-o FILE" in res.stderr
    res = _run(["export", SID, "--home", str(home), "--redact-pattern", "(unclosed"])
    assert res.exit_code != 0 and "invalid --redact-pattern" in res.stderr
    res = _run(["export", SID, "--home", str(home), "--redact-pattern", "x*"])
    assert res.exit_code != 0 and "matches the empty string" in res.stderr
    res = _run(["export", SID, "--home", str(tmp_path / "nohome")])
    assert res.exit_code != 0 and "not found" in res.stderr


def test_unwritable_output_is_one_line(home, tmp_path):
    res = _run(["export", SID, "--home", str(home), "-o", str(tmp_path / "no" / "such" / "dir" / "x.html")])
    assert res.exit_code == 2 and res.stderr.startswith("ccreport: cannot write") and res.stderr.count("\n") == 1


def test_export_by_path_latest_and_default_names(home, tmp_path, monkeypatch):
    path = home / "projects" / PROJECT / f"{SID}.jsonl"
    res = _run(["export", str(path), "--home", str(home), "--format", "md", "-o", "-"])
    assert res.exit_code == 0 and "FINAL-MARK-6" in res.stdout
    notes = run_export(home, "latest", str(tmp_path / "l.md"), ExportOptions(format="md"))
    assert (tmp_path / "l.md").is_file() and any("redacted:" in n for n in notes)
    # 'latest' is the newest session by last activity (what its lines say, not the file mtime), wherever
    # ccreport runs; a newer session without conversation (only a title) is skipped.
    from util import make_home

    other, empty = "0ther000-0000-4000-8000-000000000009", "e0000000-0000-4000-8000-00000000000e"
    make_home(home, {"-srv-elsewhere": {
        f"{other}.jsonl": [user("x", "OTHER-PROJECT", sid=other, cwd="/srv/elsewhere", ts="2030-01-01T00:00:00.000Z")],
        f"{empty}.jsonl": [{"type": "ai-title", "aiTitle": "nothing", "sessionId": empty,
                            "timestamp": "2031-01-01T00:00:00.000Z"}]}})
    older = (home / "projects" / PROJECT / f"{SID}.jsonl").stat().st_mtime - 1000
    os.utime(home / "projects" / "-srv-elsewhere" / f"{other}.jsonl", (older, older))
    monkeypatch.chdir(tmp_path)
    run_export(home, "latest", str(tmp_path / "else.md"), ExportOptions(format="md", agents="none"))
    assert "OTHER-PROJECT" in (tmp_path / "else.md").read_text()
    from ccreport.inspect.listing import list_rows

    assert [r for r in list_rows(home) if not r.empty][0].id == other  # the first row `ccreport list` shows
    res = _run(["export", SID, "--home", str(home), "-o", "-"])
    assert res.exit_code == 0 and res.stdout.startswith("<!doctype html>") and "FINAL-MARK-6" in res.stdout
    monkeypatch.chdir(tmp_path)
    res = _run(["export", SID[:6], "--home", str(home)])
    assert res.exit_code == 0 and (tmp_path / f"{SID}.html").is_file()
    res = _run(["export", SID, "--home", str(home), "-o", "named.md"])
    assert res.exit_code == 0 and (tmp_path / "named.md").read_text().startswith("# Planted secrets session")


def test_list_table_json_and_filter(home):
    other = "0ther000-0000-4000-8000-000000000009"
    make_export_home(home, {})
    from util import make_home

    make_home(home, {"-srv-elsewhere": {f"{other}.jsonl": [
        user("x", "first prompt here", sid=other, cwd="/srv/elsewhere", ts="2026-01-01T00:00:00.000Z"),
        assistant("y", [{"type": "text", "text": "ok"}], sid=other, cwd="/srv/elsewhere", ts="2026-01-01T00:00:05.000Z"),
        {"type": "custom-title", "customTitle": "Named by me", "sessionId": other}]}})
    res = _run(["list", "--home", str(home), "--json"])
    assert res.exit_code == 0
    rows = json.loads(res.stdout)
    assert [r["id"] for r in rows] == [other, SID]  # newest first (by the last timestamp)
    # messages as the site counts them: the prompt, the answer and the title line's note
    assert rows[0]["title"] == "Named by me" and rows[0]["messages"] == 3 and rows[0]["project"] == "/srv/elsewhere"
    assert rows[0]["last_activity"] == "2026-01-01T00:00:05Z"
    assert rows[1]["title"] == "Planted secrets session" and rows[1]["agents"] == 1
    # the site's messages: 9 in the main transcript (replies merged, results with their calls) + 2 of the agent
    assert rows[1]["messages"] == 11
    assert rows[1]["size"] == sum(p.stat().st_size for p in (home / "projects" / PROJECT).rglob("*.jsonl"))
    res = _run(["list", "--home", str(home), "--project", "ELSEWHERE"])
    assert res.exit_code == 0 and other in res.stdout and SID not in res.stdout
    assert res.stdout.splitlines()[0].split()[:3] == ["ID", "PROJECT", "TITLE"]
    res = _run(["list", "--home", str(home / "missing")])
    assert res.exit_code != 0 and res.stderr.count("\n") == 1


# --- the real corpus --------------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_corpus_session_exports_valid_parts(corpus_home, tmp_path):
    from ccreport.source.home import discover

    sessions = list(discover(corpus_home).sessions())
    for s in sessions:
        out = tmp_path / f"{s.id}.md"
        notes = run_export(corpus_home, s.id, str(out), ExportOptions(format="md"))
        assert any(n.startswith("redact") for n in notes)
    parts = list(tmp_path.glob("*.md"))
    assert len(parts) >= len(sessions)
    for p in parts:
        text = p.read_text(encoding="utf-8")
        assert len(text) <= 65_000 and md_problems(text) == [], p.name
        assert "/Users/" not in text
    biggest = max(sessions, key=lambda s: s.size)
    html = tmp_path / "big.html"
    assert _run(["export", biggest.id, "--home", str(corpus_home), "-o", str(html)]).exit_code == 0
    assert "/Users/" not in html.read_text()


def test_markdown_export_learns_each_transcripts_accounts_once(home, tmp_path, monkeypatch):
    """The Markdown header's title pass and the rendering pass read the same file: the redactor
    learns its account values once, in the first of them."""
    import ccreport.share.export as export
    learned: list[str] = []
    real = export.learn_accounts

    def counting(redactor, t):  # the transcript (read from the archive when the home lost it)
        learned.append(t.path.name)
        real(redactor, t)

    monkeypatch.setattr(export, "learn_accounts", counting)
    run_export(home, SID, str(tmp_path / "once.md"), ExportOptions(format="md"))
    assert learned and len(learned) == len(set(learned))
