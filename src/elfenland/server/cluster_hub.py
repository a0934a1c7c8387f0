"""The hub as one of several processes over one PostgreSQL store.

``ClusterHub`` serves a game only
while it owns it (``ownership.py``): the first request for a game claims it — asking the
process that holds it to hand it over if need be — and replays it from the store; a game
this process loses (handed over, taken over after a stall) is let go, and its sockets are
closed with code 1012 so that clients reconnect through the load balancer to the new
owner.  Running games nobody owns (their process died) are adopted in the lease loop, so
their bots play on even with no client asking for them.  Which seats have a player
connected is kept in the store (``presence.py``), so every process's lobby shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .config import ClusterSettings, ServerConfig
from .errors import ServerError, StoreUnavailable
from .events import Event, PostgresEventBus
from .hub import GAME_ID, RECONNECT, Connection, Hub, LiveGame, build_state
from .lobby import CreateGame, mark_connected, summary
from .ownership import Leases, open_shared_store
from .presence import Presence
from .store import PostgresStore, Store, open_store

log = logging.getLogger("elfenland.server.cluster")

__all__ = ["RECONNECT", "ClusterHub", "make_hub", "make_store"]



class ClusterHub(Hub):
    """A hub whose games are leased (``ownership.Leases``): it claims them on demand,
    adopts orphans, hands them over when asked, and lets go of those it lost."""

    def __init__(self, store: PostgresStore, config: ServerConfig, leases: Leases) -> None:
        super().__init__(store, config, leases)
        assert config.cluster is not None
        self.leases = leases
        self.settings: ClusterSettings = config.cluster
        self.events = PostgresEventBus(leases, self.db)
        self._claiming: dict[str, asyncio.Lock] = {}
        self._lease_task: asyncio.Task[None] | None = None
        # Renewals get a thread (so a store connection) of their own: queued behind a
        # busy process's game writes they came late, and the leases of a process that was
        # merely busy expired and its games were adopted elsewhere.
        self._lease_pool = ThreadPoolExecutor(1, thread_name_prefix="elfenland-lease")
        self._tasks: set[asyncio.Task[Any]] = set()
        self.presence = Presence(store, leases, self.db, self._connected_here)

    # -- start and stop --------------------------------------------------------------
    async def startup(self) -> None:
        # Unlike one process, this one does not load every unfinished game: the lease
        # loop adopts those no process serves.
        await self.events.start()
        self.events.subscribe(self._on_event)
        await self.presence.start(max(0.2, self.settings.lease_seconds / 3),
                                  self._presence_gone)
        self._lease_task = asyncio.create_task(self._lease_loop())
        log.info("server %s up", self.name)

    def stop_background(self) -> None:
        if self._lease_task is not None:
            self._lease_task.cancel()

    async def release_all(self) -> None:
        await self.db(self.leases.release_all)

    async def shutdown(self) -> None:
        self.stop_background()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await self.release_all()
        await self.presence.stop()
        await super().shutdown()
        self.leases.close()
        self._lease_pool.shutdown(wait=False)

    # -- who is connected ------------------------------------------------------------
    def _connected_here(self, game_id: str) -> set[int]:
        game = self.games.get(game_id)
        return game.connected() if game is not None else set()

    def attach(self, game: LiveGame, conn: Connection, since: int) -> None:
        super().attach(game, conn, since)
        if conn.seat is not None:
            self.presence.changed(game.id)

    def detach(self, game: LiveGame, conn: Connection) -> None:
        super().detach(game, conn)
        if conn.seat is not None:
            self.presence.changed(game.id)

    async def list_games(self, status: str | None) -> list[dict[str, Any]]:
        return await self.with_presence(await super().list_games(status))

    async def with_presence(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        there = await self.presence.elsewhere(s["id"] for s in summaries)
        for s in summaries:
            mark_connected(s, there.get(s["id"], set()))
        return summaries

    async def _presence_gone(self, game_ids: list[str]) -> None:
        """A process died with players connected to these games: tell the lobby feeds."""
        for game_id in game_ids:
            game = self.games.get(game_id)
            if game is not None:
                out = game.summary()
            else:
                record = await self.db(self.store.load_game, game_id)
                if record is None:
                    continue
                out = summary(record, set(), record.seq)
            await self.with_presence([out])
            self.events.publish({"type": "lobby", "game": out})

    # -- owning games ----------------------------------------------------------------
    async def get(self, game_id: str, keep: bool = True) -> LiveGame:
        game = self.games.get(game_id)
        if game is not None:
            return game
        if not GAME_ID.match(game_id):
            raise ServerError("not-found", f"no game {game_id!r}")
        if not keep:
            # Looking only (a summary, a replay, a hint): the store's state, unowned.
            return await self._load(game_id)
        return await self._take(game_id, wait=True)

    async def create(self, req: CreateGame, host: str, hotseat: dict[int, str] | None = None
                     ) -> tuple[LiveGame, int | None, str | None]:
        game, seat, token = await super().create(req, host, hotseat)
        # Stored, not kept: the process the load balancer sends the game's requests to
        # claims it on the first one.
        self.games.pop(game.id, None)
        return game, seat, token

    async def _load(self, game_id: str) -> LiveGame:
        record = await self.db(self.store.load_game, game_id)
        if record is None:
            raise ServerError("not-found", f"no game {game_id!r}")
        actions = await self.db(self.store.actions, game_id)
        state = await self.cpu(build_state, record, actions)
        game = LiveGame(record, state)
        now = time.monotonic()
        game.left_at = {s.seat: now for s in record.seats}
        return game

    async def _take(self, game_id: str, wait: bool) -> LiveGame:
        """Claim the game (asking its owner to hand it over if ``wait``), then replay it
        from the store; its bots play on here."""
        lock = self._claiming.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                game = self.games.get(game_id)
                if game is not None:
                    return game
                if self.draining:
                    raise ServerError("unavailable", "this server is shutting down; reconnect")
                record = await self.db(self.store.load_game, game_id)
                if record is None:
                    raise ServerError("not-found", f"no game {game_id!r}")
                if record.status != "finished":
                    epoch = await self._claim(game_id, wait)
                    if epoch is None:
                        raise ServerError("unavailable", f"game {game_id} is served elsewhere")
                game = await self._load(game_id)
                self.games[game_id] = game
                if record.status != "finished":
                    log.info("server %s serves game %s at seq %d", self.name, game_id, game.seq)
                if record.status == "running":
                    self._kick(game)
                return game
        finally:
            if not lock.locked():
                self._claiming.pop(game_id, None)

    async def _claim(self, game_id: str, wait: bool) -> int | None:
        deadline = time.monotonic() + self.settings.claim_wait
        asked = 0.0
        while True:
            epoch = await self.db(self.leases.claim, game_id)
            if epoch is not None or not wait:
                return epoch
            now = time.monotonic()
            if now > deadline:
                raise ServerError("unavailable",
                                  f"game {game_id} is still held by another server; try again")
            if now - asked > 1.0:
                asked = now
                self.events.publish({"type": "release", "game": game_id,
                                     "to": self.leases.owner, "key": self.leases.owner_key})
            await asyncio.sleep(0.05)

    def _on_event(self, event: Event) -> None:
        if event.get("type") != "release" or event.get("to") == self.leases.owner:
            return
        game_id = event.get("game")
        if not isinstance(game_id, str) or game_id in self._claiming:
            return
        if game_id not in self.games and game_id not in self.leases.epochs:
            return
        task = asyncio.create_task(self._hand_over(game_id, str(event["to"]),
                                                   int(event["key"])))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _hand_over(self, game_id: str, owner: str, key: int) -> None:
        """Another process was asked for this game (the load balancer sends its clients
        there now): finish what is in flight, then give it the lease and our clients."""
        game = self.games.get(game_id)
        if game is None:
            await self.db(self.leases.hand_over, game_id, owner, key)
            return
        async with game.lock:
            if self.games.get(game_id) is not game:
                return
            self.let_go(game)
            moved = await self.db(self.leases.hand_over, game_id, owner, key)
        if moved:
            log.info("server %s handed game %s over to %s", self.name, game_id, owner)
        else:
            log.warning("server %s lost game %s (taken over while this process stalled)",
                        self.name, game_id)

    def let_go(self, game: LiveGame) -> None:
        super().let_go(game)
        self.presence.changed(game.id)

    def _forget_if_idle(self, game: LiveGame) -> None:
        super()._forget_if_idle(game)
        if game.id not in self.games:
            self.leases.forget(game.id)

    async def _apply(self, game: LiveGame, player: int, action: str | int) -> None:
        if self.games.get(game.id) is not game:
            self.let_go(game)
            raise ServerError("unavailable", "the game moved to another server; reconnect")
        await super()._apply(game, player, action)

    async def _save_seats(self, game: LiveGame, seats: Any, status: Any = None) -> None:
        if self.games.get(game.id) is not game:
            raise ServerError("unavailable", "the game moved to another server; try again")
        await super()._save_seats(game, seats, status)

    # -- the lease loop --------------------------------------------------------------
    async def _lease_loop(self) -> None:
        every = max(0.2, self.settings.lease_seconds / 3)
        while True:
            await asyncio.sleep(every)
            try:
                await self._renew()
                if not self.draining:
                    for game_id in await self.db(self.leases.orphans, 20):
                        with contextlib.suppress(ServerError):
                            await self._take(game_id, wait=False)
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:  # the store is away: renew when it is back
                log.warning("server %s: cannot renew leases now: %s", self.name, exc)
            except Exception:
                log.exception("server %s: lease upkeep failed", self.name)

    async def _renew(self) -> None:
        claimed = list(self.leases.epochs)
        kept = await asyncio.get_running_loop().run_in_executor(
            self._lease_pool, self.leases.renew, claimed + list(self._claiming))
        for game_id in claimed:
            if game_id in kept or game_id in self._claiming:
                continue
            game = self.games.get(game_id)
            if game is not None and game_id in self.leases.epochs:
                log.warning("server %s lost game %s (lease taken over)", self.name, game_id)
                async with game.lock:
                    self.let_go(game)


def make_store(config: ServerConfig) -> Store:
    if config.cluster is None:
        return open_store(config.db)
    if not config.db or not config.db.startswith(("postgresql://", "postgres://")):
        raise ValueError("several server processes share a PostgreSQL store: "
                         "give --db postgresql://…")
    return open_shared_store(config.db, config.cluster)


def make_hub(store: Store, config: ServerConfig) -> Hub:
    """One process's hub: its ownership and event bus chosen by the configuration."""
    if config.cluster is not None:
        if not isinstance(store, PostgresStore):
            raise ValueError("a cluster process needs a PostgreSQL store")
        return ClusterHub(store, config, Leases(store, config.cluster))
    return Hub(store, config)
