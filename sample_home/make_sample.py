#!/usr/bin/env python3
"""Write sample_home/: a small, made-up Claude home that exercises every layout ccreport reads.

Run it from anywhere: ``python3 sample_home/make_sample.py``. The output is deterministic (fixed
ids, fixed clock, stored-not-compressed PNG), so running it again gives the same bytes and the
committed files can be checked against it. Nothing here is copied from a real transcript; the
shapes follow docs/formats.md.

Projects (folder = encoded cwd):

* ``-home-alice-webshop`` (Claude Code 2.1.x): sub-agent under ``<session>/subagents/`` with its
  ``.meta.json``, a compaction (``compact_boundary`` + ``isCompactSummary`` + ``agent-acompact-*``),
  a ``/btw`` side question (``agent-aside_question-*``), thinking (with text and empty-but-signed),
  a PNG pasted as base64, a malformed line, a ~300-line pytest output, German/Japanese/emoji text,
  assistant lines split per block sharing ``message.id`` with repeated (growing) usage,
  Read/Grep/Edit/Bash/TodoWrite/Write/Agent calls with their ``toolUseResult`` shapes (docs/formats.md F2),
  an ``ai-title`` line; plus an empty (0-byte) session file.
* ``-srv-bob-webshop`` (2.0.5x): a legacy project-root ``agent-<8hex>.jsonl`` whose lines carry the
  parent's ``sessionId``, a ``summary`` title line, a slash-command caveat before the first typed
  prompt, an API error reply; plus a file holding only ``summary`` lines. Its folder name ends like
  alice's project: the two must not collide.
* ``-Users-chika-dev-dotfiles`` (≤ 2.0.2): an inline ``isSidechain`` run inside the main file after
  a ``Task`` call whose prompt it repeats, the Task result after the run, Japanese text.

* ``-home-dana-atlas`` (2.1.2xx): main calls make_modern_tools.py, which writes one session of it (task
  tools, every line type/attachment/system subtype of docs/formats.md F6, the new tools); make_modern.py
  writes the project's other session (workflows, agent trees, forks, teams).

The gallery project (``-home-demo-gallery``) is written by a different script; this one leaves it alone.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import struct
import sys
import uuid
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import make_home_files  # (beside this script)

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
# Folders this script owns (and rewrites from scratch); anything else under projects/ is left alone.
OWNED = ("-home-alice-webshop", "-srv-bob-webshop", "-Users-chika-dev-dotfiles", "-home-dana-atlas")
NS = uuid.UUID("6f1c2a4e-5b7d-4c3e-9a8f-0d1e2f3a4b5c")


def uid(name: str) -> str:
    return str(uuid.uuid5(NS, name))


def hexid(name: str, n: int) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:n]


def dumps(obj) -> str:
    # Claude Code writes compact JSON with non-ASCII characters as they are.
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def png(width: int = 16, height: int = 16) -> bytes:
    """A small real PNG (an RGB gradient). Stored deflate blocks: the bytes never depend on zlib."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 16, y * 16, 160)) for y in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b"")


class Transcript:
    """Builds the lines of one JSONL file with a parentUuid chain and a steady clock."""

    def __init__(self, sid: str, cwd: str, version: str, start: str, branch: str | None = "main",
                 sidechain: bool = False, agent_id: str | None = None, split_blocks: bool = True):
        self.sid, self.cwd, self.version, self.branch = sid, cwd, version, branch
        self.sidechain, self.agent_id, self.split = sidechain, agent_id, split_blocks
        self.clock = datetime.fromisoformat(start.replace("Z", "+00:00"))
        self.lines: list[str] = []
        self.parent: str | None = None
        self.n = 0

    # --- envelope -----------------------------------------------------------------------------
    def ts(self, seconds: float = 2.0) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def env(self, etype: str, seconds: float = 2.0, parent="chain", **extra) -> dict:
        self.n += 1
        u = uid(f"{self.sid}/{self.agent_id}/{self.n}")
        e = {"parentUuid": self.parent if parent == "chain" else parent, "isSidechain": self.sidechain,
             "userType": "external", "cwd": self.cwd, "sessionId": self.sid, "version": self.version}
        if self.branch is not None:
            e["gitBranch"] = self.branch
        if self.agent_id:
            e["agentId"] = self.agent_id
        e.update(type=etype, uuid=u, timestamp=self.ts(seconds))
        e.update(extra)
        self.parent = u
        return e

    def add(self, obj) -> dict | str:
        self.lines.append(obj if isinstance(obj, str) else dumps(obj))
        return obj

    # --- entries ------------------------------------------------------------------------------
    def user(self, content, seconds: float = 20.0, parent="chain", **extra) -> dict:
        return self.add(self.env("user", seconds, parent, message={"role": "user", "content": content}, **extra))

    def assistant(self, mid: str, blocks: list, usage: dict, model: str = "claude-sonnet-4-5-20250929",
                  rid: str | None = None, stop: str | None = "end_turn", seconds: float = 3.0, **extra) -> list[dict]:
        """One API response. From 1.0.17 Claude Code writes one line per block, all sharing message.id and
        requestId, each repeating usage with output_tokens growing (docs/formats.md F1)."""
        rid = rid or "req_" + hexid(mid, 24)
        groups = [[b] for b in blocks] if self.split else [blocks]
        out = []
        for i, group in enumerate(groups):
            last = i == len(groups) - 1
            u = dict(usage)
            if not last:
                u["output_tokens"] = max(1, usage["output_tokens"] * (i + 1) // (len(groups) + 1))
            msg = {"model": model, "id": mid, "type": "message", "role": "assistant", "content": group,
                   "stop_reason": stop if (last or not self.split) else None, "stop_sequence": None, "usage": u}
            out.append(self.add(self.env("assistant", seconds if i == 0 else 0.4, requestId=rid, message=msg, **extra)))
        return out

    def result(self, call_id: str, content, extra=None, is_error: bool = False, seconds: float = 1.5) -> dict:
        block = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        kw = {"toolUseResult": extra} if extra is not None else {}
        return self.user([block], seconds=seconds, **kw)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in self.lines), encoding="utf-8")


def usage(inp: int, out: int, read: int = 0, write: int = 0) -> dict:
    return {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
            "output_tokens": out, "service_tier": "standard"}


def tool(name: str, call_id: str, **inp) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": inp}


def text(s: str) -> dict:
    return {"type": "text", "text": s}


def thinking(s: str, sig: str) -> dict:
    return {"type": "thinking", "thinking": s, "signature": base64.b64encode(hashlib.sha256(sig.encode()).digest() * 3).decode()}


# ---------------------------------------------------------------------------------------------
# Project 1: alice's webshop (2.1.x layout)
# ---------------------------------------------------------------------------------------------
CART_PY = '''"""Shopping cart and checkout."""
from decimal import Decimal


def invoice_name(customer) -> str:
    # Names go into the PDF header as Latin-1.
    return customer.full_name.encode("latin-1").decode("ascii")


def total(items) -> Decimal:
    return sum((i.price * i.qty for i in items), Decimal("0"))
'''
CART_PY_FIXED = CART_PY.replace(
    '    # Names go into the PDF header as Latin-1.\n    return customer.full_name.encode("latin-1").decode("ascii")\n',
    '    # Names go into the PDF header; keep every character (Jürgen, 山田, 🎉).\n'
    '    return unicodedata.normalize("NFC", customer.full_name)\n',
).replace("from decimal import Decimal\n", "import unicodedata\nfrom decimal import Decimal\n")


def cart_backup() -> str:
    """The file-history name of cart.py's backup before alice's Edit (<16 hex>@v<version>)."""
    return hexid("/home/alice/webshop/shop/cart.py", 16) + "@v1"


def pytest_output(n: int = 280) -> str:
    names = ["test_total_empty", "test_total_many", "test_invoice_name_ascii", "test_invoice_name_umlaut",
             "test_invoice_name_cjk", "test_invoice_name_emoji", "test_discount_rounding", "test_vat_de",
             "test_vat_at", "test_shipping_free_over_50"]
    out = ["============================= test session starts ==============================",
           "platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0 -- /home/alice/webshop/.venv/bin/python",
           "cachedir: .pytest_cache", "rootdir: /home/alice/webshop", "configfile: pyproject.toml",
           f"collected {n} items", ""]
    for i in range(n):
        mod = ["cart", "checkout", "pricing", "shipping"][i % 4]
        out.append(f"tests/test_{mod}.py::{names[i % len(names)]}[case{i:03d}] PASSED{'':>20}[{(i + 1) * 100 // n:3d}%]")
    out += ["", "============================= 280 passed in 4.21s ==============================="]
    return "\n".join(out)


def project_alice() -> None:
    pdir = PROJECTS / "-home-alice-webshop"
    cwd = "/home/alice/webshop"
    sid = uid("alice/checkout")
    t = Transcript(sid, cwd, "2.1.85", "2025-11-03T09:14:00.000Z", branch="fix/umlauts")
    t.add({"type": "permission-mode", "permissionMode": "default", "sessionId": sid})
    prompt_uuid = uid("alice/prompt1")
    t.add({"type": "file-history-snapshot", "messageId": prompt_uuid,
           "snapshot": {"messageId": prompt_uuid, "trackedFileBackups": {}, "timestamp": "2025-11-03T09:14:01.000Z"},
           "isSnapshotUpdate": False})
    first_prompt = ("Der Checkout bricht bei Umlauten ab 😬 — Kunden wie „Jürgen Müller“ bekommen einen 500er. "
                    "Kannst du dir `shop/cart.py` ansehen und das reparieren?")
    t.user(first_prompt, promptId=uid("alice/p1"), permissionMode="default")
    # One response written as three lines sharing message.id; usage repeated, output growing.
    t.assistant("msg_01AliceCheckout0001", [
        thinking("The traceback mentions UnicodeEncodeError in invoice_name. Encoding to latin-1 then decoding as "
                 "ASCII fails for ü. Let me read the file before changing anything.", "t1"),
        text("Ich schaue mir zuerst `shop/cart.py` an."),
        tool("Read", "toolu_01ReadCart", file_path=f"{cwd}/shop/cart.py"),
    ], usage(4, 96, read=11800, write=2400), stop="tool_use")
    numbered = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(CART_PY.splitlines(), 1))
    t.result("toolu_01ReadCart", numbered, {"type": "text", "file": {
        "filePath": f"{cwd}/shop/cart.py", "content": CART_PY, "numLines": CART_PY.count("\n"), "startLine": 1,
        "totalLines": CART_PY.count("\n")}})
    # Empty thinking with a signature (2.1.8x writes these), then a Grep.
    t.assistant("msg_01AliceCheckout0002", [
        thinking("", "t2"),
        tool("Grep", "toolu_01GrepLatin", pattern="latin-1|encode\\(", path=f"{cwd}/shop", output_mode="content", **{"-n": True}),
    ], usage(6, 71, read=14200, write=310), stop="tool_use")
    grep_out = "shop/cart.py:7:    return customer.full_name.encode(\"latin-1\").decode(\"ascii\")\nshop/pdf.py:31:        header = title.encode(\"latin-1\", \"replace\")"
    t.result("toolu_01GrepLatin", grep_out, {"mode": "content", "numFiles": 2, "filenames": [], "content": grep_out,
                                              "numLines": 2})
    old = '    # Names go into the PDF header as Latin-1.\n    return customer.full_name.encode("latin-1").decode("ascii")'
    new = '    # Names go into the PDF header; keep every character (Jürgen, 山田, 🎉).\n    return unicodedata.normalize("NFC", customer.full_name)'
    edit = t.assistant("msg_01AliceCheckout0003", [
        text("Gefunden: `invoice_name` kodiert nach Latin-1 und dekodiert dann als ASCII – das scheitert an jedem Umlaut."),
        tool("Edit", "toolu_01EditCart", file_path=f"{cwd}/shop/cart.py", old_string=old, new_string=new, replace_all=False),
    ], usage(6, 240, read=14600, write=420), stop="tool_use")
    # The backup of cart.py made just before the Edit (file-history/<session>/, make_home_files.py).
    t.add({"type": "file-history-snapshot", "messageId": edit[-1]["uuid"], "isSnapshotUpdate": True, "snapshot": {
        "messageId": prompt_uuid, "timestamp": "2025-11-03T09:14:01.000Z", "trackedFileBackups": {"shop/cart.py": {
            "backupFileName": cart_backup(), "version": 1, "backupTime": edit[-1]["timestamp"]}}}})
    t.result("toolu_01EditCart", f"The file {cwd}/shop/cart.py has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     5\tdef invoice_name(customer) -> str:\n     6\t    # Names go into the PDF header; keep every character (Jürgen, 山田, 🎉).\n     7\t    return unicodedata.normalize(\"NFC\", customer.full_name)", {
        "filePath": f"{cwd}/shop/cart.py", "oldString": old, "newString": new, "originalFile": CART_PY,
        "replaceAll": False, "userModified": False,
        "structuredPatch": [{"oldStart": 5, "oldLines": 3, "newStart": 5, "newLines": 3, "lines": [
            " def invoice_name(customer) -> str:",
            "-    # Names go into the PDF header as Latin-1.",
            '-    return customer.full_name.encode("latin-1").decode("ascii")',
            "+    # Names go into the PDF header; keep every character (Jürgen, 山田, 🎉).",
            '+    return unicodedata.normalize("NFC", customer.full_name)']}]})
    t.assistant("msg_01AliceCheckout0004", [
        tool("Bash", "toolu_01BashPytest", command="cd /home/alice/webshop && .venv/bin/pytest -v tests/",
             description="Run the whole test suite"),
    ], usage(8, 55, read=15100, write=600), stop="tool_use")
    out = pytest_output()
    t.result("toolu_01BashPytest", out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
    todos = [{"content": "Fix invoice_name for non-ASCII names", "status": "completed", "activeForm": "Fixing invoice_name"},
             {"content": "Check shop/pdf.py header encoding", "status": "in_progress", "activeForm": "Checking pdf.py"},
             {"content": "Add regression test for „Jürgen Müller“", "status": "pending", "activeForm": "Adding regression test"}]
    t.assistant("msg_01AliceCheckout0005", [
        tool("TodoWrite", "toolu_01Todos", todos=todos),
    ], usage(8, 130, read=27000, write=5200), stop="tool_use")
    t.result("toolu_01Todos", "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
             {"oldTodos": [], "newTodos": todos})
    # A sub-agent (2.1.x: its own file under <session>/subagents/, with a .meta.json).
    agent_id = "a" + hexid("alice/explore", 16)
    agent_prompt = ("Find every place in /home/alice/webshop that encodes or decodes customer names or PDF text "
                    "(encode(, decode(, latin-1, ascii). Report file:line and a one-sentence risk for each.")
    t.assistant("msg_01AliceCheckout0006", [
        tool("Agent", "toolu_01AgentExplore", description="Find encoding-related code", prompt=agent_prompt,
             subagent_type="Explore"),
    ], usage(8, 120, read=27500, write=300), stop="tool_use")
    agent_answer = ("Two risky spots:\n\n1. `shop/pdf.py:31` — `title.encode(\"latin-1\", \"replace\")` turns 山田 into `??`.\n"
                    "2. `shop/mail.py:12` — the subject line is built with `str.encode(\"ascii\", \"ignore\")`, dropping ü silently.")
    t.result("toolu_01AgentExplore", [text(agent_answer), text(f"agentId: {agent_id} (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 18234\ntool_uses: 3\nduration_ms: 21877</usage>")],
             {"status": "completed", "prompt": agent_prompt, "agentId": agent_id, "agentType": "Explore",
              "content": [text(agent_answer)], "totalDurationMs": 21877, "totalTokens": 18234,
              "totalToolUseCount": 3, "usage": usage(6, 412, read=17000, write=816)}, seconds=22)
    t.assistant("msg_01AliceCheckout0007", [
        text("Behoben ✅\n\n- `invoice_name` normalisiert jetzt nach NFC statt nach ASCII zu kodieren.\n"
             "- Alle 280 Tests laufen durch.\n\nDer Sub-Agent hat noch zwei ähnliche Stellen gefunden:\n\n"
             "| Datei | Problem |\n|---|---|\n| `shop/pdf.py:31` | 山田 wird zu `??` |\n| `shop/mail.py:12` | ü verschwindet |\n\n"
             "```python\nimport unicodedata\n\ndef invoice_name(customer) -> str:\n"
             "    return unicodedata.normalize(\"NFC\", customer.full_name)\n```\n\nSoll ich die auch angehen?"),
    ], usage(10, 310, read=29000, write=900))
    t.add(dict(t.env("system", 0.5, subtype="turn_duration", durationMs=61234, messageCount=17, isMeta=False)))
    # A pasted screenshot (base64 PNG) with German text.
    t.user([{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(png()).decode()}},
            text("Hier ist der Screenshot aus dem Admin-Panel – die Farben der Statusleiste stimmen auch nicht.")],
           imagePasteIds=[1])
    t.assistant("msg_01AliceCheckout0008", [
        text("Auf dem Bild sehe ich einen Verlauf von Blau nach Grün; die Statusleiste nutzt offenbar `--accent` "
             "statt `--ok`. Das schaue ich mir nach dem PDF-Fix an."),
    ], usage(1620, 64, read=29900, write=1700))
    # Claude Code was killed mid-write here: the line was cut, later lines follow on the next line.
    t.add('{"parentUuid":"' + t.parent + '","isSidechain":false,"type":"assistant","message":{"id":"msg_01AliceCheckout0009","content":[{"type":"text","text":"Ich beginne mit shop/pdf.')
    # Compaction, new style: a boundary (parentUuid null) and the summary as a user line.
    pre_leaf = t.parent
    t.add(t.env("system", 40, parent=None, subtype="compact_boundary", content="Conversation compacted", level="info",
                isMeta=False, logicalParentUuid=pre_leaf, compactMetadata={"trigger": "auto", "preTokens": 155612}))
    t.user("This session is being continued from a previous conversation that ran out of context. The summary below "
           "covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request: fix the checkout crash "
           "for customer names with umlauts (Jürgen Müller).\n2. Done: invoice_name now NFC-normalises; 280 tests pass.\n"
           "3. Open: shop/pdf.py:31 and shop/mail.py:12 still drop non-ASCII characters.",
           seconds=1, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    t.user("Danke! Bitte noch einen Regressionstest für „Jürgen Müller“, 山田太郎 und 🎉-Party GmbH.", seconds=30)
    test_src = ('import pytest\n\nfrom shop.cart import invoice_name\n\n\n@pytest.mark.parametrize("name", '
                '["Jürgen Müller", "山田太郎", "🎉-Party GmbH"])\ndef test_invoice_name_keeps_unicode(name, customer_factory):\n'
                '    assert invoice_name(customer_factory(full_name=name)) == name\n')
    t.assistant("msg_01AliceCheckout0010", [
        thinking("Parametrize over the three names the user gave; the customer_factory fixture already exists in conftest.", "t3"),
        tool("Write", "toolu_01WriteTest", file_path=f"{cwd}/tests/test_unicode_names.py", content=test_src),
    ], usage(12, 260, read=9100, write=4100), stop="tool_use")
    t.result("toolu_01WriteTest", f"File created successfully at: {cwd}/tests/test_unicode_names.py",
             {"type": "create", "filePath": f"{cwd}/tests/test_unicode_names.py", "content": test_src,
              "structuredPatch": [], "originalFile": None})
    t.assistant("msg_01AliceCheckout0011", [text("Test angelegt: `tests/test_unicode_names.py` (3 Fälle). 🎉")],
                usage(12, 30, read=9500, write=200))
    t.add({"type": "ai-title", "aiTitle": "Fix checkout crash on umlaut customer names", "sessionId": sid})
    t.add({"type": "last-prompt", "lastPrompt": "Danke! Bitte noch einen Regressionstest für „Jürgen Müller“, 山田太郎 und 🎉-Party GmbH.",
           "sessionId": sid, "leafUuid": t.parent})
    t.write(pdir / f"{sid}.jsonl")

    sub = pdir / sid / "subagents"
    # The Explore sub-agent.
    a = Transcript(sid, cwd, "2.1.85", "2025-11-03T09:17:40.000Z", branch="fix/umlauts", sidechain=True, agent_id=agent_id)
    a.user(agent_prompt, seconds=0.2)
    a.assistant("msg_01AliceExplore00001", [
        tool("Glob", "toolu_01GlobPy", pattern="**/*.py", path=cwd),
    ], usage(3, 44, read=9800, write=1200), model="claude-haiku-4-5-20251001", stop="tool_use")
    files = ["shop/__init__.py", "shop/cart.py", "shop/mail.py", "shop/pdf.py", "tests/test_cart.py"]
    a.result("toolu_01GlobPy", "\n".join(f"{cwd}/{f}" for f in files),
             {"filenames": [f"{cwd}/{f}" for f in files], "durationMs": 12, "numFiles": len(files), "truncated": False})
    a.assistant("msg_01AliceExplore00002", [
        tool("Grep", "toolu_01GrepEnc", pattern="\\.(en|de)code\\(", path=f"{cwd}/shop", output_mode="content"),
    ], usage(3, 51, read=10100, write=300), model="claude-haiku-4-5-20251001", stop="tool_use")
    hits = ('shop/cart.py:7:    return customer.full_name.encode("latin-1").decode("ascii")\n'
            'shop/mail.py:12:    subject = subject.encode("ascii", "ignore").decode()\n'
            'shop/pdf.py:31:        header = title.encode("latin-1", "replace")')
    a.result("toolu_01GrepEnc", hits, {"mode": "content", "numFiles": 3, "filenames": [], "content": hits, "numLines": 3})
    a.assistant("msg_01AliceExplore00003", [text(agent_answer)], usage(3, 180, read=10500, write=600),
                model="claude-haiku-4-5-20251001")
    a.write(sub / f"agent-{agent_id}.jsonl")
    (sub / f"agent-{agent_id}.meta.json").write_text(
        dumps({"agentType": "Explore", "description": "Find encoding-related code"}) + "\n", encoding="utf-8")

    # The compaction run (2.1.81–2.1.88): a replay plus the summarising answer.
    cid = "acompact-" + hexid("alice/compact", 16)
    c = Transcript(sid, cwd, "2.1.85", "2025-11-03T09:20:10.000Z", branch="fix/umlauts", sidechain=True, agent_id=cid)
    c.user(first_prompt, seconds=0.1)
    c.assistant("msg_01AliceCompact00001", [text("Ich schaue mir zuerst `shop/cart.py` an.")], usage(4, 12, read=11800))
    c.user("Your task is to create a detailed summary of the conversation so far, paying close attention to the "
           "user's explicit requests and your previous actions.", seconds=0.1)
    c.assistant("msg_01AliceCompact00002", [text(
        "<analysis>\nThe user reported a 500 on checkout for names with umlauts. I read cart.py, found the latin-1/ascii "
        "round trip, replaced it with NFC normalisation and ran 280 tests.\n</analysis>\n\n<summary>\n1. Primary Request: "
        "fix the checkout crash for customer names with umlauts (Jürgen Müller).\n2. Done: invoice_name now NFC-normalises.\n"
        "3. Open: shop/pdf.py:31 and shop/mail.py:12.\n</summary>")], usage(150000, 820, read=0, write=0))
    c.write(sub / f"agent-{cid}.jsonl")

    # A /btw side question (2.1.86+): replays the parent conversation, then answers.
    qid = "aside_question-" + hexid("alice/btw", 16)
    q = Transcript(sid, cwd, "2.1.86", "2025-11-03T09:19:02.000Z", branch="fix/umlauts", sidechain=True, agent_id=qid)
    q.user(first_prompt, seconds=0.1)
    q.user("/btw Was genau macht NFC-Normalisierung, und warum nicht NFKC?", seconds=0.1)
    q.assistant("msg_01AliceAside000001", [text(
        "NFC setzt zerlegte Zeichen wieder zusammen: `u` + `◌̈` wird zu `ü`. NFKC ginge weiter und würde z. B. "
        "`ﬁ` zu `fi` oder `①` zu `1` falten – für Namen auf einer Rechnung wäre das eine Verfälschung.")],
        usage(2, 95, read=12000, write=150))
    q.write(sub / f"agent-{qid}.jsonl")

    # A session that never got a line (Claude Code creates the file first): 0 bytes.
    (pdir / f"{uid('alice/empty')}.jsonl").write_bytes(b"")


# ---------------------------------------------------------------------------------------------
# Project 2: bob's webshop backend (2.0.5x layout: sub-agent files at the project root)
# ---------------------------------------------------------------------------------------------
def project_bob() -> None:
    pdir = PROJECTS / "-srv-bob-webshop"
    cwd = "/srv/bob/webshop"
    sid = uid("bob/ratelimit")
    t = Transcript(sid, cwd, "2.0.55", "2025-10-12T14:02:00.000Z", branch="main")
    t.add({"type": "summary", "summary": "Rate limiting for the public orders API", "leafUuid": uid("bob/leaf")})
    caveat = ("<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. "
              "DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly "
              "asks you to.</local-command-caveat>")
    t.user(caveat, isMeta=True)
    t.user("<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>", seconds=0.1)
    t.user("<local-command-stdout></local-command-stdout>", seconds=0.1)
    prompt = "Add per-IP rate limiting (60 req/min) to POST /api/orders. Use the existing Redis connection."
    t.user(prompt, seconds=10, thinkingMetadata={"level": "none", "disabled": True, "triggers": []}, todos=[])
    agent_id = hexid("bob/agent", 8)
    agent_prompt = "Look through /srv/bob/webshop/api for how Redis is configured and how middleware is registered. Report the file names and the relevant functions."
    t.assistant("msg_01BobRate000000001", [
        text("I'll have a sub-agent map the Redis setup and middleware registration first."),
        tool("Task", "toolu_01BobTask", description="Map Redis and middleware", prompt=agent_prompt,
             subagent_type="general-purpose"),
    ], usage(5, 140, read=8000, write=3100), model="claude-sonnet-4-5-20250929", stop="tool_use")
    report = ("Redis: `api/deps.py:get_redis()` returns a shared `redis.asyncio.Redis` from `settings.REDIS_URL`.\n"
              "Middleware: registered in `api/main.py:create_app()` via `app.add_middleware(...)`.")
    t.result("toolu_01BobTask", [text(report)], {"status": "completed", "prompt": agent_prompt, "agentId": agent_id,
                                                 "content": [text(report)], "totalDurationMs": 9120, "totalTokens": 7400,
                                                 "totalToolUseCount": 2, "usage": usage(4, 220, read=6000, write=900)},
             seconds=10)
    # An API error reply (synthetic), then the retry worked.
    t.assistant("msg_01BobRateSynthetic1", [text("API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")],
                {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
                model="<synthetic>", stop="stop_sequence", isApiErrorMessage=True)
    t.user([text("continue")], seconds=30)
    mw = ('from fastapi import Request\nfrom starlette.responses import JSONResponse\n\nLIMIT = 60\n\n\n'
          'async def rate_limit(request: Request, call_next):\n    if request.url.path == "/api/orders" and request.method == "POST":\n'
          '        key = f"rl:{request.client.host}"\n        n = await request.app.state.redis.incr(key)\n'
          '        if n == 1:\n            await request.app.state.redis.expire(key, 60)\n        if n > LIMIT:\n'
          '            return JSONResponse({"detail": "Too many requests"}, status_code=429)\n    return await call_next(request)\n')
    t.assistant("msg_01BobRate000000002", [
        tool("Write", "toolu_01BobWrite", file_path=f"{cwd}/api/ratelimit.py", content=mw),
    ], usage(6, 330, read=11200, write=700), stop="tool_use")
    t.result("toolu_01BobWrite", f"File created successfully at: {cwd}/api/ratelimit.py",
             {"type": "create", "filePath": f"{cwd}/api/ratelimit.py", "content": mw, "structuredPatch": []})
    t.assistant("msg_01BobRate000000003", [
        tool("Bash", "toolu_01BobCurl", command="for i in $(seq 1 62); do curl -s -o /dev/null -w '%{http_code}\\n' -X POST localhost:8000/api/orders; done | sort | uniq -c",
             description="Hit the endpoint 62 times"),
    ], usage(6, 90, read=11900, write=400), stop="tool_use")
    t.result("toolu_01BobCurl", "curl: (7) Failed to connect to localhost port 8000 after 0 ms: Connection refused\n     62 000",
             "Error: curl: (7) Failed to connect to localhost port 8000 after 0 ms: Connection refused", is_error=True)
    last = t.assistant("msg_01BobRate000000004", [text(
        "The server is not running, so I could not check it live. The middleware is in `api/ratelimit.py`; register it "
        "in `create_app()` with `app.middleware(\"http\")(rate_limit)` and start uvicorn to try it.")],
        usage(6, 75, read=12400, write=300))
    t.write(pdir / f"{sid}.jsonl")

    # The legacy sub-agent file at the project root: every line carries the parent's sessionId.
    a = Transcript(sid, cwd, "2.0.55", "2025-10-12T14:02:48.000Z", branch="main", sidechain=True, agent_id=agent_id)
    a.user(agent_prompt, seconds=0.2)
    a.assistant("msg_01BobAgent00000001", [tool("Grep", "toolu_01BobGrep", pattern="Redis|add_middleware", path=f"{cwd}/api",
                                                 output_mode="files_with_matches")],
                usage(3, 40, read=5000, write=800), model="claude-haiku-4-5-20251001", stop="tool_use")
    a.result("toolu_01BobGrep", "Found 2 files\n/srv/bob/webshop/api/deps.py\n/srv/bob/webshop/api/main.py",
             {"mode": "files_with_matches", "filenames": [f"{cwd}/api/deps.py", f"{cwd}/api/main.py"], "numFiles": 2})
    a.assistant("msg_01BobAgent00000002", [tool("Read", "toolu_01BobRead", file_path=f"{cwd}/api/deps.py")],
                usage(3, 30, read=5200, write=200), model="claude-haiku-4-5-20251001", stop="tool_use")
    deps = ("from functools import lru_cache\n\nimport redis.asyncio as redis\n\nfrom .settings import settings\n\n\n"
            "@lru_cache\ndef get_redis() -> redis.Redis:\n    return redis.from_url(settings.REDIS_URL)\n")
    a.result("toolu_01BobRead", "\n".join(f"{i:>6}→{ln}" for i, ln in enumerate(deps.splitlines(), 1)),
             {"type": "text", "file": {"filePath": f"{cwd}/api/deps.py", "content": deps, "numLines": 10,
                                       "startLine": 1, "totalLines": 10}})
    a.assistant("msg_01BobAgent00000003", [text(report)], usage(3, 120, read=5600, write=300), model="claude-haiku-4-5-20251001")
    a.write(pdir / f"agent-{agent_id}.jsonl")

    # A warm-up run (2.0.5x Explore agents warmed their cache): a "Warmup" prompt and its reply only.
    # The session's overview counts it ("1 warm-up run") instead of listing it as a sub-agent.
    warm_id = hexid("bob/warmup", 8)
    w = Transcript(sid, cwd, "2.0.55", "2025-10-12T14:02:01.000Z", branch="main", sidechain=True, agent_id=warm_id)
    w.user("Warmup", seconds=0.1, parent=None)
    w.assistant("msg_01BobWarmup0000001", [text("I'm ready to help you search and explore the codebase.")],
                usage(3, 20, read=0, write=4000), model="claude-haiku-4-5-20251001")
    w.write(pdir / f"agent-{warm_id}.jsonl")

    # A file that holds only summary lines (titles of sessions written elsewhere): the first names
    # the last message of the rate-limit session, which it titles (its own summary line above names
    # a message that is nowhere: it titles nothing); the others name messages no file has.
    only = pdir / f"{uid('bob/summaries')}.jsonl"
    only.write_text(dumps({"type": "summary", "summary": "Per-IP rate limit on POST /api/orders",
                           "leafUuid": last[-1]["uuid"]}) + "\n"
                    + dumps({"type": "summary", "summary": "Orders API: pagination cursor", "leafUuid": uid("bob/l1")}) + "\n"
                    + dumps({"type": "summary", "summary": "Fix flaky Redis test on CI", "leafUuid": uid("bob/l2")}) + "\n",
                    encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Project 3: chika's dotfiles (≤ 2.0.2: sub-agent lines inline in the main file)
# ---------------------------------------------------------------------------------------------
def project_chika() -> None:
    pdir = PROJECTS / "-Users-chika-dev-dotfiles"
    cwd = "/Users/chika/dev/dotfiles"
    sid = uid("chika/zsh")
    t = Transcript(sid, cwd, "2.0.0", "2025-09-20T22:40:00.000Z", branch="master")
    t.user("zshの起動が遅い（約2秒）。原因を調べて、速くしてください 🙏")
    task_prompt = ("Profile zsh startup for the dotfiles in /Users/chika/dev/dotfiles: run `zsh -i -c exit` with zprof "
                   "enabled and list the five slowest functions with their share of the time.")
    t.assistant("msg_01ChikaZsh00000001", [
        thinking("Startup time problems in zsh are usually nvm, compinit or oh-my-zsh plugins. Profiling first "
                 "beats guessing; a sub-agent can do the zprof run.", "c1"),
        tool("Task", "toolu_01ChikaTask", description="Profile zsh startup", prompt=task_prompt,
             subagent_type="general-purpose"),
    ], usage(4, 160, read=6100, write=2900), model="claude-opus-4-1-20250805", stop="tool_use")
    call_parent = t.parent
    # The inline sub-agent run: isSidechain lines, the first one a root repeating the Task prompt.
    t.sidechain = True
    t.user(task_prompt, seconds=0.3, parent=None)
    t.assistant("msg_01ChikaSide0000001", [
        tool("Bash", "toolu_01ChikaZprof", command="ZPROF=1 zsh -i -c exit 2>&1 | head -12", description="Profile startup"),
    ], usage(3, 50, read=3000, write=700), model="claude-sonnet-4-20250514", stop="tool_use")
    zprof = ("num  calls                time                       self            name\n"
             "-----------------------------------------------------------------------------------\n"
             " 1)    1        1243.10  1243.10   61.02%   1243.10  1243.10   61.02%  nvm_auto\n"
             " 2)    2         402.77   201.39   19.77%    402.77   201.39   19.77%  compinit\n"
             " 3)    1         151.02   151.02    7.41%    151.02   151.02    7.41%  _pyenv_init\n"
             " 4)    1          88.40    88.40    4.34%     88.40    88.40    4.34%  compdump\n"
             " 5)   37          42.10     1.14    2.07%     42.10     1.14    2.07%  add-zsh-hook")
    t.result("toolu_01ChikaZprof", zprof, {"stdout": zprof, "stderr": "", "interrupted": False, "isImage": False})
    side_answer = ("Slowest at startup: nvm_auto 61 % (1.24 s), compinit 20 % (called twice), _pyenv_init 7 %, "
                   "compdump 4 %, add-zsh-hook 2 %.")
    t.assistant("msg_01ChikaSide0000002", [text(side_answer)], usage(3, 70, read=3400, write=200),
                model="claude-sonnet-4-20250514")
    t.sidechain = False
    t.parent = call_parent
    t.result("toolu_01ChikaTask", [text(side_answer)], {"content": [text(side_answer)], "totalDurationMs": 14230,
                                                        "totalTokens": 6900, "totalToolUseCount": 1,
                                                        "usage": usage(3, 70, read=3400, write=200)}, seconds=1)
    t.assistant("msg_01ChikaZsh00000002", [text(
        "原因が分かりました：\n\n1. **nvm** の自動読み込みが全体の約61%（1.2秒）\n2. `compinit` が2回呼ばれています\n\n"
        "`nvm` を遅延読み込みにし、`compinit -C` を1回だけ呼ぶようにすれば、0.3秒程度まで短縮できるはずです。")],
        usage(5, 210, read=9000, write=600), model="claude-opus-4-1-20250805")
    t.user("お願いします！ ありがとう 😊", seconds=40)
    t.assistant("msg_01ChikaZsh00000003", [
        tool("Edit", "toolu_01ChikaEdit", file_path=f"{cwd}/zshrc", old_string='source "$NVM_DIR/nvm.sh"',
             new_string='nvm() { unfunction nvm; source "$NVM_DIR/nvm.sh"; nvm "$@"; }'),
    ], usage(5, 120, read=9400, write=300), model="claude-opus-4-1-20250805", stop="tool_use")
    zshrc = 'export NVM_DIR="$HOME/.nvm"\nsource "$NVM_DIR/nvm.sh"\nautoload -Uz compinit && compinit\n'
    t.result("toolu_01ChikaEdit", f"The file {cwd}/zshrc has been updated.", {
        "filePath": f"{cwd}/zshrc", "oldString": 'source "$NVM_DIR/nvm.sh"',
        "newString": 'nvm() { unfunction nvm; source "$NVM_DIR/nvm.sh"; nvm "$@"; }', "originalFile": zshrc,
        "replaceAll": False, "userModified": False,
        "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3, "lines": [
            ' export NVM_DIR="$HOME/.nvm"', '-source "$NVM_DIR/nvm.sh"',
            '+nvm() { unfunction nvm; source "$NVM_DIR/nvm.sh"; nvm "$@"; }', " autoload -Uz compinit && compinit"]}]})
    t.assistant("msg_01ChikaZsh00000004", [text("`nvm` は最初に使うときだけ読み込まれます。新しいシェルで `time zsh -i -c exit` を試してください。")],
                usage(5, 60, read=9700, write=200), model="claude-opus-4-1-20250805")
    t.write(pdir / f"{sid}.jsonl")


def main(argv: list[str]) -> int:
    for name in OWNED:
        shutil.rmtree(PROJECTS / name, ignore_errors=True)
    PROJECTS.mkdir(parents=True, exist_ok=True)
    project_alice()
    project_bob()
    project_chika()
    import make_modern  # (beside this script) the Claude Code 2.1.27x project, teams/ and tasks/ included
    import make_modern_tools  # a 2.1.2xx session of -home-dana-atlas: task tools, new line types, new tools

    make_modern.write(PROJECTS)
    make_modern_tools.main()
    make_home_files.write(HERE)
    total = sum(p.stat().st_size for name in OWNED for p in (PROJECTS / name).rglob("*") if p.is_file())
    print(f"sample_home: {sum(1 for n in OWNED for p in (PROJECTS / n).rglob('*') if p.is_file())} files, {total:,} bytes under {PROJECTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
