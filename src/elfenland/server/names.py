"""Names people choose (players, seats, spectators), cleaned once for every place that
shows them.

A name is shown beside moves and chat lines, so it must not be able to pass for
something else: control characters (Unicode ``Cc``: NUL, BEL, line breaks) and format
characters (``Cf``: the bidi overrides U+202A–U+202E and U+2066–U+2069, zero-width
joiners) are removed — a right-to-left override let a spectator's name display as
"Ann (seat 1)".  Runs of spaces become one; the result is at most ``NAME_MAX`` characters.
"""

from __future__ import annotations

import unicodedata

from .errors import ServerError

NAME_MAX = 40
#: Unicode categories removed from names.
REMOVED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def strip_name(text: str) -> str:
    """``text`` without control, format and unassigned characters, spaces collapsed."""
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in REMOVED)
    return " ".join(kept.split())[:NAME_MAX].strip()


def clean_name(name: str | None, seat: int) -> str:
    """A seat's or player's name: none given means ``Player <seat + 1>``; one given that
    has nothing printable left is refused with a clear error."""
    if not name:
        return f"Player {seat + 1}"
    text = strip_name(name)
    if not text:
        raise ServerError("bad-request", "the name has no printable characters (control "
                                         "and direction characters are removed)")
    return text


def spectator_name(name: object) -> str:
    """A spectator's name ("Spectator" if none); clients mark it as a spectator's."""
    if not isinstance(name, str) or not name:
        return "Spectator"
    text = strip_name(name)
    if not text:
        raise ServerError("bad-request", "the name has no printable characters")
    return text
