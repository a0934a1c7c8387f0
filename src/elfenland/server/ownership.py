"""Which process serves which game when several processes share one PostgreSQL store.

A live game has one owner at a time, recorded in a lease row: the owner's name, the key
of the owner's liveness lock, an epoch (the fencing token, raised on every change of
owner) and an expiry the owner keeps pushing forward.  Every transaction that changes a
game first checks, under a share lock on the lease row, that this process still holds
the epoch it claimed (the store does so, given the ``Fence`` that ``Leases.fence``
makes); a claim takes the row's update lock, so it waits for an append in progress, and
every append after it fails.  So once another process has taken a game
over, nothing the old owner does reaches the store — it cannot fork a game even if it
wakes up from a stall in the middle of an action — and the unique (game, seq) key stays
underneath as the last guard.

A process is alive while its own session holds a PostgreSQL advisory lock on its key:
a killed process's connection closes and PostgreSQL drops the lock at once, so its games
may be taken over on the next request.  A stalled process (SIGSTOP, a frozen VM) keeps
its connection and lock, so its games wait until their leases expire
(``ClusterSettings.lease_seconds``): that is the price of never having two owners.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from typing import Any

from .config import ClusterSettings
from .errors import LeaseLost, StoreUnavailable
from .session import CHANNEL, ProcessSession
from .store import Fence, PostgresStore

__all__ = ["LEASE_SCHEMA", "SCHEMA_LOCK", "LeaseLost", "Leases", "SingleProcess",
           "open_shared_store"]

#: Serialises the schema's ``CREATE TABLE IF NOT EXISTS`` between processes starting at
#: once (PostgreSQL may otherwise fail one of them on its catalogue's unique keys).
SCHEMA_LOCK = 0x656C66656E6C6400  # "elfenld\0"

LEASE_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS leases (
        game_id TEXT PRIMARY KEY REFERENCES games(id),
        owner TEXT NOT NULL,
        owner_key BIGINT NOT NULL,
        epoch BIGINT NOT NULL,
        expires TIMESTAMPTZ NOT NULL)""",
    # Which owner (and epoch) stored each action: how an operator, and the tests, see
    # that no two processes ever both applied actions to one game.
    """CREATE TABLE IF NOT EXISTS action_writers (
        game_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        owner TEXT NOT NULL,
        epoch BIGINT NOT NULL,
        PRIMARY KEY (game_id, seq))""",
)


def open_shared_store(url: str, settings: ClusterSettings) -> PostgresStore:
    """The PostgreSQL store of one process among several: its schema made under the
    schema lock, and its sessions ended by PostgreSQL if they stall in a transaction
    for longer than a lease."""
    import psycopg

    try:
        schema_lock = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(f"the PostgreSQL store is unreachable: {exc}") from exc
    with schema_lock as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            return PostgresStore(url, idle_in_transaction=float(settings.lease_seconds),
                                 serving="shared")
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


class SingleProcess:
    """Ownership when one process serves every game: it owns them all, unfenced."""

    name = "single"

    def fence(self, game_id: str) -> Fence | None:
        return None

    def forget(self, game_id: str) -> None:
        return None


class Leases:
    """Ownership when several processes share one PostgreSQL store: this process's
    identity (owner name and liveness key), its session (the liveness lock, retaken after
    a lost connection), and its leases: claimed, renewed, handed over, released."""

    def __init__(self, store: PostgresStore, settings: ClusterSettings) -> None:
        self.store = store
        self.settings = settings
        base = settings.name or f"{socket.gethostname()}:{os.getpid()}"
        #: Unique per start, so a restarted process never inherits its old leases.
        self.owner = f"{base}/{secrets.token_hex(3)}"
        self.owner_key = secrets.randbits(62) + 1
        #: Game id -> the epoch this process claimed it at.  Written on the event loop,
        #: read by the database threads (single dict operations).
        self.epochs: dict[str, int] = {}
        with store._tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in LEASE_SCHEMA:
                cur.execute(statement)
        # The process's own session: it holds the liveness lock for as long as the process
        # lives (retaken after a lost connection), and the event listener uses it.
        self.session = ProcessSession(store.url, self.owner_key, CHANNEL)
        self.session.start()

    @property
    def name(self) -> str:
        return self.owner

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing is best effort
            self.session.stop()

    @property
    def _ttl(self) -> float:
        return float(self.settings.lease_seconds)

    @property
    def alive(self) -> bool:
        """Whether this process holds its liveness lock (its session is up)."""
        return self.session.alive.is_set()

    def trusts_deaths(self) -> bool:
        """Whether another process's free liveness lock may be taken for its death: not
        while this process's own session is down or was retaken less than a lease ago
        (after a restart of PostgreSQL every lock is free until its process is back)."""
        return self.session.trusts_deaths(self._ttl)

    # -- the fence -------------------------------------------------------------------
    def fence(self, game_id: str) -> Fence:
        """The token every change of the game is stored with; ``LeaseLost`` (before any
        SQL) for a game this process has not claimed."""
        epoch = self.epochs.get(game_id)
        if epoch is None:
            raise LeaseLost(game_id)
        return Fence(self.owner, epoch)

    def forget(self, game_id: str) -> None:
        """Stop writing the game (its lease lapses, or was taken)."""
        self.epochs.pop(game_id, None)

    # -- claims ----------------------------------------------------------------------
    def _dead(self, cur: Any, key: int) -> bool:
        """Whether the process holding liveness key ``key`` is gone (its lock is free)."""
        if not self.trusts_deaths():
            return False
        cur.execute("SELECT pg_try_advisory_lock(%s)", (key,))
        if not cur.fetchone()[0]:
            return False
        cur.execute("SELECT pg_advisory_unlock(%s)", (key,))
        return True

    def claim(self, game_id: str) -> int | None:
        """Take the game for this process and return the new epoch; None while another
        process that is alive holds an unexpired lease on it."""
        import psycopg

        try:
            return self._claim(game_id)
        except psycopg.errors.LockNotAvailable:
            return None

    def _claim(self, game_id: str) -> int | None:
        if not self.alive:
            # The others take this process for dead: what it claimed now they could take
            # straight back.  It claims again once its session is back.
            raise StoreUnavailable("this process has lost its PostgreSQL session")
        with self.store._tx() as cur:
            # A lease row locked by a stalled process: give up for now, ask again later.
            cur.execute("SET LOCAL lock_timeout = '1s'")
            cur.execute("INSERT INTO leases (game_id, owner, owner_key, epoch, expires) "
                        "VALUES (%s, %s, %s, 1, clock_timestamp() + make_interval(secs => %s)) "
                        "ON CONFLICT (game_id) DO NOTHING RETURNING epoch",
                        (game_id, self.owner, self.owner_key, self._ttl))
            row = cur.fetchone()
            if row is None:
                cur.execute("SELECT owner, owner_key, expires > clock_timestamp() FROM leases "
                            "WHERE game_id = %s FOR UPDATE", (game_id,))
                owner, key, live = cur.fetchone()
                if owner != self.owner and live and not self._dead(cur, int(key)):
                    return None
                cur.execute("UPDATE leases SET owner = %s, owner_key = %s, epoch = epoch + 1, "
                            "expires = clock_timestamp() + make_interval(secs => %s) "
                            "WHERE game_id = %s RETURNING epoch",
                            (self.owner, self.owner_key, self._ttl, game_id))
                row = cur.fetchone()
            epoch = int(row[0])
        self.epochs[game_id] = epoch
        return epoch

    def holder(self, game_id: str) -> str | None:
        with self.store._tx() as cur:
            cur.execute("SELECT owner FROM leases WHERE game_id = %s", (game_id,))
            row = cur.fetchone()
            return None if row is None else str(row[0])

    def hand_over(self, game_id: str, owner: str, owner_key: int) -> bool:
        """Give this process's lease straight to the process that asked for it (so that
        no third process can slip in between)."""
        self.epochs.pop(game_id, None)
        with self.store._tx() as cur:
            cur.execute("UPDATE leases SET owner = %s, owner_key = %s, epoch = epoch + 1, "
                        "expires = clock_timestamp() + make_interval(secs => %s) "
                        "WHERE game_id = %s AND owner = %s",
                        (owner, owner_key, self._ttl, game_id, self.owner))
            return bool(cur.rowcount == 1)

    def renew(self, game_ids: list[str]) -> set[str]:
        """Push this process's leases on ``game_ids`` forward, drop its other leases, and
        return the games it still owns at the epoch it claimed."""
        with self.store._tx() as cur:
            # A lease given up keeps its row and epoch (epochs never repeat); a finished
            # game's is deleted, since nothing writes to that game any more.
            cur.execute("UPDATE leases SET expires = '-infinity' WHERE owner = %s "
                        "AND NOT (game_id = ANY(%s)) AND expires > '-infinity'",
                        (self.owner, game_ids))
            cur.execute("DELETE FROM leases l USING games g WHERE l.game_id = g.id "
                        "AND l.owner = %s AND g.status = 'finished' "
                        "AND NOT (l.game_id = ANY(%s))", (self.owner, game_ids))
            cur.execute("UPDATE leases SET expires = clock_timestamp() + "
                        "make_interval(secs => %s) WHERE owner = %s AND game_id = ANY(%s) "
                        "RETURNING game_id, epoch", (self._ttl, self.owner, game_ids))
            held = {str(g): int(e) for g, e in cur.fetchall()}
        return {g for g in game_ids if held.get(g) == self.epochs.get(g)}

    def release_all(self) -> None:
        self.epochs.clear()
        with self.store._tx() as cur:
            cur.execute("UPDATE leases SET expires = '-infinity' WHERE owner = %s",
                        (self.owner,))

    def orphans(self, limit: int = 20) -> list[str]:
        """Running games nobody serves: no lease, an expired one, or a dead owner's.
        None while this process's own session is down (it may be the one taken for dead)."""
        if not self.alive:
            return []
        with self.store._tx() as cur:
            cur.execute("SELECT DISTINCT owner_key FROM leases WHERE owner <> %s",
                        (self.owner,))
            dead = [int(k) for (k,) in cur.fetchall() if self._dead(cur, int(k))]
            cur.execute("SELECT g.id FROM games g LEFT JOIN leases l ON l.game_id = g.id "
                        "WHERE g.status = 'running' AND (l.game_id IS NULL "
                        "OR l.expires < clock_timestamp() OR l.owner_key = ANY(%s)) "
                        "ORDER BY random() LIMIT %s", (dead, limit))
            return [str(r[0]) for r in cur.fetchall()]

    def notify(self, channel: str, payloads: list[str]) -> None:
        """Send events to every process (delivered in order, after this commits): one
        statement, which commits on its own, so one round trip a batch."""
        with self.store._connection() as conn:
            conn.execute("SELECT pg_notify(%s, p) FROM unnest(%s::text[]) "
                         "WITH ORDINALITY AS t(p, i) ORDER BY i", (channel, payloads))


