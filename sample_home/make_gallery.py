#!/usr/bin/env python3
"""Write the gallery session: ONE transcript that exercises every message and tool kind ccreport
renders specially (issue 3), in the shapes docs/formats.md F1–F3 documents.

    python3 sample_home/make_gallery.py          # rewrites sample_home/projects/-home-demo-gallery/

Deterministic: fixed ids, fixed times, images drawn in code, so the committed output only changes
when this script does. Standard library only.
"""

from __future__ import annotations

import base64
import json
import shutil
import struct
import uuid
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "-home-demo-gallery"
SID = "9a1f5c3e-7b2d-4e8f-a6c1-0d3b5e7f9a21"
AGENT = "a7c3e9f1b2d4a6c8e"
RUN = "wf_5d2e8b1c-7a3"
RUN_AGENT = "a5d2e8b1c7a3f9e04"
CWD = "/home/demo/gallery"
NS = uuid.UUID("6f0c2c1e-3d4b-4a5e-9f6a-7b8c9d0e1f2a")


def uid(name: str) -> str:
    return str(uuid.uuid5(NS, name))


# --- tiny deterministic images ------------------------------------------------------------------
def png(w: int, h: int, pixel) -> bytes:
    raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(w)) for y in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def chart_png() -> bytes:
    bars = [12, 30, 22, 38, 26, 34]

    def px(x, y):
        i = x // 20
        if i < len(bars) and x % 20 < 14 and 48 - y < bars[i]:
            return (110, 86, 207)
        return (246, 246, 244)

    return png(120, 48, px)


def screenshot_png() -> bytes:
    def px(x, y):
        if y < 8:
            return (60, 64, 72)
        if 14 <= y <= 18 and 6 <= x <= 70:
            return (29, 31, 33)
        if 24 <= y <= 26 and 6 <= x <= 90:
            return (160, 164, 170)
        return (251, 251, 250)

    return png(96, 36, px)


PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
       b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# --- the transcript ---------------------------------------------------------------------------------
class Session:
    def __init__(self, sid: str, agent: str | None = None):
        self.sid = sid
        self.agent = agent
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.clock = 0
        self.n = 0

    def ts(self) -> str:
        self.clock += 7
        m, s = divmod(self.clock, 60)
        h, m = divmod(m, 60)
        return f"2026-03-14T{9 + h:02d}:{m:02d}:{s:02d}.000Z"

    def env(self, kind: str, **kw) -> dict:
        self.n += 1
        u = uid(f"{self.agent or 'main'}-{self.n}")
        e = {"parentUuid": self.parent, "isSidechain": self.agent is not None, "userType": "external", "cwd": CWD,
             "sessionId": self.sid, "version": "2.1.90", "gitBranch": "main", "type": kind, "uuid": u,
             "timestamp": self.ts()}
        if self.agent:
            e["agentId"] = self.agent
        e.update(kw)
        self.lines.append(e)
        self.parent = u
        return e

    def user(self, content, **kw) -> dict:
        return self.env("user", message={"role": "user", "content": content}, **kw)

    def assistant(self, blocks, usage=(1200, 180, 9000, 300), model="claude-opus-4-6", **kw) -> list[dict]:
        """One API response, written one line per block as Claude Code does (docs/formats.md F1)."""
        self.n += 0
        mid = f"msg_{uid('m' + str(self.n))[:20].replace('-', '')}"
        rid = f"req_{uid('r' + str(self.n))[:20].replace('-', '')}"
        out = []
        for i, b in enumerate(blocks):
            inp, outp, cr, cw = usage
            out.append(self.env("assistant", requestId=rid, message={
                "model": model, "id": mid, "type": "message", "role": "assistant", "content": [b],
                "stop_reason": ("tool_use" if b.get("type") == "tool_use" else "end_turn") if i == len(blocks) - 1 else None,
                "stop_sequence": None,
                "usage": {"input_tokens": inp, "output_tokens": outp, "cache_read_input_tokens": cr,
                          "cache_creation_input_tokens": cw, "service_tier": "standard"}}, **kw))
        return out

    def call(self, name: str, inp: dict, content, extra=None, is_error=False, text_before: str | None = None,
             usage=(900, 120, 14000, 0)):
        tid = f"toolu_{uid('t' + str(self.n) + name)[:24].replace('-', '')}"
        blocks = ([{"type": "text", "text": text_before}] if text_before else []) + [
            {"type": "tool_use", "id": tid, "name": name, "input": inp}]
        self.assistant(blocks, usage=usage)
        e = self.user([{"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": is_error}])
        if extra is not None:
            e["toolUseResult"] = extra
        return tid

    def system(self, subtype: str, **kw) -> dict:
        return self.env("system", subtype=subtype, **kw)

    def raw(self, obj: dict) -> None:
        self.lines.append(obj)


APP_PY = '''"""Tiny inventory service used by the gallery."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    count: int = 0

    def restock(self, n: int) -> None:
        if n <= 0:
            raise ValueError("restock by a positive amount")
        self.count += n


def total(items: list[Item]) -> int:
    return sum(i.count for i in items)
'''

REPORT_PY = "\n".join([
    '"""Build the weekly stock report (written by the assistant in the gallery)."""',
    "",
    "import csv",
    "import sys",
    "from pathlib import Path",
    "",
    "from app import Item, total",
    "",
] + [f"{name.upper()}_LIMIT = {n * 10}  # re-order threshold for {name}" for n, name in enumerate(
    ["apples", "pears", "plums", "figs", "dates", "limes", "kiwis", "mangos", "grapes", "lemons",
     "cherries", "peaches", "melons", "papayas", "guavas", "quinces", "apricots", "olives", "nuts", "beans"], 1)] + [
    "",
    "",
    "def load(path: Path) -> list[Item]:",
    "    with path.open(newline='') as fh:",
    "        return [Item(row['name'], int(row['count'])) for row in csv.DictReader(fh)]",
    "",
    "",
    "def main(argv: list[str]) -> int:",
    "    items = load(Path(argv[1]))",
    "    low = [i for i in items if i.count < 10]",
    "    print(f'{len(items)} items, {total(items)} in stock, {len(low)} low')",
    "    for i in low:",
    "        print(f'  low: {i.name} ({i.count})')",
    "    return 1 if low else 0",
    "",
    "",
    "if __name__ == '__main__':",
    "    sys.exit(main(sys.argv))",
    ""])


def numbered(text: str, start: int = 1) -> str:
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.split("\n"), start))


def main_session() -> Session:
    s = Session(SID)
    # Slash command with its caveat and output (FORMAT §10.1), ANSI colours in the output.
    s.user("<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. "
           "DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks "
           "you to.</local-command-caveat>", isMeta=True)
    s.user("<command-name>/model</command-name>\n            <command-message>model</command-message>\n"
           "            <command-args>opus</command-args>")
    s.user("<local-command-stdout>Set model to \x1b[1mopus (claude-opus-4-6)\x1b[22m \x1b[32m✔\x1b[39m</local-command-stdout>")
    s.user([{"type": "text", "text": "<ide_opened_file>The user opened the file /home/demo/gallery/app.py in the IDE. "
                                     "This may or may not be related to the current task.</ide_opened_file>"},
            {"type": "text", "text": "The inventory service needs a weekly stock report. Look at app.py, fix restock so it "
                                     "refuses zero, and write a report script. Here is the chart from last week and the spec."},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(chart_png())}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)},
             "title": "stock-report-spec.pdf"}])
    s.assistant([{"type": "thinking", "thinking": "The user wants three things: a fix in `restock`, a new report script, "
                  "and a check against the chart. I'll read the file first.", "signature": "EuYBCkQIBxgCKkB" + "x" * 40},
                 {"type": "text", "text": "I'll start by reading **app.py** and making a plan:\n\n1. read the code\n2. fix "
                                          "`restock`\n3. write `report.py`\n\n```python\nItem('figs').restock(0)  # should raise\n```"}])
    s.call("TodoWrite", {"todos": [
        {"content": "Read app.py", "status": "completed", "activeForm": "Reading app.py"},
        {"content": "Fix restock to refuse zero", "status": "in_progress", "activeForm": "Fixing restock"},
        {"content": "Write report.py", "status": "pending", "activeForm": "Writing report.py"}]},
        "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
        {"oldTodos": [], "newTodos": []})
    # Today's Claude Code (docs/formats.md F6): the task board, a Workflow run and a teammate's message.
    s.call("TaskList", {}, "#1 [in_progress] Read and fix app.py (demo)\n#2 [pending] Write report.py",
           {"tasks": [{"id": "1", "subject": "Read and fix app.py", "status": "in_progress", "owner": "demo", "blockedBy": []},
                      {"id": "2", "subject": "Write report.py", "status": "pending", "blockedBy": ["1"]}]})
    s.call("Workflow", {"workflow": "stock-check", "args": {"week": 11}},
           f"Workflow stock-check completed (run {RUN}): 2 agents, counts match.", {"runId": RUN, "status": "completed"})
    s.user('Another Claude session sent a message:\n<teammate-message teammate_id="checker" color="orange" '
           'summary="Counts verified">\nThe counts in `stock.csv` match the warehouse export for week 11.\n'
           "</teammate-message>", teamName="stock", origin={"kind": "peer", "from": "checker"})
    lines = APP_PY.rstrip("\n").split("\n")
    s.call("Read", {"file_path": f"{CWD}/app.py"},
           numbered(APP_PY.rstrip("\n")) + "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it "
           "would be considered malware.\n</system-reminder>\n",
           {"type": "text", "file": {"filePath": f"{CWD}/app.py", "content": APP_PY, "numLines": len(lines),
                                     "startLine": 1, "totalLines": len(lines)}})
    part = "\n".join(lines[9:14])
    s.call("Read", {"file_path": f"{CWD}/app.py", "offset": 10, "limit": 5}, numbered(part, 10),
           {"type": "text", "file": {"filePath": f"{CWD}/app.py", "content": part, "numLines": 5, "startLine": 10,
                                     "totalLines": len(lines)}})
    shot = screenshot_png()
    s.call("Read", {"file_path": f"{CWD}/docs/screen.png"},
           [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(shot)}}],
           {"type": "image", "file": {"base64": b64(shot), "type": "image/png", "originalSize": len(shot)}})
    s.call("Edit", {"file_path": f"{CWD}/app.py", "old_string": "        if n <= 0:", "new_string": "        if n < 1:"},
           f"The file {CWD}/app.py has been updated successfully.",
           {"filePath": f"{CWD}/app.py", "oldString": "        if n <= 0:", "newString": "        if n < 1:",
            "originalFile": APP_PY, "replaceAll": False, "userModified": False,
            "structuredPatch": [{"oldStart": 11, "oldLines": 5, "newStart": 11, "newLines": 5, "lines": [
                "     def restock(self, n: int) -> None:", "-        if n <= 0:", "+        if n < 1:",
                '             raise ValueError("restock by a positive amount")', "         self.count += n"]}]})
    s.call("MultiEdit", {"file_path": f"{CWD}/app.py", "edits": [
        {"old_string": '"""Tiny inventory service used by the gallery."""', "new_string": '"""Inventory service."""'},
        {"old_string": "def total(items: list[Item]) -> int:\n    return sum(i.count for i in items)",
         "new_string": "def total(items: list[Item]) -> int:\n    \"\"\"Units in stock.\"\"\"\n    return sum(i.count for i in items)"}]},
        f"Applied 2 edits to {CWD}/app.py")
    s.call("Write", {"file_path": f"{CWD}/report.py", "content": REPORT_PY}, f"File created successfully at: {CWD}/report.py",
           {"type": "create", "filePath": f"{CWD}/report.py", "content": REPORT_PY, "structuredPatch": []})
    s.call("Write", {"file_path": f"{CWD}/stock.csv", "content": "name,count\nfigs,3\nplums,40\n"},
           f"The file {CWD}/stock.csv has been updated.",
           {"type": "update", "filePath": f"{CWD}/stock.csv", "content": "name,count\nfigs,3\nplums,40\n",
            "originalFile": "name,count\nfigs,12\n", "structuredPatch": [
                {"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 3,
                 "lines": [" name,count", "-figs,12", "+figs,3", "+plums,40"]}]})
    # Shell: coloured output and stderr, a failure with its exit code, background, interrupted, PowerShell.
    out = "\x1b[1m============ test session starts ============\x1b[0m\ncollected 3 items\n\ntests/test_app.py \x1b[32m...\x1b[0m\n\n\x1b[32m===== 3 passed in 0.02s =====\x1b[0m"
    s.call("Bash", {"command": "python -m pytest -q tests/", "description": "Run the test suite"}, out + "\nDeprecationWarning: csv dialect",
           {"stdout": out, "stderr": "DeprecationWarning: csv dialect", "interrupted": False, "isImage": False})
    s.call("Bash", {"command": "python report.py stock.csv", "description": "Run the report on the sample stock"},
           "Exit code 1\n2 items, 43 in stock, 1 low\n  low: figs (3)", {"stdout": "", "stderr": "", "interrupted": False,
                                                                        "isImage": False}, is_error=True)
    s.call("Bash", {"command": "python -m http.server 8000", "description": "Serve the report folder",
                    "run_in_background": True},
           "Command running in background with ID: b81f2c. Output is being written to: /tmp/claude/b81f2c.output",
           {"stdout": "", "stderr": "", "interrupted": False, "isImage": False, "backgroundTaskId": "b81f2c"})
    s.call("BashOutput", {"bash_id": "b81f2c"},
           "<status>running</status>\n\n<stdout>\nServing HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...\n</stdout>\n\n<timestamp>2026-03-14T09:05:00.000Z</timestamp>",
           {"shellId": "b81f2c", "command": "python -m http.server 8000", "status": "running", "exitCode": None,
            "stdout": "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...", "stderr": "", "stdoutLines": 1,
            "stderrLines": 0, "timestamp": "2026-03-14T09:05:00.000Z"})
    s.call("Bash", {"command": "sleep 600 && make bench", "description": "Long benchmark"},
           "Command was interrupted by the user", {"stdout": "", "stderr": "", "interrupted": True, "isImage": False})
    s.call("PowerShell", {"command": "Get-ChildItem -Recurse *.py | Measure-Object -Line", "description": "Count lines (Windows)"},
           "Lines Words Characters Property\n----- ----- ---------- --------\n   61",
           {"stdout": "Lines Words Characters Property\n----- ----- ---------- --------\n   61", "stderr": "",
            "interrupted": False, "isImage": False})
    big = "\n".join(f"row {i:05d}: figs,{i % 17}" for i in range(400))
    s.call("Bash", {"command": "python report.py --dump stock.csv", "description": "Dump every row"},
           f"<persisted-output>\nOutput too large (13.9KB). Full output saved to: /home/demo/.claude/projects/-home-demo-gallery/"
           f"{SID}/tool-results/toolu_dump01.txt\n\nPreview (first 2KB):\n" + big[:2000] + "\n...\n</persisted-output>",
           {"stdout": "", "stderr": "", "interrupted": False, "isImage": False,
            "persistedOutputPath": f"/home/demo/.claude/projects/-home-demo-gallery/{SID}/tool-results/toolu_dump01.txt",
            "persistedOutputSize": len(big)})
    # Search tools.
    s.call("Grep", {"pattern": "restock", "output_mode": "files_with_matches"}, "Found 2 files\napp.py\ntests/test_app.py",
           {"mode": "files_with_matches", "filenames": ["app.py", "tests/test_app.py"], "numFiles": 2})
    s.call("Grep", {"pattern": "def \\w+", "path": "app.py", "output_mode": "content", "-n": True},
           "app.py:10:    def restock(self, n: int) -> None:\napp.py:16:def total(items: list[Item]) -> int:",
           {"mode": "content", "numFiles": 0, "filenames": [], "numLines": 2,
            "content": "app.py:10:    def restock(self, n: int) -> None:\napp.py:16:def total(items: list[Item]) -> int:"})
    s.call("Glob", {"pattern": "**/*.py"}, f"{CWD}/app.py\n{CWD}/report.py\n{CWD}/tests/test_app.py",
           {"filenames": [f"{CWD}/app.py", f"{CWD}/report.py", f"{CWD}/tests/test_app.py"], "durationMs": 4,
            "numFiles": 3, "truncated": False})
    s.call("LS", {"path": CWD}, f"- {CWD}/\n  - app.py\n  - report.py\n  - stock.csv\n  - tests/\n    - test_app.py\n\n"
                              "NOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work.")
    # Task lists.
    s.call("TaskCreate", {"subject": "Publish the report", "description": "Copy `report.html` to the shared drive every Monday.",
                          "activeForm": "Publishing the report"}, "Task #1 created successfully: Publish the report",
           {"task": {"id": "1", "subject": "Publish the report"}})
    s.call("TaskUpdate", {"taskId": "1", "status": "in_progress", "owner": "demo"}, "Updated task #1 owner, status",
           {"success": True, "taskId": "1", "updatedFields": ["owner", "status"],
            "statusChange": {"from": "pending", "to": "in_progress"}})
    s.call("TaskList", {}, "#1 [in_progress] Publish the report (demo)\n#2 [pending] Archive old reports",
           {"tasks": [{"id": "1", "subject": "Publish the report", "status": "in_progress", "owner": "demo", "blockedBy": []},
                      {"id": "2", "subject": "Archive old reports", "status": "pending", "blockedBy": ["1"]}]})
    s.call("TaskGet", {"taskId": "2"}, "Task #2: Archive old reports",
           {"task": {"id": "2", "subject": "Archive old reports", "description": "Move reports older than a year.",
                     "status": "pending", "blocks": [], "blockedBy": ["1"]}})
    s.call("TaskOutput", {"task_id": "bg41", "block": True}, "report.html written (12 KB)",
           {"retrieval_status": "success", "task": {
               "task_id": "bg41", "task_type": "local_bash", "status": "completed", "description": "Build the report",
               "output": "report.html written (12 KB)\n", "exitCode": 0}})
    s.call("TaskStop", {"task_id": "bg41"}, "Successfully stopped task: bg41",
           {"message": "Successfully stopped task: bg41", "task_id": "bg41", "task_type": "local_bash"})
    # Scheduling (2.1.2xx tools).
    s.call("CronCreate", {"cron": "0 8 * * 1", "prompt": "Publish the weekly stock report", "recurring": True},
           "Scheduled job cron_2 (every Monday at 08:00)", {"id": "cron_2", "humanSchedule": "every Monday at 08:00"})
    # The web.
    s.call("WebSearch", {"query": "python csv DictReader newline parameter"},
           'Web search results for query: "python csv DictReader newline parameter"\n\nLinks: [{"title":"csv — CSV File '
           'Reading and Writing","url":"https://docs.python.org/3/library/csv.html"}]\n\nThe csv docs say files should be '
           "opened with `newline=''` so that quoted newlines are read correctly.",
           {"query": "python csv DictReader newline parameter", "durationSeconds": 2.4,
            "results": [{"tool_use_id": "srvtoolu_demo", "content": [
                {"title": "csv — CSV File Reading and Writing", "url": "https://docs.python.org/3/library/csv.html"}]}]})
    s.call("WebFetch", {"url": "https://docs.python.org/3/library/csv.html", "prompt": "What does newline='' do?"},
           "# csv and newlines\n\nIf `newline=''` is not specified, newlines embedded inside quoted fields will not be "
           "interpreted correctly.",
           {"bytes": 84213, "code": 200, "codeText": "OK", "durationMs": 1830, "url": "https://docs.python.org/3/library/csv.html",
            "result": "# csv and newlines\n\nIf `newline=''` is not specified, newlines embedded inside quoted fields will "
                      "not be interpreted correctly."})
    # A sub-agent (its own transcript under subagents/).
    prompt = "Review report.py for edge cases: empty CSV, missing columns, negative counts. Report findings as a list."
    s.call("Agent", {"description": "Review report.py edge cases", "subagent_type": "code-reviewer", "prompt": prompt},
           [{"type": "text", "text": "Findings:\n\n- an **empty CSV** prints `0 items` and exits 0 — fine\n- a missing "
                                     "`count` column raises `KeyError`: catch it and name the column\n- negative counts are "
                                     "accepted silently"},
            {"type": "text", "text": f"agentId: {AGENT} (use SendMessage with to: '{AGENT}' to continue this agent)\n"
                                     "<usage>total_tokens: 18234\ntool_uses: 2\nduration_ms: 15400</usage>"}],
           {"status": "completed", "prompt": prompt, "agentId": AGENT, "agentType": "code-reviewer",
            "content": [{"type": "text", "text": "Findings: …"}], "totalDurationMs": 15400, "totalTokens": 18234,
            "totalToolUseCount": 2, "usage": {"input_tokens": 3, "output_tokens": 410},
            "toolStats": {"readCount": 1, "searchCount": 1, "bashCount": 0, "editFileCount": 0, "linesAdded": 0,
                          "linesRemoved": 0, "otherToolCount": 0}})
    s.call("SendMessage", {"to": AGENT, "summary": "also check quoting", "message": "One more: does `load` cope with "
                                                                                    "**quoted commas** in names?"},
           [{"type": "text", "text": json.dumps({"success": True, "message": f"Message sent to {AGENT}'s inbox",
                                                 "routing": {"sender": "main", "target": f"@{AGENT}"}})}],
           {"success": True, "message": f"Message sent to {AGENT}'s inbox", "routing": {"sender": "main", "target": f"@{AGENT}"}})
    # Questions, plans, skills, deferred tools, MCP, an unknown tool, a hallucinated one.
    s.call("AskUserQuestion", {"questions": [
        {"question": "Where should the report be published?", "header": "Destination", "multiSelect": False,
         "options": [{"label": "Shared drive", "description": "Copy to /mnt/shared/reports"},
                     {"label": "Email", "description": "Send to the stock team"}]},
        {"question": "Which formats?", "header": "Formats", "multiSelect": True,
         "options": [{"label": "HTML", "description": "A web page"}, {"label": "CSV", "description": "Raw rows"},
                     {"label": "PDF", "description": "Printable"}]}]},
        'User has answered your questions: "Where should the report be published?"="Shared drive", "Which formats?"="HTML, CSV". '
        "You can now continue with the user's answers in mind.",
        {"questions": [], "answers": {"Where should the report be published?": "Shared drive", "Which formats?": "HTML, CSV"}})
    plan = ("## Plan: weekly stock report\n\n1. Add `--html` output to **report.py**\n2. Schedule it with cron every Monday\n"
            "3. Copy the page to `/mnt/shared/reports`\n\n| step | owner |\n|---|---|\n| code | assistant |\n| cron | demo |")
    s.call("ExitPlanMode", {"plan": plan}, "User has approved your plan. You can now start coding.",
           {"plan": plan, "isAgent": False, "filePath": "/home/demo/.claude/plans/weekly-stock-report.md"})
    s.call("Skill", {"skill": "pdf", "args": "render report.html"}, "Launching skill: pdf",
           {"success": True, "commandName": "pdf", "allowedTools": ["Bash", "Read"]})
    s.user([{"type": "text", "text": "Base directory for this skill: /home/demo/.claude/skills/pdf\n\n# PDF skill\n\nUse "
                                     "`chromium --headless --print-to-pdf` to turn an HTML page into a PDF."}],
           isMeta=True, sourceToolUseID="toolu_skill")
    s.call("ToolSearch", {"query": "select:mcp__github__create_issue", "max_results": 1},
           [{"type": "tool_reference", "tool_name": "mcp__github__create_issue"}],
           {"matches": ["mcp__github__create_issue"], "query": "select:mcp__github__create_issue", "total_deferred_tools": 41})
    s.call("mcp__github__create_issue", {"owner": "demo", "repo": "gallery", "title": "Negative stock counts accepted",
                                         "body": "report.py accepts negative counts silently.", "labels": ["bug", "report"]},
           [{"type": "text", "text": json.dumps({"number": 42, "html_url": "https://github.com/demo/gallery/issues/42",
                                                 "state": "open", "user": {"login": "demo"}})}],
           [{"type": "text", "text": "{\"number\": 42}"}])
    s.call("NotebookEdit", {"notebook_path": f"{CWD}/explore.ipynb", "cell_id": "c3", "edit_mode": "replace",
                            "new_source": "df.describe()"}, "Updated cell c3 with df.describe()")
    s.call("glob", {"pattern": "*.csv"}, "<tool_use_error>Error: No such tool available: glob</tool_use_error>",
           "Error: No such tool available: glob", is_error=True)
    s.call("Edit", {"file_path": f"{CWD}/stock.csv", "old_string": "figs,3", "new_string": "figs,30"},
           "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
           "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
           "Error: The user doesn't want to proceed with this tool use.", is_error=True)
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    # Bash mode (!cmd), a hook, a background task notification.
    s.user("<bash-input>git status --short</bash-input>")
    s.user("<bash-stdout> M app.py\n?? report.py\n?? stock.csv</bash-stdout><bash-stderr></bash-stderr>")
    s.user("<user-prompt-submit-hook>Reminder from the team hook: run the tests before committing.</user-prompt-submit-hook>")
    s.raw({"type": "queue-operation", "operation": "enqueue", "timestamp": s.ts(), "sessionId": SID,
           "content": "<task-notification>\n<task-id>b81f2c</task-id>\n<status>completed</status>\n<summary>Background "
                      "command \"python -m http.server 8000\" completed (exit code 0)</summary>\n</task-notification>"})
    s.env("attachment", attachment={"type": "hook_success", "hookName": "PostToolUse:Bash", "toolUseID": "toolu_serve",
                                    "hookEvent": "PostToolUse", "content": "", "stdout": "formatted 2 files\n",
                                    "stderr": "", "exitCode": 0, "command": "~/.claude/hooks/format.sh", "durationMs": 210})
    s.user("<task-notification>\n<task-id>b81f2c</task-id>\n<tool-use-id>toolu_serve</tool-use-id>\n<output-file>/tmp/claude/"
           "b81f2c.output</output-file>\n<status>completed</status>\n<summary>Background command \"python -m http.server 8000\" "
           "completed (exit code 0)</summary>\n</task-notification>", origin={"kind": "task-notification"})
    s.system("stop_hook_summary", hookCount=1, hookInfos=[{"command": "~/.claude/hooks/check-tests.sh"}], hookErrors=[],
             preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion")
    s.system("turn_duration", durationMs=184000, messageCount=58, isMeta=False)
    newer_lines(s)
    # Errors: a retried API call and a synthetic API-error reply; thinking that was not recorded.
    s.system("api_error", level="error", error={"status": 529, "error": {"type": "overloaded_error", "message": "Overloaded"}},
             retryInMs=2000, retryAttempt=1, maxRetries=10)
    s.assistant([{"type": "text", "text": "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                                          "\"message\":\"Overloaded\"}}"}], usage=(0, 0, 0, 0), model="<synthetic>",
                isApiErrorMessage=True, error="server_error", apiErrorStatus=529)
    s.user("Try again, and keep it short.")
    s.assistant([{"type": "thinking", "thinking": "", "signature": "EqQBCkgIBxABGAIqQK" + "y" * 40},
                 {"type": "text", "text": "Done: `restock` refuses zero, `report.py` exists and flags **figs** as low."}],
                usage=(4, 96, 31000, 1200))
    s.user([{"type": "text", "text": "[Request interrupted by user]"}])
    # Compaction: divider, then the folded summary.
    boundary = s.system("compact_boundary", content="Conversation compacted", level="info", isMeta=False,
                        logicalParentUuid=s.parent, compactMetadata={"trigger": "auto", "preTokens": 151234})
    boundary["parentUuid"] = None
    s.user("This session is being continued from a previous conversation that ran out of context. The summary below covers "
           "the earlier portion of the conversation.\n\nSummary:\n1. Primary request: a weekly stock report.\n2. Done: "
           "restock fixed, report.py written, plan approved.\n3. Next: publish to the shared drive.",
           isCompactSummary=True, isVisibleInTranscriptOnly=True)
    s.user("Thanks — that's all for today.")
    s.assistant([{"type": "text", "text": "You're welcome. The report runs with `python report.py stock.csv`."}],
                usage=(6, 22, 2400, 0))
    # Bookkeeping lines (folded together).
    s.raw({"type": "ai-title", "aiTitle": "Gallery: every kind ccreport renders", "sessionId": SID})
    s.raw({"type": "last-prompt", "lastPrompt": "Thanks — that's all for today.", "sessionId": SID})
    return s


def newer_lines(s: Session) -> None:
    """Claude Code 2.1.2xx lines (docs/formats.md F8): a message a hook shows the user, a
    response's effort and the plugin and MCP server it came through, a call auto mode denied, a stream
    cut off and the prompt that interrupted it, an artifact's frame link."""
    s.user("Publish the report to the team's page.")
    s.env("attachment", attachment={"type": "hook_system_message", "hookName": "UserPromptSubmit",
                                    "hookEvent": "UserPromptSubmit", "toolUseID": "hook_publish_1",
                                    "content": "Reminder: the shared drive is read-only on Fridays."})
    s.assistant([{"type": "text", "text": "I'll copy it with the publish plugin's command."}],
                effort="high", attributionPlugin="publish-tools")
    s.call("Bash", {"command": "rsync report.html drive:/reports/", "description": "Copy the report to the drive"},
           "Permission to use Bash with command rsync report.html drive:/reports/ has been denied.",
           "Error: Permission to use Bash has been denied.", is_error=True)
    s.lines[-1]["toolDenialKind"] = "automode-blocked"
    s.assistant([{"type": "text", "text": "Filing an issue for the drive instead."}], effort="high",
                attributionMcpServer="github", attributionMcpTool="create_issue")
    cut = s.assistant([{"type": "text", "text": "The report has 42 rows; here they are as a table:\n\n| name | count |\n"
                                                 "|---|---|\n| figs | 3 |"}], isAbortedMidStream=True)
    s.user([{"type": "text", "text": "[Request interrupted by user]"}], interruptedMessageId=cut[0]["message"]["id"])
    s.raw({"type": "frame-link", "frameUrl": "https://claude.ai/code/artifact/art_01GalleryReport", "sessionId": SID,
           "timestamp": s.ts()})


def agent_session() -> Session:
    a = Session(SID, agent=AGENT)
    a.user("Review report.py for edge cases: empty CSV, missing columns, negative counts. Report findings as a list.")
    a.call("Read", {"file_path": f"{CWD}/report.py", "limit": 12}, numbered("\n".join(REPORT_PY.split("\n")[:12])),
           {"type": "text", "file": {"filePath": f"{CWD}/report.py", "content": "\n".join(REPORT_PY.split("\n")[:12]),
                                     "numLines": 12, "startLine": 1, "totalLines": REPORT_PY.count("\n")}})
    a.call("Grep", {"pattern": "int\\(row", "path": "report.py", "output_mode": "content"},
           "report.py:33:        return [Item(row['name'], int(row['count'])) for row in csv.DictReader(fh)]",
           {"mode": "content", "numFiles": 0, "filenames": [], "numLines": 1,
            "content": "report.py:33:        return [Item(row['name'], int(row['count'])) for row in csv.DictReader(fh)]"})
    a.assistant([{"type": "text", "text": "Findings:\n\n- an **empty CSV** prints `0 items` and exits 0 — fine\n- a missing "
                                          "`count` column raises `KeyError`: catch it and name the column\n- negative counts "
                                          "are accepted silently"}], model="claude-sonnet-4-6")
    # 2.1.2xx: a Read cut short inside the sub-agent, and the findings reported back through ReportFindings.
    a.env("attachment", attachment={"type": "read_truncation_notice", "toolUseID": "toolu_read_cut",
                                    "banner": "Output truncated: showing lines 1-12 of 52. Use offset to read more."})
    a.call("ReportFindings", {"summary": "Two of three edge cases need a fix.", "findings": [
        {"title": "Missing `count` column raises KeyError", "severity": "medium", "file": "report.py", "line": 33,
         "description": "Catch the `KeyError` and name the missing column."},
        {"title": "Negative counts are accepted", "severity": "low", "file": "report.py", "line": 33,
         "description": "Reject rows with `count < 0`."}]}, "Findings reported.")
    return a


def write(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for e in lines:
            fh.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")


def workflow_run() -> None:
    """The files of the Workflow call's run (docs/formats.md F4): one agent, the journal, summary and script."""
    wdir, sdir = PROJECT / SID / "subagents" / "workflows" / RUN, PROJECT / SID / "workflows"
    a = Session(SID, agent=RUN_AGENT)
    a.user("Compare the counts in stock.csv with the warehouse export for week 11.")
    a.assistant([{"type": "text", "text": "All 42 counts match the warehouse export."}], model="claude-sonnet-4-6")
    # (2.1.2xx: a Workflow agent ends with StructuredOutput; its input is the step's result)
    a.call("StructuredOutput", {"matched": 42, "mismatched": 0, "note": "All counts match the **week 11** export."},
           "Structured output provided successfully")
    write(wdir / f"agent-{RUN_AGENT}.jsonl", a.lines)
    (wdir / f"agent-{RUN_AGENT}.meta.json").write_text(
        json.dumps({"agentType": "workflow-step", "description": "stock-check step compare"}) + "\n", encoding="utf-8")
    write(wdir / "journal.jsonl", [
        {"ts": "2026-03-14T09:03:00.000Z", "type": "run_start", "workflow": "stock-check"},
        {"ts": "2026-03-14T09:03:01.000Z", "type": "step_start", "step": "compare", "agentId": RUN_AGENT},
        {"ts": "2026-03-14T09:03:30.000Z", "type": "step_end", "step": "compare", "agentId": RUN_AGENT,
         "status": "completed", "message": "42 of 42 counts match"},
        {"ts": "2026-03-14T09:03:31.000Z", "type": "run_end", "status": "completed"}])
    (sdir / "scripts").mkdir(parents=True, exist_ok=True)
    (sdir / f"{RUN}.json").write_text(json.dumps({"runId": RUN, "workflowName": "stock-check", "status": "completed",
                                                   "durationMs": 31000}, indent=2) + "\n", encoding="utf-8")
    (sdir / "scripts" / f"stock-check-{RUN}.js").write_text(
        "export default async function run({ agent, args }) {\n"
        "  return agent('compare', `Compare stock.csv with the warehouse export for week ${args.week}.`);\n}\n",
        encoding="utf-8")


def main() -> None:
    if PROJECT.exists():
        shutil.rmtree(PROJECT)
    write(PROJECT / f"{SID}.jsonl", main_session().lines)
    write(PROJECT / SID / "subagents" / f"agent-{AGENT}.jsonl", agent_session().lines)
    (PROJECT / SID / "subagents" / f"agent-{AGENT}.meta.json").write_text(
        json.dumps({"agentType": "code-reviewer", "description": "Review report.py edge cases"}) + "\n", encoding="utf-8")
    workflow_run()
    tr = PROJECT / SID / "tool-results"
    tr.mkdir(parents=True, exist_ok=True)
    (tr / "toolu_dump01.txt").write_text("\n".join(f"row {i:05d}: figs,{i % 17}" for i in range(400)) + "\n", encoding="utf-8")
    print(f"wrote {PROJECT.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
