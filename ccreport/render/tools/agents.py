"""Task/Agent (sub-agents), AskUserQuestion, ExitPlanMode, Skill and SendMessage."""

from __future__ import annotations

import re

from ccreport.render.blocks import kv_table
from ccreport.render.markup import esc, markdown, source_fold
from ccreport.render.tools.base import (as_str, chip_line, generic_result, path_html, plural, questions,
                                        rest_table, result_text, short, text_only, tool_summary)
from ccreport.render.tools.homelinks import plan_link


_AGENT_TRAILER = re.compile(r"\n*agentId: (\S+)[^\n]*(?:\n[\w]+: [^\n]*)*\s*(?:<usage>(.*?)</usage>)?\s*$", re.S)


def v_task(call, inp: dict, x: dict, ctx):
    atype = as_str(inp.get("subagent_type") or x.get("agentType"))
    summary = esc(short(tool_summary(call), 100)) + (f' <span class="chip">{esc(atype)}</span>' if atype else "")
    if inp.get("name"):
        summary += f' <span class="dim">as {esc(inp["name"])}</span>'
    prompt = as_str(inp.get("prompt"))
    body = (f'<details class="prompt-fold"><summary>Prompt ({len(prompt):,} characters)</summary>'
            f'<div class="md">{markdown(prompt)}</div></details>')
    body += rest_table(inp, ("description", "subagent_type", "prompt", "name"))
    agent_id = x.get("agentId")
    if isinstance(agent_id, str) and agent_id in ctx.agent_urls:
        body += (f'<p><a class="agent-link" href="{esc(ctx.href(ctx.agent_urls[agent_id]))}">'
                 f'Open the sub-agent transcript ({esc(agent_id)}) →</a></p>')
    elif call.sidechain_line and call.sidechain_line in ctx.page_lines:
        body += f'<p><a class="agent-link" href="#L{call.sidechain_line}">Sub-agent run below (line {call.sidechain_line}) ↓</a></p>'
    elif isinstance(agent_id, str):
        where = "not in this export" if ctx.embed else "its transcript is not in this home"
        body += f'<p class="dim">Sub-agent {esc(agent_id)} ({where})</p>'
    return summary, body, _agent_result(call, x, ctx) if call.result is not None else None


def _agent_result(call, x: dict, ctx) -> str:
    """How the sub-agent run went (time, tokens, tool uses, changes), then its final answer."""
    r = call.result
    bits = []
    if isinstance(x.get("totalDurationMs"), (int, float)):
        bits.append(f"{x['totalDurationMs'] / 1000:,.1f} s")
    if isinstance(x.get("totalTokens"), int):
        bits.append(f"{x['totalTokens']:,} tokens")
    if isinstance(x.get("totalToolUseCount"), int):
        bits.append(plural(x["totalToolUseCount"], "tool use"))
    ts = x.get("toolStats") if isinstance(x.get("toolStats"), dict) else {}
    if ts.get("linesAdded") or ts.get("linesRemoved"):
        bits.append(f'+{esc(ts.get("linesAdded", 0))} −{esc(ts.get("linesRemoved", 0))} lines')
    if x.get("status"):
        bits.append(esc(x["status"]))
    if x.get("wasInterrupted"):
        bits.append("interrupted")
    if x.get("isAsync"):
        bits.append("launched in the background" + (f' → {esc(x["outputFile"])}' if x.get("outputFile") else ""))
    if x.get("worktreeBranch"):
        bits.append(f'branch {esc(x["worktreeBranch"])}')
    stats = chip_line(bits)
    if text_only(r) and not r.is_error:
        text = result_text(r)
        m = _AGENT_TRAILER.search(text)
        trailer = ""
        if m and m.start() > 0:
            trailer = text[m.start():].strip()
            text = text[: m.start()]
        res = stats + f'<div class="lbl">Final answer</div><div class="md">{markdown(text)}</div>' + (
            f'<p class="trailer">{esc(trailer)}</p>' if trailer else "")
    else:
        res = stats + generic_result(r, ctx)
    if ts:
        res += '<p class="dim">' + esc(" · ".join(f"{k}: {v}" for k, v in ts.items())) + "</p>"
    return res


def v_ask(call, inp: dict, x: dict, ctx):
    qs = questions(inp, x)
    answers = x.get("answers") if isinstance(x.get("answers"), dict) else {}
    summary = esc(short(tool_summary(call), 120))
    if not isinstance(qs, list):
        q = as_str(inp.get("question"))
        return summary, f'<div class="md">{markdown(q)}</div>' if q else kv_table(inp), None
    out = []
    for q in qs:
        if not isinstance(q, dict):
            out.append(f"<li>{esc(q)}</li>")
            continue
        text = as_str(q.get("question"))
        ans = answers.get(text)
        chosen = {a.strip() for a in as_str(ans).split(",")} if ans is not None else set()
        opts = []
        for o in q.get("options") or []:
            label = as_str(o.get("label")) if isinstance(o, dict) else as_str(o)
            d = as_str(o.get("description")) if isinstance(o, dict) else ""
            picked = label in chosen or label == ans
            opts.append(f'<li class="opt{" picked" if picked else ""}">{"☑" if picked else "☐"} <b>{esc(label)}</b>'
                        f'{" — " + esc(d) if d else ""}</li>')
        other = f'<p class="answer">Answer: {esc(ans)}</p>' if ans is not None and not any("picked" in o for o in opts) else ""
        head = f'<span class="chip">{esc(q["header"])}</span> ' if q.get("header") else ""
        multi = ' <span class="dim">(several allowed)</span>' if q.get("multiSelect") else ""
        out.append(f'<li class="question"><p>{head}{esc(text)}{multi}</p><ul class="opts">{"".join(opts)}</ul>{other}</li>')
    if len(qs) > 1:
        summary += f' <span class="dim">+{len(qs) - 1} more</span>'
    res = None
    if answers:
        # The answers are ticked above; the tool's own sentence stays, small, as the model read it.
        said = result_text(call.result) if call.result is not None and text_only(call.result) else ""
        res = f'<p class="confirm">{esc(said) if said else plural(len(answers), "answer") + " given (marked ☑ above)."}</p>'
    return summary, f'<ol class="questions">{"".join(out)}</ol>', res


def v_plan(call, inp: dict, x: dict, ctx):
    plan = as_str(inp.get("plan") or x.get("plan"))
    summary = esc(short(tool_summary(call), 120))
    body = f'<div class="md plan">{markdown(plan)}</div>' if plan else kv_table(inp)
    if x.get("filePath"):
        body += f'<p class="dim">Saved to {path_html(as_str(x["filePath"]), ctx)}</p>'
    return summary, body + plan_link(call, inp, x, ctx), None


def v_skill(call, inp: dict, x: dict, ctx):
    summary = f'<span class="cmd">{esc(tool_summary(call))}</span>' + (f' <code>{esc(short(as_str(inp.get("args")), 100))}</code>' if inp.get("args") else "")
    body = rest_table(inp, ("skill", "command", "args"))
    if isinstance(x.get("allowedTools"), list) and x["allowedTools"]:
        body += '<p class="dim">allowed tools: ' + " ".join(f'<span class="chip">{esc(t)}</span>' for t in x["allowedTools"]) + "</p>"
    return summary, body, None


def v_send_message(call, inp: dict, x: dict, ctx):
    to = tool_summary(call)
    summary = (f'to <b>{esc(to)}</b>' if to else "") + (f' <span class="dim">— {esc(short(as_str(inp.get("summary")), 100))}</span>' if inp.get("summary") else "")
    msg = as_str(inp.get("message") or inp.get("content"))
    body = f'<div class="md">{markdown(msg)}</div>' if msg else ""
    body += rest_table(inp, ("to", "recipient", "summary", "message", "content"))
    res = None
    if x and call.result is not None and not call.result.is_error:
        ok = x.get("success")
        routing = x.get("routing") if isinstance(x.get("routing"), dict) else {}
        res = (f'<p class="confirm">{"✓" if ok else "✗"} {esc(as_str(x.get("message")))}'
               + (f' <span class="dim">{esc(as_str(routing.get("sender")))} → {esc(as_str(routing.get("target")))}</span>' if routing else "")
               + "</p>" + source_fold(result_text(call.result)))
    return summary, body, res
