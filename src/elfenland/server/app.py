"""The ASGI app: the lobby over HTTP, live play over WebSockets, the browser client's
files at ``/``.  Handlers only translate between JSON and the ``Hub``; every decision
lives there."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from .. import __version__
from ..web import STATIC_DIR
from .cluster_hub import RECONNECT, make_hub, make_store
from .config import ServerConfig
from .errors import ServerError, StoreUnavailable
from .heap import build_tables_and_freeze
from .hints import RouteHint
from .hub import Connection, Hub, LiveGame, build_state, event_json, now_iso
from .lobby import CreateGame, JoinGame, SeatToBot, StartGame, TakeSeat, clean_name
from .ops import add_ops_routes
from .players import NewPlayer, UpdatePlayer, check_webhook, player_json, rating_json
from .ratelimit import TokenBucket
from .store import PlayerRecord, Store
from .tokens import hash_token, new_game_id, new_token, token_matches
from .undo import effective_actions

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimit:
    """Refuses HTTP bodies over the limit with ``too-large`` before any handler reads
    them (the body is read here, at most ``limit + 1`` bytes, and handed on)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                error = ServerError("too-large", f"a request body is at most {self.limit} bytes")
                await JSONResponse(error.to_json(), status_code=error.status)(scope, receive, send)
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _error(exc: ServerError) -> JSONResponse:
    return JSONResponse(exc.to_json(), status_code=exc.status)


def unavailable(hub: Hub, exc: StoreUnavailable) -> ServerError:
    """A store failure that reached a handler without passing ``Hub.db``: the same
    retryable error, and the hub starts watching for the store's return."""
    hub.store_down(exc)
    return ServerError("unavailable", "the game store is unreachable just now; try again")


def create_app(config: ServerConfig | None = None, store: Store | None = None) -> FastAPI:
    config = config or ServerConfig()
    hub = make_hub(store or make_store(config), config)
    limits = config.limits

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        build_tables_and_freeze()
        await hub.startup()
        yield
        await hub.shutdown()

    app = FastAPI(title="Elfenland game server", version=__version__, lifespan=lifespan,
                  description="Lobby (HTTP) and live play (WebSocket /ws/games/{id}); "
                              "see docs/protocol.md.")
    app.state.hub = hub

    @app.exception_handler(ServerError)
    async def server_error(request: Request, exc: ServerError) -> JSONResponse:
        return _error(exc)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, exc: StoreUnavailable) -> JSONResponse:
        return _error(unavailable(hub, exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors()[:3]:
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
        return _error(ServerError("bad-request", "; ".join(parts) or "bad request"))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not-found", 413: "too-large"}.get(exc.status_code, "bad-request")
        body = ServerError(code, str(exc.detail)).to_json()
        return JSONResponse(body, status_code=exc.status_code)

    def host_of(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    # -- lobby -----------------------------------------------------------------------
    @app.get("/api/games", summary="List games")
    async def list_games(
        status: Literal["open", "running", "finished"] | None = None,
    ) -> dict[str, Any]:
        return {"games": await hub.list_games(status)}

    @app.post("/api/games", status_code=201, summary="Create a game")
    async def create_game(body: CreateGame, request: Request) -> dict[str, Any]:
        hotseat: dict[int, str] = {}
        game, seat, token = await hub.create(body, host_of(request), hotseat)
        out: dict[str, Any] = {"game": game.summary(), "seat": seat, "token": token}
        if body.hotseat:
            if seat is not None and token is not None:
                hotseat[seat] = token
            out["hotseat"] = [{"seat": s, "token": t} for s, t in sorted(hotseat.items())]
        return out

    @app.get("/api/games/{game_id}", summary="A game's summary and public view")
    async def get_game(game_id: str) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        [out] = await hub.with_presence([game.summary()])
        return {"game": out, "view": game.state.view(None)}

    @app.post("/api/games/{game_id}/join", summary="Take an open seat")
    async def join_game(game_id: str, body: JoinGame) -> dict[str, Any]:
        game, seat, token = await hub.join(game_id, body.name, body.seat, body.player)
        return {"game": game.summary(), "seat": seat, "token": token}

    @app.post("/api/games/{game_id}/start", summary="Start; open seats get bots")
    async def start_game(game_id: str, body: StartGame) -> dict[str, Any]:
        return (await hub.start(game_id, body.token, body.fill)).summary()

    @app.post("/api/games/{game_id}/seats/{seat}/bot", summary="Hand a seat to a bot")
    async def seat_to_bot(game_id: str, seat: int, body: SeatToBot) -> dict[str, Any]:
        return (await hub.seat_to_bot(game_id, seat, body.token, body.level)).summary()

    @app.post("/api/games/{game_id}/seats/{seat}/take", summary="Take a seat back from a bot")
    async def take_seat(game_id: str, seat: int, body: TakeSeat) -> dict[str, Any]:
        return (await hub.take_seat(game_id, seat, body.token)).summary()

    @app.get("/api/games/{game_id}/replay", summary="A view at any step")
    async def replay(game_id: str, step: int | None = Query(default=None, ge=0),
                     seat: int | None = None, token: str | None = None) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        record = game.record
        if seat is not None:
            if not 0 <= seat < record.players:
                raise ServerError("not-found", f"no seat {seat}")
            if record.status != "finished" and not token_matches(
                    token, record.seats[seat].token_hash):
                raise ServerError("bad-token",
                                  "a seat's view of a running game needs that seat's token")
        actions, _ = effective_actions(await hub.db(hub.store.actions, game_id), game.events)
        steps = len(actions)
        upto = steps if step is None else min(step, steps)
        state = await hub.cpu(build_state, record, actions[:upto])
        return {"step": upto, "steps": steps, "view": state.view(seat)}

    @app.get("/api/games/{game_id}/hint", summary="The best route for the seat to move",
             response_model=RouteHint)
    async def hint(game_id: str, token: str | None = Query(default=None, max_length=200)
                   ) -> dict[str, Any]:
        """Elfenland's move phase only, for the seat to act (its token): the movement
        planner's best journey from the server's state."""
        return await hub.hint(game_id, token)

    @app.get("/api/games/{game_id}/actions", summary="Every action's public text")
    async def actions(game_id: str) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        return {"actions": [e["action"] for e in game.state.view(None).get("log", [])]}

    @app.get("/api/games/{game_id}/events", summary="Timeouts, take-overs and chat")
    async def events(game_id: str) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        return {"events": [event_json(e) for e in game.events]}

    # -- players and ratings ------------------------------------------------------------
    @app.post("/api/players", status_code=201, summary="Become a player (name, webhook)")
    async def new_player(body: NewPlayer) -> dict[str, Any]:
        webhook = check_webhook(body.webhook)
        token = new_token()
        player = PlayerRecord(new_game_id(), clean_name(body.name, 0), webhook, now_iso())
        await hub.db(hub.store.create_player, player, hash_token(token))
        return {"player": player_json(player), "token": token}

    @app.get("/api/players/me", summary="The player a token belongs to")
    async def me(token: str = Query(max_length=200)) -> dict[str, Any]:
        return player_json(await hub.players.by_token(token))

    @app.post("/api/players/me", summary="Change one's name or webhook")
    async def update_me(body: UpdatePlayer) -> dict[str, Any]:
        player = await hub.players.by_token(body.token)
        if body.name is not None:
            player = replace(player, name=clean_name(body.name, 0))
        if body.webhook is not None:
            player = replace(player, webhook=check_webhook(body.webhook))
        await hub.db(hub.store.update_player, player)
        return player_json(player)

    @app.get("/api/players/me/games", summary="One's unfinished games, to act first")
    async def my_games(token: str = Query(max_length=200)) -> dict[str, Any]:
        player = await hub.players.by_token(token)
        out = []
        for game_id, seat in await hub.db(hub.store.player_games, player.id):
            # Looked at, not claimed: in a cluster, asking must not pull the game away
            # from the process that serves it.
            game = await hub.get(game_id, keep=False)
            summary = game.summary()
            out.append({**summary, "seat": seat, "waiting": summary["to_act"] == seat})
        out = await hub.with_presence(out)
        out.sort(key=lambda g: not g["waiting"])
        return {"games": out}

    @app.get("/api/ratings", summary="The leaderboard of one game kind")
    async def ratings(game: str = Query(default="elfenland", max_length=40)) -> dict[str, Any]:
        rows = await hub.db(hub.store.ratings, game)
        return {"game": game, "ratings": [rating_json(r) for r in rows]}

    @app.get("/api/maps/elfenland", summary="The Elfenland board")
    async def elfenland_map() -> Response:
        data = (resources.files("elfenland.games.elfenland") / "data" / "elfenland-map.json")
        return Response(data.read_bytes(), media_type="application/json")

    # -- live play -------------------------------------------------------------------
    @app.websocket("/ws/games/{game_id}")
    async def play(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        if hub.draining:
            await ws.close(code=RECONNECT)
            return
        try:
            game = await hub.get(game_id)
        except ServerError as exc:
            if exc.code == "unavailable":  # served elsewhere now, or shutting down
                await ws.close(code=RECONNECT)
                return
            await ws.send_text(json.dumps(exc.to_json()))
            await ws.close(code=4404)
            return
        token = ws.query_params.get("token")
        seat = None
        if token is not None:
            seat = game.seat_of(token)
            if seat is None:
                await ws.send_text(json.dumps(ServerError(
                    "bad-token", "no seat of this game has that token").to_json()))
                await ws.close(code=4403)
                return
        try:
            since = max(0, int(ws.query_params.get("since", "0")))
        except ValueError:
            since = 0
        conn = Connection(seat, TokenBucket(limits.messages_per_second, limits.burst),
                          asyncio.Queue(limits.send_queue))
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

    add_ops_routes(app, hub)
    if STATIC_DIR.is_dir():
        app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="web")
    app.add_middleware(BodyLimit, limit=limits.max_message)
    return app


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
    """One client message, checked in the protocol's order: size, JSON shape, rate,
    then what the message asks."""
    limits = hub.limits
    ref: Any = None
    try:
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8"))
        if size > limits.max_message:
            raise ServerError("too-large", f"a message is at most {limits.max_message} bytes")
        try:
            msg = json.loads(raw)
        except ValueError:
            raise ServerError("bad-request", "a message is a JSON object") from None
        if not isinstance(msg, dict):
            raise ServerError("bad-request", "a message is a JSON object")
        if isinstance(msg.get("ref"), str | int) and not isinstance(msg.get("ref"), bool):
            ref = msg["ref"]
        if not conn.bucket.take():
            raise ServerError("rate-limited",
                              f"at most {limits.messages_per_second:g} messages per second")
        kind = msg.get("type")
        if kind == "ping":
            conn.send(json.dumps({"type": "pong"}))
        elif kind == "sync":
            since = msg.get("since", 0)
            if not _is_int(since) or since < 0:
                raise ServerError("bad-request", "since is a non-negative integer")
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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
