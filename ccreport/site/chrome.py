"""What every page of the site shares: the template arguments of its frame (assets, crumbs, the
version line) and the short token figure of the index rows."""

from __future__ import annotations

from ccreport import __version__
from ccreport.render.resources import asset_names


def page_args(root: str, title: str, crumbs: list, page_kind: str, source: str = "") -> dict:
    return {"root": root, "title": title, "crumbs": crumbs, "page_kind": page_kind, "assets": asset_names(),
            "version": __version__, "source": source or "Claude Code transcripts", "live": None}


def fmt_tokens(u: dict) -> str:
    """input (with cache reads and writes) / output tokens, as the index rows show them."""
    inputs = u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0)
    return f'{inputs:,} / {u.get("output_tokens", 0):,}'
