"""The live games: each one's cached state, its connections and its seated bots.

The store is the truth and this module only ever tells clients about what the store
holds: an action is applied to a copy of the cached state, appended to the store in its
own transaction, and only then is the copy swapped in and sent out.  If the append fails
the copy is dropped and nothing else happens (no I/O on the error path), so a refused or
lost write never leaves the cache ahead of the truth.  A game whose write failed in a
way that leaves the store's answer unknown (a connection lost during the commit) is
marked ``suspect`` and read again from the store before its next change.

When the store is unreachable (``StoreUnavailable``) every request answers the
protocol's retryable ``unavailable`` error, and a recovery task probes the store with a
write until one goes through, then re-arms the games' clocks and lets their bots play on.

Everything here runs on the event loop; database calls and bot thinking run in thread
pools, and the per-game ``asyncio.Lock`` keeps one game's changes in order.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any, Protocol, TypeVar

from ..core.errors import ElfenlandError
from ..games.registry import game_info
from .addresses import address_key
from .botseats import bot_decision, decision_seed, resolve_level
from .chat import ChatLimiter, clean_message, may_chat, recent_events, spectator_name, trim_chat
from .clock import Clock, Timers
from .config import ServerConfig
from .directory import GameDirectory, LocalGames, load_game
from .errors import LeaseLost, ServerError, StoreUnavailable
from .events import EventBus
from .finished import FinishedGames
from .hints import check_hint, route_hint
from .live import (
    RECONNECT,
    Connection,
    LiveGame,
    build_state,
    event_json,
    now_iso,
)
from .lobby import (
    CreateGame,
    clean_name,
    new_game_options,
    rules_name,
    summary,
)
from .notices import TurnNotices
from .ownership import SingleProcess
from .players import Players
from .ratelimit import KeyedBuckets
from .store import (
    RATING_KEY,
    EventRecord,
    Fence,
    GameRecord,
    Handover,
    SeatRecord,
    SqliteStore,
    Store,
)
from .throttle import Throttle
from .tokens import hash_token, new_game_id, new_token
from .undo import effective_actions, undo_refusal

#: The live game's names, long imported from here.
__all__ = ["GAME_ID", "RECONNECT", "Connection", "Hub", "LiveGame", "build_state",
           "event_json", "now_iso"]

log = logging.getLogger("elfenland.server")
#: Seconds the store must keep working after its recovery ping before it is called back:
#: a call that fails sooner belongs to the same outage.
STORE_SETTLE = 1.0
T = TypeVar("T")
GAME_ID = re.compile(r"^[a-z0-9]{1,32}$")
class Ownership(Protocol):
    """Which games this process may change, and the token it changes them with:
    ``ownership.SingleProcess`` (all, unfenced) or ``ownership.Leases``."""

    @property
    def name(self) -> str: ...

    def fence(self, game_id: str) -> Fence | None: ...

    def forget(self, game_id: str) -> None: ...


class Locked:
    """``Hub.locked``: a plain async context manager, not an ``asynccontextmanager``,
    which made an async generator (registered with the event loop) at every action."""

    __slots__ = ("game", "hub")

    def __init__(self, hub: Hub, game: LiveGame) -> None:
        self.hub, self.game = hub, game

    async def __aenter__(self) -> LiveGame:
        game = self.game
        await game.lock.acquire()
        try:
            if game.suspect:
                await self.hub._reload(game)
        except BaseException:
            game.lock.release()
            raise
        return game

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: object) -> None:
        # A store failure of unknown outcome (not a refusal, not a cancellation): read
        # the game again before its next change.
        if isinstance(exc, ServerError):
            if exc.code in ("unavailable", "internal"):
                self.game.suspect = True
        elif isinstance(exc, Exception):
            self.game.suspect = True
        self.game.lock.release()


class Hub:
    """The live games of this process.  What differs between one process and several is
    passed in: ``ownership`` (whose games these are, and each change's fence),
    ``events`` (the bus that lobby feeds on every process follow) and ``directory``
    (how games are loaded, claimed and forgotten: ``directory.py``).  The last two may be
    given as functions of the hub, for parts that call back into it."""

    draining = False

    def __init__(self, store: Store, config: ServerConfig, ownership: Ownership | None = None,
                 events: EventBus | Callable[[Hub], EventBus] | None = None,
                 directory: Callable[[Hub], GameDirectory] | None = None) -> None:
        self.store = store
        self.ownership: Ownership = ownership or SingleProcess()
        self.events: EventBus = (events if isinstance(events, EventBus) else
                                 events(self) if events is not None else EventBus())
        #: Game id -> whether the last ``turn`` told of it was a human's seat.
        self._told_human: dict[str, bool] = {}
        self.config = config
        self.limits = config.limits
        #: Who is at a table changes as fast as a client can reconnect; it is told at
        #: most once an interval (``throttle.py``).  Seats taken or left are told at once.
        self._presence_news: Throttle[LiveGame] = Throttle(
            config.limits.presence_interval, self._broadcast_lobby)
        # SQLite has one writer at a time anyway; PostgreSQL commits in parallel.
        workers = 1 if isinstance(store, SqliteStore) else 4
        self._db_pool = ThreadPoolExecutor(workers, thread_name_prefix="elfenland-db",
                                           initializer=store.pin_thread)
        # Health checks get a thread (and so a store connection) of their own: queued
        # behind a busy server's game writes they would time out, and a load balancer
        # would take a server that is merely busy for a dead one.
        self._probe_pool = ThreadPoolExecutor(1, thread_name_prefix="elfenland-probe",
                                              initializer=store.pin_thread)
        self._cpu_pool = ThreadPoolExecutor(config.bot_threads,
                                            thread_name_prefix="elfenland-bot")
        self.games: dict[str, LiveGame] = {}
        #: Finished games rebuilt once and kept (bounded): looked at again, not replayed.
        self.finished = FinishedGames(config.finished_games, config.finished_bytes)
        self._closing = False
        self.timers = Timers(self._on_deadline)
        self.players = Players(store, config.guard, self._db_pool, config.public_url)
        #: "Your turn" notices, sent again after a restart if never settled (notices.py).
        self.notices = TurnNotices(self)
        self.chat_limiter = ChatLimiter(config.limits)
        #: ``Limits.replies_per_address``: the first update of a socket, and syncs.
        self.replies = KeyedBuckets(config.limits.replies_per_address,
                                    config.limits.reply_address_burst)
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Pings the store while it is down; when it answers, games play on.
        self._recovery: asyncio.Task[None] | None = None
        #: Whether a store call failed for want of the store since its last good ping.
        self._down = False
        #: Finished games whose rating met the store away: rated when it is back.
        self._to_rate: set[LiveGame] = set()
        self.directory: GameDirectory = (directory(self) if directory is not None
                                         else LocalGames(self))

    # -- plumbing --------------------------------------------------------------------
    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a database thread; an unreachable store is the protocol's
        retryable ``unavailable`` error (and starts the recovery task)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._db_pool, partial(fn, *args))
        except StoreUnavailable as exc:
            self.store_down(exc)
            raise ServerError("unavailable",
                              "the game store is unreachable just now; try again") from None
        except LeaseLost as exc:
            raise self._lost(exc) from None

    def _fence(self, game_id: str) -> Fence | None:
        """The token to store a change of the game with (None with one process)."""
        try:
            return self.ownership.fence(game_id)
        except LeaseLost as exc:
            raise self._lost(exc) from None

    def _lost(self, exc: LeaseLost) -> ServerError:
        """The one place a lost lease is handled: taken over (say after this process
        stalled), nothing was stored; the game is let go and its clients reconnect."""
        game = self.games.get(exc.game_id)
        if game is not None:
            log.warning("server %s lost game %s to another server", self.name, game.id)
            self.let_go(game)
        return ServerError("unavailable", "the game moved to another server; reconnect")

    @property
    def name(self) -> str:
        return self.ownership.name

    def let_go(self, game: LiveGame) -> None:
        """Stop serving the game here; its clients reconnect to whoever serves it now."""
        if self.games.get(game.id) is game:
            del self.games[game.id]
        self.ownership.forget(game.id)
        self.players.forget(game.id)  # whoever serves it now may link its seats
        self._told_human.pop(game.id, None)
        self.timers.cancel(game.id)  # its clock is armed again by whoever serves it now
        if game.bot_task is not None and game.bot_task is not asyncio.current_task():
            game.bot_task.cancel()
        for conn in list(game.connections):
            conn.close(RECONNECT)
        self.directory.seats_changed(game.id)

    def begin_drain(self) -> None:
        """Stop taking on games and starting turns (SIGTERM: drain.py)."""
        self.draining = True
        self._closing = True
        self.stop_background()

    def stop_background(self) -> None:
        """Stop the background work that takes on games (none with one process)."""
        self.directory.stop_background()

    async def release_all(self) -> None:
        """Give up every game (a draining process): nothing to do with one process."""
        await self.directory.release_all()

    async def with_presence(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Summaries whose ``connected`` flags also count other processes' sockets."""
        return await self.directory.with_presence(summaries)

    @property
    def store_ok(self) -> bool:
        """False from a failed store call until the store takes a write again."""
        return not self._down

    def store_down(self, exc: BaseException) -> None:
        """A store call failed for want of the store: ping it until it answers."""
        if self._down or self._closing:
            return
        self._down = True
        if self._recovery is None or self._recovery.done():
            log.warning("the store is unavailable: %s", exc)
            self._recovery = asyncio.get_running_loop().create_task(self._recover())
        # else: it failed again within ``STORE_SETTLE`` of its ping: the same outage,
        # whose recovery task pings on (and logs nothing new).

    async def _recover(self, every: float = 0.1) -> None:
        """Wait for the store to take a write (``Store.ping``), then re-arm every live
        game's clock and kick its bots: a deadline or a bot turn that failed meanwhile is
        not lost.  The store is called back only once it stayed so for ``STORE_SETTLE``
        seconds: a call failing again at once is the same outage, so the log has one
        line when it begins and one when it ends."""
        started = time.monotonic()
        back = started
        while not self._closing:
            if not self._down:
                break  # stayed back
            await asyncio.sleep(every)
            try:
                await self.probe(self.store.ping, 0.5)
            except Exception:
                continue
            back = time.monotonic()
            self._down = False
            for game in list(self.games.values()):
                self._arm(game)
                self._kick(game)
            for game in list(self._to_rate):
                self._background(self._rate_and_forget(game))
            await asyncio.sleep(STORE_SETTLE)
        if not self._closing:
            log.warning("the store is back after %.1f s", back - started)

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task the hub keeps until it is done."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _rate_and_forget(self, game: LiveGame) -> None:
        """Rate a finished game away from its play (retried, or left by a stopped
        process); it leaves memory once rated if nobody watches it."""
        await self._rate(game)
        self._forget_if_idle(game)

    async def rate_missed(self) -> None:
        """Decide the rating of each finished game a stopped process left undecided
        (killed, or its store gone, between a game's last action and its rating: the two
        are stored apart).  A game is decided once (rated, or left out by the policy
        with the reason: ``Players.rate_finished``), so each start looks only at games
        never decided.  Each is claimed first through the directory (in a cluster its
        lease: of processes starting together, one decides it), and looked at again
        once claimed (decided meanwhile?) before it is replayed."""
        for game_id in await self.db(self.store.unrated_finished_ids):
            if self._closing:
                return
            try:
                await self._rate_left_over(game_id)
            except Exception:  # one game must not keep the others from their ratings
                log.exception("cannot rate game %s", game_id)

    async def _rate_left_over(self, game_id: str) -> None:
        game = self.games.get(game_id)
        if game is not None and (game.rating or game in self._to_rate):
            return  # being rated here already
        if not await self.directory.claim_finished(game_id):
            return  # another process holds it: that one decides it
        try:
            if await self.db(self.store.decided, game_id):
                return
            if game is None:
                game = await load_game(self, game_id)  # not kept: only rated
            if game.record.status == "finished" and not game.rating:
                await self._rate_and_forget(game)
        finally:
            if game is None or not game.rating:
                self.directory.release_finished(game_id)

    def locked(self, game: LiveGame) -> Locked:
        """The game's lock, with the game read again from the store first if a write of
        it failed with an unknown outcome; a store failure inside marks it so."""
        return Locked(self, game)

    async def _reload(self, game: LiveGame) -> None:
        """Read the game from the store again (the caller holds its lock); clients are
        sent what changed, which the store holds, so they may see it."""
        record = await self.db(self.store.load_game, game.id)
        if record is None:
            raise ServerError("not-found", f"no game {game.id!r}")
        events = await self.db(self.store.events, game.id)
        actions, rows = effective_actions(await self.db(self.store.actions, game.id), events)
        state = await self.cpu(build_state, record, actions)
        clock = await self.db(self.store.load_clock, game.id)
        game.player_hashes = await self.db(self.store.seat_player_hashes, game.id)
        changed = state.history_length() != game.seq or record != game.record
        game.record, game.state, game.events, game.rows = record, state, events, rows
        game.clock = Clock.loads(clock) if clock is not None else None
        game.suspect = False
        self._arm(game)
        if changed:
            log.info("game %s read again from the store at seq %d", game.id, game.seq)
            for c in game.connections:
                c.log_seq = min(c.log_seq, game.seq)
            self._broadcast_lobby(game)
            self._broadcast_update(game)

    async def probe(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn`` on the health check's own store connection."""
        return await asyncio.get_running_loop().run_in_executor(
            self._probe_pool, partial(fn, *args))

    async def cpu(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(
            self._cpu_pool, partial(fn, *args))

    async def startup(self) -> None:
        """Start the event bus, then the directory: one process brings back every
        unfinished game, so its bots play on after a restart."""
        await self.events.start()
        await self.directory.startup()

    async def shutdown(self) -> None:
        await self.directory.stop()
        await self.events.stop()
        self._closing = True
        if self._recovery is not None:
            self._recovery.cancel()
        self.timers.cancel_all()
        self._presence_news.cancel()
        for game in list(self.games.values()):
            if game.bot_task is not None:
                game.bot_task.cancel()
            for conn in game.connections:
                conn.drop()
        self._cpu_pool.shutdown(wait=False, cancel_futures=True)
        self.players.close()
        self._db_pool.shutdown(wait=True)
        self._probe_pool.shutdown(wait=True)
        self.store.close()
        self.directory.close()

    async def get(self, game_id: str, keep: bool = True) -> LiveGame:
        """The live game, loaded from the store if need be.  A finished game that is
        only looked at (``keep=False``) is not kept in memory."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        if not GAME_ID.match(game_id):
            raise ServerError("not-found", f"no game {game_id!r}")
        return await self.directory.get(game_id, keep)

    def _forget_if_idle(self, game: LiveGame) -> None:
        """Finished games nobody watches leave memory; the store keeps them."""
        if game.record.status == "finished" and not game.connections and not game.rating \
                and self.games.get(game.id) is game:
            del self.games[game.id]
            self.timers.cancel(game.id)
        if game.id not in self.games:
            self.directory.forgotten(game)
            self.players.forget(game.id)

    # -- lobby -----------------------------------------------------------------------
    async def list_games(self, status: str | None) -> list[dict[str, Any]]:
        records = await self.db(self.store.list_games, status)
        resting = [r.id for r in records if r.id not in self.games]
        undone = await self.db(self.store.undo_counts, resting) if resting else {}
        out = []
        for record in records:
            live = self.games.get(record.id)
            out.append(live.summary() if live else
                       summary(record, set(), record.seq - undone.get(record.id, 0)))
        return await self.with_presence(out)

    async def create(self, req: CreateGame, host: str, hotseat: dict[int, str] | None = None
                     ) -> tuple[LiveGame, int | None, str | None]:
        """A new game; with ``req.hotseat`` the tokens of the other human seats go into
        ``hotseat`` (seat -> token).  ``host`` is kept, and its unfinished games counted,
        by its address's key (an IPv6 address's /64, ``addresses.address_key``)."""
        host = address_key(host)
        try:
            info = game_info(req.game)
        except ElfenlandError as exc:
            raise ServerError("bad-request", str(exc)) from None
        if req.seats is not None and req.players is not None and len(req.seats) != req.players:
            raise ServerError("bad-request",
                              f"{len(req.seats)} seats given for {req.players} players")
        players = req.players or (len(req.seats) if req.seats else
                                  max(info.min_players, min(4, info.max_players)))
        if not info.min_players <= players <= info.max_players:
            raise ServerError("bad-request", f"{info.title} is for {info.min_players} to "
                                             f"{info.max_players} players, not {players}")
        player = await self.players.by_token(req.player) if req.player else None
        if player is not None and not req.name:
            req = req.model_copy(update={"name": player.name})
        kinds = [s.kind for s in req.seats] if req.seats else ["human"] + ["open"] * (players - 1)
        levels = [s.level for s in req.seats] if req.seats else [None] * players
        try:
            options = new_game_options(info.name, dict(req.options), req.seed)
        except ElfenlandError as exc:
            raise ServerError("bad-request", str(exc)) from None
        # Drawn from ``secrets`` unless the creator chose one (then shown to everyone).
        seed = req.seed if req.seed is not None else secrets.randbits(62)
        creator = kinds.index("human") if "human" in kinds else None
        token = new_token() if creator is not None else None
        seats = []
        for i, (kind, level) in enumerate(zip(kinds, levels, strict=True)):
            if i == creator:
                assert token is not None
                seats.append(SeatRecord(i, "human", clean_name(req.name, i), None,
                                        hash_token(token)))
            elif kind == "bot":
                seats.append(SeatRecord(i, "bot", None, resolve_level(level, info.name, players)))
            elif kind == "human" and req.hotseat:
                seat_token = new_token()
                if hotseat is not None:
                    hotseat[i] = seat_token
                name = req.seats[i].name if req.seats else None
                seats.append(SeatRecord(i, "human", clean_name(name, i), None,
                                        hash_token(seat_token)))
            else:  # other "human" seats wait for their players to join
                seats.append(SeatRecord(i, "open"))
        record = GameRecord(new_game_id(), info.name, players, req.rules, options,
                            seed, "open", 0, now_iso(), host, tuple(seats))
        try:
            state = await self.cpu(build_state, record)
        except (ElfenlandError, TypeError) as exc:
            raise ServerError("bad-request", f"cannot set up that game: {exc}") from None
        # The engine's own name for the rules (the default one when none was asked for).
        record = replace(record, rules=rules_name(state) or record.rules)
        clock = (Clock.new(req.tempo, players, self.limits.min_per_move)
                 if req.tempo is not None else None)
        # Counted and inserted in one transaction: concurrent creates cannot pass the
        # limit together (issue 23).
        if not await self.db(self.store.create_game, record,
                             clock.dumps() if clock is not None else None,
                             self.limits.games_per_host):
            raise ServerError("too-many-games",
                              f"{host} has {self.limits.games_per_host} unfinished games; "
                              "finish one first")
        game = LiveGame(record, state, clock=clock)
        if player is not None and creator is not None and req.player:
            await self.players.link(record.id, creator, player)
            game.player_hashes[creator] = hash_token(req.player)
        now = time.monotonic()
        game.left_at = {s.seat: now for s in seats}
        self.directory.created(game)
        self.events.publish({"type": "lobby", "game": game.summary()})
        return game, creator, token

    async def join(self, game_id: str, name: str | None, seat: int | None,
                   player_token: str | None = None) -> tuple[LiveGame, int, str]:
        game = await self.get(game_id)
        player = await self.players.by_token(player_token) if player_token else None
        if player is not None and not name:
            name = player.name
        async with self.locked(game):
            self._require_open(game)
            seats = list(game.record.seats)
            if seat is None:
                free = [s.seat for s in seats if s.kind == "open"]
                if not free:
                    raise ServerError("seat-taken", "no open seat left")
                seat = free[0]
            if not 0 <= seat < len(seats):
                raise ServerError("not-found", f"no seat {seat}")
            if seats[seat].kind != "open":
                raise ServerError("seat-taken", f"seat {seat} is not open")
            token = new_token()
            seats[seat] = SeatRecord(seat, "human", clean_name(name, seat), None,
                                     hash_token(token))
            await self._save_seats(game, tuple(seats))
            if player is not None and player_token:
                await self.players.link(game.id, seat, player)
                game.player_hashes[seat] = hash_token(player_token)
            game.left_at[seat] = time.monotonic()
        self._broadcast_lobby(game)
        return game, seat, token

    async def start(self, game_id: str, token: str | None, fill: str | None) -> LiveGame:
        game = await self.get(game_id)
        async with self.locked(game):
            self._require_open(game)
            humans = [s for s in game.record.seats if s.token_hash is not None]
            if humans and not game.seats_of(token):
                raise ServerError("bad-token", "only a seated player may start the game")
            level = resolve_level(fill or "greedy", game.record.game, len(game.record.seats))
            seats = tuple(SeatRecord(s.seat, "bot", None, level) if s.kind == "open" else s
                          for s in game.record.seats)
            await self._save_seats(game, seats, "running")
            if game.clock is not None:
                game.clock = game.clock.turn(game.state.current_player(), game.seq, time.time())
                await self.db(self.store.save_clock, game.id, game.clock.dumps(),
                              self._fence(game.id))
                self._arm(game)
            self._broadcast_lobby(game)
            # The views sent before the start offered nothing; now the seat to act gets its
            # choices.
            self._broadcast_update(game)
            self._turn_started(game)
        self._kick(game)
        return game

    async def seat_to_bot(self, game_id: str, seat: int, token: str, level: str | None
                          ) -> LiveGame:
        game = await self.get(game_id)
        async with self.locked(game):
            if game.record.status == "finished":
                raise ServerError("game-over", "the game is over")
            seats = list(game.record.seats)
            if not 0 <= seat < len(seats):
                raise ServerError("not-found", f"no seat {seat}")
            held = game.seats_of(token)
            if not held:
                raise ServerError("bad-token", "only a seated player may hand a seat to a bot")
            target = seats[seat]
            if target.kind != "human":
                raise ServerError("seat-taken", f"seat {seat} is not held by a human")
            if seat not in held and not self._absent(game, seat):
                raise ServerError(
                    "bad-token", f"seat {seat}'s player is here (or left less than "
                                 f"{self.limits.absent_after:g} s ago); only they may hand "
                                 "their seat to a bot")
            chosen = resolve_level(level or "greedy", game.record.game, len(seats))
            seats[seat] = replace(target, kind="bot", level=chosen)
            await self._save_seats(game, tuple(seats), handover=Handover(seat, game.seq, True))
        self._broadcast_lobby(game)
        self._kick(game)
        return game

    async def take_seat(self, game_id: str, seat: int, token: str) -> LiveGame:
        game = await self.get(game_id)
        async with self.locked(game):
            seats = list(game.record.seats)
            if not 0 <= seat < len(seats):
                raise ServerError("not-found", f"no seat {seat}")
            if seat not in game.seats_of(token):
                raise ServerError("bad-token", f"that is not seat {seat}'s token, nor its "
                                               "player's")
            if game.clock is not None and game.clock.out_for_good(seat):
                raise ServerError("timed-out", f"seat {seat} ran out of time "
                                  f"{game.clock.max_timeouts} times: a bot plays it to the end")
            if seats[seat].kind == "bot":
                seats[seat] = replace(seats[seat], kind="human", level=None)
                await self._save_seats(game, tuple(seats),
                                       handover=Handover(seat, game.seq, False))
        self._broadcast_lobby(game)
        return game

    def _absent(self, game: LiveGame, seat: int) -> bool:
        if seat in game.connected():
            return False
        since = game.left_at.get(seat, 0.0)
        return time.monotonic() - since >= self.limits.absent_after

    @staticmethod
    def _require_open(game: LiveGame) -> None:
        if game.record.status == "finished":
            raise ServerError("game-over", "the game is over")
        if game.record.status != "open":
            raise ServerError("already-started", "the game has started")

    async def _save_seats(self, game: LiveGame, seats: tuple[SeatRecord, ...],
                          status: Any = None, handover: Handover | None = None) -> None:
        if not self.directory.serving(game):
            raise ServerError("unavailable", "the game moved to another server; try again")
        await self.db(self.store.save_seats, game.id, seats, status,
                      self._fence(game.id), handover)
        game.record = game.record.with_seats(seats, status)

    @property
    def closing(self) -> bool:
        """Whether the process is shutting down (or draining): no new turns start."""
        return self._closing

    # -- play ------------------------------------------------------------------------
    async def act(self, game: LiveGame, conn: Connection, action: str | int, seq: int) -> None:
        if conn.seat is None:
            raise ServerError("bad-token", "spectators cannot act; join a seat first")
        seat = conn.seat
        async with self.locked(game):
            game.check_act(seat, seq)
            await self._apply(game, seat, action)

    async def chat(self, game: LiveGame, conn: Connection, text: object, name: object
                   ) -> None:
        """A chat message from a seat (under the seat's name) or a spectator (under the
        name they give), stored with the game, then sent to every connection."""
        message = clean_message(text, self.limits.chat_max)
        may_chat(game.record, conn.seat)
        self.chat_limiter.admit(game.id, conn.seat, conn.address)
        async with self.locked(game):
            if conn.seat is None:
                body = {"text": message, "name": spectator_name(name), "spectator": True}
            else:
                seat = game.record.seats[conn.seat]
                body = {"text": message, "name": seat.name or f"Player {conn.seat + 1}",
                        "spectator": False}
            event = EventRecord("chat", conn.seat, game.seq, body, now_iso())
            stored = await self.db(self.store.add_event, game.id, event, None, None,
                                   self._fence(game.id))
            assert stored is not None  # a chat message has no key, so it is always new
            game.events.append(stored)
            # Stored: told at once.  Whatever happens to the trimming below, the message
            # is not refused now (a retry would store it twice).
            self._broadcast_event(game, stored)
            # The game's chat over its cap: its oldest lines go, trimmed on a copy that
            # is swapped in only once the store has dropped them too (if it cannot just
            # now, they go with a later message).
            kept = list(game.events)
            dropped = trim_chat(kept, self.limits.chat_lines, self.limits.chat_bytes)
            if dropped:
                try:
                    await self.db(self.store.drop_events, game.id, dropped,
                                  self._fence(game.id))
                except ServerError as exc:
                    log.info("the old chat of game %s stays for now: %s", game.id,
                             exc.message)
                    return
                game.events = kept

    async def undo(self, game: LiveGame, conn: Connection, seq: int) -> None:
        """Take back the game's last action for the seat that played it (undo.py has
        the rule); stored as an ``undo`` event, then everyone gets the earlier state."""
        if conn.seat is None:
            raise ServerError("bad-token", "spectators cannot take anything back")
        seat = conn.seat
        async with self.locked(game):
            if game.record.status == "open":
                raise ServerError("not-started", "the game has not started")
            if game.state.is_terminal():
                raise ServerError("game-over", "the game is over")
            if game.record.seats[seat].kind != "human" or self._standing_in(game) == seat:
                raise ServerError("not-your-turn", f"a bot plays seat {seat} now")
            if seq != game.seq:
                raise ServerError("stale", f"the game is at seq {game.seq}, not {seq}")
            if not game.rows:
                raise ServerError("cannot-undo", "there is nothing to take back")
            texts = [str(a) for a in game.state.history]
            before = await self.cpu(build_state, game.record, texts[:-1])
            if before.current_player() != seat:
                raise ServerError("cannot-undo", "the last action is not yours")
            why = await self.cpu(undo_refusal, before, texts[-1])
            if why is not None:
                raise ServerError("cannot-undo", f"that action cannot be taken back: {why}")
            public = game.state.view(None).get("log", [])
            row = game.rows[-1]
            clock = game.clock
            if clock is not None:
                clock = clock.turn(seat, len(texts) - 1, time.time())
            event = EventRecord("undo", seat, game.seq,
                                {"row": row, "action": public[-1]["action"] if public else ""},
                                now_iso(), key=f"undo:{row}")
            stored = await self.db(self.store.add_event, game.id, event,
                                   clock.dumps() if clock is not None else None, None,
                                   self._fence(game.id))
            if stored is None:
                raise ServerError("cannot-undo", "that action was taken back already")
            game.state = before
            game.rows.pop()
            game.events.append(stored)
            if clock is not None:
                game.clock = clock
                self._arm(game)
            for c in game.connections:
                c.log_seq = min(c.log_seq, game.seq)
            self._broadcast_event(game, stored)
            self._broadcast_update(game)
        self._kick(game)

    async def hint(self, game_id: str, token: str | None, seat: int | None = None
                   ) -> dict[str, Any]:
        """The planner's best route for the seat to act, on a copy of the state taken under
        the game's lock (so never a state whose action is not stored yet), planned in the
        thread pool.  ``seat`` names the seat when a player token holds several."""
        game = await self.get(game_id, keep=False)
        seat = game.seat_of(token, seat)
        if seat is None:
            raise ServerError("bad-token", "a route hint needs the token of a seat of this game")
        async with self.locked(game):
            if game.record.status == "open":
                raise ServerError("not-started", "the game has not started")
            if game.record.seats[seat].kind != "human":
                raise ServerError("not-your-turn",
                                  f"a bot plays seat {seat} now; take the seat back first")
            state = check_hint(game.state, seat, game.record.options).clone()
        return await self.cpu(route_hint, state, seat)

    async def _apply(self, game: LiveGame, player: int, action: str | int) -> None:
        """The game's play path (``LiveGame.play``: check, apply to a copy, store, swap,
        tell), for a game this process still serves; the caller holds its lock."""
        if not self.directory.serving(game):
            self.let_go(game)
            raise ServerError("unavailable", "the game moved to another server; reconnect")
        await game.play(self, player, action)

    # -- messages --------------------------------------------------------------------
    def update_text(self, game: LiveGame, conn: Connection, since: int | None = None) -> str:
        return game.update_text(conn, since)

    def _broadcast_update(self, game: LiveGame) -> None:
        game.send_update()
        self._tell_turn(game)

    def _tell_turn(self, game: LiveGame) -> None:
        """Tell the bus whose turn it is.  Every action that leaves a human to act is
        told; of the bots' turns only the first after a human's (or the first this
        process serves), so that a "your turn" shown elsewhere ends when the turn has
        passed, without a notice per bot move."""
        if game.record.status != "running" or game.state.is_terminal():
            self._told_human.pop(game.id, None)
            return
        seat = game.state.current_player()
        human = 0 <= seat < len(game.record.seats) and game.record.seats[seat].kind == "human"
        if human or self._told_human.get(game.id, True):
            self.events.publish({"type": "turn", "game": game.id, "seq": game.seq,
                                 "seat": seat})
            self._told_human[game.id] = human

    def lobby_text(self, game: LiveGame) -> str:
        return game.lobby_text()

    def _broadcast_lobby(self, game: LiveGame) -> None:
        self.events.publish({"type": "lobby", "game": game.summary()})
        game.send_lobby()

    def attach(self, game: LiveGame, conn: Connection, since: int) -> None:
        """Register a connection and queue its greeting and the log it missed, with no
        await in between, so no update can fall between the two."""
        was_connected = conn.seat is not None and conn.seat in game.connected()
        game.connections.append(conn)
        conn.send(json.dumps({"type": "hello", "game": game.summary(), "seat": conn.seat},
                             separators=(",", ":")))
        conn.send(self.update_text(game, conn, since=since))
        events, left_out = recent_events(game.events, self.limits.chat_history)
        conn.send(json.dumps({"type": "events", "events": [event_json(e) for e in events],
                              "chat_left_out": left_out}, separators=(",", ":")))
        if conn.seat is not None and not was_connected:
            self._presence_news(game)
        if conn.seat is not None:
            self.directory.seats_changed(game.id)

    def detach(self, game: LiveGame, conn: Connection) -> None:
        if conn in game.connections:
            game.connections.remove(conn)
        if conn.seat is not None and conn.seat not in game.connected():
            game.left_at[conn.seat] = time.monotonic()
            self._presence_news(game)
        self._forget_if_idle(game)
        if conn.seat is not None:
            self.directory.seats_changed(game.id)

    # -- bots ------------------------------------------------------------------------
    def _fallback_level(self, game: LiveGame) -> str:
        """The level of a bot that takes over a timed-out seat (the configured one, if
        it plays this game)."""
        return resolve_level(self.config.timeout_level, game.record.game,
                             len(game.record.seats))

    def _bot_to_move(self, game: LiveGame) -> int | None:
        if game.record.status != "running" or game.state.is_terminal():
            return None
        seat = game.state.current_player()
        if 0 <= seat < len(game.record.seats) and game.record.seats[seat].kind == "bot":
            return seat
        return self._standing_in(game)

    @staticmethod
    def _standing_in(game: LiveGame) -> int | None:
        """The seat a bot plays this turn for because its time ran out, if any."""
        return game.standing_in()

    # -- players -----------------------------------------------------------------------
    def _turn_started(self, game: LiveGame) -> None:
        """A new seat is to act: its player's webhook, if any, is called (once a turn;
        at least once across restarts: notices.py)."""
        self.notices.started(game)

    async def _rate(self, game: LiveGame) -> None:
        """Update the ratings of a game that just ended, and tell the table.  A game whose
        creator chose the seed (#12), with the route hint (#26) or whose rules are custom
        (#22) is unrated: that decision is stored instead (``Players.rate_finished``),
        so that a start does not look at the game again."""
        game.rating = True
        self._to_rate.discard(game)
        pending = False
        try:
            state = game.state
            decided = await self.players.rate_finished(
                game.record, list(state.scores()), list(state.winners()), game.seq,
                now_iso(), self._fence(game.id))
        except Exception as exc:
            if isinstance(exc, StoreUnavailable) or (isinstance(exc, ServerError)
                                                     and exc.code == "unavailable"):
                # The store went away as the game ended: rated once it is back (the
                # recovery task), the game kept in memory till then.
                log.info("game %s is rated once the store is back: %s", game.id, exc)
                pending = True
                self._to_rate.add(game)
                if isinstance(exc, StoreUnavailable):
                    self.store_down(exc)
            else:
                log.exception("cannot rate game %s", game.id)
            return
        finally:
            # Its last players may have left meanwhile: the game could not leave memory
            # (nor, in a cluster, its lease) before its rating was stored.
            game.rating = pending
        if decided is not None:
            game.events = await self.db(self.store.events, game.id)
            for event in game.events:
                if event.key == RATING_KEY:
                    self._broadcast_event(game, event)

    # -- clocks ----------------------------------------------------------------------
    def _arm(self, game: LiveGame) -> None:
        """(Re)arm the game's one timer at its clock's deadline, if it has one."""
        if game.clock is None or game.record.status != "running":
            self.timers.cancel(game.id)
            return
        self.timers.arm(game.id, game.clock.deadline)

    async def _on_deadline(self, game_id: str) -> None:
        try:
            await self._time_out(game_id)
        except Exception as exc:
            if isinstance(exc, ServerError) and exc.code == "unavailable":
                # The store is away: the recovery task arms the clock again once it is
                # back (or the game moved: its new server has armed it).
                log.info("the deadline of game %s waits: %s", game_id, exc.message)
            else:
                log.exception("the deadline of game %s failed", game_id)

    async def _time_out(self, game_id: str) -> None:
        """A turn's time ran out: record the timeout (once: its key is the turn's seq),
        let a bot play the turn, and after too many timeouts give the seat to a bot."""
        game = self.games.get(game_id)
        if game is None or self._closing:
            return
        async with self.locked(game):
            clock = game.clock
            if clock is None or clock.deadline is None or game.record.status != "running":
                return
            if time.time() < clock.deadline:  # the clock changed since the timer was set
                self._arm(game)
                return
            seat = clock.turn_seat
            if seat is None or game.state.is_terminal() or game.state.current_player() != seat:
                return
            if game.record.seats[seat].kind != "human":
                return  # a bot plays the seat anyway
            after = clock.timed_out()
            seats = None
            if after.out_for_good(seat):
                seats = tuple(replace(s, kind="bot", level=self._fallback_level(game))
                              if s.seat == seat else s for s in game.record.seats)
            event = EventRecord("timeout", seat, game.seq,
                                {"timeouts": after.timeouts[seat], "for_good": seats is not None},
                                now_iso(), key=f"timeout:{game.record.seq}")
            stored = await self.db(self.store.add_event, game.id, event, after.dumps(), seats,
                                   self._fence(game.id))
            if stored is None:
                # Recorded before (by a process that stopped since): the store's clock and
                # seats already say what this timeout did.
                text = await self.db(self.store.load_clock, game.id)
                record = await self.db(self.store.load_game, game.id)
                after = Clock.loads(text) if text is not None else after
                seats = record.seats if record is not None else None
            else:
                game.events.append(stored)
                self._broadcast_event(game, stored)
            game.clock = after
            self.timers.cancel(game.id)
            if seats is not None:
                game.record = game.record.with_seats(seats)
                self._broadcast_lobby(game)
            self._broadcast_update(game)
        self._kick(game)

    def _broadcast_event(self, game: LiveGame, event: EventRecord) -> None:
        game.send_event(event)

    def _kick(self, game: LiveGame) -> None:
        """Make sure a bot whose turn it is gets to play; a game with no bot to move may
        leave memory (``_forget_if_idle``).  That is looked at before the running bot
        task: the bots' own last move kicks from inside that task, and a finished game
        nobody watches must leave memory then too."""
        if self._closing:
            return
        if self._bot_to_move(game) is None:
            self._forget_if_idle(game)
            return
        if game.bot_task is not None and not game.bot_task.done():
            return
        game.bot_task = asyncio.create_task(self._bot_loop(game))

    async def _bot_loop(self, game: LiveGame) -> None:
        try:
            await self._bot_turns(game)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, ServerError) and exc.code == "unavailable":
                # The store is away (or the game moved): the recovery task, or the
                # process that serves the game now, kicks them again.
                log.info("the bots of game %s wait: %s", game.id, exc.message)
            else:
                log.exception("the bots of game %s stopped", game.id)

    async def _bot_turns(self, game: LiveGame) -> None:
        while not self._closing:
            seat = self._bot_to_move(game)
            if seat is None:
                return
            seq = game.seq
            await asyncio.sleep(self.config.bot_delay)
            if game.seq != seq or self._bot_to_move(game) != seat:
                continue
            level = game.record.seats[seat].level or self._fallback_level(game)
            seed = decision_seed(game.record.seed, seat, seq)
            text, own = await bot_decision(self._cpu_pool, level, game.record.game, seed,
                                           game.state, self.config.bot_time_limit)
            if not own:
                log.warning("bot %s in game %s seat %d failed or ran out of time at seq %d",
                            level, game.id, seat, seq)
            async with self.locked(game):
                if game.seq != seq or self._bot_to_move(game) != seat:
                    continue
                try:
                    await self._apply(game, seat, text)
                except ServerError as exc:
                    if exc.code == "unavailable":
                        # The game moved to another process (a drain or a takeover):
                        # its bots play on there.
                        log.info("bots of game %s stop here: %s", game.id, exc.message)
                        return
                    log.error("bot %s in game %s played %r: %s", level, game.id, text,
                              exc.message)
                    legal = game.state.legal_actions()
                    await self._apply(game, seat, str(legal[seed % len(legal)]))
