"""Checked values for the server's command lines (``serve``, ``cluster``): a port or a
number of seconds out of range is refused by argparse with the option's name, before
anything starts, rather than surfacing as a traceback from a socket or as a server
that waits a negative time.  They take ``ELFENLAND_<OPTION>`` values the same way."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


class BadValue(argparse.ArgumentTypeError, ValueError):
    """A value out of an option's range (a ``ValueError``, so that ``env_defaults``
    reports an environment variable's value as it reports a malformed one)."""


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free port)."""
    value = _int(text)
    if not 0 <= value <= 65_535:
        raise BadValue(f"a port is 0 to 65535, not {value}")
    return value


def at_least(low: int) -> Callable[[str], int]:
    """An integer of at least ``low``."""
    def check(text: str) -> int:
        value = _int(text)
        if value < low:
            raise BadValue(f"must be at least {low}, not {value}")
        return value
    check.__name__ = f"integer of at least {low}"
    return check


def seconds(text: str) -> float:
    """A finite number of seconds, 0 or more."""
    value = _float(text)
    if value < 0:
        raise BadValue(f"must be 0 or more, not {text.strip()}")
    return value


def positive(text: str) -> float:
    """A finite number more than 0 (a time limit, a rate)."""
    value = _float(text)
    if not value > 0:
        raise BadValue(f"must be more than 0, not {text.strip()}")
    return value


def public_url(text: str) -> str:
    """The address players reach the server at (``https://elfenland.example.org``, a
    path allowed): turn notices carry links under it.  No query, fragment or password."""
    from urllib.parse import urlsplit

    if not text.strip():
        return ""  # links relative to the server
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError as exc:
        raise BadValue(f"not a URL: {text!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or parts.password is not None or parts.username is not None:
        raise BadValue(f"an http(s) address without query, fragment or password, "
                       f"not {text!r}")
    return text.strip().rstrip("/")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise BadValue(f"not a whole number: {text!r}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BadValue(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise BadValue(f"must be a finite number, not {text.strip()}")
    return value
