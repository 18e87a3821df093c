"""Text from a home as the terminal commands print it: a control character would be a command to
the reader's terminal (ESC starts one) and becomes '?'; a bidi control or zero-width character
would reorder or hide what follows (a name shown reversed) and shows as its code point, as the
pages show it (render.markup.INVISIBLE)."""

from __future__ import annotations

import re

from ccreport.render.markup import show_invisible

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """One line or more of ``text`` safe to print (tab and newline kept)."""
    if text.isprintable():
        return text
    return show_invisible(_CONTROL.sub("?", text))
