"""sample_home/ is what make_sample.py writes, stays small, and holds every feature it promises."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

from util import SAMPLE_HOME

OWNED = ("-home-alice-webshop", "-srv-bob-webshop", "-Users-chika-dev-dotfiles", "-home-dana-atlas")
HOME_FILES = ("history.jsonl", "plans", "todos", "file-history", "teams", "tasks")  # make_home_files.py, make_modern.py


def _files(root: Path) -> dict[str, bytes]:
    tops = [root / "projects" / name for name in OWNED] + [root / name for name in HOME_FILES]
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for top in tops for p in sorted([top, *top.rglob("*")] if top.is_dir() else [top]) if p.is_file()}


def test_committed_files_are_what_the_generator_writes(tmp_path):
    for script in SAMPLE_HOME.glob("make_*.py"):  # make_sample.py calls the others
        shutil.copy(script, tmp_path / script.name)
    subprocess.run([sys.executable, str(tmp_path / "make_sample.py")], check=True, capture_output=True)
    fresh, committed = _files(tmp_path), _files(SAMPLE_HOME)
    assert sorted(fresh) == sorted(committed)
    for name in fresh:
        assert fresh[name] == committed[name], f"{name}: run python3 sample_home/make_sample.py and commit"


def test_sample_home_is_small():
    # The home's files, not the scripts beside them that write it.
    total = sum(p.stat().st_size for p in SAMPLE_HOME.rglob("*") if p.is_file() and p.suffix != ".py"
                and "__pycache__" not in p.parts)
    assert total < 400 * 1024


def _entries():
    for name in OWNED:
        for p in sorted((SAMPLE_HOME / "projects" / name).rglob("*.jsonl")):
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
                try:
                    yield p, n, json.loads(line)
                except ValueError:
                    yield p, n, None


def test_sample_home_holds_every_promised_feature():
    entries = list(_entries())
    objs = [o for _, _, o in entries if isinstance(o, dict)]
    assert sum(1 for _, _, o in entries if o is None) == 1  # one cut line
    assert any(o.get("subtype") == "compact_boundary" and o.get("compactMetadata") for o in objs)
    assert any(o.get("isCompactSummary") for o in objs)
    assert {o["type"] for o in objs} >= {"summary", "ai-title", "user", "assistant", "system", "file-history-snapshot"}
    # a summary line naming a message of another file (it titles that session), and a warm-up run
    own = {o.get("uuid"): p for p, _, o in entries if isinstance(o, dict) and o.get("uuid")}
    assert any(o["type"] == "summary" and own.get(o["leafUuid"]) not in (None, p) for p, _, o in entries
               if isinstance(o, dict))
    assert any(o.get("isSidechain") and o.get("message", {}).get("content") == "Warmup" for o in objs)
    blocks = [b for o in objs if isinstance(o.get("message"), dict) and isinstance(o["message"].get("content"), list)
              for b in o["message"]["content"]]
    thinking = [b for b in blocks if b.get("type") == "thinking"]
    assert any(b["thinking"] for b in thinking) and any(not b["thinking"] and b["signature"] for b in thinking)
    images = [b for b in blocks if b.get("type") == "image"]
    assert images and base64.b64decode(images[0]["source"]["data"]).startswith(b"\x89PNG\r\n\x1a\n")
    tools = {b["name"] for b in blocks if b.get("type") == "tool_use"}
    assert {"Edit", "Read", "Bash", "Grep", "TodoWrite", "Agent", "Task", "Write", "Glob"} <= tools
    shapes = {tuple(sorted(o["toolUseResult"])) for o in objs if isinstance(o.get("toolUseResult"), dict)}
    assert ("filePath", "newString", "oldString", "originalFile", "replaceAll", "structuredPatch", "userModified") in shapes
    assert ("interrupted", "isImage", "stderr", "stdout") in shapes
    assert ("newTodos", "oldTodos") in shapes
    # split assistant lines sharing message.id
    ids = [o["message"]["id"] for o in objs if o["type"] == "assistant"]
    assert any(ids.count(i) >= 3 for i in ids)
    # a long tool output, non-ASCII text
    assert any(isinstance(o.get("toolUseResult"), dict) and str(o["toolUseResult"].get("stdout", "")).count("\n") > 250
               for o in objs)
    text = "".join(json.dumps(o, ensure_ascii=False) for o in objs)
    assert "Jürgen" in text and "山田" in text and "🎉" in text
    # inline sidechain that repeats its Task prompt
    task = next(b for b in blocks if b.get("name") == "Task" and "zprof" in b["input"]["prompt"])
    assert any(o.get("isSidechain") and o.get("parentUuid") is None and o["message"]["content"] == task["input"]["prompt"]
               for o in objs if o["type"] == "user")
    # an empty session file
    assert any(p.stat().st_size == 0 for p in (SAMPLE_HOME / "projects/-home-alice-webshop").glob("*.jsonl"))
