"""ccreport: Claude Code transcripts → a fast, faithful, offline static site."""

__version__ = "0.1.0"
