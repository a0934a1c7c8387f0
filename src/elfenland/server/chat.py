"""Table talk: one chat per game, for the seated players and the spectators, kept with
the game as events.  The server keeps a message's text as plain text (clients show it
as text, never as markup), one line, with a length limit and a slower rate limit than
play's."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .errors import ServerError
from .lobby import NAME_MAX
from .store import EventRecord


def clean_message(text: object, limit: int) -> str:
    """The message as stored: one line, no control characters, at most ``limit``
    characters; an empty or over-long one is refused."""
    if not isinstance(text, str):
        raise ServerError("bad-request", "text is the message, a string")
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    text = " ".join(text.split())
    if not text:
        raise ServerError("bad-request", "an empty message")
    if len(text) > limit:
        raise ServerError("too-large", f"a chat message is at most {limit} characters")
    return text


def spectator_name(name: object) -> str:
    """A spectator says who they are; the name is marked as a spectator's by clients."""
    text = " ".join(name.split())[:NAME_MAX] if isinstance(name, str) else ""
    return text or "Spectator"


def recent_events(events: Sequence[EventRecord], chat_lines: int) -> tuple[list[EventRecord], int]:
    """The events a connecting socket gets, and how many chat lines were left out: a long
    game's table talk must not make every reconnect heavy, while timeouts and take-backs,
    which explain the board, are always sent."""
    chats = sum(1 for e in events if e.kind == "chat")
    skip = max(0, chats - max(0, chat_lines))
    if not skip:
        return list(events), 0
    out: list[EventRecord] = []
    seen = 0
    for e in events:
        if e.kind == "chat":
            seen += 1
            if seen <= skip:
                continue
        out.append(e)
    return out, skip
