"""Games served by one process among several over one PostgreSQL store.

``LeasedGames`` is the hub's game directory in a cluster: the hub serves a game only
while this process owns it (``ownership.Leases``): the first request for a game claims
it — asking the process that holds it to hand it over if need be — and replays it from
the store; a game this process loses (handed over, taken over after a stall) is let go,
and its sockets are closed with code 1012 so that clients reconnect through the load
balancer to the new owner.  Running games nobody owns (their process died) are adopted
in the lease loop, so their bots play on even with no client asking for them.  Which
seats have a player connected is kept in the store (``presence.py``), so every
process's lobby shows it.  It is passed into the one ``Hub`` class (``directory.py``),
which calls it where one process and several differ.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from .directory import load_game
from .errors import ServerError, StoreUnavailable
from .events import Event
from .live import LiveGame
from .lobby import mark_connected, summary
from .ownership import Leases
from .presence import Presence

if TYPE_CHECKING:
    from .hub import Hub

log = logging.getLogger("elfenland.server.cluster")

__all__ = ["LeasedGames"]


class LeasedGames:
    """The games of a process whose games are leased (``ownership.Leases``): it claims
    them on demand, adopts orphans, hands them over when asked, and lets go of those it
    lost."""

    def __init__(self, hub: Hub, leases: Leases) -> None:
        assert hub.config.cluster is not None
        self.hub = hub
        self.leases = leases
        self.settings = hub.config.cluster
        self._claiming: dict[str, asyncio.Lock] = {}
        self._lease_task: asyncio.Task[None] | None = None
        # Renewals get a thread (so a store connection) of their own: queued behind a
        # busy process's game writes they came late, and the leases of a process that was
        # merely busy expired and its games were adopted elsewhere.
        self._lease_pool = ThreadPoolExecutor(1, thread_name_prefix="elfenland-lease")
        self._tasks: set[asyncio.Task[Any]] = set()
        self.presence = Presence(leases.store, leases, hub.db, self._connected_here)

    @property
    def name(self) -> str:
        return self.hub.name

    # -- start and stop --------------------------------------------------------------
    async def startup(self) -> None:
        # Unlike one process, this one does not load every unfinished game: the lease
        # loop adopts those no process serves.
        self.hub.events.subscribe(self._on_event)
        await self.presence.start(max(0.2, self.settings.lease_seconds / 3),
                                  self._presence_gone)
        self._lease_task = asyncio.create_task(self._lease_loop())
        self.hub._background(self._rate_missed())
        log.info("server %s up", self.name)

    async def _rate_missed(self, wait: float = 30.0) -> None:
        """Decide the ratings finished games were left without (``Hub.rate_missed``),
        once this process's session is up (its claims need it).  Every process of a
        cluster does so at its start; each game is claimed first (``claim_finished``),
        so one process decides it, and its ``rated`` key keeps it once anyway."""
        until = time.monotonic() + wait
        while not self.leases.alive:
            if self.hub.closing or time.monotonic() > until:
                log.warning("server %s: no PostgreSQL session; finished games left "
                            "unrated wait for the next start", self.name)
                return
            await asyncio.sleep(0.1)
        try:
            await self.hub.rate_missed()
        except Exception as exc:  # the store is away: the games are rated at a next start
            log.warning("server %s: cannot look for finished games left unrated: %s",
                        self.name, exc)

    def stop_background(self) -> None:
        if self._lease_task is not None:
            self._lease_task.cancel()

    async def release_all(self) -> None:
        await self.hub.db(self.leases.release_all)

    async def stop(self) -> None:
        """Before the hub stops: no more claims, leases given up, presence rows gone."""
        self.stop_background()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await self.release_all()
        await self.presence.stop()

    def close(self) -> None:
        """After the hub stopped: the process's own session ends."""
        self.leases.close()
        self._lease_pool.shutdown(wait=False)

    # -- who is connected ------------------------------------------------------------
    def _connected_here(self, game_id: str) -> set[int]:
        game = self.hub.games.get(game_id)
        return game.connected() if game is not None else set()

    def seats_changed(self, game_id: str) -> None:
        """A seat of the game got or lost its last socket here (or the game left)."""
        self.presence.changed(game_id)

    async def with_presence(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        there = await self.presence.elsewhere(s["id"] for s in summaries)
        for s in summaries:
            mark_connected(s, there.get(s["id"], set()))
        return summaries

    async def _presence_gone(self, game_ids: list[str]) -> None:
        """A process died with players connected to these games: tell the lobby feeds."""
        for game_id in game_ids:
            game = self.hub.games.get(game_id)
            if game is not None:
                out = game.summary()
            else:
                record = await self.hub.db(self.hub.store.load_game, game_id)
                if record is None:
                    continue
                out = summary(record, set(), record.seq)
            await self.with_presence([out])
            self.hub.events.publish({"type": "lobby", "game": out})

    # -- owning games ----------------------------------------------------------------
    async def get(self, game_id: str, keep: bool) -> LiveGame:
        """A game no one here serves yet: claimed (and so kept), or with ``keep=False``
        only looked at (a summary, a replay, a hint): the store's state, unowned."""
        if not keep:
            return await self._load(game_id)
        return await self._take(game_id, wait=True)

    def created(self, game: LiveGame) -> None:
        """Stored, not kept: the process the load balancer sends the game's requests to
        claims it on the first one."""

    def serving(self, game: LiveGame) -> bool:
        """Whether this process still serves the game (not let go meanwhile)."""
        return self.hub.games.get(game.id) is game

    def forgotten(self, game: LiveGame) -> None:
        """The game left memory: stop writing it (its lease lapses at the next renewal)."""
        self.leases.forget(game.id)

    async def claim_finished(self, game_id: str) -> bool:
        """Claim a finished game's lease to decide its rating (not waiting: a process
        that holds it, alive, rates it itself or left it to a later start).  The rating
        is then stored with this process's fence, so a process that held the game before
        and stalled cannot store one too."""
        if self.hub.draining:
            return False
        return await self.hub.db(self.leases.claim, game_id) is not None

    def release_finished(self, game_id: str) -> None:
        """The finished game is rated (or was left alone): its lease lapses at the next
        renewal, unless this process still serves the game."""
        if game_id not in self.hub.games:
            self.leases.forget(game_id)

    async def _load(self, game_id: str) -> LiveGame:
        return await load_game(self.hub, game_id)

    async def _take(self, game_id: str, wait: bool) -> LiveGame:
        """Claim the game (asking its owner to hand it over if ``wait``), then replay it
        from the store; its bots play on here."""
        lock = self._claiming.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                game = self.hub.games.get(game_id)
                if game is not None:
                    return game
                if self.hub.draining:
                    raise ServerError("unavailable", "this server is shutting down; reconnect")
                record = await self.hub.db(self.hub.store.load_game, game_id)
                if record is None:
                    raise ServerError("not-found", f"no game {game_id!r}")
                if record.status != "finished":
                    epoch = await self._claim(game_id, wait)
                    if epoch is None:
                        raise ServerError("unavailable", f"game {game_id} is served elsewhere")
                game = await self._load(game_id)
                self.hub.games[game_id] = game
                self.hub._arm(game)  # only the process serving a game fires its deadlines
                if record.status != "finished":
                    log.info("server %s serves game %s at seq %d", self.name, game_id, game.seq)
                if record.status == "running":
                    self.hub._kick(game)
                    # The turn's notice, if the process that served the game before never
                    # settled it (it died, or handed the game over with the notice queued
                    # or failing): looked at once that process's call in flight, if any,
                    # has had its deadline (notices.py).
                    self.hub.notices.resume(
                        game, self.hub.config.guard.webhook_deadline + 1.0)
                return game
        finally:
            if not lock.locked():
                self._claiming.pop(game_id, None)

    async def _claim(self, game_id: str, wait: bool) -> int | None:
        deadline = time.monotonic() + self.settings.claim_wait
        asked = 0.0
        while True:
            epoch = await self.hub.db(self.leases.claim, game_id)
            if epoch is not None or not wait:
                return epoch
            now = time.monotonic()
            if now > deadline:
                raise ServerError("unavailable",
                                  f"game {game_id} is still held by another server; try again")
            if now - asked > 1.0:
                asked = now
                self.hub.events.publish({"type": "release", "game": game_id,
                                     "to": self.leases.owner, "key": self.leases.owner_key})
            await asyncio.sleep(0.05)

    def _on_event(self, event: Event) -> None:
        if event.get("type") != "release" or event.get("to") == self.leases.owner:
            return
        game_id = event.get("game")
        if not isinstance(game_id, str) or game_id in self._claiming:
            return
        if game_id not in self.hub.games and game_id not in self.leases.epochs:
            return
        task = asyncio.create_task(self._hand_over(game_id, str(event["to"]),
                                                   int(event["key"])))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _hand_over(self, game_id: str, owner: str, key: int) -> None:
        """Another process was asked for this game (the load balancer sends its clients
        there now): finish what is in flight, then give it the lease and our clients."""
        game = self.hub.games.get(game_id)
        if game is None:
            await self.hub.db(self.leases.hand_over, game_id, owner, key)
            return
        async with game.lock:
            if self.hub.games.get(game_id) is not game:
                return
            self.hub.let_go(game)
            moved = await self.hub.db(self.leases.hand_over, game_id, owner, key)
        if moved:
            log.info("server %s handed game %s over to %s", self.name, game_id, owner)
        else:
            log.warning("server %s lost game %s (taken over while this process stalled)",
                        self.name, game_id)

    # -- the lease loop --------------------------------------------------------------
    async def _lease_loop(self) -> None:
        every = max(0.2, self.settings.lease_seconds / 3)
        while True:
            await asyncio.sleep(every)
            try:
                await self._renew()
                if not self.hub.draining:
                    for game_id in await self.hub.db(self.leases.orphans, 20):
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
            game = self.hub.games.get(game_id)
            if game is not None and game_id in self.leases.epochs:
                log.warning("server %s lost game %s (lease taken over)", self.name, game_id)
                async with game.lock:
                    self.hub.let_go(game)
