"""One live game: its cached state, its sockets, and the one path by which it changes.

``LiveGame.play`` is the whole of an action's way once its game's lock is held: check it
on a copy of the state, store it with the game's fencing token, swap the copy in, then
tell the sockets, the bus and the bots (through the ``Host``, the hub).  The state the
sockets are shown is only ever replaced by a copy the store holds, so a failed write
shows nothing.  ``Connection`` is one WebSocket's outgoing side.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from ..core.errors import ActionParseError, ElfenlandError, GameOverError
from ..core.game import GameState, JSONDict
from ..games.registry import new_game
from .clock import Clock
from .errors import ServerError, StoreConflict
from .lobby import engine_options, summary
from .ratelimit import TokenBucket
from .store import EventRecord, Fence, GameRecord, Store
from .tokens import hash_token

__all__ = ["PLAY_ONLY_KEYS", "RECONNECT", "Connection", "Host", "LiveGame", "build_state",
           "event_json", "now_iso"]

log = logging.getLogger("elfenland.server")
T = TypeVar("T")

#: WebSocket close code asking the client to reconnect (through the load balancer).
RECONNECT = 1012


#: View keys that offer the seat to act its choices; views sent before the start omit them.
PLAY_ONLY_KEYS = ("legal", "route_costs")


def build_state(record: GameRecord, actions: Sequence[str] = ()) -> GameState:
    """The game as the store describes it: its start, then every stored action."""
    kwargs: dict[str, Any] = engine_options(record.options)
    if record.rules is not None:
        kwargs["rules"] = record.rules
    state = new_game(game=record.game, players=record.players, seed=record.seed, **kwargs)
    for action in actions:
        state.apply_action(action)
    return state


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_json(event: EventRecord) -> JSONDict:
    """An event as clients get it: its number, kind, seat, the game's seq, the time and
    what its kind carries."""
    return {**event.body, "n": event.n, "kind": event.kind, "seat": event.seat,
            "seq": event.seq, "at": event.created}


@dataclass(eq=False)
class Connection:
    """One WebSocket: its seat (None for a spectator), its outgoing queue (a slow client
    never holds up the others) and its rate limit."""

    seat: int | None
    bucket: TokenBucket
    queue: asyncio.Queue[str | None]
    #: The highest log ``seq`` this connection has been sent.
    log_seq: int = 0
    dropped: bool = False
    #: The close code the writer uses once the queue is sent (``close``).
    close_code: int | None = None
    #: The client's address (chat's rate limit is per address and per seat).
    address: str = ""

    def send(self, text: str) -> None:
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()

    def drop(self) -> None:
        """Stop sending: the writer sees the end marker and closes the socket."""
        self.dropped = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

    def close(self, code: int) -> None:
        """Send what is queued, then close the socket with ``code`` (1012: reconnect)."""
        if self.dropped:
            return
        self.dropped = True
        self.close_code = code
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.drop()


@dataclass(eq=False)
class LiveGame:
    """One game being played here: its cached state (always one the store holds), its
    sockets, bots and clock, and the one path by which it changes (``play``)."""

    record: GameRecord
    state: GameState
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: list[Connection] = field(default_factory=list)
    #: Seat -> monotonic time since which it has had no connection.
    left_at: dict[int, float] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    #: The game's clock (None: no tempo, no deadlines) and its events (timeouts, chat).
    clock: Clock | None = None
    events: list[EventRecord] = field(default_factory=list)
    #: The store row of each action of the game (rows taken back are not among them).
    rows: list[int] = field(default_factory=list)
    #: Being rated after its end: it stays (and, in a cluster, stays owned) until stored.
    rating: bool = False
    #: A write failed with an unknown outcome: read the game again before changing it.
    suspect: bool = False
    #: (seq, seat) of the last turn this process saw begin, or whose notice it sent
    #: again after loading the game (notices.py): a notice of another turn is moot.
    turn_began: tuple[int, int] | None = None
    #: Seat -> the sha256 of its linked player's token (``seat_players``): a linked seat
    #: opens with its player's token as well as its own.  Loaded with the game, updated
    #: when a player takes a seat (links are made only at create and join).
    player_hashes: dict[int, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def seq(self) -> int:
        return self.state.history_length()

    def seats_of(self, token: str | None) -> list[int]:
        """Every seat the token opens: the seat whose own token it is, or the seats linked
        to the player whose token it is.  Every seat's hash and every link is compared,
        whatever matches, so timing says nothing."""
        if not token:
            return []
        digest = hash_token(token)
        found = []
        for s in self.record.seats:
            own = s.token_hash is not None and hmac.compare_digest(digest, s.token_hash)
            linked = self.player_hashes.get(s.seat)
            by_player = linked is not None and hmac.compare_digest(digest, linked)
            if own or by_player:
                found.append(s.seat)
        return found

    def seat_of(self, token: str | None, seat: int | None = None) -> int | None:
        """The seat the token opens (None: none).  ``seat`` names the one wanted: None if
        the token does not open it.  Without it, a player token linked to several seats
        of the game is refused (``bad-token``): it has to name one."""
        seats = self.seats_of(token)
        if seat is not None:
            return seat if seat in seats else None
        if len(seats) > 1:
            raise ServerError("bad-token", "this player holds seats "
                              f"{', '.join(str(s) for s in seats)} of this game: "
                              "name the seat (seat=…)")
        return seats[0] if seats else None

    def connected(self) -> set[int]:
        return {c.seat for c in self.connections if c.seat is not None and not c.dropped}

    def summary(self) -> dict[str, Any]:
        out = summary(self.record, self.connected(), self.seq)
        running = self.record.status == "running" and not self.state.is_terminal()
        out["to_act"] = self.state.current_player() if running else None
        if self.clock is not None:
            out["clock"] = self.clock.public()
        return out

    # -- the play path: check -> apply to a copy -> store -> swap -> tell ------------
    def standing_in(self) -> int | None:
        """The seat a bot plays this turn for because its time ran out, if any."""
        clock = self.clock
        if clock is None or not clock.stand_in or self.state.is_terminal():
            return None
        seat = self.state.current_player()
        return seat if seat == clock.turn_seat else None

    def check_act(self, seat: int, seq: int) -> None:
        """Whether the seat's player may act now, at ``seq``: a refusal changes nothing."""
        if self.record.status == "open":
            raise ServerError("not-started", "the game has not started")
        if self.state.is_terminal():
            raise ServerError("game-over", "the game is over")
        if self.record.seats[seat].kind != "human":
            raise ServerError("not-your-turn",
                              f"a bot plays seat {seat} now; take the seat back first")
        current = self.state.current_player()
        if current != seat:
            raise ServerError("not-your-turn", f"it is seat {current}'s turn")
        if self.standing_in() == seat:
            raise ServerError("not-your-turn", "your time ran out: a bot plays this turn")
        if seq != self.seq:
            raise ServerError("stale", f"the game is at seq {self.seq}, not {seq}")

    def on_copy(self, action: str | int) -> tuple[GameState, str]:
        """The action parsed and applied to a copy of the state (the engine's refusal is
        the protocol's error) and its full notation; the game itself is untouched."""
        state = self.state.clone()
        try:
            parsed = state.parse_action(action)
        except ElfenlandError as exc:
            raise ServerError("parse", str(exc)) from None
        try:
            state.apply_action(parsed)
        except GameOverError as exc:
            raise ServerError("game-over", str(exc)) from None
        except ActionParseError as exc:
            raise ServerError("parse", str(exc)) from None
        except ElfenlandError as exc:
            raise ServerError("illegal", str(exc)) from None
        return state, str(parsed)

    async def play(self, host: Host, player: int, action: str | int) -> None:
        """Apply to a copy, store with the fence, swap the copy in, then tell the sockets,
        the bus and the bots: the caller holds the game's lock.  Every refusal and failure
        leaves the game as it was, and nothing is shown that the store does not hold."""
        mover = self.state.current_player()
        state, text = self.on_copy(action)
        seq = state.history_length()
        # The store numbers its rows on past actions taken back; the game's seq does not.
        row = self.record.seq + 1
        finished = state.is_terminal()
        clock = self.clock
        if clock is not None:
            clock = clock.turn(None if finished else state.current_player(), seq, time.time())
        try:
            await host.db(host.store.append_action, self.id, row, player, text, finished,
                          clock.dumps() if clock is not None else None, host._fence(self.id))
        except ServerError:
            raise  # unavailable: nothing is known to be stored, so nothing is shown
        except Exception as exc:
            if isinstance(exc, StoreConflict):  # a stale idea of the game, or lost its lease
                log.warning("cannot store action %d of game %s: %s", row, self.id, exc)
            else:
                log.exception("cannot store action %d of game %s", row, self.id)
            raise ServerError("internal", f"the action could not be stored: {exc}") from None
        # Stored: swap the copy in, then tell.
        self.state = state
        self.rows.append(row)
        self.record = replace(self.record, seq=row,
                              status="finished" if finished else "running")
        if clock is not None:
            self.clock = clock
            host._arm(self)
        host._broadcast_update(self)
        if finished:
            host._broadcast_lobby(self)
            await host._rate(self)
        elif state.current_player() != mover:
            host._turn_started(self)
        host._kick(self)

    # -- what the sockets are sent -----------------------------------------------------
    def update_text(self, conn: Connection, since: int | None = None,
                    cache: dict[tuple[int | None, int], tuple[str, int]] | None = None) -> str:
        """An ``update`` for ``conn``: its seat's view without the log, and the log
        entries after ``since`` (default: after what the connection already has).  Only
        those entries are built: a whole game's log at every action made the views the
        server's largest cost.  ``cache`` keeps each (seat, since) message encoded once
        for all the sockets that get the same one (a seat open in two tabs, spectators)."""
        after = max(0, conn.log_seq if since is None else since)
        key = (conn.seat, after)
        if cache is not None and key in cache:
            text, conn.log_seq = cache[key]
            return text
        view = self.state.view(conn.seat, log_after=after)
        new = view.pop("log", [])
        if self.record.status == "open":
            # Nobody may act before the start, so nothing is offered.
            for name in PLAY_ONLY_KEYS:
                view.pop(name, None)
        for i, entry in enumerate(new, after):
            entry.setdefault("seq", i + 1)
        conn.log_seq = max([after] + [int(e["seq"]) for e in new])
        message: JSONDict = {"type": "update", "seq": self.seq, "view": view, "log": new}
        if self.clock is not None:
            message["clock"] = self.clock.public()
        text = json.dumps(message, separators=(",", ":"))
        if cache is not None:
            cache[key] = (text, conn.log_seq)
        return text

    def send_update(self) -> None:
        """Each socket its seat's update, built and encoded once per seat (and per log
        position) however many sockets share it."""
        cache: dict[tuple[int | None, int], tuple[str, int]] = {}
        for conn in self.connections:
            conn.send(self.update_text(conn, cache=cache))

    def lobby_text(self) -> str:
        return json.dumps({"type": "lobby", "game": self.summary()}, separators=(",", ":"))

    def send_lobby(self) -> None:
        if not self.connections:
            return
        text = self.lobby_text()
        for conn in self.connections:
            conn.send(text)

    def send_event(self, event: EventRecord) -> None:
        text = json.dumps({"type": "event", "event": event_json(event)}, separators=(",", ":"))
        for conn in self.connections:
            conn.send(text)


class Host(Protocol):
    """What a game asks of the process serving it (``hub.Hub``): the store and its
    database threads, the fence of each change, and telling the clock, the other sockets,
    the bus and the bots."""

    @property
    def store(self) -> Store: ...

    async def db(self, fn: Callable[..., T], *args: Any) -> T: ...

    def _fence(self, game_id: str) -> Fence | None: ...

    def _arm(self, game: LiveGame) -> None: ...

    def _broadcast_update(self, game: LiveGame) -> None: ...

    def _broadcast_lobby(self, game: LiveGame) -> None: ...

    async def _rate(self, game: LiveGame) -> None: ...

    def _turn_started(self, game: LiveGame) -> None: ...

    def _kick(self, game: LiveGame) -> None: ...
