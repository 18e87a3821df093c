"""`ccreport export`: find the session, choose where the output goes, run one format writer; returns
the lines the CLI prints on stderr."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ccreport.layout import site_name
from ccreport.render.markup import human_size
from ccreport.share.export import ExportError, ExportOptions, check_output
from ccreport.share.html import export_html
from ccreport.share.markdown import export_md
from ccreport.share.redact import Redactor
from ccreport.share.summary import export_summary
from ccreport.source.home import Catalog
from ccreport.source.locate import find_session


def run_export(home: Path, spec: str, out: str | None, opts: ExportOptions, stdout=None,
               catalog: Catalog | None = None) -> list[str]:
    """``catalog``: the home's merged with a site's archive (source.archive.with_archive), so a
    session the home lost is exported from the archive; default: the home's."""
    session = find_session(home, spec, catalog=catalog)
    redactor = Redactor(patterns=list(opts.patterns)) if opts.redact else None
    to_stdout = out == "-" or (out is None and opts.format == "md")
    if to_stdout and opts.agents == "link" and not opts.summary:  # a summary has no agent files
        raise ExportError("--agents link writes one file per agent: give -o FILE (or use inline/none)")
    if not to_stdout and out is not None:
        check_output(out)
    if opts.summary:
        files = export_summary(session, None if to_stdout else Path(out), opts, redactor, stdout=stdout or sys.stdout)
        notes = [f"wrote {f} ({len(f.read_text(encoding='utf-8')):,} characters)" for f in files] or [
            "wrote the summary to stdout"]
    elif opts.format == "html" and to_stdout:
        with tempfile.TemporaryDirectory(prefix="ccreport-export-") as tmp:
            path = Path(tmp) / f"{site_name(session.id)}.html"
            export_html(session, path, opts, redactor)
            stream = stdout or sys.stdout
            stream.write(path.read_text(encoding="utf-8"))
            stream.flush()
            notes = [f"wrote {human_size(path.stat().st_size)} of HTML to stdout"]
    elif opts.format == "html":
        path = Path(out) if out else Path(f"{site_name(session.id)}.html")  # fits one file name
        files = export_html(session, path, opts, redactor)
        notes = [f"wrote {f} ({human_size(f.stat().st_size)})" for f in files]
    elif to_stdout:
        parts = export_md(session, None, opts, redactor, stdout=stdout or sys.stdout)
        notes = [f"wrote {parts} Markdown part{'s' if parts != 1 else ''} to stdout"]
    else:
        files = export_md(session, Path(out), opts, redactor)
        notes = [f"wrote {f} ({len(f.read_text(encoding='utf-8')):,} characters, {f.stat().st_size:,} bytes)"
                 for f in files]
    notes.append(redactor.summary() if redactor is not None
                 else "redaction is off (--no-redact): check the output before sharing it")
    return notes
