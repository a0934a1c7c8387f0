"""An anonymous hostile client against the protocol, through real sockets: what once
reached the server unchecked (an HTTP 500, a traceback in the log) now gets the
protocol's typed error and changes nothing."""

from __future__ import annotations

import base64
import logging
import os
import socket
import struct
import time
from collections.abc import Iterator

import pytest

from elfenland.server.config import Guard

from .conftest import ServerFactory
from .helpers import HTTP, create, post


class Errors(logging.Handler):
    """Collects the ERROR records of uvicorn's error log (where an exception that left a
    handler is logged as "Exception in ASGI application" with its traceback)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def listen(self) -> None:
        logging.getLogger("uvicorn.error").addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def server_errors() -> Iterator[Errors]:
    """uvicorn's error log, listened to: call ``listen()`` once the server has started,
    as starting it configures uvicorn's loggers afresh (their handlers removed)."""
    handler = Errors()
    logger = logging.getLogger("uvicorn.error")
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def test_malformed_webhook_urls_are_bad_requests(make_server: ServerFactory) -> None:
    # Loopback allowed, so that a URL well formed but for a NUL in its path gets as far
    # as the store (PostgreSQL refused the NUL: an HTTP 500).
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)))
    me = post(server.url, "/api/players", {"name": "Eve"}).json()
    for url in ("http://[::1/",                  # urlsplit: "Invalid IPv6 URL"
                "http://[zz]/",                  # urlsplit: not an address in brackets
                "http://a..b/",                  # IDNA: an empty label
                f"http://{'a' * 64}.example/",   # IDNA: a label over 63 characters
                "http://127.0.0.1:9/\x00",       # NUL: PostgreSQL's DataError
                "http://127.0.0.1:9/a\r\nX-Evil: 1",
                "http://127.0.0.1:9/\u202egnp.exe"):
        r = post(server.url, "/api/players", {"name": "Eve", "webhook": url})
        assert (r.status_code, r.json()["code"]) == (400, "bad-request"), (url, r.text)
        r = post(server.url, "/api/players/me", {"token": me["token"], "webhook": url})
        assert (r.status_code, r.json()["code"]) == (400, "bad-request"), (url, r.text)
    kept = HTTP.get(f"{server.url}/api/players/me", params={"token": me["token"]}).json()
    assert kept["webhook"] is None
    fine = post(server.url, "/api/players", {"name": "Sam", "webhook": "http://127.0.0.1:9/h?a=1"})
    assert fine.status_code == 201, fine.text


def test_ratings_only_of_games_the_server_has(make_server: ServerFactory) -> None:
    server = make_server()
    for game in ("\x00", "elfen\x00land", "chess"):
        r = HTTP.get(f"{server.url}/api/ratings", params={"game": game})
        assert (r.status_code, r.json()["code"]) == (404, "not-found"), (game, r.text)
    # Any of a game's names is the game.
    r = HTTP.get(f"{server.url}/api/ratings", params={"game": "Elfenland"})
    assert r.status_code == 200 and r.json() == {"game": "elfenland", "ratings": []}


def _handshake(path: str) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


def test_a_socket_that_leaves_at_once_is_no_server_error(
        make_server: ServerFactory, server_errors: Errors) -> None:
    """A client that opens a game's socket and resets it at once: the refusal (no such
    game, a wrong token) could not be sent, and each such connection logged a traceback."""
    server = make_server()
    server_errors.listen()
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]
    for path in ("/ws/games/nosuchgame", f"/ws/games/{gid}?token=wrong", f"/ws/games/{gid}"):
        for _ in range(15):
            with socket.create_connection(("127.0.0.1", server.port)) as s:
                s.sendall(_handshake(path))
                # Reset, not a polite close: the server's next send fails at once.
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    # The server has answered them all (or given up on them) once a request after them is
    # answered and the loop has had a moment for the refusals still under way.
    assert HTTP.get(f"{server.url}/api/games/{gid}").status_code == 200
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and not server_errors.records:
        time.sleep(0.1)
    assert [r.getMessage() for r in server_errors.records] == []
    summary = HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]
    assert [s["kind"] for s in summary["seats"]] == ["human", "open"]
    assert not summary["seats"][0]["connected"]


def test_the_lobby_feed_ends_even_with_its_queue_full() -> None:
    """A feed client that stops reading fills its queue; when it then leaves, telling the
    sender to stop raised ``QueueFull`` in the reading task ("Task exception was never
    retrieved" in the log)."""
    import asyncio

    from elfenland.server.ops import FEED_QUEUE, _end

    queue: asyncio.Queue[str | None] = asyncio.Queue(FEED_QUEUE)
    for i in range(FEED_QUEUE):
        queue.put_nowait(f"event {i}")
    _end(queue)
    items = [queue.get_nowait() for _ in range(queue.qsize())]
    assert items[-1] is None and len(items) == FEED_QUEUE
    assert items[0] == "event 1"  # the oldest made room
    _end(queue)  # not full: the stop is simply added
    assert queue.get_nowait() is None


def test_a_seat_reconnecting_in_a_loop_is_told_once_an_interval(
        make_server: ServerFactory) -> None:
    """Each socket a seat opened or closed was told, as it happened, to every lobby feed
    and every socket of the game: a holder reconnecting in a loop sent everyone watching
    two messages per loop.  Now the first change is told at once and the rest at most
    once a second, the last telling the table as it is."""
    import asyncio

    from websockets.asyncio.client import connect

    from .helpers import recv

    server = make_server()
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid, token = made["game"]["id"], made["token"]

    async def scenario() -> tuple[list[dict[str, object]], float]:
        told: list[dict[str, object]] = []
        async with connect(f"{server.ws_url}/ws/lobby?games={gid}") as feed:
            assert (await recv(feed))["type"] == "hello"

            async def listen() -> None:
                while True:
                    event = await recv(feed, timeout=60)
                    if event["type"] == "lobby":
                        told.append(event)

            listening = asyncio.create_task(listen())
            started = time.monotonic()
            for _ in range(20):
                async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ws:
                    assert (await recv(ws))["type"] == "hello"
            looped = time.monotonic() - started
            await asyncio.sleep(1.5)  # the interval's end, with its last telling
            listening.cancel()
            return told, looped

    told, looped = asyncio.run(scenario())
    # 40 changes; at most one telling a second of the loop, plus the first and the last.
    assert 2 <= len(told) <= looped + 3, (len(told), looped)
    last = told[-1]["game"]
    assert isinstance(last, dict) and last["seats"][0]["connected"] is False
