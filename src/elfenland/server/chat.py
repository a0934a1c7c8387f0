"""Table talk: one chat per game, for the seated players and the spectators, kept with
the game as events.  The server keeps a message's text as plain text (clients show it
as text, never as markup), one line, with a length limit and a slower rate limit than
play's.

Against floods (issue 23): the rate limit is per seat and per client address, not per
connection (reconnecting or opening 200 sockets buys nothing); a game keeps at most
``Limits.chat_lines`` lines and ``Limits.chat_bytes`` bytes of chat, the oldest dropped;
a finished game's chat is its players' only; ``GET /api/games/{id}/events`` pages."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .addresses import address_key
from .config import Limits
from .errors import ServerError
from .names import spectator_name as spectator_name
from .ratelimit import KeyedBuckets, take_all
from .store import EventRecord, GameRecord


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


class ChatLimiter:
    """Chat's rate limits of one server process: a bucket per seat of a game and one per
    address (looser: several people may share one)."""

    def __init__(self, limits: Limits) -> None:
        self.seats = KeyedBuckets(limits.chat_per_second, limits.chat_burst)
        self.addresses = KeyedBuckets(limits.chat_per_address, limits.chat_address_burst)

    def admit(self, game_id: str, seat: int | None, address: str) -> None:
        """Spend from the address's bucket and the seat's (a spectator's "seat" is its
        address in this game), or refuse with ``rate-limited``.  The address is counted
        by its key (an IPv6 address's /64, ``addresses.address_key``)."""
        address = address_key(address)
        seat_key = (game_id, seat) if seat is not None else (game_id, "spectator", address)
        buckets = [self.addresses.bucket(address), self.seats.bucket(seat_key)]
        if not take_all(buckets):
            raise ServerError("rate-limited", "too many chat messages; wait a moment")


def may_chat(record: GameRecord, seat: int | None) -> None:
    """A finished game's chat is for its seats only (spectators of a finished game, a
    bot-only one included, cannot write into it)."""
    if record.status == "finished" and seat is None:
        raise ServerError("game-over", "the game is over; only its players may still chat")


def chat_size(event: EventRecord) -> int:
    return len(str(event.body.get("text", "")).encode("utf-8")) + \
        len(str(event.body.get("name", "")).encode("utf-8"))


def trim_chat(events: list[EventRecord], lines: int, size: int) -> list[int]:
    """Drop the oldest chat lines from ``events`` (in place) until at most ``lines``
    lines of at most ``size`` bytes are left; the numbers of the dropped events."""
    chats = [e for e in events if e.kind == "chat"]
    total = sum(chat_size(e) for e in chats)
    dropped: list[int] = []
    for e in chats:
        if len(chats) - len(dropped) <= lines and total <= size:
            break
        dropped.append(e.n)
        total -= chat_size(e)
    if dropped:
        gone = set(dropped)
        events[:] = [e for e in events if not (e.kind == "chat" and e.n in gone)]
    return dropped


#: Events one page of ``GET /api/games/{id}/events`` holds, by default and at most.
PAGE = 200
PAGE_MAX = 500


def page_events(events: Sequence[EventRecord], after: int, limit: int
                ) -> tuple[list[EventRecord], int | None]:
    """The events numbered after ``after``, at most ``limit`` of them, and the ``after``
    that gets the next page (None: this was the last)."""
    rest = [e for e in events if e.n > after]
    page = rest[:limit]
    return page, (page[-1].n if len(rest) > limit else None)
