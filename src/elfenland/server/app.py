"""The ASGI app: the hub, the error handlers, and the routers (``routes_lobby``,
``routes_players``, ``routes_play``, ``ops``) that translate between JSON and the
``Hub``; the browser client's files at ``/``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..web import STATIC_DIR
from .compose import make_hub, make_store
from .config import ServerConfig
from .errors import ServerError, StoreUnavailable
from .heap import build_tables_and_freeze
from .http_guard import HttpGuard
from .ops import ops_routes
from .routes_lobby import lobby_routes
from .routes_play import play_routes, unavailable
from .routes_players import player_routes
from .store import Store

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
        for err in exc.errors():  # a model's own refusal (lobby.check_options) as it is
            if isinstance((err.get("ctx") or {}).get("error"), ServerError):
                return _error(err["ctx"]["error"])
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

    app.include_router(lobby_routes(hub))
    app.include_router(player_routes(hub))
    app.include_router(play_routes(hub))
    app.include_router(ops_routes(hub))
    if STATIC_DIR.is_dir():
        app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="web")
    app.add_middleware(BodyLimit, limit=limits.max_message)
    # Outermost: client address, Host check, tokens, security headers (issue 23).
    app.add_middleware(HttpGuard, guard=config.guard, body_limit=limits.max_message)
    return app

