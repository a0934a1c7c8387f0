"""Connections a hostile client cannot pile up: a deadline for a request's headers, a cap
on open connections below the process's file-descriptor limit, and quiet back-off when
descriptors run out anyway.

uvicorn has a keep-alive timeout but none for headers: a client that sends a byte of a
request line now and then ("slowloris") holds a connection, and a descriptor, for ever;
a thousand of them exhaust a process limited to 1,024, real requests time out, and
every failed ``accept()`` is logged.  So:

- **Request deadline**: a connection must send each request's headers and body within
  ``header_timeout`` seconds of its first byte (of its opening, for the first request),
  or it is closed — a body dripped a byte at a time is slowloris too (bodies are at
  most 16 KiB, ``BodyLimit``).  An upgraded WebSocket is left alone.
- **Connection cap**: above ``max_connections`` open connections (kept below the
  descriptor limit), a new connection first pushes out the oldest one still waiting
  for its headers — the attacker's, not the player's who completed a request — and is
  refused only if none is waiting.  uvicorn's ``limit_concurrency`` is not used: it
  answers 503 to every real request while slow connections fill the count.
- **Long upgrades**: a WebSocket request whose line or a header is over
  ``UPGRADE_LINE_MAX`` is answered 400 at once.
- **EMFILE**: asyncio already stops accepting for a second when ``accept()`` fails for
  lack of descriptors; its log record (a traceback each time) becomes one line a second
  at most (``OncePerSecond``).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("elfenland.server.connections")

#: Seconds a connection has to send a request's headers.
HEADER_TIMEOUT = 10.0
#: The longest request target or header value a WebSocket upgrade may have: the
#: WebSocket layer reads lines of at most 8 KiB and, given a longer one (a 10 KB token in
#: the URL), left the handshake hanging instead of refusing it.
UPGRADE_LINE_MAX = 4096
#: Descriptors kept free of client connections: the store, logs, accept() and up to 64
#: webhook calls in flight.
FD_RESERVE = 128


class OncePerSecond:
    """A log line at most once per ``every`` seconds; the lines left out are counted
    into the next one."""

    def __init__(self, logger: logging.Logger, every: float = 1.0) -> None:
        self.logger = logger
        self.every = every
        self.last = -float("inf")
        self.left_out = 0

    def warning(self, message: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self.last < self.every:
            self.left_out += 1
            return
        suffix = f" ({self.left_out} more like it)" if self.left_out else ""
        self.last = now
        self.left_out = 0
        self.logger.warning(message + suffix, *args)


def fd_limit() -> int:
    return int(resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def connection_cap(wanted: int | None) -> int:
    """``wanted`` (None: as many as the descriptor limit allows), never above the
    descriptor limit less ``FD_RESERVE``."""
    room = max(16, fd_limit() - FD_RESERVE)
    return room if wanted is None else max(1, min(wanted, room))


def guarded_h11(header_timeout: float = HEADER_TIMEOUT,
                max_connections: int | None = None) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the header deadline and the connection cap (a class
    per server: the connections waiting for headers are shared by its instances)."""
    cap = connection_cap(max_connections)
    waiting: dict[Guarded, None] = {}
    refusals = OncePerSecond(log)

    class Guarded(H11Protocol):
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > cap:
                if waiting:
                    next(iter(waiting)).cut()
                else:
                    refusals.warning("%d connections open: a new one is refused", cap)
                    transport.abort()
                    return
            self._wait()

        def data_received(self, data: bytes) -> None:
            if self.cycle is None or self.cycle.response_complete:
                self._wait()  # a new request's headers start (or go on) arriving
            super().data_received(data)
            if self.transport.get_protocol() is not self or (
                    self.cycle is not None and not self.cycle.response_complete
                    and not self.cycle.more_body):
                self._done()  # a whole request (headers and body), or an upgrade

        def handle_websocket_upgrade(self, event: Any) -> None:
            if len(event.target) > UPGRADE_LINE_MAX or any(
                    len(value) > UPGRADE_LINE_MAX for _, value in event.headers):
                self.send_400_response("a WebSocket request line or header is too long")
                return
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            self._done()
            super().connection_lost(exc)

        def _wait(self) -> None:
            if self._timer is None:
                waiting[self] = None
                self._timer = self.loop.call_later(header_timeout, self.cut)

        def _done(self) -> None:
            waiting.pop(self, None)
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def cut(self) -> None:
            """Close a connection whose headers did not come in time."""
            self._done()
            if self.transport.get_protocol() is self and not self.transport.is_closing():
                self.transport.abort()

    Guarded.__name__ = Guarded.__qualname__ = "GuardedH11Protocol"
    return Guarded


_ACCEPT_FAILED = "socket.accept() out of system resource"


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Log asyncio's failed-``accept()`` records as one line a second at most (it backs
    off by itself); every other record goes to the handler there was."""
    limited = OncePerSecond(log)
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _ACCEPT_FAILED:
            limited.warning("cannot accept connections (%s); trying again in a second",
                            context.get("exception"))
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
