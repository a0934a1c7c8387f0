"""The server's refusals: one typed error per protocol code, so that a handler raises and
the HTTP and WebSocket layers both turn it into the same JSON error object."""

from __future__ import annotations

from ..core.errors import ElfenlandError

#: Protocol error code -> HTTP status (docs/protocol.md, "Errors").
HTTP_STATUS: dict[str, int] = {
    "bad-request": 400,
    "parse": 400,
    "illegal": 400,
    "stale": 400,
    "not-your-turn": 400,
    "bad-token": 403,
    "not-found": 404,
    "seat-taken": 409,
    "not-started": 409,
    "already-started": 409,
    "game-over": 409,
    "not-over": 409,
    "wrong-phase": 409,
    "timed-out": 409,
    "cannot-undo": 409,
    "too-large": 413,
    "bad-option": 422,
    "rate-limited": 429,
    "too-many-games": 429,
    "internal": 500,
    "unavailable": 503,
}


class ServerError(ElfenlandError):
    """A request the server refuses; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        if code not in HTTP_STATUS:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.code]

    def to_json(self, ref: object = None) -> dict[str, object]:
        out: dict[str, object] = {"type": "error", "code": self.code, "message": self.message}
        if ref is not None:
            out["ref"] = ref
        return out


class StoreConflict(ElfenlandError):
    """A write that lost a race: the (game, seq) row exists already, so another writer
    (a second server on the same database) got there first."""


class StoreUnavailable(ElfenlandError):
    """The store cannot be reached or cannot write just now (a lost connection, a
    restarting PostgreSQL, a full disk): the transaction was rolled back or never began,
    so nothing changed, and the same request may be sent again later.  Clients get the
    protocol's retryable ``unavailable`` error."""


class StoreDamaged(ElfenlandError):
    """The store's file fails its integrity check: the server refuses to start on it
    rather than answer every game with an error."""


class StoreInUse(ElfenlandError):
    """Another server process serves from the same SQLite file: the server refuses to
    start on it, as two processes that each cache the games would show their players
    different games (and each one's bots would stop at the other's moves)."""


class LeaseLost(StoreConflict):
    """This process no longer owns the game (another one has taken it over): the change
    was refused by the game's fence and nothing was stored."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} is now served by another process")
        self.game_id = game_id
