"""HTML of the lines folded into one counted message (model.folds): a run of empty lines, a run of
malformed lines (their raw text kept up to a bound), and the lines of a bookkeeping or context note
past its listed rows. Each is one small element however many lines it counts, so a page of them
stays small (issue 29 point 6)."""

from __future__ import annotations

from ccreport.render.markup import esc, human_size, pre


def _span(run: dict) -> str:
    first, last = run["first"], run["last"]
    return f"line {first:,}" if first == last else f"lines {first:,}–{last:,}"


def _covers(run: dict) -> str:
    """The lines a fold stands for, first and last: one anchor (its first line's) serves them all."""
    return f' data-fold="{run["first"]}-{run["last"]}"'


def _names(run: dict) -> str:
    return ", ".join(f"{name} ×{n:,}" if n > 1 else name for name, n in run["names"].items())


def empty_html(m) -> str:
    """A run of ``{}`` and blank lines: one counted row."""
    run = m.run
    n = run["count"]
    return (f'<div class="msg meta empty" id="L{m.line}"{_covers(run)}><p class="note">{n:,} empty line{"s" if n > 1 else ""} '
            f'({_span(run)}, {human_size(run["bytes"])}: {esc(_names(run))})</p></div>')


def covers(m) -> str:
    """The attribute naming the lines a folded message stands for (for its element)."""
    return _covers(m.run)


def malformed_run_body(m) -> str:
    """The body of a run of malformed lines: their reasons counted, their raw text (bounded)."""
    run = m.run
    n, kept = run["count"], run["raw_lines"]
    shown = "" if kept == n else f" The first {kept:,} are shown (up to {human_size(len(run['raw']))} of text)."
    what = "could not be read" if not {"{}", "blank"} & run["names"].keys() else "are empty or could not be read"
    return (f'<p class="note err">{n:,} lines that {what} ({_span(run)}, {human_size(run["bytes"])}): '
            f'{esc(_names(run))}.{shown}</p>{pre(run["raw"], ansi=False)}')


def more_rows(m) -> str:
    """The lines of a bookkeeping or context note past its listed rows (none: nothing)."""
    run = m.run
    if run is None:
        return ""
    return (f'<p class="note"{_covers(run)}>… and {run["count"]:,} more ({_span(run)}, {human_size(run["bytes"])}), counted, '
            f'not listed: {esc(_names(run))}</p>')


def folded_count(m) -> int:
    """Lines a note holds: its rows and the lines counted past them."""
    return len(m.blocks) + (m.run["count"] if m.run is not None else 0)
