"""Random lines and transcripts through reader → model → pages → render: no exception, no lost line.

Strategies make JSONL lines of every shape a transcript can (and cannot) have: the known entry
types with random envelopes, content as string/list/dict/number, every block type plus unknown
ones, missing and wrong-typed fields, deep nesting, huge numbers, surrogates, NUL, raw bytes that
are not JSON or not UTF-8. Every input line must come back as an id="L<n>" anchor.
Runs ≥ 10,000 examples in all (FUZZ_SCALE=0.1 for a quick local run).
"""

from __future__ import annotations

import io
import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faults import shown_lines

SCALE = float(os.environ.get("FUZZ_SCALE", "1"))
pytestmark = pytest.mark.slow


def _n(k: int) -> int:
    return max(10, int(k * SCALE))


FUZZ = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))

# --- strategies -------------------------------------------------------------------------------
weird_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec=None, categories=None), max_size=20),  # incl. surrogates, NUL
    st.sampled_from(["", " ", "\x00", "\ud800", "\udfff x", "<script>alert(1)</script>", "</details>", "```", "\x1b[31mred",
                     "<command-name>/x</command-name>", "<system-reminder>r</system-reminder>", "<bash-input>ls",
                     "[Request interrupted by user]", "<task-notification><status>done", "\u202e\ufeff", "a\r\nb",
                     "mcp__a__b", "Task", "Bash", "Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "TodoWrite",
                     "Agent", "WebFetch", "2025-06-01T10:00:00Z", "not a date", "x" * 7000, "line\n" * 60]),
)
scalar = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**80), max_value=2**80),
                   st.floats(allow_nan=False, allow_infinity=False), weird_text)
json_any = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(weird_text, inner, max_size=4)), max_leaves=12)

BLOCK_TYPES = ["text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document", "tool_reference",
               "server_tool_use", "web_search_tool_result", "unknown-block"]
ENTRY_TYPES = ["user", "assistant", "system", "progress", "attachment", "summary", "custom-title", "ai-title",
               "file-history-snapshot", "queue-operation", "last-prompt", "permission-mode", "agent-name", "pr-link",
               "teleported-from", "unknown-type", "message"]
SYSTEM_SUBTYPES = ["compact_boundary", "microcompact_boundary", "turn_duration", "api_error", "local_command",
                   "stop_hook_summary", "informational", None]
TOOL_NAMES = ["Bash", "PowerShell", "Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "LS", "TodoWrite", "Task",
              "Agent", "mcp__srv__tool", "WebFetch", "?"]
IDS = st.sampled_from(["t1", "t2", "t3", "toolu_x"]) | weird_text | st.integers()


def _typed(types, fields):
    """{"type": one of types, …any subset of fields} — strategies built once (building them per
    draw is what makes hypothesis slow)."""
    return st.tuples(types, st.fixed_dictionaries({}, optional=fields)).map(lambda t: {"type": t[0], **t[1]})


TOOL_INPUT = st.one_of(json_any, st.fixed_dictionaries({}, optional={
    "command": weird_text | scalar, "description": weird_text, "file_path": weird_text | scalar,
    "old_string": weird_text | scalar, "new_string": weird_text | scalar, "content": weird_text | scalar,
    "pattern": weird_text, "path": weird_text, "offset": scalar, "limit": scalar, "timeout": scalar,
    "todos": json_any | st.lists(st.fixed_dictionaries({}, optional={"content": weird_text | scalar,
                                                                       "status": weird_text | scalar}), max_size=3),
    "prompt": weird_text | scalar, "subagent_type": weird_text | scalar, "edits": json_any,
    "replace_all": scalar, "run_in_background": scalar}))
SOURCE = st.one_of(json_any, st.fixed_dictionaries(
    {"type": st.sampled_from(["base64", "url", "text"]) | weird_text},
    optional={"data": st.sampled_from(["iVBORw0KGgo=", "not base64!", "", "JVBERi0="]) | scalar,
              "media_type": st.sampled_from(["image/png", "image/svg+xml", "text/html"]) | scalar,
              "url": weird_text | st.just("javascript:alert(1)")}))
BLOCK_FIELDS = {
    "text": weird_text | json_any, "thinking": weird_text | json_any, "signature": weird_text,
    "id": IDS, "name": st.sampled_from(TOOL_NAMES) | weird_text | scalar, "input": TOOL_INPUT,
    "tool_use_id": IDS, "content": json_any, "is_error": scalar, "tool_name": scalar, "source": SOURCE, "title": scalar,
}
inner_block = _typed(st.sampled_from(BLOCK_TYPES) | weird_text | st.integers(), BLOCK_FIELDS)
block = lambda: _typed(st.sampled_from(BLOCK_TYPES) | weird_text | st.integers(),  # noqa: E731
                       {**BLOCK_FIELDS, "content": json_any | st.lists(inner_block | json_any, max_size=3)})
BLOCK = block()
content = st.one_of(weird_text, st.lists(BLOCK | json_any, max_size=4), json_any)
ENTRY_FIELDS = {
    "uuid": IDS, "parentUuid": IDS | st.none(), "sessionId": weird_text, "timestamp": weird_text | scalar,
    "cwd": weird_text | scalar, "gitBranch": weird_text | scalar, "version": weird_text | scalar,
    "isSidechain": scalar, "isMeta": scalar, "isCompactSummary": scalar, "requestId": IDS,
    "toolUseResult": json_any | st.fixed_dictionaries({}, optional={
        "stdout": weird_text | scalar, "stderr": weird_text | scalar, "agentId": weird_text | scalar,
        "structuredPatch": json_any, "filenames": json_any, "numFiles": scalar, "file": json_any, "type": scalar,
        "totalDurationMs": scalar, "totalTokens": scalar, "status": scalar, "interrupted": scalar}),
    "message": st.one_of(json_any, st.fixed_dictionaries({}, optional={
        "id": st.sampled_from(["m1", "m2", "m3"]) | scalar, "role": weird_text, "model": weird_text | scalar,
        "content": content, "usage": json_any | st.fixed_dictionaries({}, optional={
            "input_tokens": scalar, "output_tokens": scalar, "cache_read_input_tokens": scalar,
            "cache_creation_input_tokens": scalar})})),
    "subtype": st.sampled_from(SYSTEM_SUBTYPES) | weird_text | scalar, "content": weird_text | scalar | json_any,
    "level": st.sampled_from(["error", "warning", "info"]) | scalar, "compactMetadata": json_any,
    "microcompactMetadata": json_any, "durationMs": scalar, "hookCount": scalar, "hookErrors": json_any,
    "hookInfos": json_any, "retryAttempt": scalar, "error": json_any, "isApiErrorMessage": scalar,
    "summary": weird_text | scalar, "customTitle": weird_text | scalar, "aiTitle": weird_text | scalar,
    "snapshot": json_any, "operation": scalar, "data": json_any, "attachment": json_any | st.fixed_dictionaries(
        {"type": weird_text | scalar}, optional={"content": json_any, "prompt": scalar, "stdout": scalar}),
    "prNumber": scalar, "prUrl": scalar, "lastPrompt": scalar, "agentName": scalar, "permissionMode": scalar,
}
ENTRY = _typed(st.sampled_from(ENTRY_TYPES) | weird_text | scalar, ENTRY_FIELDS)
entry = lambda: ENTRY  # noqa: E731

# Realistic entries (one per renderer path), damaged at a random place: finds the field a view
# trusts to have a type far more often than shapes drawn from scratch.
_TU = lambda name, inp: {"type": "assistant", "message": {"id": "m1", "model": "claude", "usage": {"input_tokens": 1},  # noqa: E731
                                                         "content": [{"type": "tool_use", "id": "t1", "name": name, "input": inp}]}}
TEMPLATES = [
    {"type": "user", "message": {"role": "user", "content": "hello"}, "timestamp": "2025-01-01T00:00:00Z", "cwd": "/x"},
    {"type": "user", "message": {"content": [{"type": "text", "text": "hi"}, {"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}, {"type": "document", "title": "d", "source": {
        "type": "text", "data": "doc"}}]}},
    {"type": "user", "isMeta": True, "message": {"content": "Base directory for this skill"}},
    {"type": "user", "isCompactSummary": True, "message": {"content": "summary"}},
    {"type": "user", "message": {"content": "<command-name>/x</command-name><command-message>x</command-message><command-args>a</command-args>"}},
    {"type": "user", "message": {"content": "<task-notification><task-id>1</task-id><status>done</status></task-notification>"}},
    {"type": "assistant", "message": {"id": "m1", "model": "claude", "usage": {"input_tokens": 1, "output_tokens": 2},
                                      "content": [{"type": "text", "text": "**hi**"}, {"type": "thinking", "thinking": "hm"},
                                                  {"type": "redacted_thinking", "data": "x"}]}, "requestId": "r"},
    _TU("Bash", {"command": "ls", "description": "list", "timeout": 5, "run_in_background": True}),
    _TU("Read", {"file_path": "/a.py", "offset": 2, "limit": 3}),
    _TU("Edit", {"file_path": "/a.py", "old_string": "a", "new_string": "b", "replace_all": True}),
    _TU("MultiEdit", {"file_path": "/a.py", "edits": [{"old_string": "a", "new_string": "b"}]}),
    _TU("Write", {"file_path": "/a.py", "content": "print(1)"}),
    _TU("Grep", {"pattern": "x", "path": "/", "glob": "*.py"}),
    _TU("TodoWrite", {"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]}),
    _TU("Task", {"description": "d", "subagent_type": "general", "prompt": "p"}),
    _TU("mcp__srv__tool", {"query": "q"}),
    {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
        {"type": "text", "text": "out"}, {"type": "tool_reference", "tool_name": "X"}], "is_error": False}]},
     "toolUseResult": {"stdout": "o", "stderr": "e", "interrupted": False, "backgroundTaskId": "b",
                       "returnCodeInterpretation": "r", "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1,
                                                                             "newLines": 1, "lines": ["-a", "+b"]}],
                       "filenames": ["a"], "numFiles": 1, "truncated": True, "agentId": "a1", "totalDurationMs": 5,
                       "totalTokens": 5, "totalToolUseCount": 1, "status": "completed",
                       "type": "image", "file": {"type": "image/png", "base64": "iVBORw0KGgo="}}},
    {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 5000}},
    {"type": "system", "subtype": "microcompact_boundary", "microcompactMetadata": {"tokensSaved": 5}},
    {"type": "system", "subtype": "turn_duration", "durationMs": 5},
    {"type": "system", "subtype": "api_error", "error": {"m": 1}, "retryAttempt": 1, "retryInMs": 5},
    {"type": "system", "subtype": "local_command", "content": "<local-command-stdout>x</local-command-stdout>"},
    {"type": "system", "subtype": "stop_hook_summary", "hookCount": 1, "hookErrors": ["e"], "hookInfos": [{"a": 1}]},
    {"type": "system", "subtype": "informational", "level": "warning", "content": "c"},
    {"type": "summary", "summary": "s", "leafUuid": "x"}, {"type": "custom-title", "customTitle": "t"},
    {"type": "ai-title", "aiTitle": "t"}, {"type": "agent-name", "agentName": "n"}, {"type": "last-prompt", "lastPrompt": "p"},
    {"type": "permission-mode", "permissionMode": "m"}, {"type": "queue-operation", "operation": "enqueue", "content": "c"},
    {"type": "pr-link", "prNumber": 1, "prUrl": "u"},
    {"type": "file-history-snapshot", "snapshot": {"trackedFileBackups": {"a": {}}}},
    {"type": "progress", "data": {"type": "hook_progress", "hookName": "h", "command": "c"}},
    {"type": "attachment", "attachment": {"type": "file", "content": {"file": {"content": "x"}}, "prompt": "p"}},
    {"type": "attachment", "attachment": {"type": "x", "content": ["a", {"b": 1}]}},
]
deep_value = st.integers(min_value=250, max_value=1100).map(lambda d: deep_marker(d))
MUTANT = st.one_of(scalar, json_any, deep_value, st.just("<DELETE>"))


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated(draw):
    e = json.loads(json.dumps(draw(st.sampled_from(TEMPLATES))))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = [p for p in _paths(e) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = e
        for k in path[:-1]:
            parent = parent[k]
        value = draw(MUTANT)
        if value == "<DELETE>":
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
    return e


DEEP = re.compile(r'"DEEP-(\d+)"')


def deep_marker(d: int) -> str:
    """Stands for d nested arrays; _dumps writes them as text (no Python recursion involved)."""
    return f"DEEP-{d}"


def _dumps(obj) -> bytes:
    # stdlib json writes what a broken writer might: lone surrogates as \ud800, NaN, huge ints.
    text = json.dumps(obj, ensure_ascii=True, allow_nan=True)
    return DEEP.sub(lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), text).encode()


raw_line = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")),
    st.sampled_from([b"", b"{", b"[1,2]", b"42", b"null", b'"s"', b"\xff\xfe", b'{"type":"user"', b"\x00",
                     b'{"type":"assistant","message":{"content":"\xc3\x28"}}', b"1e400", b"NaN", b"{}" * 3,
                     b'{"a":"\\ud800"}', b"\r", b"[" * 1100 + b"]" * 1100, b'{"type":"user","message":' * 300 + b"1" + b"}" * 300]),
    json_any.map(_dumps),
)
deep = st.integers(min_value=200, max_value=1100).map(
    lambda d: _dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t", "name": "X",
                                                                   "input": deep_marker(d)}]}}))
line = st.one_of(ENTRY.map(_dumps), mutated().map(_dumps), mutated().map(_dumps), raw_line, deep)


# --- a fast generator ---------------------------------------------------------------------------
# Hypothesis spends most of its time drawing big nested strategies; for the bulk of the examples a
# plain generator seeded by hypothesis (st.randoms) makes the same shapes ~10x faster. A failure
# still reproduces (hypothesis replays the seed) but does not shrink.
WEIRD = ["", " ", "\x00", "\ud800", "\udfff x", "<script>alert(1)</script>", "</details>", "```py\nx\n```", "\x1b[31mred\x1b[0m",
         "<command-name>/x</command-name>", "<system-reminder>r</system-reminder>", "<bash-input>ls", "\u202e\ufeff",
         "[Request interrupted by user]", "<task-notification><status>done", "a\r\nb", "mcp__a__b", "2025-06-01T10:00:00Z",
         "x" * 7000, "line\n" * 60, "javascript:alert(1)", "[l](javascript:x)", "# h\n> q\n- l\n\n|a|b|\n|-|-|\n|1|2|",
         "iVBORw0KGgo=", "image/png", "t1", "t2", "m1", "Bash", "Read", "Task", "TodoWrite", "completed", "\U0001f600" * 3]
KEYS = sorted(set(BLOCK_FIELDS) | set(ENTRY_FIELDS) | {"stdout", "stderr", "agentId", "structuredPatch", "filenames",
                                                        "numFiles", "file", "lines", "oldStart", "todos", "status",
                                                        "edits", "old_string", "new_string", "file_path", "command",
                                                        "offset", "limit", "prompt", "media_type", "data", "url"})


def r_text(r) -> str:
    k = r.random()
    if k < 0.5:
        return r.choice(WEIRD)
    if k < 0.8:
        return "".join(chr(r.choice([r.randrange(32, 127), r.randrange(0, 0x110000), r.randrange(0xD800, 0xE000),
                                     r.randrange(0, 32)])) for _ in range(r.randrange(12)))
    return r.choice(WEIRD) + r.choice(WEIRD)


def r_scalar(r):
    return r.choice([None, True, False, 0, -1, 2**63, -(2**70), 1.5, -0.0, 1e300, r.randrange(-5, 5000),
                     r_text(r), r_text(r), r_text(r)])


def r_value(r, depth=0):
    k = r.random()
    if depth > 3 or k < 0.55:
        return r_scalar(r)
    if k < 0.75:
        return [r_value(r, depth + 1) for _ in range(r.randrange(4))]
    if k < 0.993:
        return {r.choice(KEYS) if r.random() < 0.7 else r_text(r): r_value(r, depth + 1) for _ in range(r.randrange(5))}
    return deep_marker(r.randrange(250, 1100))


def r_block(r):
    b = {"type": r.choice(BLOCK_TYPES) if r.random() < 0.9 else r_scalar(r)}
    for _ in range(r.randrange(5)):
        b[r.choice(sorted(BLOCK_FIELDS))] = r_value(r) if r.random() < 0.7 else r_block(r)
    return b


def r_mutant(r):
    e = json.loads(json.dumps(r.choice(TEMPLATES)))
    for _ in range(r.randrange(1, 4)):
        paths = [p for p in _paths(e) if p]
        if not paths:
            break
        path = r.choice(paths)
        parent = e
        for k in path[:-1]:
            parent = parent[k]
        if r.random() < 0.15:
            del parent[path[-1]]
        else:
            parent[path[-1]] = r_value(r) if r.random() < 0.8 else r_block(r)
    return e


def r_entry(r):
    if r.random() < 0.6:
        return r_mutant(r)
    e = {"type": r.choice(ENTRY_TYPES) if r.random() < 0.9 else r_scalar(r)}
    for _ in range(r.randrange(6)):
        e[r.choice(sorted(ENTRY_FIELDS))] = r_value(r)
    if r.random() < 0.6:
        e["message"] = {"id": r.choice(["m1", "m2", r_scalar(r)]), "content": r.choice(
            [r_text(r), [r_block(r) for _ in range(r.randrange(4))], r_value(r)])}
    return e


def r_line(r) -> bytes:
    k = r.random()
    if k < 0.85:
        return _dumps(r_entry(r))
    if k < 0.95:
        return bytes(r.randrange(256) for _ in range(r.randrange(40))).replace(b"\n", b"")
    return r.choice([b"", b"{", b"[1,2]", b"42", b"null", b"\xff\xfe", b'{"type":"user"', b"\x00", b"1e400", b"\r"])


# --- the pipeline -----------------------------------------------------------------------------
def render_all(data: bytes, page_size: int = 5) -> tuple[str, int]:
    """Run the bytes of a transcript through the whole renderer; (html of all pages, line count)."""
    from ccreport.site.transcript import _with_unfinished_tail
    from ccreport.source.jsonl import Reader
    from ccreport.model.messages import Builder, title_of
    from ccreport.model.usage import TranscriptUsage
    from ccreport.model.pages import paginate
    from ccreport.render.message import RenderContext, render_message

    fh = io.BytesIO(data)
    reader = Reader(fh)
    builder = Builder()
    parts = []
    ledger = TranscriptUsage()
    for page in paginate(ledger.tap(_with_unfinished_tail(reader)), builder, page_size):
        ctx = RenderContext(root="../../../", blobs=None, agent_urls={"a1": "p/x/y/agent-a1/page-0001.html"},
                            page_lines={ln for m in page.messages for ln in m.lines})
        for m in page.messages:
            parts.append(render_message(m, ctx))
    ledger.tokens()
    title_of(builder.carry)
    json.dumps(builder.carry)  # the carry stays plain JSON (resumable)
    n = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return "\n".join(parts), n


def check(data: bytes, page_size: int = 5) -> None:
    html, n = render_all(data, page_size)
    got = shown_lines(html)  # (an anchor each, or a fold's range: model.folds)
    missing = sorted(set(range(1, n + 1)) - got)
    assert not missing, f"lines with no anchor: {missing[:10]} of {n}"
    assert got <= set(range(1, n + 1)), sorted(got - set(range(1, n + 1)))[:10]
    assert "<script" not in html.lower().replace("&lt;script", "")




@settings(max_examples=_n(1200), **FUZZ)
@given(line)
def test_fuzz_single_lines(ln):
    check(ln + b"\n")


@settings(max_examples=_n(400), **FUZZ)
@given(st.lists(line, min_size=1, max_size=25), st.integers(min_value=1, max_value=8), st.booleans())
def test_fuzz_transcripts(lines, page_size, final_newline):
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    check(data, page_size)


@settings(max_examples=_n(6000), **FUZZ)
@given(st.randoms(use_true_random=False))
def test_fuzz_fast_lines(r):
    check(r_line(r) + b"\n")


@settings(max_examples=_n(1500), **FUZZ)
@given(st.randoms(use_true_random=False))
def test_fuzz_fast_transcripts(r):
    lines = [r_line(r) for _ in range(r.randrange(1, 16))]
    check(b"\n".join(lines) + (b"\n" if r.random() < 0.8 else b""), r.randrange(1, 8))


@st.composite
def conversation(draw):
    """A plausible conversation with random damage: calls and results that pair (or not) across pages."""
    out = []
    for i in range(draw(st.integers(min_value=1, max_value=16))):
        kind = draw(st.sampled_from(["user", "call", "result", "text", "junk", "meta", "mutant"]))
        tid = draw(st.sampled_from(["t1", "t2", "t3", "t4"]))
        mid = draw(st.sampled_from(["m1", "m2", "m3", f"m{i}"]))
        if kind == "user":
            e = {"type": "user", "message": {"role": "user", "content": draw(weird_text)}}
        elif kind == "call":
            e = {"type": "assistant", "message": {"id": mid, "content": [{"type": "tool_use", "id": tid,
                 "name": draw(st.sampled_from(TOOL_NAMES)), "input": draw(json_any)}]}}
        elif kind == "result":
            e = {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": tid,
                 "content": draw(json_any)}, *draw(st.lists(BLOCK, max_size=1))]}, "toolUseResult": draw(json_any)}
        elif kind == "text":
            e = {"type": "assistant", "message": {"id": mid, "content": [draw(BLOCK)]}}
        elif kind == "meta":
            e = {"type": draw(st.sampled_from(["progress", "attachment", "summary", "queue-operation"])), "data": draw(json_any)}
        elif kind == "mutant":
            e = draw(mutated())
        else:
            out.append(draw(raw_line))
            continue
        if draw(st.booleans()):
            e["isSidechain"] = draw(scalar)
        out.append(_dumps(e))
    return out


@settings(max_examples=_n(700), **FUZZ)
@given(conversation(), st.integers(min_value=1, max_value=6))
def test_fuzz_conversations(lines, page_size):
    check(b"\n".join(lines) + b"\n", page_size)


@settings(max_examples=_n(200), **FUZZ)
@given(st.lists(line, min_size=0, max_size=12))
def test_fuzz_whole_build(tmp_path_factory, lines):
    """A few through the real build (files, templates, overview, indexes), anchors read from the pages."""
    from ccreport.site.build import Options, build
    from faults import assert_all_lines_shown

    root = tmp_path_factory.mktemp("fz")
    f = root / "home" / "projects" / "-p" / "s.jsonl"
    f.parent.mkdir(parents=True)
    f.write_bytes(b"\n".join(lines) + (b"\n" if lines else b""))
    res = build(root / "home", root / "site", Options(jobs=1, page_size=5))
    assert res.errors == []
    if lines:
        assert_all_lines_shown(f, root / "site" / "p" / "-p" / "s")
