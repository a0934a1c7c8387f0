"""Which processes serve a PostgreSQL database: one ``elfenland serve``, or the processes
of one cluster, never both and never two lone servers.

Each server keeps the games it serves in memory.  Two lone servers on one database showed
their players two different games and stopped each other's bots at the other's moves,
and a lone server beside a cluster plays games the cluster's leases say it does not own.
So a serving process holds a session-level advisory lock for its whole life, on a
connection of its own: exclusive for a lone server, shared for a cluster's processes.
The lock's key is the ``games`` table's identity, so schemas of one database (tests,
several deployments) do not exclude each other.  PostgreSQL drops the lock with the
session, also when the process is killed; a watcher thread takes it again after a
restart of PostgreSQL, and says so in the log if another server took it meanwhile.
"""

from __future__ import annotations

import logging
import threading
from contextlib import suppress
from typing import Any, Literal

from .errors import StoreInUse, StoreUnavailable

log = logging.getLogger("elfenland.server.store")

Mode = Literal["alone", "shared"]
#: The high 32 bits of the lock's key (``ELF\0``); the low ones are the table's oid.
KEY_CLASS = 0x454C4600
TAKE = {"alone": "pg_try_advisory_lock", "shared": "pg_try_advisory_lock_shared"}
REFUSED = {
    "alone": "another server serves from this PostgreSQL database ({where}): one "
             "`elfenland serve` serves a database alone; several processes share it "
             "with --cluster (elfenland cluster)",
    "shared": "a server without --cluster serves from this PostgreSQL database "
              "({where}); stop it before starting a cluster on it",
}


class ServingLock:
    """``claim()`` at start (``StoreInUse`` if another server holds the database,
    ``StoreUnavailable`` if PostgreSQL does not answer), ``close()`` at the end."""

    #: Seconds between two checks of the lock's session.
    recheck = 5.0

    def __init__(self, url: str, mode: Mode, where: str) -> None:
        self.url = url
        self.mode = mode
        self.where = where
        self._conn: Any = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def claim(self) -> None:
        self._take()
        self._watcher = threading.Thread(target=self._watch, daemon=True,
                                         name="elfenland-serving-lock")
        self._watcher.start()

    def _take(self) -> None:
        import psycopg

        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"the PostgreSQL store is unreachable: {exc}") from exc
        try:
            row = conn.execute(
                f"SELECT {TAKE[self.mode]}((%s::bigint << 32) | "
                "'games'::regclass::oid::bigint)", (KEY_CLASS,)).fetchone()
        except BaseException:
            conn.close()
            raise
        if not (row and row[0]):
            conn.close()
            raise StoreInUse(REFUSED[self.mode].format(where=self.where))
        self._conn = conn

    def _alive(self) -> bool:
        try:
            self._conn.execute("SELECT 1").fetchone()
            return True
        except Exception:
            return False

    def _watch(self) -> None:
        """Take the lock again once a lost session (PostgreSQL restarted, or the
        session ended) can be replaced; while another server holds it, say so once."""
        told = False
        while not self._stop.wait(self.recheck):
            if self._conn is not None and self._alive():
                continue
            if self._conn is not None:
                with suppress(Exception):
                    self._conn.close()
                self._conn = None
                log.warning("the serving lock on the PostgreSQL store was lost; "
                            "taking it again")
            try:
                self._take()
            except StoreInUse as exc:
                if not told:
                    log.error("%s (it was taken while this server's session was away)",
                              exc)
                    told = True
                continue
            except Exception:
                continue  # PostgreSQL still away: the next round tries again
            log.warning("the serving lock on the PostgreSQL store is held again")
            told = False

    def close(self) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=self.recheck + 5)
        if self._conn is not None:
            with suppress(Exception):
                self._conn.close()
            self._conn = None
