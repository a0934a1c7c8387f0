"""Events that clients of every server process may need: lobby changes (a game created,
a seat taken, handed to a bot or taken back, a start, an end, a player connecting or
leaving — also when their process dies: presence.py), whose turn it is, and the
processes' own requests to hand a game over.  The browser lobby follows them on
``/ws/lobby`` (js/lobbyfeed.js).

With one process they are handed round in memory.  With several they travel through
PostgreSQL's LISTEN/NOTIFY: the store is already there (no second service to run and
watch), a notification is delivered only once its transaction commits and in the order
it was sent, and it comfortably carries a few thousand small messages a second — more
than the lobby of a few thousand live games produces.  Redis pub/sub would add a
service without adding anything these events need (they are hints to refresh; the
store stays the truth, so a missed event costs a refresh, never a game).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .ownership import Leases
from .session import CHANNEL

log = logging.getLogger("elfenland.server.events")

__all__ = ["CHANNEL", "Event", "EventBus", "PostgresEventBus"]
#: PostgreSQL refuses NOTIFY payloads of 8000 bytes or more.
MAX_PAYLOAD = 7900
Event = dict[str, Any]
Handler = Callable[[Event], None]


class EventBus:
    """In-process delivery: what one server process needs."""

    def __init__(self) -> None:
        self._handlers: list[Handler] = []

    @property
    def healthy(self) -> bool:
        """Whether events reach the other processes (always, in memory)."""
        return True

    def subscribe(self, handler: Handler) -> Callable[[], None]:
        self._handlers.append(handler)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._handlers.remove(handler)

        return unsubscribe

    def publish(self, event: Event) -> None:
        self.deliver(event)

    def deliver(self, event: Event) -> None:
        for handler in list(self._handlers):
            try:
                handler(event)
            except Exception:  # one broken subscriber must not stop the others
                log.exception("event handler failed on %s", event.get("type"))

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None


class PostgresEventBus(EventBus):
    """Every process's events to every process (itself included), through the store's
    LISTEN/NOTIFY.  Sending is batched: one round trip carries what queued meanwhile.
    Receiving is the process session's (session.py), which reconnects by itself; events
    sent while it was away are lost, which costs a refresh, never a game."""

    def __init__(self, leases: Leases, db: Callable[..., Awaitable[Any]]) -> None:
        super().__init__()
        self.leases = leases
        self._db = db
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None

    @property
    def healthy(self) -> bool:
        return self.leases.alive

    def publish(self, event: Event) -> None:
        payload = json.dumps(event, separators=(",", ":"))
        if len(payload.encode("utf-8")) > MAX_PAYLOAD:
            log.warning("event %s too large to send (%d bytes)", event.get("type"),
                        len(payload))
            return
        self._queue.put_nowait(payload)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()

        def heard(payload: str) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(self._received, payload)

        self.leases.session.listen(heard)
        self._sender = asyncio.create_task(self._send())

    async def stop(self) -> None:
        if self._sender is not None:
            # What is queued still goes out (a drain's last lobby changes).
            for _ in range(50):
                if self._queue.empty():
                    break
                await asyncio.sleep(0.02)
            self._sender.cancel()

    def _received(self, payload: str) -> None:
        try:
            event = json.loads(payload)
        except ValueError:
            return
        if isinstance(event, dict):
            self.deliver(event)

    async def _send(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty() and len(batch) < 200:
                batch.append(self._queue.get_nowait())
            try:
                await self._db(self.leases.notify, CHANNEL, batch)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("could not send %d events: %s", len(batch), exc)
