"""Files a session's tool-results/ folder can hold that a browser would run (issue 29, point 1): a
prompt-injected agent with Bash can write ``evil.html`` there and let the next tool output name it.

``plant_stored_scripts(home, project)`` adds a session whose outputs name such files — through a
``<persisted-output>`` note and through ``persistedOutputPath`` — and returns its id and the names.
Each file, if it ran in the ``serve`` origin, would read the transcript API and set
``window.__pwned`` (the flag tests/hostile.py's checks look for)."""

from __future__ import annotations

from pathlib import Path

from util import assistant, tool_result, user, write_jsonl

EVIL_SID = "33333333-aaaa-4bbb-8ccc-0000000000e1"
STEAL = ("fetch('/api/sessions/" + EVIL_SID + "/transcript').then(r => r.text())"
         ".then(t => { window.__pwned = 'read ' + t.length; document.title = 'PWNED ' + t.length; })"
         ".catch(() => {}); window.__pwned = window.__pwned || 'ran';")
EVIL_FILES = {
    "evil.html": f"<!doctype html><title>evil</title><script>{STEAL}</script><p>evil page</p>\n",
    "evil.svg": ('<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=\'svg\'">'
                 f"<script>{STEAL}</script><text y='20'>evil svg</text></svg>\n"),
    "evil.xhtml": ('<html xmlns="http://www.w3.org/1999/xhtml"><body><script>'
                   f"{STEAL.replace('&', '&amp;').replace('<', '&lt;')}</script></body></html>\n"),
    "evil.js": f"{STEAL}\n",
}
# Which are named by a <persisted-output> note; the others by a result's persistedOutputPath.
BY_NOTE = ("evil.html", "evil.svg")


def _note(sid: str, name: str) -> str:
    return ("<persisted-output>\nOutput too large (9KB). Full output saved to: /home/u/.claude/projects/x/"
            f"{sid}/tool-results/{name}\n\nPreview (first 2KB):\nhead of {name}\n</persisted-output>")


def plant_stored_scripts(home: Path, project: str) -> tuple[str, list[str]]:
    """The session EVIL_SID in ``home/projects/<project>`` and its tool-results files."""
    lines = [user("eu0", "run the tools", sid=EVIL_SID)]
    parent = "eu0"
    for i, name in enumerate(EVIL_FILES):
        extra = None if name in BY_NOTE else {
            "stdout": "short", "persistedOutputPath": f"/home/u/.claude/projects/x/{EVIL_SID}/tool-results/{name}"}
        lines += [
            assistant(f"ea{i}", [{"type": "tool_use", "id": f"toolu_e{i}", "name": "Bash", "input": {"command": "cat"}}],
                      parent=parent, sid=EVIL_SID, mid=f"me{i}", rid=f"re{i}"),
            tool_result(f"er{i}", f"toolu_e{i}", _note(EVIL_SID, name) if name in BY_NOTE else "short",
                        parent=f"ea{i}", sid=EVIL_SID, extra=extra),
        ]
        parent = f"er{i}"
    pdir = home / "projects" / project
    write_jsonl(pdir / f"{EVIL_SID}.jsonl", lines)
    (pdir / EVIL_SID / "tool-results").mkdir(parents=True, exist_ok=True)
    for name, body in EVIL_FILES.items():
        (pdir / EVIL_SID / "tool-results" / name).write_text(body, encoding="utf-8")
    return EVIL_SID, list(EVIL_FILES)
