"""The server's outer shell against hostile clients: one ASGI middleware and a log filter.

What it does before any handler runs, for every HTTP request and WebSocket:

- **Who is asking**: the client's address is the peer's, unless the peer is a trusted
  proxy (``--trusted-proxies``); then it is read from ``X-Forwarded-For``
  (``netguard.TrustedProxies``).  A client cannot choose the address it is counted and
  logged as.
- **Which site**: with ``--allowed-hosts``, a request whose ``Host`` is not one of them
  is refused (DNS rebinding of a browser onto a server on a private network).
- **Secrets out of URLs**: a token may come in a header (``Authorization: Bearer …`` or
  ``X-Elfenland-Token``) or, on a WebSocket, as a subprotocol ``token.<token>`` beside
  ``elfenland``; the handlers get it as their ``token`` parameter, and the URL, which
  proxies and access logs keep, never carries it.  A ``?token=`` still works (older
  clients) and is redacted from the access log (``RedactTokens``).
- **Bounded work**: a token longer than ``Guard.token_max`` is refused before anything
  looks it up; a JSON body nested deeper than ``Guard.json_depth`` is refused with a
  clear error instead of a ``RecursionError``.
- **Rationed work**: each request's cost is spent from its address's ration before any
  handler runs, creations from its address's quotas (``http_ration.py``); a refusal is
  ``rate-limited`` (429 with ``Retry-After``).
- **Security headers** on every answer: a Content-Security-Policy that lets the page
  load only its own scripts, ``X-Frame-Options``, ``X-Content-Type-Options`` and
  ``Referrer-Policy``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from .config import Guard
from .connlimits import quiet_accept_errors
from .errors import ServerError
from .http_ration import Charge, HttpRation, Refusal
from .netguard import TrustedProxies, parse_networks

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The WebSocket subprotocol the browser client asks for; a ``token.<token>`` one beside
#: it carries the seat's token.
SUBPROTOCOL = "elfenland"
TOKEN_PROTOCOL = "token."

#: The page loads only its own scripts; inline ``style`` attributes are allowed (the
#: client colours seats with them), inline scripts are not.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'; form-action 'self'")
#: FastAPI's own API pages load Swagger UI and ReDoc from a CDN.
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "img-src 'self' data: https://fastapi.tiangolo.com; worker-src blob:; "
            "frame-ancestors 'none'")
DOCS_PATHS = ("/docs", "/redoc")
HEADERS = ((b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"))

TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with every ``token=…`` value replaced."""
    return TOKEN_IN_TEXT.sub(r"\1[redacted]", text)


class RedactTokens(logging.Filter):
    """Takes tokens out of log lines (uvicorn's access log prints each request's URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str) and "token=" in record.msg.lower():
            record.msg = redact(record.msg)
        return True


_FILTER = RedactTokens()
REDACTED_LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "elfenland")


def install_redaction() -> None:
    """Put the filter on the loggers that print URLs (idempotent).  Logger filters only
    see their own logger's records, so each one gets it, and so does every handler on
    them (uvicorn configures its loggers before the app starts)."""
    for name in REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
        for handler in logger.handlers:
            if _FILTER not in handler.filters:
                handler.addFilter(_FILTER)


def json_depth(data: str | bytes) -> int:
    """How deep ``data``'s arrays and objects nest (strings' brackets not counted)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def check_depth(data: str | bytes, limit: int) -> None:
    """Refuse JSON nested deeper than ``limit`` (cheap when it has few brackets)."""
    opens = data.count(b"[") + data.count(b"{") if isinstance(data, bytes) else \
        data.count("[") + data.count("{")
    if opens > limit and json_depth(data) > limit:
        raise ServerError("bad-request", f"JSON may nest at most {limit} levels deep")


def loads(data: str | bytes, limit: int) -> Any:
    """``json.loads`` with the depth limit, every failure a ``bad-request``."""
    check_depth(data, limit)
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise ServerError("bad-request", "a message is a JSON object") from None


def _host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    name = host.rsplit("]", 1)[0] + "]" if host.startswith("[") else host.rsplit(":", 1)[0]
    name = name.lower().rstrip(".")
    for pattern in allowed:
        pattern = pattern.lower().rstrip(".")
        if pattern == "*" or name == pattern:
            return True
        if pattern.startswith("*.") and name.endswith(pattern[1:]):
            return True
    return False


class HttpGuard:
    """The middleware (see the module's text); the outermost one, so its headers are on
    every answer, errors included."""

    def __init__(self, app: ASGIApp, guard: Guard, body_limit: int) -> None:
        self.app = app
        self.guard = guard
        self.body_limit = body_limit
        self.proxies = TrustedProxies(parse_networks(guard.trusted_proxies))
        #: Made from the hub's limits at the first request (``http_ration.py``).
        self.ration: HttpRation | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            install_redaction()
            quiet_accept_errors(asyncio.get_running_loop())
            await self.app(scope, receive, send)
            return
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        scope = dict(scope)
        client = scope.get("client")
        if client and self.proxies.networks:
            scope["client"] = (self.proxies.client(client[0], headers.get("x-forwarded-for")),
                               client[1])
        if kind == "http":
            send = self._with_headers(scope, send)
        try:
            if self.guard.allowed_hosts and not _host_allowed(headers.get("host", ""),
                                                              self.guard.allowed_hosts):
                raise ServerError("bad-request", "this server does not answer for that host")
            offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",")
                       if p.strip()]
            self._take_token(scope, headers, offered)
            charge = await self._charge(scope)
            if isinstance(charge, Refusal):
                await self._refuse_rationed(scope, receive, send, charge, offered)
                return
            if kind == "http" and scope.get("method") not in ("GET", "HEAD", "OPTIONS"):
                receive = await self._checked_body(receive)
        except ServerError as exc:
            await self._refuse(scope, send, exc)
            return
        if kind == "websocket" and SUBPROTOCOL in offered:
            send = self._accept_subprotocol(send)
        if charge.quota is not None:
            send = self._settling(send, charge)
        await self.app(scope, receive, send)

    async def _charge(self, scope: Scope) -> Charge | Refusal:
        """Spend what the request costs from its address's ration (``http_ration.py``);
        nothing to spend in an app without a hub."""
        state = getattr(scope.get("app"), "state", None)
        hub = getattr(state, "hub", None)
        if hub is None:
            return Charge()
        if self.ration is None:
            self.ration = HttpRation(hub.limits)
        client = scope.get("client")
        return await self.ration.charge(hub, scope["type"], str(scope.get("method", "GET")),
                                        str(scope.get("path", "")),
                                        scope.get("query_string", b""),
                                        client[0] if client else "unknown")

    @staticmethod
    def _settling(send: Send, charge: Charge) -> Send:
        """Give a creation back to the quota when the answer created nothing."""

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                charge.settle(int(message["status"]))
            await send(message)

        return wrapped

    @staticmethod
    async def _refuse_rationed(scope: Scope, receive: Receive, send: Send, refusal: Refusal,
                               offered: list[str]) -> None:
        """``rate-limited``: HTTP 429 with ``Retry-After``; a socket is accepted, told,
        and closed with 1013 ("try again later"), as the hub's own ration does."""
        error = ServerError("rate-limited", refusal.message)
        if scope["type"] == "websocket":
            accept: Message = {"type": "websocket.accept"}
            if SUBPROTOCOL in offered:
                accept["subprotocol"] = SUBPROTOCOL
            try:
                await receive()  # websocket.connect
                await send(accept)
                await send({"type": "websocket.send", "text": json.dumps(error.to_json())})
                await send({"type": "websocket.close", "code": 1013,
                            "reason": refusal.message[:100]})
            except OSError:  # the client left already
                pass
            return
        body = json.dumps(error.to_json()).encode()
        await send({"type": "http.response.start", "status": error.status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"retry-after", str(refusal.retry_after).encode())]})
        await send({"type": "http.response.body", "body": body})

    def _take_token(self, scope: Scope, headers: dict[str, str], offered: list[str]) -> None:
        """Bound every token, and hand a header's or subprotocol's to the handlers as the
        ``token`` query parameter of the request's own copy of the scope (the access log
        prints the URL the client sent)."""
        token = None
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            token = auth[7:].strip()
        token = headers.get("x-elfenland-token", token)
        for p in offered:
            if p.startswith(TOKEN_PROTOCOL):
                token = p[len(TOKEN_PROTOCOL):]
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                          keep_blank_values=True)
        limit = self.guard.token_max
        if (token is not None and len(token) > limit) or any(
                k in ("token", "player") and len(v) > limit for k, v in query):
            raise ServerError("bad-token", f"a token is at most {limit} characters")
        if token is not None:
            query = [(k, v) for k, v in query if k != "token"] + [("token", token)]
            scope["query_string"] = urlencode(query).encode("latin-1")

    async def _checked_body(self, receive: Receive) -> Receive:
        """Read the body (up to the body limit; more is left to ``BodyLimit``), refuse
        it if nested too deep, and hand it on unchanged."""
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.body_limit or not message.get("more_body", False):
                break
        if size <= self.body_limit:
            body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
            check_depth(body, self.guard.json_depth)

        async def replay() -> Message:
            if messages:
                return messages.pop(0)
            return await receive()

        return replay

    @staticmethod
    def _with_headers(scope: Scope, send: Send) -> Send:
        path = str(scope.get("path", ""))
        csp = DOCS_CSP if path.startswith(DOCS_PATHS) else CSP

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in have]
                if b"content-security-policy" not in have:
                    extra.append((b"content-security-policy", csp.encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return wrapped

    @staticmethod
    def _accept_subprotocol(send: Send) -> Send:
        """A browser that offered subprotocols fails the connection unless one is
        chosen: ``elfenland`` is (never the token's)."""

        async def wrapped(message: Message) -> None:
            if message["type"] == "websocket.accept" and not message.get("subprotocol"):
                message = {**message, "subprotocol": SUBPROTOCOL}
            await send(message)

        return wrapped

    @staticmethod
    async def _refuse(scope: Scope, send: Send, exc: ServerError) -> None:
        if scope["type"] == "websocket":
            # Before the handshake is accepted: the client gets a 403.
            await send({"type": "websocket.close", "code": 1008, "reason": exc.message[:100]})
            return
        body = json.dumps(exc.to_json()).encode()
        await send({"type": "http.response.start", "status": exc.status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
