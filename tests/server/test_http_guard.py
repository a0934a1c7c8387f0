"""The server's shell against hostile clients (issue 23), each attack through real
sockets: security headers on every answer, the Host check, tokens in headers and
subprotocols (and bounded), the JSON depth limit, every message counted by the rate
limiter, forwarded addresses believed only from trusted proxies, the per-host limit
under concurrent creates, names without control or direction characters."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from elfenland.server.config import Guard, Limits
from elfenland.server.http_guard import RedactTokens, json_depth

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv, recv_until

HEADERS = {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
           "referrer-policy": "no-referrer"}


def test_security_headers_on_every_answer(make_server: ServerFactory) -> None:
    server = make_server()
    for path in ("/", "/js/conn.js", "/api/games", "/api/games/nosuch", "/api/players/me"):
        r = HTTP.get(f"{server.url}{path}")
        for name, value in HEADERS.items():
            assert r.headers.get(name) == value, (path, name)
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
    r = post(server.url, "/api/games", {"players": 99})
    assert r.status_code == 400 and r.headers["x-frame-options"] == "DENY"


def test_the_host_check(make_server: ServerFactory) -> None:
    server = make_server(guard=Guard(allowed_hosts=("play.example", "*.elfen.example")))
    for host, status in (("play.example", 200), ("a.elfen.example:8000", 200),
                         ("evil.example", 400), ("127.0.0.1", 400)):
        r = HTTP.get(f"{server.url}/api/games", headers={"Host": host})
        assert r.status_code == status, host
        assert r.headers["x-content-type-options"] == "nosniff"

    async def ws() -> None:
        async with connect(f"{server.ws_url}/ws/games/abcdefgh"):
            pass

    with pytest.raises(InvalidStatus):
        asyncio.run(ws())


def test_tokens_in_headers_and_subprotocols(make_server: ServerFactory) -> None:
    server = make_server()
    me = post(server.url, "/api/players", {"name": "Ann"}).json()
    for headers in ({"Authorization": f"Bearer {me['token']}"},
                    {"X-Elfenland-Token": me["token"]}):
        r = HTTP.get(f"{server.url}/api/players/me", headers=headers)
        assert r.status_code == 200 and r.json()["name"] == "Ann"
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid, token = made["game"]["id"], made["token"]

    async def hello() -> tuple[JSON, str | None]:
        async with connect(f"{server.ws_url}/ws/games/{gid}",
                           subprotocols=["elfenland", f"token.{token}"]) as ws:  # type: ignore[list-item]
            return await recv(ws), ws.subprotocol

    greeting, chosen = asyncio.run(hello())
    assert greeting["type"] == "hello" and greeting["seat"] == 0
    assert chosen == "elfenland"


def test_a_long_token_is_refused_at_once(make_server: ServerFactory) -> None:
    server = make_server()
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]
    long = "x" * 10_000

    async def attempt(**kw: object) -> float:
        t0 = time.monotonic()
        with pytest.raises(InvalidStatus) as err:
            async with connect(**kw, open_timeout=60):  # type: ignore[arg-type]
                pass
        assert err.value.response.status_code in (400, 403)
        return time.monotonic() - t0

    # At once: well before the server's header timeout (10 s) would end the exchange (on a
    # quiet machine in milliseconds; the bound leaves room for a loaded one).
    at_once = Guard().header_timeout / 2
    assert asyncio.run(attempt(uri=f"{server.ws_url}/ws/games/{gid}?token={long}")) < at_once
    assert asyncio.run(attempt(uri=f"{server.ws_url}/ws/games/{gid}",
                               subprotocols=["elfenland", f"token.{long}"])) < at_once
    r = HTTP.get(f"{server.url}/api/players/me", headers={"Authorization": f"Bearer {long}"})
    assert r.status_code == 403 and r.json()["code"] == "bad-token"


def test_every_message_counts_and_deep_json_is_refused(make_server: ServerFactory) -> None:
    limits = Limits(absent_after=0.0, games_per_host=1000, messages_per_second=0.01, burst=4)
    server = make_server(limits=limits)
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]

    async def flood() -> list[str]:
        codes = []
        async with connect(f"{server.ws_url}/ws/games/{gid}") as ws:
            await recv_until(ws, lambda m: m["type"] == "events")
            await ws.send("[" * 5000 + "]" * 5000)
            deep = await recv_until(ws, lambda m: m["type"] == "error")
            assert "nest" in deep["message"]
            codes.append(deep["code"])
            for raw in ("{not json", "x" * 20_000, "[]", json.dumps({"type": "ping"})):
                await ws.send(raw)
                got = await recv_until(ws, lambda m: m["type"] in ("error", "pong"))
                codes.append(got.get("code", got["type"]))
        return codes

    # A burst of 4: the deep message, the malformed one, the oversized one and a
    # non-object use it up; even a ping is then refused.
    assert asyncio.run(flood()) == ["bad-request", "bad-request", "too-large", "bad-request",
                                    "rate-limited"]
    deep_body = "[" * 100_00 + "]" * 100_00
    r = HTTP.post(f"{server.url}/api/games", content=deep_body[:8000] + deep_body[-8000:],
                  headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "nest" in r.json()["message"]
    assert json_depth('{"a": ["[[[[", {"b": []}]}') == 4


def test_forwarded_for_only_from_trusted_proxies(make_server: ServerFactory) -> None:
    limits = Limits(absent_after=0.0, games_per_host=1, messages_per_second=1000, burst=1000)
    untrusting = make_server(limits=limits)
    first = post(untrusting.url, "/api/games", {"players": 2})
    assert first.status_code == 201
    # A made-up X-Forwarded-For from a client picks nothing: it is counted as itself.
    r = HTTP.post(f"{untrusting.url}/api/games", json={"players": 2},
                  headers={"X-Forwarded-For": "203.0.113.9"})
    assert r.status_code == 429 and "127.0.0.1" in r.json()["message"]
    untrusting.stop()  # one server process per SQLite file
    trusting = make_server(limits=limits, guard=Guard(trusted_proxies=("127.0.0.1/32",)))
    for client in ("203.0.113.9", "198.51.100.7"):
        r = HTTP.post(f"{trusting.url}/api/games", json={"players": 2},
                      headers={"X-Forwarded-For": f"6.6.6.6, {client}"})
        assert r.status_code == 201
    # The proxy's own hop is the rightmost: what the client wrote on the left is not
    # believed, so "6.6.6.6" was never counted.
    r = HTTP.post(f"{trusting.url}/api/games", json={"players": 2},
                  headers={"X-Forwarded-For": "1.2.3.4, 203.0.113.9"})
    assert r.status_code == 429 and "203.0.113.9" in r.json()["message"]


def test_the_per_host_limit_holds_under_concurrent_creates(make_server: ServerFactory) -> None:
    limits = Limits(absent_after=0.0, games_per_host=5, messages_per_second=1000, burst=1000)
    server = make_server(limits=limits)

    async def burst() -> list[int]:
        async with httpx.AsyncClient(timeout=60) as client:
            answers = await asyncio.gather(*(
                client.post(f"{server.url}/api/games", json={"players": 2})
                for _ in range(40)))
        return [a.status_code for a in answers]

    codes = asyncio.run(burst())
    assert codes.count(201) == 5 and codes.count(429) == 35
    games = HTTP.get(f"{server.url}/api/games").json()["games"]
    assert len(games) == 5


def test_names_lose_control_and_direction_characters(make_server: ServerFactory) -> None:
    server = make_server()
    made = create(server.url, players=2, name="\u202eAnn\x07\x00\u200b",
                  seats=[{"kind": "human"}, {"kind": "open"}])
    assert made["game"]["seats"][0]["name"] == "Ann"
    r = post(server.url, "/api/games", {"players": 2, "name": "\u202e\x07\x00"})
    assert r.status_code == 400 and "printable" in r.json()["message"]
    r = post(server.url, "/api/players", {"name": "\u2066\u2069"})
    assert r.status_code == 400 and "printable" in r.json()["message"]
    gid = made["game"]["id"]
    r = post(server.url, f"/api/games/{gid}/join", {"name": "Bo\u202e)1 taes( nnA"})
    assert r.json()["game"]["seats"][1]["name"] == "Bo)1 taes( nnA"

    async def spectate() -> JSON:
        async with connect(f"{server.ws_url}/ws/games/{gid}") as ws:
            await ws.send(json.dumps({"type": "chat", "text": "hi",
                                      "name": "\u202e)1 taes( nnA"}))
            return await recv_until(ws, lambda m: m["type"] == "event")

    said = asyncio.run(spectate())["event"]
    assert said["name"] == ")1 taes( nnA" and said["spectator"]


def test_the_access_log_filter_redacts_tokens() -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, "", 0,
                               '%s - "%s %s HTTP/%s" %d', (
                                   "1.2.3.4:5", "GET", "/api/players/me?token=s3cret&x=1",
                                   "1.1", 200), None)
    assert RedactTokens().filter(record)
    assert "s3cret" not in record.getMessage() and "token=[redacted]&x=1" in record.getMessage()


def _cut_after(port: int, first: bytes, drip: bytes) -> float:
    """Seconds until the server closes a connection that sent ``first`` and then drips
    ``drip`` a byte every 0.2 s."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(first)
        s.settimeout(0.2)
        for byte in drip * 100:
            try:
                if s.recv(4096) == b"":
                    return time.monotonic() - t0
            except TimeoutError:
                pass
            except OSError:
                return time.monotonic() - t0
            try:
                s.send(bytes([byte]))
            except OSError:
                return time.monotonic() - t0
    return float("inf")


def test_slow_headers_and_slow_bodies_are_cut(make_server: ServerFactory) -> None:
    server = make_server(guard=Guard(header_timeout=1.0))
    head = _cut_after(server.port, b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ", b"a")
    body = _cut_after(server.port, b"POST /api/players HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
                      b" ")
    # Cut at the 1 s header timeout, not when the drip ends (20 s): the upper bound leaves
    # room for a loaded machine.
    assert 0.9 < head < 5 and 0.9 < body < 5, (head, body)
    # A request sent at a normal pace on a kept-alive connection is answered.
    assert HTTP.get(f"{server.url}/api/games").status_code == 200
