"""`ccreport export --gist`: publish an export as a GitHub Gist through the GitHub CLI (`gh`), which
holds the user's login; ccreport never sees a token. The export is written to a temporary folder
(redacted unless --no-redact, like any export), and every file of it goes into one gist: the HTML
file, or the Markdown parts (and the agent files of --agents link). Secret unless --public."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ccreport.share.export import ExportError, ExportOptions
from ccreport.share.run import run_export
from ccreport.source.home import Catalog
from ccreport.source.locate import find_session

GH_TIMEOUT = 300  # seconds for `gh gist create` (an upload of a few MB)
_URL = re.compile(r"https://\S+")


def _gh() -> str:
    """The `gh` to run, logged in; else an ExportError saying what to do."""
    gh = shutil.which("gh")
    if gh is None:
        raise ExportError("--gist needs the GitHub CLI: install gh (https://cli.github.com), run `gh auth login`, "
                          "and try again")
    try:
        status = subprocess.run([gh, "auth", "status"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExportError(f"cannot run gh auth status ({exc}): check that gh works, then try again") from None
    if status.returncode != 0:
        raise ExportError("gh is not logged in to GitHub: run `gh auth login`, then try again")
    return gh


def _create(gh: str, files: list[Path], description: str, public: bool) -> str:
    argv = [gh, "gist", "create", "--desc", description] + (["--public"] if public else []) + [str(f) for f in files]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=GH_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExportError(f"gh gist create did not finish ({exc}): try again, or export with -o FILE") from None
    urls = _URL.findall(done.stdout)
    if done.returncode != 0 or not urls:
        why = (done.stderr.strip().splitlines() or ["no gist URL printed"])[-1]
        raise ExportError(f"gh gist create failed: {why[:300]}")
    return urls[-1]


def export_gist(home: Path, spec: str, opts: ExportOptions, public: bool,
                catalog: Catalog | None = None) -> tuple[str, list[str]]:
    """Export the session and publish it; returns (the gist's URL, the lines for stderr). ``catalog``:
    as run_export's."""
    gh = _gh()  # before the export: a missing gh should not cost a long export first
    session = find_session(home, spec, catalog=catalog)
    ext = "md" if opts.format == "md" or opts.summary else "html"
    with tempfile.TemporaryDirectory(prefix="ccreport-gist-") as tmp:
        out = os.path.join(tmp, f"claude-session-{session.id[:8]}" + (".summary" if opts.summary else "") + f".{ext}")
        notes = run_export(home, spec, out, opts, catalog=catalog)
        files = sorted(Path(tmp).iterdir(), key=lambda p: [int(s) if s.isdigit() else s for s in re.split(r"(\d+)", p.name)])
        url = _create(gh, files, f"Claude Code session {session.id[:8]} (exported by ccreport)", public)
    kind = "public" if public else "secret"
    return url, [n for n in notes if not n.startswith("wrote ")] + [
        f"published {len(files)} file{'s' if len(files) != 1 else ''} as a {kind} gist: {url}"]
