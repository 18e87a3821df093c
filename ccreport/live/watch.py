"""``ccreport watch``: a Follower (follow.py) without a server, printing what each update did."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from ccreport.live.follow import Follower
from ccreport.site.build import BuildResult, Options


class Printer(Follower):
    """A follower that reports on stderr: each update's counts, every error."""

    def __init__(self, home: Path, out: Path, opts: Options, quiet: bool = False):
        super().__init__(home, out, opts)
        self.quiet = quiet
        self.builds = 0

    def built(self, res: BuildResult) -> None:
        self.builds += 1
        for err in res.errors:
            print(f"ccreport: error: {err}", file=sys.stderr, flush=True)
        if not self.quiet and (res.written or res.deleted):
            print(f"ccreport: {time.strftime('%H:%M:%S')} {len(res.written)} written, {len(res.deleted)} deleted "
                  f"in {res.seconds * 1000:.0f} ms", file=sys.stderr, flush=True)
        if self.builds == 1 and not self.quiet:
            print(f"ccreport: watching {self.home / 'projects'} → {self.out / 'index.html'} (Ctrl-C to stop)",
                  file=sys.stderr, flush=True)

    def failed(self, message: str) -> None:
        print(f"ccreport: error: {message}", file=sys.stderr, flush=True)


def run(home: Path, out: Path, opts: Options, quiet: bool = False) -> int:
    """The `ccreport watch` command: follow until Ctrl-C or SIGTERM, reporting each update."""
    printer = Printer(home, out, opts, quiet)
    # Both signals only ask to stop: the catch-up run (maybe a long first build) ends after the
    # session in hand, the watch between two updates, so no page is left half done.
    signal.signal(signal.SIGTERM, lambda signum, frame: printer.stop.set())
    signal.signal(signal.SIGINT, lambda signum, frame: printer.stop.set())
    printer.run()
    if printer.builds == 0:
        print("ccreport: stopped before the site was up to date", file=sys.stderr, flush=True)
        return 130
    if not quiet:
        print("ccreport: watch stopped", file=sys.stderr, flush=True)
    return 0
