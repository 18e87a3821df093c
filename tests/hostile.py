"""An adversarial Claude home, and the checks that a page built from it is inert.

Reusable beyond the archive build: the lead points ``scan_html`` at the exported single file and
``assert_inert`` at the served pages (``http://127.0.0.1:<port>/…``) exactly as the build tests do.

* ``make_hostile_home(root)`` writes a home where every place text can come from — prompts,
  answers, thinking, tool names, inputs and results, file paths, agent meta.json, titles, system and
  bookkeeping lines, timestamps, models, project folder names, cwd values, session and agent file
  names — carries script, event handlers, javascript:/data: links, unclosed tags and closers of the
  elements the renderer uses (``</details>``, ``</pre>``, ``</textarea>``, ``-->``), and attribute
  breakers. It returns the strings that must show up literally somewhere in the site.
* ``scan_html(html)`` → problems: no CSP meta forbidding inline script, an inline or foreign
  <script>, an on*= attribute, a javascript:/vbscript:/non-image data: URL, an active element
  (iframe, object, embed, form, base, style, meta refresh to anything but a page of the site).
* ``assert_inert(url, browser)`` loads the page in chromium twice — with its CSP, and with CSP
  bypassed (so escaping alone, not the policy, is what keeps it inert) — and asserts 0 dialogs,
  0 payload flags (``window.__pwned``), 0 CSP violations, and no live javascript: link in the DOM.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

# Every payload that runs sets window.__pwned (and most also open a dialog), so a run is seen
# whether or not dialogs are allowed.
SCRIPT = "<script>window.__pwned=1;alert(1)</script>"
IMG = "<img src=x onerror=window.__pwned=2;alert(2)>"
BREAK = "\"'><svg onload=window.__pwned=3;alert(3)>"
# The three above are shown literally even through markdown (html is off there) and are short
# enough to survive the 160-character one-line summaries.
LITERAL_LINE = f"{SCRIPT} {IMG} {BREAK}"

PAYLOADS = [
    SCRIPT,
    IMG,
    BREAK,
    "<svg><script>window.__pwned=4</script></svg>",
    "<iframe src=\"javascript:parent.__pwned=5;alert(5)\"></iframe>",
    "<iframe srcdoc=\"<script>parent.__pwned=6</script>\"></iframe>",
    "javascript:window.__pwned=7;alert(7)",
    "JaVaScRiPt:alert(8)",
    "data:text/html,<script>alert(9)</script>",
    "[a markdown link](javascript:window.__pwned=10;alert(10))",
    "[a data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxMSk8L3NjcmlwdD4=)",
    "![an image](javascript:alert(12))",
    "![an svg](data:image/svg+xml,<svg onload=alert(13)>)",
    "<javascript:alert(14)>",
    "[ref][x]\n\n[x]: javascript:alert(15)",
    "<a href=\"javascript:window.__pwned=16\">click</a>",
    "<b>unclosed <i>tags <div><span><table><tr><td>",
    "</details></summary></div></article></main><script>window.__pwned=17</script>",
    "</pre></code><script>window.__pwned=18</script>",
    "</textarea></title></style></noscript><script>window.__pwned=19</script>",
    "--><script>window.__pwned=20</script><!--",
    "<!-- unclosed comment",
    "' onmouseover='window.__pwned=21' x='",
    "\" autofocus onfocus=\"window.__pwned=22\" x=\"",
    "<details open ontoggle=window.__pwned=23>",
    "<style>*{display:none!important}</style>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(24)\">",
    "<base href=\"javascript:alert(25)//\">",
    "<form action=\"javascript:alert(26)\"><button>go</button></form>",
    "<object data=\"javascript:alert(27)\"></object><embed src=\"javascript:alert(28)\">",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=29>",
    "<scr<script>ipt>window.__pwned=30</scr</script>ipt>",
    "{{ 7*7 }} {% if true %}jinja{% endif %} ${7*7}",
    "\x1b[31m<script>window.__pwned=31</script>\x1b[0m\x1b]0;title\x07",
    "```html\n<script>window.__pwned=32</script>\n```",
    "    <script>window.__pwned=33</script>",
    "<system-reminder></details><script>window.__pwned=34</script></system-reminder>",
    "&lt;script&gt;window.__pwned=35&lt;/script&gt; &#60;script&#62;",
    "\u2028\u2029\u202e<script>window.__pwned=36</script>\ufeff",
]
# Texts for names that must fit a file name (no '/', ≤ 255 bytes).
NAME_PAYLOADS = [
    "<svg onload=window.__pwned=40;alert(40)>",
    "javascript:window.__pwned=41",
    "\"'><img src=x onerror=window.__pwned=42>",
    "%2e%2e%2f<b>x",
    "a#b?c=<i>&d=%3Cscript%3E",
]
HOSTILE_BLOCK = "\n".join(PAYLOADS)


def text(place: str) -> str:
    """A hostile text tagged with its place: a literal first line, then every payload."""
    return f"«{place}» {LITERAL_LINE}\n{HOSTILE_BLOCK}"


def short(place: str) -> str:
    """A one-line hostile text for fields shown whole but expected to be short (names, labels)."""
    return f"«{place}» {LITERAL_LINE}"


def _w(path: Path, lines) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for ln in lines:
            fh.write((ln if isinstance(ln, str) else json.dumps(ln)) + "\n")


def _env(kind, n, sid, cwd, **kw):
    e = {"type": kind, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None, "sessionId": sid,
         "timestamp": f"2025-06-01T10:{n // 60:02d}:{n % 60:02d}.000Z", "cwd": cwd, "version": "2.1.0",
         "gitBranch": short("gitBranch"), "isSidechain": False, "userType": "external"}
    e.update(kw)
    return e


def _transcript(sid: str, cwd: str) -> list:
    """One transcript with hostile text in every field the renderer shows."""
    lines: list = []
    n = 0

    def add(kind, **kw):
        nonlocal n
        n += 1
        lines.append(_env(kind, n, sid, cwd, **kw))

    def asst(blocks, mid, usage=None, model="claude-sonnet-4-5"):
        add("assistant", requestId=f"req_{mid}", message={"id": mid, "type": "message", "role": "assistant",
            "model": model, "content": blocks, "usage": usage or {"input_tokens": 3, "output_tokens": 4}})

    def result(tid, content, extra=None, is_error=False):
        kw = {"toolUseResult": extra} if extra is not None else {}
        add("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
            "content": content, "is_error": is_error}]}, **kw)

    add("custom-title", customTitle=short("custom-title"))
    add("ai-title", aiTitle=short("ai-title"))
    add("summary", summary=short("summary"), leafUuid="x")
    add("user", message={"role": "user", "content": text("prompt")})
    add("user", message={"role": "user", "content": [{"type": "text", "text": text("prompt-block")},
                                                       {"type": "image", "source": {"type": "url", "url": "javascript:window.__pwned=50"}},
                                                       {"type": "image", "source": {"type": "base64", "media_type": short("media"), "data": "iVBORw0KGgo="}},
                                                       {"type": "document", "title": short("doc-title"), "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
                                                       {"type": "document", "source": {"type": "text", "data": text("doc-text")}},
                                                       {"type": short("user-block-type"), "x": text("user-block")}]})
    asst([{"type": "thinking", "thinking": text("thinking"), "signature": "sig"}], "m1")
    asst([{"type": "text", "text": text("answer")}], "m1")
    asst([{"type": "redacted_thinking", "data": text("redacted")}], "m1b", model=short("model"))
    asst([{"type": short("asst-block-type"), "payload": text("asst-block")}], "m1c")
    # tools, each with hostile input and result
    tools = [
        ("Bash", {"command": text("bash-command"), "description": short("bash-desc"), "timeout": short("timeout"),
                  "run_in_background": True},
         text("bash-result"), {"stdout": text("bash-stdout"), "stderr": text("bash-stderr"), "interrupted": False,
                               "backgroundTaskId": short("bgid"), "returnCodeInterpretation": short("rci")}),
        ("Read", {"file_path": short("read-path") + ".py", "offset": short("offset"), "limit": 3},
         text("read-result"), {"type": "image", "file": {"type": short("read-img-type"), "base64": "iVBORw0KGgo="}}),
        ("Edit", {"file_path": short("edit-path"), "old_string": text("edit-old"), "new_string": text("edit-new")},
         text("edit-result"), {"structuredPatch": [{"oldStart": short("os"), "oldLines": 1, "newStart": 1, "newLines": 1,
                                                    "lines": ["-" + short("patch-del"), "+" + short("patch-add")]}]}),
        ("MultiEdit", {"file_path": short("multi-path"), "edits": [{"old_string": text("multi-old"), "new_string": text("multi-new")}]},
         [{"type": "text", "text": text("multi-result")}, {"type": "tool_reference", "tool_name": short("tool-ref")}], None),
        ("Write", {"file_path": short("write-path") + ".html", "content": text("write-content")}, "ok", None),
        ("Write", {"file_path": short("write-big") + ".js", "content": text("write-big") * 60}, "ok", None),
        ("Grep", {"pattern": short("grep-pattern"), "path": short("grep-path"), "glob": short("grep-glob")},
         text("grep-result"), {"filenames": [short("grep-file")], "numFiles": short("numfiles"), "truncated": True}),
        ("TodoWrite", {"todos": [{"content": short("todo"), "status": short("todo-status")}, short("todo-str")]}, "ok", None),
        ("Task", {"description": short("task-desc"), "subagent_type": short("task-type"), "prompt": text("task-prompt")},
         text("task-result"), {"agentId": short("agent-id"), "status": short("task-status"), "totalTokens": 5}),
        ("mcp__" + short("mcp-server").replace("_", "") + "__" + short("mcp-tool"), {short("mcp-key"): text("mcp-value")},
         text("mcp-result"), None),
        (short("tool-name"), {"url": text("unknown-tool-url"), "nested": {"deep": [text("nested")]}}, text("unknown-result"), short("extra")),
        ("WebFetch", text("input-as-string"), [{"type": "image", "source": {"type": "url", "url": "javascript:alert(51)"}},
                                               {"type": short("result-block")}, text("result-list-str"), 5], None),
    ]
    for i, (name, inp, content, extra) in enumerate(tools):
        tid = f"toolu_{i}_" + ("<x>\"'" if i % 2 else "")
        asst([{"type": "tool_use", "id": tid, "name": name, "input": inp}], f"mt{i}")
        result(tid, content, extra, is_error=(i % 3 == 0))
    # a result whose call is unknown, with a hostile id
    result(short("orphan-id"), text("orphan-result"))
    # conventions inside user text
    for conv in (f"<command-name>{short('cmd-name')}</command-name><command-message>{short('cmd-msg')}</command-message>"
                 f"<command-args>{short('cmd-args')}</command-args>",
                 f"<local-command-stdout>{text('lc-stdout')}</local-command-stdout>",
                 f"<bash-input>{text('bash-input')}</bash-input>",
                 f"<bash-stdout>{text('bash-mode-out')}</bash-stdout><bash-stderr>{text('bash-mode-err')}</bash-stderr>",
                 f"<task-notification><task-id>{short('tn-id')}</task-id><status>{short('tn-status')}</status>"
                 f"<summary>{short('tn-summary')}</summary></task-notification>",
                 f"[Request interrupted by user {short('interrupt')}",
                 f"<ide_opened_file>{text('ide')}</ide_opened_file>",
                 f"{text('with-reminder')}<system-reminder>{text('reminder')}</system-reminder>"):
        add("user", message={"role": "user", "content": conv})
    add("user", isMeta=True, message={"role": "user", "content": text("meta-user")})
    add("user", isCompactSummary=True, message={"role": "user", "content": text("compact-summary")})
    # system lines
    add("system", subtype="compact_boundary", compactMetadata={"trigger": short("trigger"), "preTokens": 5000})
    add("system", subtype="api_error", error={"message": text("api-error")}, retryAttempt=short("retry"))
    add("system", subtype="local_command", content=f"<command-name>{short('sys-cmd')}</command-name>")
    add("system", subtype="stop_hook_summary", hookCount=short("hookcount"), hookErrors=[text("hook-err")], hookInfos=[text("hook-info")])
    add("system", subtype=short("sys-subtype"), level="error", content=short("sys-content"))
    add("system", subtype=short("sys-subtype2"), level=short("level"), content=text("sys-long"))
    # bookkeeping lines
    add("last-prompt", lastPrompt=short("last-prompt"))
    add("agent-name", agentName=short("agent-name"))
    add("permission-mode", permissionMode=short("perm"))
    add("queue-operation", operation=short("queue-op"), content=short("queue-content"))
    add("pr-link", prNumber=short("pr"), prUrl="javascript:alert(60)")
    add("file-history-snapshot", snapshot={"trackedFileBackups": {short("tracked-file"): {}}})
    add("progress", data={"type": short("progress-type"), "hookName": short("hook-name")})
    add("attachment", attachment={"type": short("att-type"), "content": text("att-content")})
    add("attachment", attachment={"type": "file", "content": {"file": {"content": text("att-file")}}})
    add("attachment", attachment={"type": "x", "prompt": text("att-prompt")})
    # unknown entry type, a hostile timestamp, and a malformed line carrying the payloads
    add(short("entry-type"), data=text("unknown-entry"))
    add("user", timestamp=short("timestamp"), message={"role": "user", "content": "stamped"})
    lines.append("{not json " + text("malformed").replace("\n", " "))
    lines.append(json.dumps([text("array-line")], ensure_ascii=False))
    return lines


def make_hostile_home(root: Path) -> list[str]:
    """Write the adversarial home under ``root``; return strings that must appear literally."""
    projects = root / "projects"
    projects.mkdir(parents=True, exist_ok=True)
    cwd = "/home/u/" + short("cwd")
    # A normal-looking project, whose session is full of hostile text.
    _w(projects / "-home-u-proj" / "s-hostile.jsonl", _transcript("s-hostile", cwd))
    # Sub-agents with hostile meta.json (agentType/description) and hostile agent file names.
    sub = projects / "-home-u-proj" / "s-hostile" / "subagents"
    _w(sub / "agent-a1.jsonl", _transcript("s-hostile", cwd)[:12])
    (sub / "agent-a1.meta.json").write_text(json.dumps({"agentType": short("agentType"), "description": short("agent-desc"),
                                                        "toolUseId": short("meta-tool-use-id")}))
    for i, name in enumerate(NAME_PAYLOADS):
        _w(sub / f"agent-{name}.jsonl", [_env("user", 1, "s-hostile", cwd, message={"role": "user", "content": text(f"agentfile{i}")})])
    (sub / "agent-acompact-x.meta.json").write_text("{not json")
    _w(sub / "agent-acompact-x.jsonl", _transcript("s-hostile", cwd)[3:8])
    # A legacy root agent whose sessionId is hostile (it becomes a session of its own).
    _w(projects / "-home-u-proj" / "agent-legacy.jsonl",
       [_env("user", 1, short("legacy-sid"), cwd, message={"role": "user", "content": text("legacy")})])
    # Hostile project folder names and session file names, each with hostile cwd values inside.
    for i, name in enumerate(NAME_PAYLOADS):
        pdir = projects / f"-{name}"
        _w(pdir / f"{name}.jsonl", [_env("user", 1, name, "/x/" + name, message={"role": "user", "content": text(f"named{i}")}),
                                     _env("summary", 2, name, "/x/" + name, summary=short(f"title{i}"))])
    return [f"«{p}» {LITERAL_LINE}" for p in LITERAL_PLACES] + [f"«{p}»" for p in TAG_ONLY_PLACES] + NAME_PAYLOADS


# Places whose whole first line must show literally (prompts, answers, tool inputs and results…).
LITERAL_PLACES = [
    "custom-title", "ai-title", "summary", "prompt", "prompt-block", "doc-text", "thinking", "answer", "bash-command",
    "bash-stdout", "bash-stderr", "read-path", "edit-path", "edit-result", "multi-path", "multi-result",
    "write-path", "write-content", "grep-path", "grep-file", "todo", "task-prompt", "task-result",
    "mcp-tool", "mcp-value", "tool-name", "unknown-tool-url", "result-list-str",
    "orphan-result", "cmd-name", "cmd-args", "lc-stdout", "bash-input", "bash-mode-out", "bash-mode-err", "tn-summary",
    "ide", "with-reminder", "reminder", "meta-user", "compact-summary", "sys-content", "sys-long",
    "last-prompt", "agent-name", "queue-content", "tracked-file", "att-content", "att-file", "att-prompt", "entry-type",
    "agentType", "agent-desc", "legacy", "cwd", "gitBranch", "model", "media", "doc-title",
    "user-block-type", "asst-block-type", "tool-ref", "task-type", "trigger", "sys-subtype", "rci", "bgid",
    "patch-del", "patch-add", "tn-status", "perm", "interrupt",
] + [f"agentfile{i}" for i in range(len(NAME_PAYLOADS))] + [f"named{i}" for i in range(len(NAME_PAYLOADS))] + [
    f"title{i}" for i in range(len(NAME_PAYLOADS))]
# Places shown escaped but inside JSON (quotes escaped) or cut: only the tag must appear.
TAG_ONLY_PLACES = ["timestamp", "todo-status", "unknown-entry", "nested", "api-error", "hook-err", "grep-glob",
                   "bash-desc", "input-as-string", "task-desc", "malformed", "array-line", "redacted", "asst-block", "user-block", "mcp-key", "hook-info",
                   "result-block"]


# --- static checks ----------------------------------------------------------------------------
CSP_RE = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', re.I)
URL_ATTRS = {"href", "src", "action", "formaction", "data", "xlink:href", "srcdoc", "poster", "background", "ping"}
ACTIVE_TAGS = {"iframe", "frame", "object", "embed", "form", "base", "style", "applet", "svg", "math", "link"}


def csp_forbids_inline_script(policy: str) -> bool:
    directives = {}
    for part in policy.split(";"):
        bits = part.strip().split()
        if bits:
            directives[bits[0].lower()] = [b.lower() for b in bits[1:]]
    script = directives.get("script-src", directives.get("default-src"))
    if script is None:
        return False
    return not any(v in ("'unsafe-inline'", "'unsafe-eval'", "*", "data:", "'unsafe-hashes'") for v in script)


class _Scan(HTMLParser):
    def __init__(self, single_file: bool = False):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_script = False
        self.in_style = False
        self.single_file = single_file
        self.inline: dict[str, list[str]] = {"script": [], "style": []}  # single-file: texts to match CSP hashes

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag}> has an event handler attribute {name}={value!r}")
            if name == "style":
                self.problems.append(f"<{tag}> has a style attribute (forbidden by the CSP rules)")
            if name in URL_ATTRS and value is not None:
                v = re.sub(r"[\x00-\x20]", "", value).lower()
                if v.startswith(("javascript:", "vbscript:")):
                    self.problems.append(f"<{tag} {name}={value!r}>: script URL")
                elif v.startswith("data:") and not (tag == "img" and name == "src" and v.startswith("data:image/")):
                    self.problems.append(f"<{tag} {name}={value!r}>: data: URL outside an image")
        if tag == "script":
            src = a.get("src") or ""
            if self.single_file and not src:
                self.inline["script"].append("")
            elif not re.search(r"(^|/)assets/(vendor/)?[a-z]+\.[0-9a-f]+\.js$", src):
                # The site's own scripts are content-hashed files under assets/ (app, live, ui,
                # search and the vendored prism); anything else came from somewhere else.
                self.problems.append(f"<script> that is not one of the site's assets: {a!r}")
            self.in_script = True
        if tag == "style" and self.single_file:
            self.inline["style"].append("")
            self.in_style = True
        elif tag == "link" and (a.get("rel") or "") == "stylesheet" and re.search(r"(^|/)assets/style\.[0-9a-f]+\.css$", a.get("href") or ""):
            pass
        elif tag == "form" and a.get("id") == "search-form" and "action" not in a:
            pass  # the site's own search box (search.js handles it; it never submits anywhere)
        elif tag == "svg" and a.get("class") == "chart" and a.get("aria-labelledby") == "chart-t":
            pass  # the activity chart the build draws (chart.py), made of rect/text only
        elif tag in ACTIVE_TAGS:
            self.problems.append(f"active element <{tag}> {a!r}")
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            if not re.fullmatch(r"0; url=page-\d{4}\.html", a.get("content") or ""):
                self.problems.append(f"meta refresh to {a.get('content')!r}")

    def handle_data(self, data):
        if self.single_file and (self.in_script or self.in_style):
            self.inline["script" if self.in_script else "style"][-1] += data
        elif self.in_script and data.strip():
            self.problems.append(f"inline script text {data[:80]!r}")

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False
        if tag == "style":
            self.in_style = False


def _csp_sources(policy: str, directive: str) -> list[str]:
    for part in policy.split(";"):
        bits = part.strip().split()
        if bits and bits[0].lower() == directive:
            return bits[1:]
    return []


def scan_html(html: str, single_file: bool = False) -> list[str]:
    """Problems that would let a page run or load something from transcript text (empty = clean).

    ``single_file=True`` is for the exported HTML file, whose script and stylesheet must be inline:
    each inline <script>/<style> is then allowed only if the CSP names its exact 'sha256-…' hash
    (so text that sneaks in as a new <script> can never match), and nothing else changes.
    """
    problems = []
    m = CSP_RE.search(html)
    if not m:
        problems.append("no Content-Security-Policy meta")
    elif not csp_forbids_inline_script(m.group(1)):
        problems.append(f"the CSP allows inline script: {m.group(1)!r}")
    elif m.start() > html.lower().find("<script"):
        if "<script" in html.lower():
            problems.append("a <script> comes before the CSP meta")
    p = _Scan(single_file)
    p.feed(html)
    p.close()
    if single_file:
        import base64
        import hashlib

        policy = m.group(1) if m else ""
        for kind, texts in p.inline.items():
            allowed = _csp_sources(policy, f"{kind}-src") or _csp_sources(policy, "default-src")
            for body in texts:
                # the parser hands entities back decoded; a hash is over the raw text, which in a
                # <script>/<style> element has no entities, so they are the same
                digest = "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
                if digest not in allowed:
                    problems.append(f"inline <{kind}> whose sha256 is not in the CSP ({body[:60]!r})")
    return problems + p.problems


# --- browser checks ---------------------------------------------------------------------------
# Runs before any page script: records CSP violations so a payload the policy stopped still counts.
_INIT = """
window.__csp_violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__csp_violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
});
"""
_DOM_CHECK = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const at of el.getAttributeNames()) {
      if (at.toLowerCase().startsWith('on')) bad.push(el.tagName + ' ' + at);
    }
    for (const at of ['href', 'src', 'action', 'formaction', 'data']) {
      const v = el.getAttribute(at);
      if (v === null) continue;
      let proto = '';
      try { proto = new URL(v, document.baseURI).protocol; } catch (e) { continue; }
      if (proto === 'javascript:' || proto === 'vbscript:') bad.push(el.tagName + ' ' + at + '=' + v);
      if (proto === 'data:' && !(el.tagName === 'IMG' && /^data:image\\//i.test(v))) bad.push(el.tagName + ' ' + at + '=' + v.slice(0, 60));
    }
    const ownSearch = el.tagName === 'FORM' && el.id === 'search-form' && !el.hasAttribute('action');
    // The single-file export carries its stylesheet inline in <head> (allowed there by CSP hash);
    // transcript text can only ever land in <body>.
    const ownStyle = el.tagName === 'STYLE' && el.parentElement === document.head;
    if (!ownSearch && !ownStyle && ['IFRAME', 'OBJECT', 'EMBED', 'FORM', 'BASE', 'STYLE', 'FRAME'].includes(el.tagName)) bad.push('element ' + el.tagName);
  }
  const scripts = [...document.scripts].map(s => s.getAttribute('src') || ('inline:' + s.textContent.slice(0, 60)));
  return {bad, scripts, pwned: window.__pwned === undefined ? null : String(window.__pwned),
          csp: window.__csp_violations || [], text: document.body ? document.body.textContent : ''};
}"""


class Inspector:
    """One browser context (with or without CSP) reused for many pages: contexts are slow to make."""

    def __init__(self, browser, bypass_csp: bool = False):
        self.ctx = browser.new_context(bypass_csp=bypass_csp, java_script_enabled=True)
        self.ctx.add_init_script(_INIT)
        self.page = self.ctx.new_page()
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(f"{d.type}: {d.message}"), d.dismiss()))
        # An exception in the site's own script (app.js) on a hostile page counts too.
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def close(self):
        self.ctx.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def inspect(self, url: str) -> dict:
        """Load ``url``; report dialogs, the payload flag, CSP violations, bad attributes, text."""
        page = self.page
        self.dialogs.clear()
        self.errors.clear()
        if page.url.split("#")[0] == url.split("#")[0]:
            page.goto("about:blank")  # a new #fragment alone would not reload the page
        page.goto(url, wait_until="load")
        # Give deferred scripts, images' onerror and autofocus handlers their chance to run.
        page.wait_for_timeout(30)
        for attempt in range(5):
            try:
                info = page.evaluate(_DOM_CHECK)
                # Opening every <details> shows content parsed but not rendered (ontoggle etc.).
                page.evaluate("() => { for (const d of document.querySelectorAll('details')) d.open = true; }")
                page.wait_for_timeout(10)
                after = page.evaluate("() => window.__pwned === undefined ? null : String(window.__pwned)")
                break
            except Exception as exc:  # a meta refresh (latest.html) replaced the document: look there
                if "context was destroyed" not in str(exc) or attempt == 4:
                    raise
                page.wait_for_load_state("load")
        info.update(dialogs=list(self.dialogs), errors=list(self.errors), pwned=info["pwned"] or after, url=url,
                    final_url=page.url)
        return info


def inspect(url: str, browser, bypass_csp: bool = False) -> dict:
    with Inspector(browser, bypass_csp) as ins:
        return ins.inspect(url)


def _check(info: dict, where: str, single_file: bool = False) -> None:
    url = info["url"]
    assert info["dialogs"] == [], f"{where}: dialogs opened: {info['dialogs']}"
    assert info["pwned"] is None, f"{where}: a payload ran (window.__pwned={info['pwned']})"
    assert info["csp"] == [], f"{where}: CSP violations (something tried to run or load): {info['csp'][:5]}"
    assert info["errors"] == [], f"{where}: script errors on the page: {info['errors'][:3]}"
    assert info["bad"] == [], f"{where}: live handlers or script URLs in the DOM: {info['bad'][:5]}"
    inline = [s for s in info["scripts"] if s.startswith("inline:")]
    # A single-file export carries its own script inline, allowed by its CSP hash (scan_html
    # checks each inline script against the hashes); a site page never has one.
    assert single_file or inline == [], f"{where}: inline scripts in the DOM: {inline}"
    # Only the site's own redirect (latest.html → page-NNNN.html beside it) may move the page.
    same = info["final_url"].split("#")[0] == url.split("#")[0]
    beside = re.fullmatch(re.escape(url.rsplit("/", 1)[0]) + r"/page-\d{4}\.html", info["final_url"]) is not None
    assert same or beside, f"{where}: navigated away to {info['final_url']}"


def assert_inert(url, browser, expect_text=(), bypass_too: bool = True, single_file: bool = False) -> str:
    """Assert that the page(s) at ``url`` (one URL or a list) run nothing from their text.

    Each page is loaded with its CSP and, with ``bypass_too``, again with the CSP switched off, so
    escaping alone is proven. ``expect_text``: strings that must appear literally (shown, not
    parsed) in the page — or, for a list, in at least one of them. Returns the textContent (joined).
    """
    urls = [url] if isinstance(url, str) else list(url)
    texts = []
    modes = [False, True] if bypass_too else [False]
    for bypass in modes:
        with Inspector(browser, bypass_csp=bypass) as ins:
            for u in urls:
                info = ins.inspect(u)
                _check(info, f"{u} ({'CSP bypassed' if bypass else 'with CSP'})", single_file)
                if not bypass:
                    texts.append(info["text"])
    text = "\n".join(texts)
    missing = [t for t in expect_text if t not in text]
    assert not missing, f"{urls[0] if len(urls) == 1 else f'{len(urls)} pages'}: not shown literally: {missing[:3]}"
    return text
