"""Live play over WebSockets (``/ws/games/{id}``): a socket's seat, its writer task, and
each client message checked in the protocol's order before the ``Hub`` acts on it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from .addresses import address_key
from .errors import ServerError, StoreUnavailable
from .http_guard import loads
from .hub import RECONNECT, Connection, Hub, LiveGame
from .ratelimit import TokenBucket

#: WebSocket close code 1013, "try again later": the client's reconnect backs off.
TRY_AGAIN_LATER = 1013
TOO_MANY_REPLIES = "too many connections and syncs from this address; wait a moment"


def unavailable(hub: Hub, exc: StoreUnavailable) -> ServerError:
    """A store failure that reached a handler without passing ``Hub.db``: the same
    retryable error, and the hub starts watching for the store's return."""
    hub.store_down(exc)
    return ServerError("unavailable", "the game store is unreachable just now; try again")


def play_routes(hub: Hub) -> APIRouter:
    router = APIRouter()
    limits = hub.limits

    # -- live play -------------------------------------------------------------------
    @router.websocket("/ws/games/{game_id}")
    async def play(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        if hub.draining:
            await _refuse(ws, None, RECONNECT)
            return
        try:
            game = await hub.get(game_id)
        except ServerError as exc:
            if exc.code == "unavailable":  # served elsewhere now, or shutting down
                await _refuse(ws, None, RECONNECT)
                return
            await _refuse(ws, exc, 4404)
            return
        token = ws.query_params.get("token")
        seat = None
        if token is not None:
            # The seat's own token, or its linked player's (``seat=K`` names the seat of
            # a player holding several).
            try:
                wanted = ws.query_params.get("seat")
                seat = game.seat_of(token, int(wanted) if wanted is not None else None)
            except ValueError:
                seat = None
            except ServerError as exc:
                await _refuse(ws, exc, 4403)
                return
            if seat is None:
                await _refuse(ws, ServerError("bad-token", "no seat of this game has that token"),
                              4403)
                return
        try:
            since = max(0, int(ws.query_params.get("since", "0")))
        except ValueError:
            since = 0
        conn = Connection(seat, TokenBucket(limits.messages_per_second, limits.burst),
                          asyncio.Queue(limits.send_queue),
                          address=ws.client.host if ws.client else "")
        if not _ration(hub, game, conn, since):
            await _refuse(ws, ServerError("rate-limited", TOO_MANY_REPLIES), TRY_AGAIN_LATER)
            return
        writer = asyncio.create_task(_write(ws, conn))
        hub.attach(game, conn, since)
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                await _handle(hub, game, conn, raw)
        except WebSocketDisconnect:
            pass
        except asyncio.CancelledError:
            if not hub.closing:
                raise
            # A drain holds the game's lock and has told this client to reconnect; an
            # action that was waiting for the lock is ended by uvicorn's shutdown, not
            # stored, and the client sends it again to the process that serves it now.
        finally:
            hub.detach(game, conn)
            if not writer.done():
                conn.drop()
                try:
                    await asyncio.wait_for(writer, 1.0)
                except (TimeoutError, asyncio.CancelledError, Exception):
                    writer.cancel()

    return router


async def _refuse(ws: WebSocket, error: ServerError | None, code: int) -> None:
    """Send ``error`` (if any) and close with ``code``.  A client that left at once (the
    game's look-up takes a store query) is no error of the server's: sending to it raised
    and logged a traceback for every such connection."""
    try:
        if error is not None:
            await ws.send_text(json.dumps(error.to_json()))
        await ws.close(code=code)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass


async def _write(ws: WebSocket, conn: Connection) -> None:
    try:
        while True:
            text = await conn.queue.get()
            if text is None:
                break
            await ws.send_text(text)
        await ws.close(code=conn.close_code or (1008 if conn.dropped else 1000))
    except Exception:  # the client went away; the reader notices too
        conn.dropped = True


async def _handle(hub: Hub, game: LiveGame, conn: Connection, raw: str | bytes) -> None:
    """One client message, checked in the protocol's order: rate (every message counts,
    malformed and oversized ones too), size, JSON shape and depth, then what it asks."""
    limits = hub.limits
    ref: Any = None
    try:
        if not conn.bucket.take():
            raise ServerError("rate-limited",
                              f"at most {limits.messages_per_second:g} messages per second")
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8"))
        if size > limits.max_message:
            raise ServerError("too-large", f"a message is at most {limits.max_message} bytes")
        msg = loads(raw, hub.config.guard.json_depth)
        if not isinstance(msg, dict):
            raise ServerError("bad-request", "a message is a JSON object")
        if isinstance(msg.get("ref"), str | int) and not isinstance(msg.get("ref"), bool):
            ref = msg["ref"]
        kind = msg.get("type")
        if kind == "ping":
            conn.send(json.dumps({"type": "pong"}))
        elif kind == "sync":
            since = msg.get("since", 0)
            if not _is_int(since) or since < 0:
                raise ServerError("bad-request", "since is a non-negative integer")
            if not _ration(hub, game, conn, since):
                raise ServerError("rate-limited", TOO_MANY_REPLIES)
            conn.send(hub.update_text(game, conn, since=since))
        elif kind == "undo":
            seq = msg.get("seq")
            if not (isinstance(seq, int) and not isinstance(seq, bool)):
                raise ServerError("bad-request", "seq is the integer seq the client has seen")
            await hub.undo(game, conn, seq)
        elif kind == "chat":
            await hub.chat(game, conn, msg.get("text"), msg.get("name"))
        elif kind == "action":
            action, seq = msg.get("action"), msg.get("seq")
            if not (isinstance(action, str | int) and not isinstance(action, bool)):
                raise ServerError("bad-request", "action is the action's text or integer id")
            if not (isinstance(seq, int) and not isinstance(seq, bool)):
                raise ServerError("bad-request", "seq is the integer seq the client has seen")
            await hub.act(game, conn, action, seq)
        else:
            raise ServerError("bad-request", "type is one of action, undo, chat, sync, ping")
    except ServerError as exc:
        conn.send(json.dumps(exc.to_json(ref)))
    except StoreUnavailable as exc:
        conn.send(json.dumps(unavailable(hub, exc).to_json(ref)))


def reply_cost(entries: int, per_unit: int) -> float:
    """The units a reply carrying ``entries`` log entries costs (``Limits.reply_entries``)."""
    return 1.0 + max(0, entries) // max(1, per_unit)


def _ration(hub: Hub, game: LiveGame, conn: Connection, since: int) -> bool:
    """Spend the address's units (its key's: an IPv6 address's /64) for a reply with the
    log after ``since``."""
    cost = reply_cost(game.seq - since, hub.limits.reply_entries)
    return hub.replies.bucket(address_key(conn.address)).take(cost)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
