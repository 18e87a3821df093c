"""The home files of sample_home/ beside the transcripts (docs/formats.md F5), written by make_sample.py
after the transcripts: ``history.jsonl`` (the typed prompts of the sample sessions, one prompt typed
but never answered, a slash command, and a session whose transcript is gone: "prompts only", with a
pasted text), ``plans/weekly-stock-report.md`` (the plan the gallery's ExitPlanMode saved),
``todos/<session>-agent-<session>.json`` (alice's last checklist) and the file-history backup of
``shop/cart.py`` that alice's Edit made (named by the ``file-history-snapshot`` line after it).
Deterministic: fixed ids and times.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

OWNED = ("history.jsonl", "plans", "todos", "file-history")


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _typed(path: Path) -> list[tuple[str, str, str, str]]:
    """(text, time, cwd, session) of the prompts a person typed in a transcript."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        content = o.get("message", {}).get("content") if o.get("type") == "user" and not (o.get("isMeta") or o.get("isCompactSummary")) else None
        if isinstance(content, list):
            content = next((b.get("text") for b in content if b.get("type") == "text"), None) \
                if not any(b.get("type") == "tool_result" for b in content) else None
        if isinstance(content, str) and not content.startswith("<") and not o.get("isSidechain"):
            out.append((content, o["timestamp"], o["cwd"], o["sessionId"]))
    return out


def _line(display: str, ts: int, cwd: str, sid: str, pasted: dict | None = None) -> str:
    return json.dumps({"display": display, "pastedContents": pasted or {}, "timestamp": ts, "project": cwd,
                       "sessionId": sid}, ensure_ascii=False, separators=(",", ":"))


def history(home: Path, uid) -> str:
    lines = []
    for rel in ("-srv-bob-webshop/8155b4cc-d7e0-5ee8-8948-ff41164d3048.jsonl",
                "-home-alice-webshop/4ebd3ba9-3ae8-58e0-b978-920a51c240d3.jsonl"):
        for text, ts, cwd, sid in _typed(home / "projects" / rel):
            lines.append(_line(text, _ms(ts) - 40, cwd, sid))
    alice = uid("alice/checkout")
    last = _ms("2025-11-03T09:20:00.000Z")
    lines.append(_line("/model", last - 60_000, "/home/alice/webshop", alice))
    # Typed after the last line of alice's transcript: Claude Code quit before writing it.
    lines.append(_line("Und bitte auch die <Rechnung>-PDFs prüfen & die Tests laufen lassen.", last, "/home/alice/webshop", alice))
    gone = uid("alice/deleted-refund")
    paste = "Traceback (most recent call last):\n  File \"shop/refund.py\", line 12\nKeyError: 'iban'"
    lines.append(_line("Refunds fail for SEPA customers, see: [Pasted text #1 +3 lines]", _ms("2025-10-28T16:02:11.000Z"),
                       "/home/alice/webshop", gone, {"1": {"id": 1, "type": "text", "content": paste}}))
    lines.append(_line("Add a test for a missing IBAN <script>alert(1)</script>", _ms("2025-10-28T16:09:40.000Z"),
                       "/home/alice/webshop", gone))
    lines.append(_line("Draft the release notes for 1.4", _ms("2025-10-30T08:00:00.000Z"), "/home/dana/blog",
                       uid("dana/release-notes")))
    return "".join(line + "\n" for line in lines)


PLAN = """# Plan: weekly stock report

1. Add `--html` output to **report.py**
2. Schedule it with cron every Monday
3. Copy the page to `/mnt/shared/reports`

<b>HTML in a plan stays text.</b>
"""


def write(here: Path) -> None:
    import shutil

    import make_sample as ms  # (the caller: its ids and the original cart.py)

    for name in OWNED:
        p = here / name
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    (here / "history.jsonl").write_text(history(here, ms.uid), encoding="utf-8")
    (here / "plans").mkdir()
    (here / "plans" / "weekly-stock-report.md").write_text(PLAN, encoding="utf-8")
    alice = ms.uid("alice/checkout")
    todos = [{"content": "Fix invoice_name for non-ASCII names", "status": "completed", "activeForm": "Fixing invoice_name"},
             {"content": "Add regression test for „Jürgen Müller“", "status": "completed", "activeForm": "Adding regression test"},
             {"content": "Check shop/pdf.py <header> encoding", "status": "in_progress", "activeForm": "Checking pdf.py"}]
    (here / "todos").mkdir()
    (here / "todos" / f"{alice}-agent-{alice}.json").write_text(json.dumps(todos, ensure_ascii=False, indent=2), encoding="utf-8")
    (here / "todos" / f"{ms.uid('bob/empty')}-agent-{ms.uid('bob/empty')}.json").write_text("[]", encoding="utf-8")
    backups = here / "file-history" / alice
    backups.mkdir(parents=True)
    (backups / ms.cart_backup()).write_text(ms.CART_PY, encoding="utf-8")
