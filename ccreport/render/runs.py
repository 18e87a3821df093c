"""Workflow runs (docs/formats.md F4) for a reader: the card a Workflow call shows of the run it
started, and the parts of the run's own page — its journal as steps, its summary, its script."""

from __future__ import annotations

from ccreport.model.workflows import Step, run_id_of
from ccreport.render.blocks import kv_table
from ccreport.render.markup import esc
from ccreport.render.tools.code import numbered


def run_card(call, ctx) -> str:
    """Under a Workflow call: the run it started, linked to the run's page (when it is in the home)."""
    if call.name != "Workflow":
        return ""
    rid = run_id_of(call)
    if rid is None:
        return ""
    run = ctx.workflow_runs.get(rid)
    if run is None:
        return f'<p class="dim">Workflow run {esc(rid)} (its files are not in this home)</p>'
    bits = [b for b in (run.get("status"), _n(run.get("steps"), "journal step"), _n(run.get("agents"), "agent")) if b]
    chips = " ".join(f'<span class="chip">{esc(b)}</span>' for b in bits)
    if run.get("url") is None:  # an export: no run page, so the run's summary here, its agents linked when exported
        agents = "".join(f' <a class="chip" href="{esc(ctx.href(ctx.agent_urls[a]))}">agent {esc(a)}</a>'
                         for a in run.get("agent_ids") or [] if a in ctx.agent_urls)
        return f'<div class="wf-card">Workflow run {esc(rid)}: {chips}{agents}</div>'
    return (f'<div class="wf-card"><a class="agent-link" href="{esc(ctx.href(run["url"]))}">'
            f'Open the workflow run {esc(rid)} →</a> {chips}</div>')


def _n(n, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}" if isinstance(n, int) else ""


def steps_html(steps: list[Step], agent_links: dict) -> str:
    """The journal, one row per line: what happened, to which step and agent, when."""
    if not steps:
        return '<p class="dim">No journal in this home.</p>'
    rows = []
    for s in steps:
        if s.raw is not None:
            rows.append(f'<li class="wf-step raw" id="J{s.line}"><code>{esc(s.raw)}</code></li>')
            continue
        agent = ""
        if s.agent_id:
            url = agent_links.get(s.agent_id)
            agent = (f' <a class="chip" href="{esc(url)}">agent {esc(s.agent_id)}</a>' if url
                     else f' <span class="chip">agent {esc(s.agent_id)}</span>')
        status = f' <span class="tstatus st-{esc(s.status)}">{esc(s.status)}</span>' if s.status else ""
        head = (f'<span class="when">{esc(s.time)}</span> <b>{esc(s.kind or "event")}</b>'
                + (f" {esc(s.name)}" if s.name else "") + agent + status)
        text = f'<div class="wf-text">{esc(s.text)}</div>' if s.text else ""
        rest = (f'<details class="raw"><summary>more fields</summary>{kv_table(s.rest)}</details>'
                if s.rest else "")
        rows.append(f'<li class="wf-step" id="J{s.line}">{head}{text}{rest}</li>')
    return f'<ol class="wf-steps">{"".join(rows)}</ol>'


def summary_html(summary: dict | None, raw: str) -> str:
    if isinstance(summary, dict) and summary:
        return kv_table(summary)
    if raw.strip():
        return f'<p class="note">The summary is not a JSON object; as written:</p><pre>{esc(raw)}</pre>'
    return '<p class="dim">No summary (the run had not finished, or its file is gone).</p>'


def script_html(text: str, name: str | None) -> str:
    if not text:
        return '<p class="dim">No script in this home.</p>'
    return numbered(text, name or "workflow.js")
