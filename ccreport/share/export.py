"""What both export formats share: options, the redacted message stream (every entry is redacted before
any renderer sees it), agent selection, output; see docs/export.md."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ccreport.fs import Batch, WriteError
from ccreport.layout import site_name, url_name
from ccreport.source.home import Session, Transcript
from ccreport.source.reading import read_transcript
from ccreport.model.messages import Builder, Message, set_summary_title, title_of
from ccreport.model.pages import paginate
from ccreport.model.workflows import run_facts
from ccreport.share.redact import Redactor, learn_accounts
from ccreport.source.summaries import project_titles


class ExportError(Exception):
    """A user error (bad option combination, unwritable output): one line on stderr, exit 2."""


@dataclass
class ExportOptions:
    format: str = "html"  # html | md
    agents: str = "inline"  # inline | link | none
    thinking: bool = True
    tools: bool = True
    redact: bool = True
    patterns: list = field(default_factory=list)
    max_chars: int = 65_000
    summary: bool = False  # md: the one-comment summary (share/summary.py) instead of the whole transcript


@dataclass
class TranscriptInfo:
    """What the document header says about a transcript (all of it already redacted)."""

    title: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    first_ts: str | None = None
    last_ts: str | None = None
    models: list = field(default_factory=list)
    shown: int = 0
    outline: str = ""  # the HTML export's outline of the prompts (render.outline.export_outline), "" without


def _entries(t: Transcript, redactor: Redactor | None, learned: set):
    if redactor is not None and t.path not in learned:
        # The whole file first (an id may appear before its line); once per export: the Markdown
        # header's title pass and the rendering pass read the same file.
        learn_accounts(redactor, t)
        learned.add(t.path)
    for e in read_transcript(t):  # from the site's archive when the home lost it
        if redactor is not None:  # (None and "" come back as they went in)
            e.obj = redactor.value(e.obj)
            e.raw = redactor.text(e.raw)
        yield e


def _keep(m: Message, opts: ExportOptions) -> bool:
    """Apply --no-thinking / --no-tools to one message (in place); False drops it."""
    if m.kind == "assistant":
        drop = set()
        if not opts.thinking:
            drop |= {"thinking", "redacted_thinking"}
        if not opts.tools:
            drop.add("tool_use")
        if drop:
            m.blocks = [b for b in m.blocks if b[0] not in drop]
            if not m.blocks:
                return False
    if m.kind == "result" and not opts.tools:
        return False
    if m.kind == "result" and m.late_call:
        # The site links a late result to the call's page; in one document there are no pages.
        m.late_call = dict(m.late_call, page=None)
    if m.reply_to:  # (likewise a teammate's reply to its SendMessage)
        m.reply_to = dict(m.reply_to, page=None)
    return True


@dataclass
class Export:
    """What every document of one export shares."""

    session: Session
    opts: ExportOptions
    redactor: Redactor | None
    agent_links: dict = field(default_factory=dict)  # agent id → link target (an anchor or the agent's file)
    batch: Batch = field(default_factory=Batch)  # the files written: all in place at the end, or none
    learned: set = field(default_factory=set)  # transcript paths whose account values the redactor has
    titled: dict = field(default_factory=dict)  # "summary" → the session's summary title, once looked up

    @property
    def agents(self) -> list[Transcript]:
        """The sub-agent transcripts to export (none with --agents none)."""
        return [] if self.opts.agents == "none" else list(self.session.agents)

    def chunks(self, t: Transcript, info: TranscriptInfo) -> Iterator[list[Message]]:
        """The transcript's messages in order, a chunk at a time, redacted and filtered by the options.

        ``info`` is filled in as the stream goes and is complete once the generator is exhausted.
        """
        builder = Builder()
        # 400 messages held at once (a tool result pairs with its call within a chunk).
        for page in paginate(_entries(t, self.redactor, self.learned), builder, 400):
            kept = [m for m in page.messages if _keep(m, self.opts)]
            info.shown += len(kept)
            yield kept
        c = builder.carry
        if t.kind == "main":
            set_summary_title(c, self.summary_title())
        info.title = (self.session.custom_title if t.kind == "main" else None) or title_of(c)
        info.cwd, info.git_branch = c["cwd"], c["git_branch"]
        info.first_ts, info.last_ts = c["first_ts"], c["last_ts"]
        info.models = list(c["models"])

    def summary_title(self) -> str | None:
        """What a summary line of the project names the session (source.summaries), redacted."""
        if "summary" not in self.titled:
            text = project_titles(self.session.project).get(self.session.id)
            self.titled["summary"] = self.redactor.text(text) if text and self.redactor is not None else text
        return self.titled["summary"]

    def run_cards(self) -> dict:
        """What each Workflow call shows of its run: an export has no run pages, so the summary
        itself (render.runs.run_card, without a URL); the status is file text, redacted too."""
        _, facts = run_facts(self.session)
        for f in facts.values():
            f["url"] = None
            if self.redactor is not None:
                f["status"] = self.redactor.text(f["status"])
        return facts

    def omitted(self) -> list[str]:
        """What --no-thinking and --no-tools left out, as the document header says it."""
        notes = []
        if not self.opts.thinking:
            notes.append("thinking omitted")
        if not self.opts.tools:
            notes.append("tool calls omitted")
        return notes

    def title(self, info: TranscriptInfo) -> str:
        return " ".join((info.title or f"Session {self.session.id[:8]}").split())[:200]

    def agent_heading(self, t: Transcript) -> tuple[str, str]:
        """(heading, description) of an agent transcript, redacted (meta.json text is user data too)."""
        name = f"{t.agent_type or t.label} {t.id}"
        desc = t.description or ""
        if self.redactor is not None:
            name, desc = self.redactor.text(name), self.redactor.text(desc)
        return name, desc


def agent_file(out: Path, t: Transcript, ext: str) -> Path:
    """--agents link: each agent transcript in its own file beside the main one,
    ``<out>.agent-<id><ext>``; a name too long for one file name (a 200-character agent id) is
    shortened as the site's folders are (layout.site_name: its start and a hash of the whole)."""
    return out.with_name(site_name(f"{out.name.removesuffix(ext)}.agent-{t.id}") + ext)


def agent_link(out: Path, t: Transcript, ext: str) -> str:
    """The main file's link to an agent's file (beside it): its name as one URL path segment
    ('#', '?', '%' or a space in a name would break the link)."""
    return url_name(agent_file(out, t, ext).name)


def write_text(batch: Batch, path: Path, *parts) -> None:
    """The file, from text and text files (read back in 1 MiB steps, so a big transcript's body is
    never held whole), in ``batch``: it is in place with the export's other files or not at all. A
    folder that is not there is the user's mistake (a typo in -o), reported, not made."""
    try:
        if not path.parent.is_dir():
            raise FileNotFoundError(2, "No such file or directory")
        with batch.file(path) as fh:
            for part in parts:
                for chunk in [part] if isinstance(part, str) else iter(lambda: part.read(1 << 20), ""):
                    fh.write(chunk.encode("utf-8"))
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None


@contextmanager
def all_files(ex: Export):
    """The export's files (``ex.batch``) are all in place when the block ends, none when it fails:
    a full disk at part 3 of 6 leaves no parts 1-2 behind."""
    try:
        yield
        ex.batch.commit()
    except WriteError as exc:
        ex.batch.abort()
        raise ExportError(f"cannot write {exc.filename}: {exc.strerror or exc}") from None
    except BaseException:
        ex.batch.abort()
        raise


def check_output(out: str) -> Path:
    """-o FILE must name a regular file (new or existing): '/dev/null' or a folder would be written
    beside (``/dev/null.part1.md``) or fail halfway."""
    path = Path(out)
    if out.endswith(("/", "\\")) or (path.exists() and not path.is_file()):
        raise ExportError(f"{out} is not a regular file: give a file path with -o (or '-' for stdout)")
    return path
