"""Links from tool calls to the home files they touched (the pages site.extras writes): a plan file
written by plan mode, the file as it was before an edit (file-history)."""

from __future__ import annotations

from pathlib import PurePath

from ccreport.render.markup import esc

PLAN_TOOLS = ("Write", "Edit", "MultiEdit", "ExitPlanMode", "exit_plan_mode")


def plan_name(path: str) -> str | None:
    """The plan file's name when ``path`` is a Claude home's ``plans/<name>.md`` (docs/formats.md F5)."""
    if not isinstance(path, str) or "plans" not in path:  # (most paths: no PurePath made for them)
        return None
    p = PurePath(path.replace("\\", "/"))
    if p.suffix != ".md" or p.parent.name != "plans" or p.parent.parent.name not in (".claude", "claude"):
        return None
    return p.name


def plan_paths(name: str, inp: dict, x: dict) -> list[str]:
    """The paths a call names that may be plan files."""
    if name not in PLAN_TOOLS:
        return []
    keys = ("filePath", "planFilePath") if name in ("ExitPlanMode", "exit_plan_mode") else ("file_path",)
    return [v for d in (inp, x) for k in keys if isinstance(v := d.get(k), str)]


def plan_link(call, inp: dict, x: dict, ctx) -> str:
    if not ctx.plan_urls:  # (a home without plan files: no call can link one)
        return ""
    for path in plan_paths(call.name, inp, x):
        name = plan_name(path)
        if name and ctx.plan_urls.get(name):
            return (f'<p><a class="plan-link" href="{esc(ctx.href(ctx.plan_urls[name]))}">'
                    f'Open the plan file {esc(name)} →</a></p>')
    return ""


def before_link(call, ctx) -> str:
    url = ctx.file_before.get(call.id)
    if not url:
        return ""
    return f'<p><a class="before-link" href="{esc(ctx.href(url))}">The file before this edit (file-history backup)</a></p>'
