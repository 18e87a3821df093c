"""One session → one self-contained HTML file (CSS, JS and images inline; no request to any host).

The CSP allows only the inlined stylesheet and script, by hash; see docs/export.md.
"""

from __future__ import annotations

import base64
import hashlib
import re
import tempfile
from pathlib import Path

from markupsafe import Markup

from ccreport import __version__
from ccreport.share.export import (ExportError, ExportOptions, TranscriptInfo, agent_file, agent_heading, agents_to_export,
                                   session_title, transcript_chunks, write_text)
from ccreport.source.home import Session, Transcript
from ccreport.render.markup import esc
from ccreport.share.redact import Redactor
from ccreport.render.message import RenderContext, local_date, render_message
from ccreport.render.resources import asset_files, env

_BODY = "\x00ccreport-export-body\x00"
# Anchors inside an agent's section get its prefix, so #L12 of the main transcript stays unique.
_ANCHOR = re.compile(r'(id="|href="#)(L\d+")')


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def inline_assets() -> tuple[str, str]:
    files = asset_files()
    css = files["style.css"].decode("utf-8") + "\n" + files.get("export.css", b"").decode("utf-8")
    js = files["app.js"].decode("utf-8")
    # Inlined text must not be able to end its own element early.
    if "</style" in css.lower() or "</script" in js.lower():
        raise ExportError("an asset contains a closing tag and cannot be inlined")
    return css, js


def _render_transcript(t: Transcript, opts: ExportOptions, redactor: Redactor | None, ctx: RenderContext,
                       fh, prefix: str = "") -> TranscriptInfo:
    info = TranscriptInfo()
    for chunk in transcript_chunks(t, opts, redactor, info):
        ctx.page_lines = {n for m in chunk for n in m.lines}
        for m in chunk:
            html = render_message(m, ctx)
            if prefix:
                html = _ANCHOR.sub(lambda x: x.group(1) + prefix + x.group(2), html)
            fh.write(html)
            fh.write("\n")
    return info


def export_html(session: Session, out: Path, opts: ExportOptions, redactor: Redactor | None) -> list[Path]:
    """Write the session to ``out`` (and, with --agents link, one file per agent). Returns the files."""
    agents = agents_to_export(session, opts)
    written: list[Path] = []
    if opts.agents == "link":
        urls = {t.id: agent_file(out, t, ".html").name for t in agents}
    else:
        urls = {t.id: f"#agent-{t.id}" for t in agents}
    ctx = RenderContext(root="", embed=True, agent_urls=urls)
    agent_rows = []
    with tempfile.TemporaryFile("w+", encoding="utf-8") as body:
        body.write('<div class="messages" id="messages">\n')
        if session.main is not None:
            info = _render_transcript(session.main, opts, redactor, ctx, body)
        else:
            info = TranscriptInfo()
            body.write('<p class="dim">This session has no main transcript (only sub-agent files).</p>\n')
        body.write("</div>\n")
        for i, t in enumerate(agents, 1):
            name, desc = agent_heading(t, redactor)
            if opts.agents == "inline":
                body.write(f'<section class="agent-transcript" id="agent-{esc(t.id)}"><h2>{esc(name)}</h2>'
                           + (f'<p class="sub">{esc(desc)}</p>' if desc else "") + '<div class="messages">\n')
                actx = RenderContext(root="", embed=True, agent_urls=urls)
                ainfo = _render_transcript(t, opts, redactor, actx, body, prefix=f"A{i}-")
                body.write("</div></section>\n")
            else:
                aout = urls[t.id]
                ainfo = _export_agent_file(session, t, out.with_name(aout), opts, redactor, urls, out.name)
                written.append(out.with_name(aout))
            agent_rows.append({"url": urls[t.id], "name": name, "description": desc, "messages": f"{ainfo.shown:,}"})
        head, tail = _frame(session, info, opts, redactor, agent_rows, session_title(session, info))
        _write_framed(out, head, body, tail)
    written.insert(0, out)
    return written


def _write_framed(out, head: str, body, tail: str) -> None:
    """Write head + the rendered body (kept in a temporary file while rendering) + tail to ``out``."""
    body.seek(0)
    write_text(out, head + body.read() + tail)


def _export_agent_file(session, t, out, opts, redactor, urls, parent_name) -> TranscriptInfo:
    ctx = RenderContext(root="", embed=True, agent_urls=urls)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as body:
        body.write('<div class="messages" id="messages">\n')
        info = _render_transcript(t, opts, redactor, ctx, body)
        body.write("</div>\n")
        name, desc = agent_heading(t, redactor)
        head, tail = _frame(session, info, opts, redactor, [], f"{name} · {session_title(session, info)}",
                            back=parent_name)
        _write_framed(out, head, body, tail)
    return info


def _frame(session: Session, info: TranscriptInfo, opts: ExportOptions, redactor: Redactor | None,
           agent_rows: list, title: str, back: str | None = None) -> tuple[str, str]:
    css, js = inline_assets()
    omitted = []
    if not opts.thinking:
        omitted.append("thinking omitted")
    if not opts.tools:
        omitted.append("tool calls omitted")
    if opts.agents == "none" and session.agents:
        omitted.append(f"{len(session.agents)} sub-agent transcripts omitted")
    if back:
        omitted.append(f"sub-agent transcript of {back}")
    html = env().get_template("export.html").render(
        title=title, session_id=session.id, cwd=info.cwd or "", git_branch=info.git_branch or "",
        started=local_date(info.first_ts), last=local_date(info.last_ts), models=", ".join(info.models[:3]),
        shown=f"{info.shown:,}", redacted=redactor is not None, omitted=" · ".join(omitted), agents=agent_rows,
        version=__version__, style=Markup(css), script=Markup(js), style_hash=_csp_hash(css),
        script_hash=_csp_hash(js), body=Markup(_BODY))
    head, _, tail = html.partition(_BODY)
    return head, tail
