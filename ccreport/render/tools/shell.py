"""Bash, PowerShell and BashOutput: the command, then its output as a terminal shows it."""

from __future__ import annotations

import re

from ccreport.render.conventions import output_text, tag_text
from ccreport.render.markup import esc, highlight, source_fold
from ccreport.render.tools.base import as_str, chips, result_text, short, tool_summary


# Chips for what a call asked for and for how it ran: (key, label with {} for the value, warning?).
_FLAGS = (("run_in_background", "background", False), ("timeout", "timeout {} ms", False),
          ("dangerouslyDisableSandbox", "sandbox off", True))
_HOW_IT_RAN = (("interrupted", "interrupted", True), ("backgroundTaskId", "background task {}", False),
               ("assistantAutoBackgrounded", "moved to background", False), ("returnCodeInterpretation", "{}", False))
_WHAT_CAME = (("status", "{}", False), ("isImage", "image output", False))


def v_bash(call, inp: dict, x: dict, ctx):
    cmd = tool_summary(call)
    desc = as_str(inp.get("description"))
    summary = f'<code class="cmdline">{esc(short(cmd))}</code>' + (f' <span class="dim">— {esc(short(desc, 100))}</span>' if desc else "")
    flags = chips(inp, _FLAGS)
    lang = "powershell" if call.name == "PowerShell" else "bash"
    body = (f'<p class="dim">{esc(desc)}</p>' if desc and len(desc) > 100 else "") + highlight(cmd, lang=lang) + (
        f'<p>{" ".join(flags)}</p>' if flags else "")
    return summary, body, _shell_result(call, x, ctx)


def _shell_result(call, x: dict, ctx) -> str | None:
    r = call.result
    if r is None or not ("stdout" in x or "stderr" in x):
        return None
    parts = []
    out, err = as_str(x.get("stdout")), as_str(x.get("stderr"))
    text = result_text(r)
    if out:
        parts.append(output_text(out, ctx, "term"))
    if err:
        parts.append('<div class="lbl">stderr</div>' + output_text(err, ctx, "term err"))
    if not out and not err:
        # Nothing structured: the tool_result text holds the message ("(Bash completed with no
        # output)", "Exit code 1 …", a <persisted-output> note).
        parts.append(output_text(text, ctx, "term err" if r.is_error else "term") if text else '<p class="dim">(no output)</p>')
    elif r.is_error and text and text.strip() not in (out.strip(), err.strip()):
        parts.insert(0, output_text(text, ctx, "out err"))
    info = chips(x, _HOW_IT_RAN)
    code = re.match(r"Exit code (-?\d+)", text) if r.is_error else None
    if code and not isinstance(x.get("exitCode"), int):
        info.append(f'<span class="chip warnchip">exit {code.group(1)}</span>')
    if isinstance(x.get("exitCode"), int):
        info.append(f'<span class="chip{" warnchip" if x["exitCode"] else ""}">exit {x["exitCode"]}</span>')
    info += chips(x, _WHAT_CAME)
    return (f'<p class="rinfo">{" ".join(info)}</p>' if info else "") + "".join(parts)


def v_bash_output(call, inp: dict, x: dict, ctx):
    cmd = as_str(x.get("command"))
    summary = f'shell <code>{esc(tool_summary(call))}</code>' + (f' <code class="cmdline">{esc(short(cmd, 100))}</code>' if cmd else "")
    if inp.get("filter"):
        summary += f' <span class="dim">filter {esc(short(inp["filter"], 60))}</span>'
    res = _shell_result(call, x, ctx)
    if res is None and call.result is not None:
        # Older results carry only the tagged text: <status>, <exit_code>, <stdout>, <stderr>.
        t = result_text(call.result)
        tags = {k: tag_text(k, t) for k in ("status", "exit_code", "stdout", "stderr", "timestamp")}
        if tags["stdout"] is not None or tags["stderr"] is not None or tags["status"] is not None:
            info = "".join(f'<span class="chip">{esc(k.replace("_", " "))} {esc(tags[k].strip())}</span> '
                           for k in ("status", "exit_code") if tags[k])
            res = (f'<p class="rinfo">{info}</p>' if info else "") + (
                output_text(tags["stdout"].strip("\n"), ctx, "term", source=False) if tags["stdout"] else "") + (
                '<div class="lbl">stderr</div>' + output_text(tags["stderr"].strip("\n"), ctx, "term err", source=False)
                if tags["stderr"] and tags["stderr"].strip() else "") + source_fold(t)
    return summary, "", res
