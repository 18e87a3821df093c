"""The tools of Claude Code 2.1.140+ (docs/formats.md F7) that have no family of their own: Workflow,
Monitor, Cron*, Artifact, SendUserFile, SendFeedback, ListAgents, SubagentHandback, Enter/ExitWorktree,
TeamCreate/TeamDelete. Their input shapes vary between versions, so each view reads its fields by a
list of names and shows what it did not read in a table: nothing is lost, nothing is a JSON dump."""

from __future__ import annotations

from ccreport.render.blocks import kv_table
from ccreport.render.markup import esc, highlight, markdown
from ccreport.render.tools.base import (as_str, generic_result, path_html, rest_table, short, small_result,
                                        tool_summary)

# tool → (keys shown as chips, key of a long text shown as markdown, key of code shown highlighted)
_SPEC = {
    "Workflow": (("status", "runId"), "description", "script"),
    "Monitor": (("timeout_ms", "timeout", "persistent"), "description", "command"),
    "CronCreate": (("cron", "schedule", "recurring", "durable"), "prompt", None),
    "CronDelete": ((), None, None),
    "CronList": ((), None, None),
    "Artifact": (("type", "language", "url"), "content", None),
    "SendUserFile": (("mime_type", "mimeType"), "message", None),
    "SendFeedback": (("type", "category", "rating"), "feedback", None),
    "ListAgents": ((), None, None),
    "SubagentHandback": (("status",), "summary", None),
    "EnterWorktree": (("branch", "base"), None, None),
    "ExitWorktree": (("action", "keep"), None, None),
    "TeamCreate": (("agent_type",), "description", None),
    "TeamDelete": ((), None, None),
}
NAMES = tuple(_SPEC)


def _chips(inp: dict, keys, words: str = "") -> str:
    """Chips for the keys set in inp, but for a value the summary's words already say."""
    bits = [f'<span class="chip">{esc(k)}: {esc(short(as_str(inp[k]), 60))}</span>'
            for k in keys if inp.get(k) not in (None, "", [], {}) and as_str(inp[k]) not in words]
    return (" " + " ".join(bits)) if bits else ""


def _body(call, inp: dict, spec) -> str:
    chips, long_key, code_key = spec
    body = ""
    if code_key and isinstance(inp.get(code_key), str) and inp[code_key]:
        lang = "javascript" if call.name == "Workflow" else "bash"
        body += highlight(inp[code_key], lang=lang)
    if long_key and isinstance(inp.get(long_key), str) and inp[long_key]:
        body += f'<div class="md">{markdown(inp[long_key])}</div>'
    # The key whose value is the summary's words is shown there; every other key stays in the table.
    words = tool_summary(call)
    shown = set(chips) | {long_key, code_key} | {k for k, v in inp.items() if isinstance(v, str) and v and v == words}
    return body + rest_table(inp, shown)


def _result(call, x: dict, ctx) -> str | None:
    """The result's text (small when short), then what its structured result adds: an address, a path,
    a table of the rest."""
    r = call.result
    if r is None or r.is_error:
        return None
    said = small_result(call, ctx) or generic_result(r, ctx)
    if not x:
        return said
    if isinstance(x.get("url"), str):
        # A published artifact's address: shown as text (the site links nothing outside itself).
        return said + f'<p class="rinfo">Published at <code>{esc(x["url"])}</code></p>' + rest_table(x, ("url",))
    if isinstance(x.get("worktreePath"), str):
        return said + f'<p class="rinfo">Worktree {path_html(x["worktreePath"])}</p>' + rest_table(x, ("worktreePath",))
    return said + kv_table(x)


def v_modern(call, inp: dict, x: dict, ctx):
    spec = _SPEC[call.name]
    words = tool_summary(call)
    summary = (f"<code>{esc(short(words, 120))}</code>" if words else "") + _chips(inp, spec[0], as_str(words))
    if call.name in ("CronList", "ListAgents"):
        items = next((x[k] for k in ("jobs", "crons", "agents", "teammates") if isinstance(x.get(k), list)), None)
        if items is not None:
            summary += f' <span class="dim">{len(items)} listed</span>'
    if call.name == "Workflow":
        summary += _chips(x, ("status", "runId"))
    return summary, _body(call, inp, spec), _result(call, x, ctx)
