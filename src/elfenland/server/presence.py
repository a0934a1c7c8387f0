"""Which seats have a player connected, across server processes.

A game's sockets live on the process that serves it, so only that process knows who is
connected; the lobby list may be answered by any process.  Each process therefore keeps
its own rows in a ``presence`` table (game, seat, the process's name and liveness key):
it rewrites a game's rows whenever a seat's first socket arrives or its last one leaves,
and deletes them all when it shuts down.  A process killed outright cannot delete
anything, so readers count only rows whose owner still holds its liveness lock (the
advisory lock of ``ownership.py``, which PostgreSQL drops the moment the process's
connection closes), and a sweep deletes the dead owners' rows and tells the lobby feeds
that those seats are gone.

Writes go through one task per process that rewrites each changed game from its current
connections, so a burst of connects and disconnects costs one transaction and rows never
land out of order.  Single-process servers do not use this: their hub knows everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from .ownership import SCHEMA_LOCK, Leases
from .store import PostgresStore

log = logging.getLogger("elfenland.server.presence")

PRESENCE_SCHEMA = """CREATE TABLE IF NOT EXISTS presence (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    owner TEXT NOT NULL,
    owner_key BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat, owner))"""

def _dead(cur: Any, keys: list[int]) -> set[int]:
    """The liveness keys among ``keys`` that no process holds any more.  A transaction
    lock, so nothing is left held if the transaction fails; cheaper than reading
    pg_locks, which locks the whole lock table while it is read."""
    if not keys:
        return set()
    cur.execute("SELECT k FROM unnest(%s::bigint[]) AS k WHERE pg_try_advisory_xact_lock(k)",
                (keys,))
    return {int(r[0]) for r in cur.fetchall()}


def create_schema(store: PostgresStore) -> None:
    """Create the table, serialised with the other processes' schema creation."""
    with store._tx() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        cur.execute(PRESENCE_SCHEMA)


def write(store: PostgresStore, me: Leases, games: dict[str, set[int]]) -> None:
    """Replace this process's rows of each game with the seats connected here now."""
    with store._tx() as cur:
        cur.execute("DELETE FROM presence WHERE owner = %s AND game_id = ANY(%s)",
                    (me.owner, list(games)))
        rows = [(g, s, me.owner, me.owner_key)
                for g, seats in games.items() for s in sorted(seats)]
        if rows:
            cur.executemany("INSERT INTO presence (game_id, seat, owner, owner_key) "
                            "VALUES (%s, %s, %s, %s)", rows)


def clear(store: PostgresStore, me: Leases) -> None:
    """Delete every row of this process (it is shutting down)."""
    with store._tx() as cur:
        cur.execute("DELETE FROM presence WHERE owner = %s", (me.owner,))


def read(store: PostgresStore, me: Leases, game_ids: list[str]) -> dict[str, set[int]]:
    """The seats of ``game_ids`` connected on the other live processes (all of them,
    just after this process's session came back: the others may be reconnecting)."""
    with store._tx() as cur:
        cur.execute("SELECT game_id, seat, owner_key FROM presence WHERE game_id = ANY(%s) "
                    "AND owner <> %s", (game_ids, me.owner))
        rows = cur.fetchall()
        keys = sorted({int(r[2]) for r in rows})
        dead = _dead(cur, keys) if me.trusts_deaths() else set()
    out: dict[str, set[int]] = {}
    for game_id, seat, key in rows:
        if int(key) not in dead:
            out.setdefault(str(game_id), set()).add(int(seat))
    return out


def sweep(store: PostgresStore, me: Leases) -> list[str]:
    """Delete the rows of processes that died; return the games they were about (each
    game is returned by only one process's sweep: the delete decides)."""
    if not me.trusts_deaths():
        return []
    with store._tx() as cur:
        cur.execute("SELECT DISTINCT owner_key FROM presence WHERE owner <> %s",
                    (me.owner,))
        dead = _dead(cur, [int(r[0]) for r in cur.fetchall()])
        if not dead:
            return []
        cur.execute("DELETE FROM presence WHERE owner_key = ANY(%s) RETURNING game_id",
                    (sorted(dead),))
        return sorted({str(r[0]) for r in cur.fetchall()})


class Presence:
    """One process's side: note games whose connected seats may have changed, write the
    changes in the background, sweep dead processes' rows, and answer which seats other
    processes have connected."""

    def __init__(self, store: PostgresStore, me: Leases, db: Callable[..., Awaitable[Any]],
                 connected: Callable[[str], set[int]]) -> None:
        self.store = store
        self.me = me
        #: The session losses seen: after a new one, every row is written again (other
        #: processes may have swept them while this one seemed dead).
        self._losses = me.session.losses
        self._db = db
        self._connected = connected
        self._dirty: set[str] = set()
        #: What this process's rows say now (games with no row are left out).
        self._written: dict[str, set[int]] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, every: float, gone: Callable[[list[str]], Awaitable[None]]) -> None:
        """Begin writing; every ``every`` seconds, sweep dead processes' rows and hand the
        games they were about to ``gone``."""
        await self._db(create_schema, self.store)
        self._tasks = [asyncio.create_task(self._writer()),
                       asyncio.create_task(self._sweeper(every, gone))]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        with contextlib.suppress(Exception):  # readers ignore a dead process's rows anyway
            await self._db(clear, self.store, self.me)

    def changed(self, game_id: str) -> None:
        """A socket with a seat came or went (or the game left this process)."""
        self._dirty.add(game_id)
        self._wake.set()

    async def _writer(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch = {}
            for game_id in sorted(self._dirty):
                now = self._connected(game_id)
                if now != self._written.get(game_id, set()):
                    batch[game_id] = now
            self._dirty.clear()
            if not batch:
                continue
            try:
                await self._db(write, self.store, self.me, batch)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not record who is connected to %d games", len(batch))
                self._dirty.update(batch)
                await asyncio.sleep(1.0)
                self._wake.set()
                continue
            for game_id, seats in batch.items():
                if seats:
                    self._written[game_id] = seats
                else:
                    self._written.pop(game_id, None)

    async def _sweeper(self, every: float, gone: Callable[[list[str]], Awaitable[None]]
                       ) -> None:
        while True:
            await asyncio.sleep(every)
            if self.me.session.losses != self._losses and self.me.alive:
                self._losses = self.me.session.losses
                self._dirty.update(self._written)
                self._written.clear()
                self._wake.set()
            try:
                games = await self._db(sweep, self.store, self.me)
                if games:
                    await gone(games)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not sweep the presence of stopped processes")

    async def elsewhere(self, game_ids: Iterable[str]) -> dict[str, set[int]]:
        """The seats connected on other live processes, by game."""
        ids = list(game_ids)
        if not ids:
            return {}
        found: dict[str, set[int]] = await self._db(read, self.store, self.me, ids)
        return found
