"""One session → one self-contained HTML file (CSS, JS and images inline; no request to any host): the
CSP allows only the inlined stylesheet and script, by hash; see docs/export.md."""

from __future__ import annotations

import base64
import hashlib
import re
import tempfile
from pathlib import Path

from markupsafe import Markup

from ccreport import __version__
from ccreport.share.export import Export, ExportError, ExportOptions, TranscriptInfo, agent_file, all_files
from ccreport.share.export import agent_link, write_text
from ccreport.source.home import Session, Transcript
from ccreport.render.markup import esc
from ccreport.share.redact import Redactor
from ccreport.model.turns import Turns
from ccreport.render.message import RenderContext, local_date, render_message
from ccreport.render.outline import export_outline
from ccreport.render.resources import asset_files, env

_BODY = "\x00ccreport-export-body\x00"
# Anchors inside an agent's section get its prefix, so #L12 of the main transcript stays unique.
_ANCHOR = re.compile(r'(id="|href="#)(L\d+")')


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def _render_transcript(ex: Export, t: Transcript, fh, prefix: str = "", turns: Turns | None = None) -> TranscriptInfo:
    """Render ``t``'s messages into ``fh``; ``turns`` (the main transcript's) gathers its prompts
    for the document's outline from the same messages, redacted and filtered as they are shown."""
    ctx = RenderContext(root="", embed=True, agent_urls=ex.agent_links, workflow_runs=ex.run_cards())
    info = TranscriptInfo()
    for no, chunk in enumerate(ex.chunks(t, info), 1):
        if turns is not None:
            turns.feed_page(chunk, no)
        ctx.page_lines = {n for m in chunk for n in m.lines}
        for m in chunk:
            html = render_message(m, ctx)
            if prefix:
                html = _ANCHOR.sub(lambda x: x.group(1) + prefix + x.group(2), html)
            fh.write(html + "\n")
    return info


def _messages(ex: Export, t: Transcript | None, fh, turns: Turns | None = None) -> TranscriptInfo:
    """The messages of a document's own transcript (None: the session has only sub-agent files)."""
    fh.write('<div class="messages" id="messages">\n')
    if t is None:
        fh.write('<p class="dim">This session has no main transcript (only sub-agent files).</p>\n')
    info = _render_transcript(ex, t, fh, turns=turns) if t is not None else TranscriptInfo()
    fh.write("</div>\n")
    return info


def export_html(session: Session, out: Path, opts: ExportOptions, redactor: Redactor | None) -> list[Path]:
    """Write the session to ``out`` (and, with --agents link, one file per agent). Returns the files."""
    ex = Export(session, opts, redactor)
    agents = ex.agents
    link = opts.agents == "link"
    ex.agent_links = {t.id: agent_link(out, t, ".html") if link else f"#agent-{t.id}" for t in agents}
    agent_rows, turns = [], Turns()
    with all_files(ex), tempfile.TemporaryFile("w+", encoding="utf-8") as body:
        info = _messages(ex, session.main, body, turns)
        for i, t in enumerate(agents, 1):
            name, desc = ex.agent_heading(t)
            if link:
                with tempfile.TemporaryFile("w+", encoding="utf-8") as agent_body:
                    ainfo = _messages(ex, t, agent_body)
                    _write_document(ex, agent_file(out, t, ".html"), agent_body, ainfo, [],
                                    f"{name} · {ex.title(ainfo)}", back=out.name)
            else:
                body.write(f'<section class="agent-transcript" id="agent-{esc(t.id)}"><h2>{esc(name)}</h2>'
                           + (f'<p class="sub">{esc(desc)}</p>' if desc else "") + '<div class="messages">\n')
                ainfo = _render_transcript(ex, t, body, prefix=f"A{i}-")
                body.write("</div></section>\n")
            agent_rows.append({"url": ex.agent_links[t.id], "name": name, "description": desc,
                               "messages": f"{ainfo.shown:,}"})
        info.outline = export_outline(turns.to_json(), info.cwd, ex.agent_links)
        _write_document(ex, out, body, info, agent_rows, ex.title(info))
    return [out] + [agent_file(out, t, ".html") for t in agents if link]


def _write_document(ex: Export, out: Path, body, info: TranscriptInfo, agent_rows: list, title: str,
                    back: str | None = None) -> None:
    """Put the header and footer, which need the title found at the end of the transcript, around the
    body (rendered into a temporary file) and write the whole to ``out``."""
    files = asset_files()
    css = files["style.css"].decode("utf-8") + "\n" + files.get("export.css", b"").decode("utf-8")
    js = files["app.js"].decode("utf-8")
    # Inlined text must not be able to end its own element early.
    if "</style" in css.lower() or "</script" in js.lower():
        raise ExportError("an asset contains a closing tag and cannot be inlined")
    omitted = ex.omitted()
    if ex.opts.agents == "none" and ex.session.agents:
        omitted.append(f"{len(ex.session.agents)} sub-agent transcripts omitted")
    if back:
        omitted.append(f"sub-agent transcript of {back}")
    html = env().get_template("export.html").render(
        title=title, session_id=ex.session.id, cwd=info.cwd or "", git_branch=info.git_branch or "",
        started=local_date(info.first_ts), last=local_date(info.last_ts), models=", ".join(info.models[:3]),
        shown=f"{info.shown:,}", redacted=ex.redactor is not None, omitted=" · ".join(omitted), agents=agent_rows,
        version=__version__, style=Markup(css), script=Markup(js), style_hash=_csp_hash(css),
        script_hash=_csp_hash(js), body=Markup(_BODY), outline=Markup(info.outline))
    head, _, tail = html.partition(_BODY)
    body.seek(0)
    write_text(ex.batch, out, head, body, tail)
