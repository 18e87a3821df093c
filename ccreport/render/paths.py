"""Paths as a reader wants them: relative to the project's folder when inside it (the full path on
hover), and breakable after each separator so a long path wraps on a phone."""

from __future__ import annotations

from ccreport.render.markup import esc


def relative(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies inside it (as text: no file system access), else as given."""
    if not cwd or not isinstance(path, str):
        return path
    base = cwd.rstrip("/\\")
    for sep in ("/", "\\"):
        if base and path.startswith(base + sep) and len(path) > len(base) + 1:
            return path[len(base) + 1:]
    return path


def wrap_html(text: str) -> str:
    """Escaped text with a <wbr> after each path separator."""
    return esc(text).replace("/", "/<wbr>").replace("\\", "\\<wbr>")


def path_html(path: str, cwd: str | None, cls: str = "path") -> str:
    """<code> of a path: relative inside the project, the full path in its title."""
    shown = relative(path, cwd)
    title = f' title="{esc(path)}"' if shown != path else ""
    return f'<code class="{cls}"{title}>{wrap_html(shown)}</code>'
