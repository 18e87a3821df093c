"""The command line: parse options, call one function, report. No logic of its own: each command
imports its stage lazily (base: what the commands share; commands_site, commands_read,
commands_archive: the commands, registered on ``cli`` as they are imported)."""

from __future__ import annotations

from ccreport.cli.base import cli
from ccreport.cli import commands_archive, commands_read, commands_site  # noqa: F401 (they register their commands)

__all__ = ["cli", "main"]


def main():
    cli(prog_name="ccreport")
