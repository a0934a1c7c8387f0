"""What one client address may make the server do over HTTP, weighed by what it costs.

Measured against a real ``elfenland serve`` (docs/server.md, "Security"): most HTTP
answers cost the server a millisecond or two, but an answer about a game the process
does not hold in memory (a finished game, after a restart or once nobody watches it)
first reads it from the store and replays every action — 34 ms for a 1,900-action game
— and a replay step or a record replays them again (67 ms, 57 ms).  A single address with
a few dozen connections kept the process's thread pool (which bots share) busy, and
``POST /api/players`` created as many rows as it could send requests.  So, per client
address (an IPv6 address's /64, which one subscriber usually holds whole):

- **Work**: every ``/api/`` request costs one unit, and one more for every
  ``Limits.work_entries`` actions the server replays to answer it (reading a game not
  in memory, a replay's step, a record), ``LISTING_COST`` for the lobby listing; a
  ``/ws/games/{id}`` socket costs the read of a game not in memory (its replies have
  their own ration, ``Limits.replies_per_address``).  Spent before the handler runs,
  from a bucket of ``Limits.work_address_burst`` units refilled at
  ``Limits.work_per_address`` a second.
- **Creations**: ``POST /api/players`` and ``POST /api/games`` take one from the
  address's quota of new players or games (a burst, then some an hour); an answer that
  created nothing gives it back.

A refusal is ``rate-limited`` (HTTP 429 with ``Retry-After``; a socket gets the error
and close code 1013).  Static files and ``/healthz`` are not counted: they cost a
millisecond, a page load asks for forty of them at once, and a proxy or CDN serves them
from its cache.
"""

from __future__ import annotations

import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from .addresses import address_key
from .config import Limits
from .finished import FinishedGame, FinishedGames
from .ratelimit import KeyedBuckets, TokenBucket

#: What the lobby listing costs, in units: up to 200 summaries, 15 ms with 400 games in
#: the store (the price of replaying some 400 actions).
LISTING_COST = 8.0
#: A query string costs a unit more for every this many bytes (every request's query is
#: parsed; uvicorn lets a request's line and headers have 16 KiB).
QUERY_BYTES_PER_UNIT = 4096
#: Finished games' lengths remembered (they never change): the next request for one
#: needs no store query to be weighed.
KNOWN_LENGTHS = 10_000
GAME_ID = re.compile(r"^[a-z0-9]{1,32}$")
GAME_PATH = re.compile(r"^/api/games/([^/]+)(?:/([a-z]+))?/?$")
SOCKET_PATH = re.compile(r"^/ws/games/([^/]+)/?$")
#: The answers about a game that replay it once more on top of reading it.
REPLAYS = frozenset({"replay", "record"})


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused, and in how many seconds it would not be."""

    message: str
    retry_after: int


@dataclass
class Charge:
    """What one request took: the creation quota to give back if it created nothing."""

    quota: TokenBucket | None = None

    def settle(self, status: int) -> None:
        if self.quota is not None and not 200 <= status < 300:
            self.quota.give(1.0)
            self.quota = None


class HttpRation:
    """The per-address buckets (module text) of one server process."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.work = KeyedBuckets(limits.work_per_address, limits.work_address_burst,
                                 clock=clock)
        self.new_players = KeyedBuckets(limits.new_players_per_hour / 3600.0,
                                        limits.new_players_burst, clock=clock)
        # Never fewer at once than the unfinished games an address may have.
        self.new_games = KeyedBuckets(limits.new_games_per_hour / 3600.0,
                                      max(limits.new_games_burst, limits.games_per_host),
                                      clock=clock)
        self._lengths: OrderedDict[str, int] = OrderedDict()

    async def charge(self, hub: Any, kind: str, method: str, path: str, query: bytes,
                     host: str) -> Charge | Refusal:
        """Spend what the request costs from ``host``'s buckets, or say why not."""
        key = address_key(host)
        if kind == "websocket":
            found = SOCKET_PATH.match(path)
            if found is None:
                return Charge()
            length, held = await self._length(hub, found.group(1))
            if held or _kept(hub, found.group(1)) is not None:
                return Charge()  # no store read; its replies are rationed by the hub
            return self._work(key, 1.0 + length / self.limits.work_entries)
        if not path.startswith("/api/"):
            return Charge()
        cost = 1.0 + len(query) / QUERY_BYTES_PER_UNIT
        quota: KeyedBuckets | None = None
        if method == "POST" and path.rstrip("/") == "/api/players":
            quota = self.new_players
        elif method == "POST" and path.rstrip("/") == "/api/games":
            quota = self.new_games
        elif method in ("GET", "HEAD") and path.rstrip("/") == "/api/games":
            cost += LISTING_COST
        elif method in ("GET", "HEAD") and (found := GAME_PATH.match(path)) is not None:
            cost += await self._game_cost(hub, found.group(1), found.group(2), query)
        bucket = quota.bucket(key) if quota is not None else None
        if bucket is not None and not bucket.ready():
            what = "players" if quota is self.new_players else "games"
            return Refusal(f"too many new {what} from this address; wait a while",
                           _seconds(bucket.wait(1.0)))
        refused = self._work(key, cost)
        if isinstance(refused, Refusal):
            return refused
        if bucket is not None:
            bucket.take()
        return Charge(bucket)

    def _work(self, key: str, cost: float) -> Charge | Refusal:
        bucket = self.work.bucket(key)
        if bucket.take(cost):
            return Charge()
        return Refusal("too many requests (or too costly ones) from this address; "
                       "wait a moment", _seconds(bucket.wait(cost)))

    async def _game_cost(self, hub: Any, game_id: str, part: str | None,
                         query: bytes) -> float:
        """The units over the base of a GET about one game: reading it if it is not in
        memory, and replaying it once more for a replay (up to its step) or a record.
        A finished game is replayed once into ``hub.finished`` (finished.py), which
        then answers its views, records and steps (a step applies the few actions after
        its snapshot): only what is actually replayed is charged."""
        length, held = await self._length(hub, game_id)
        per = self.limits.work_entries
        kept = _kept(hub, game_id)
        finished = getattr(hub, "finished", None)
        keeps = isinstance(finished, FinishedGames) and finished.max_games > 0
        if kept is not None or (keeps and self._finished(hub, game_id)):
            cost = 0.0 if kept is not None else length / per  # the one build
            if part == "replay":
                cost += FinishedGame.replayed(min(length, _step(query, length))) / per
            return cost
        cost = 0.0 if held else length / per
        if part in REPLAYS:
            replayed = length
            if part == "replay":
                replayed = min(length, _step(query, length))
            cost += replayed / per
        return cost

    def _finished(self, hub: Any, game_id: str) -> bool:
        """Whether the game is known to be over (after ``_length``)."""
        game = hub.games.get(game_id) if hub is not None else None
        if game is not None:
            return bool(game.record.status == "finished")
        return game_id in self._lengths

    async def _length(self, hub: Any, game_id: str) -> tuple[int, bool]:
        """The game's actions, and whether the process holds it (so that answering does
        not read it from the store).  An id that names no game costs nothing more."""
        game = hub.games.get(game_id) if hub is not None else None
        if game is not None:
            return int(game.seq), True
        if hub is None or not GAME_ID.match(game_id):
            return 0, True
        known = self._lengths.get(game_id)
        if known is not None:
            self._lengths.move_to_end(game_id)
            return known, False
        try:
            record = await hub.db(hub.store.load_game, game_id)
        except Exception:  # the store is away: the handler answers "unavailable"
            return 0, True
        if record is None:
            return 0, True
        if record.status == "finished":
            self._lengths[game_id] = int(record.seq)
            while len(self._lengths) > KNOWN_LENGTHS:
                self._lengths.popitem(last=False)
        return int(record.seq), False


def _kept(hub: Any, game_id: str) -> FinishedGame | None:
    """The finished game's entry in ``hub.finished``, if it holds one."""
    finished = getattr(hub, "finished", None)
    return finished.peek(game_id) if isinstance(finished, FinishedGames) else None


def _step(query: bytes, length: int) -> int:
    """A replay's ``step`` (all of the game when absent or not a number)."""
    for name, value in parse_qsl(query.decode("latin-1")):
        if name == "step":
            try:
                return max(0, int(value))
            except ValueError:  # refused before anything is read
                return 0
    return length


def _seconds(wait: float) -> int:
    return max(1, math.ceil(min(wait, 86_400.0)))
