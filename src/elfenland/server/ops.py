"""Routes for running the server rather than playing on it: ``GET /healthz`` for load
balancers and orchestrators, and the lobby feed ``/ws/lobby``, which streams every
process's lobby changes and turns to a client connected to any one of them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, WebSocket
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocketDisconnect

from .events import Event
from .hub import RECONNECT, Hub

#: Seconds /healthz waits for the store before it calls it unreachable.
STORE_TIMEOUT = 2.0
#: Lobby events queued for a feed client that does not read before it is dropped.
FEED_QUEUE = 1000


def ops_routes(hub: Hub) -> APIRouter:
    router = APIRouter()

    @router.get("/healthz", summary="Whether this process is up and reaches its store")
    async def healthz() -> JSONResponse:
        body: dict[str, Any] = {"server": hub.name, "games": len(hub.games),
                                "draining": hub.draining, "events": hub.events.healthy}
        if not hub.store_ok:
            # A store call failed and the recovery task's write has not gone through
            # yet: a read would answer (SQLite on a full disk, or while another process
            # holds its write lock), but no move can be stored.
            body["store"] = False
        else:
            try:
                await asyncio.wait_for(hub.probe(hub.store.count_unfinished, "-healthz-"),
                                       STORE_TIMEOUT)
                body["store"] = True
            except Exception:  # unreachable or too slow: either way, send players elsewhere
                body["store"] = False
        ok = body["store"] and body["events"] and not hub.draining
        body["status"] = "ok" if ok else "unavailable"
        return JSONResponse(body, status_code=200 if ok else 503)

    @router.websocket("/ws/lobby")
    async def lobby_feed(ws: WebSocket) -> None:
        """``{"type": "lobby", "game": GameSummary}`` and ``{"type": "turn", "game": id,
        "seq": n, "seat": s}`` as they happen on any process; ``?games=a,b`` limits them
        to those games."""
        await ws.accept()
        wanted = {g for g in ws.query_params.get("games", "").split(",") if g}
        queue: asyncio.Queue[str | None] = asyncio.Queue(FEED_QUEUE)

        def on_event(event: Event) -> None:
            if event.get("type") not in ("lobby", "turn"):
                return
            game = event.get("game")
            gid = game.get("id") if isinstance(game, dict) else game
            if wanted and gid not in wanted:
                return
            try:
                queue.put_nowait(json.dumps(event, separators=(",", ":")))
            except asyncio.QueueFull:  # a client that does not read is dropped
                _end(queue)

        unsubscribe = hub.events.subscribe(on_event)

        async def reader() -> None:
            try:
                while (await ws.receive())["type"] != "websocket.disconnect":
                    pass
            except WebSocketDisconnect:
                pass
            _end(queue)  # a full queue too: put_nowait alone raised in this task

        reading = asyncio.create_task(reader())
        try:
            await ws.send_text(json.dumps({"type": "hello", "server": hub.name}))
            while not hub.draining:
                try:
                    text = await asyncio.wait_for(queue.get(), 1.0)
                except TimeoutError:
                    continue
                if text is None:
                    break
                await ws.send_text(text)
            if hub.draining:
                await ws.close(code=RECONNECT)
        except Exception:  # the client went away
            pass
        finally:
            unsubscribe()
            reading.cancel()

    return router


def _end(queue: asyncio.Queue[str | None]) -> None:
    """Tell the feed's sender to stop, even if the queue is full (its oldest entry goes:
    the feed ends, so nothing in it is sent anyway)."""
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(None)
