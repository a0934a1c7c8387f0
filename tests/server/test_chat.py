"""Chat: kept with the game, sent to players and spectators alike, one line of plain
text, length- and rate-limited."""

from __future__ import annotations

import asyncio
import json

from websockets.asyncio.client import connect

from elfenland.server.config import Limits

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, recv_until

LIMITS = Limits(absent_after=0.0, games_per_host=1000, messages_per_second=1000, burst=1000,
                chat_max=50, chat_per_second=0.01, chat_burst=3)


def test_chat_between_a_player_and_a_spectator(make_server: ServerFactory) -> None:
    server = make_server(limits=LIMITS)
    made = create(server.url, players=2, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid, token = made["game"]["id"], made["token"]

    def is_event(m: JSON) -> bool:
        return m["type"] == "event"

    async def talk() -> tuple[JSON, JSON, list[JSON], JSON]:
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ann, \
                connect(f"{server.ws_url}/ws/games/{gid}") as spec:
            hello = await recv_until(spec, lambda m: m["type"] == "events")
            assert hello["events"] == []
            await ann.send(json.dumps({"type": "chat", "text": " <script>x()</script>\n hi "}))
            got = await recv_until(spec, is_event)
            await spec.send(json.dumps({"type": "chat", "text": "hello", "name": "Zed",
                                        "ref": 7}))
            back = await recv_until(ann, lambda m: is_event(m) and m["event"]["n"] == 2)
            errors = []
            for text in ("", "x" * 51, 5):
                await spec.send(json.dumps({"type": "chat", "text": text, "ref": "r"}))
                errors.append(await recv_until(spec, lambda m: m["type"] == "error"))
            # A burst of 3, then the rate limit (the spectator has sent one already).
            for _ in range(2):
                await spec.send(json.dumps({"type": "chat", "text": "again"}))
                await recv_until(spec, is_event)
            await spec.send(json.dumps({"type": "chat", "text": "and again"}))
            limited = await recv_until(spec, lambda m: m["type"] == "error")
            return got["event"], back["event"], errors, limited

    got, back, errors, limited = asyncio.run(talk())
    assert (got["kind"], got["seat"], got["name"], got["spectator"], got["text"]) == (
        "chat", 0, "Ann", False, "<script>x()</script> hi")
    assert (back["seat"], back["name"], back["spectator"], back["text"]) == (
        None, "Zed", True, "hello")
    assert [e["code"] for e in errors] == ["bad-request", "too-large", "bad-request"]
    assert limited["code"] == "rate-limited"
    stored = HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"]
    assert [e["text"] for e in stored] == ["<script>x()</script> hi", "hello", "again", "again"]

    async def later() -> list[JSON]:
        async with connect(f"{server.ws_url}/ws/games/{gid}") as ws:
            return list((await recv_until(ws, lambda m: m["type"] == "events"))["events"])

    assert [e["n"] for e in asyncio.run(later())] == [1, 2, 3, 4]


def test_a_connecting_socket_gets_only_the_latest_chat_lines(make_server: ServerFactory) -> None:
    limits = Limits(absent_after=0.0, games_per_host=1000, messages_per_second=1000,
                    burst=1000, chat_per_second=1000, chat_burst=1000, chat_history=3)
    server = make_server(limits=limits)
    made = create(server.url, players=2, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid, token = made["game"]["id"], made["token"]

    async def talk() -> JSON:
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ann:
            for i in range(5):
                await ann.send(json.dumps({"type": "chat", "text": f"line {i}"}))
                await recv_until(ann, lambda m, i=i: m["type"] == "event"
                                 and m["event"]["text"] == f"line {i}")
        async with connect(f"{server.ws_url}/ws/games/{gid}") as late:
            return await recv_until(late, lambda m: m["type"] == "events")

    greeting = asyncio.run(talk())
    assert [e["text"] for e in greeting["events"]] == ["line 2", "line 3", "line 4"]
    assert greeting["chat_left_out"] == 2
    stored = HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"]
    assert [e["text"] for e in stored] == [f"line {i}" for i in range(5)]


def test_timeouts_and_take_backs_are_never_left_out_of_the_greeting() -> None:
    from elfenland.server.chat import recent_events
    from elfenland.server.store import EventRecord

    kinds = ["chat", "timeout", "chat", "undo", "chat", "chat"]
    events = [EventRecord(k, 0, i, {}, "", n=i + 1) for i, k in enumerate(kinds)]
    kept, left_out = recent_events(events, 1)
    assert [(e.kind, e.n) for e in kept] == [("timeout", 2), ("undo", 4), ("chat", 6)]
    assert left_out == 3
    assert recent_events(events, 10) == (events, 0)
    assert [e.kind for e in recent_events(events, 0)[0]] == ["timeout", "undo"]
