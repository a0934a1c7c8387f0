"""SIGTERM: stop taking work, finish what is in flight, and send every client elsewhere.

The order matters.  The listening socket closes first, so the load balancer's next
connection attempt fails and it retries another process at once.  Then each game's lock
is taken — waiting for an action being stored — and kept, so no new action starts; bots
stop; every socket is sent what it has queued (the updates acknowledging the last
actions) and then closed with code 1012, which clients answer by reconnecting with the
last ``seq`` they saw.  Finally the process gives up its games' leases, so the process
its clients reach next takes them over without waiting for the leases to expire.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import time

import uvicorn

from .hub import RECONNECT, Hub

log = logging.getLogger("elfenland.server.drain")


async def drain(hub: Hub, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    hub.begin_drain()  # no new games taken on, bots stop taking turns
    games = list(hub.games.values())
    for game in games:
        left = deadline - time.monotonic()
        try:
            await asyncio.wait_for(game.lock.acquire(), max(0.01, left))
        except TimeoutError:
            log.warning("game %s still busy after %.1f s; closing anyway", game.id, seconds)
        if game.bot_task is not None:
            game.bot_task.cancel()
        for conn in list(game.connections):
            conn.close(RECONNECT)
    # Let the writers send what is queued and close their sockets.
    while time.monotonic() < deadline and any(
            game.connections for game in games if any(not c.queue.empty() for c in
                                                      game.connections)):
        await asyncio.sleep(0.02)
    try:
        await hub.release_all()
    except Exception:
        log.exception("could not give up the leases; they expire on their own")
    log.info("drained %d games", len(games))


class DrainingServer(uvicorn.Server):
    """uvicorn's server with the drain between 'stop listening' and 'close sockets'."""

    def __init__(self, config: uvicorn.Config, hub: Hub, seconds: float) -> None:
        super().__init__(config)
        self.hub = hub
        self.drain_seconds = seconds

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        try:
            await drain(self.hub, self.drain_seconds)
        except Exception:
            log.exception("drain failed")
        await super().shutdown(sockets)
        # SIGTERM is how an orchestrator stops a server, and a drained stop is a clean
        # one: exit 0 rather than have uvicorn raise the signal again (status 143).
        captured = getattr(self, "_captured_signals", None)
        if isinstance(captured, list):
            captured[:] = [s for s in captured if s != signal.SIGTERM]
