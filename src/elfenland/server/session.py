"""A cluster process's own PostgreSQL session: its liveness lock and its event listener.

A process is alive for the others while this session holds the advisory lock on its key
(ownership.py); the same session LISTENs for the processes' events (events.py).  The
session lives in a thread of its own that notices at once when the connection is gone
(a PostgreSQL restart, a terminated backend: the socket closes under ``notifies``) and
makes it again with backoff, retaking the lock and the LISTEN.  ``since`` is when the
lock was retaken after such a loss: for a while after it the process does not take
another process's free lock for its death, since the others are reconnecting too
(otherwise every process would adopt every other's games after a restart of the store,
and the games' leases would bounce between them).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("elfenland.server.session")

Listener = Callable[[str], None]
#: The LISTEN/NOTIFY channel of the processes' events (events.py).
CHANNEL = "elfenland_events"


class ProcessSession:
    """``start()`` returns once the lock is held; ``alive`` is set while it is."""

    #: First and longest pause between reconnection attempts, in seconds.
    backoff = (0.05, 0.5)

    def __init__(self, url: str, key: int, channel: str) -> None:
        self.url = url
        self.key = key
        self.channel = channel
        self.alive = threading.Event()
        #: monotonic() when the lock was retaken after a loss (-inf: never lost).
        self.since = float("-inf")
        self.losses = 0
        self._listeners: list[Listener] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None

    def listen(self, listener: Listener) -> None:
        """Call ``listener(payload)`` (in the session's thread) for every notification."""
        self._listeners.append(listener)

    def start(self, wait: float = 20.0) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="elfenland-session")
        self._thread.start()
        if not self.alive.wait(wait):
            self.stop()
            raise RuntimeError("could not take this process's liveness lock in PostgreSQL")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.alive.clear()

    def trusts_deaths(self, grace: float) -> bool:
        """Whether a free liveness lock of another process means that it died: only
        while this session holds its own, and not within ``grace`` seconds of retaking
        it (the others may be reconnecting still)."""
        return self.alive.is_set() and time.monotonic() - self.since >= grace

    def _run(self) -> None:
        import psycopg

        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                    self._conn = conn
                    self._hold(conn)
                    delay = self.backoff[0]
            except Exception as exc:
                if self._stop.is_set():
                    break
                if self.alive.is_set() or self.losses == 0:
                    log.warning("lost this process's PostgreSQL session: %s", exc)
            finally:
                self._conn = None
                if self.alive.is_set():
                    self.alive.clear()
                    self.losses += 1
            if self._stop.wait(delay):
                break
            delay = min(delay * 2, self.backoff[1])

    def _hold(self, conn: Any) -> None:
        # The old session may linger in PostgreSQL for a moment (a terminated backend
        # ends asynchronously): try the lock until it is ours.
        while not conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()[0]:
            if self._stop.wait(0.05):
                return
        conn.execute(f"LISTEN {self.channel}")
        if self.losses:
            self.since = time.monotonic()
            log.warning("PostgreSQL session back: liveness lock retaken")
        self.alive.set()
        while not self._stop.is_set():
            for note in conn.notifies(timeout=0.5):
                for listener in list(self._listeners):
                    with contextlib.suppress(Exception):
                        listener(note.payload)
                if self._stop.is_set():
                    break
