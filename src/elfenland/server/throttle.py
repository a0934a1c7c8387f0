"""News that may come faster than anyone needs it, sent at most once an interval.

A seat's holder can connect and disconnect as fast as the server accepts sockets, and
each change of who is at the table is news for every socket of the game and every
lobby feed of every process.  Sent as it happens, one client's loop of reconnects
became tens of messages a second to everyone watching.  What the watchers need is the
table as it is now: the first change goes out at once (a player back at the table is
seen without delay), later ones within the interval are folded into one sent at its
end, which carries the state of that moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Throttle(Generic[K]):
    """``send(key)`` now, or once at the end of the key's interval if it was sent less
    than ``interval`` seconds ago; a key is forgotten once its interval has passed."""

    def __init__(self, interval: float, send: Callable[[K], None]) -> None:
        self.interval = interval
        self._send = send
        #: Key -> when its interval ends (the last sending plus ``interval``).
        self._until: dict[K, float] = {}
        self._pending: dict[K, asyncio.TimerHandle] = {}

    def __call__(self, key: K) -> None:
        if key in self._pending:
            return  # the sending at the interval's end will carry this change too
        loop = asyncio.get_running_loop()
        now = loop.time()
        until = self._until.get(key)
        if until is None or now >= until:
            self._sent(key, loop, now)
            return
        self._pending[key] = loop.call_later(until - now, self._flush, key)

    def _flush(self, key: K) -> None:
        del self._pending[key]
        loop = asyncio.get_running_loop()
        self._sent(key, loop, loop.time())

    def _sent(self, key: K, loop: asyncio.AbstractEventLoop, now: float) -> None:
        self._until[key] = now + self.interval
        # The key is forgotten when nothing more came within its interval.
        loop.call_later(self.interval, self._expire, key)
        self._send(key)

    def _expire(self, key: K) -> None:
        until = self._until.get(key)
        if until is not None and key not in self._pending:
            loop = asyncio.get_running_loop()
            if loop.time() >= until:
                del self._until[key]

    def cancel(self) -> None:
        for handle in self._pending.values():
            handle.cancel()
        self._pending.clear()
        self._until.clear()

    def __len__(self) -> int:
        return len(self._until)
