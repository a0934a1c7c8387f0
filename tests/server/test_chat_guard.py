"""Chat against floods (issue 23): the rate limit holds across reconnects and sockets
(per seat and per address), a game keeps a bounded chat (oldest lines dropped, in the
store too), the events endpoint pages, and spectators cannot write into a finished
game."""

from __future__ import annotations

import asyncio
import json
import time

from websockets.asyncio.client import connect

from elfenland.server.chat import trim_chat
from elfenland.server.config import Limits
from elfenland.server.store import EventRecord

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv_until

BASE = dict(absent_after=0.0, games_per_host=1000, messages_per_second=1000, burst=1000)


async def _say(url: str, text: str, name: str | None = None) -> JSON:
    """One chat line on a fresh socket: the event, or the error."""
    async with connect(url) as ws:
        await recv_until(ws, lambda m: m["type"] == "events")
        await ws.send(json.dumps({"type": "chat", "text": text, "name": name}))
        return await recv_until(ws, lambda m: m["type"] in ("event", "error"))


def test_reconnecting_does_not_reset_the_chat_limit(make_server: ServerFactory) -> None:
    limits = Limits(**BASE, chat_per_second=0.01, chat_burst=3,  # type: ignore[arg-type]
                    chat_per_address=0.01, chat_address_burst=5)
    server = make_server(limits=limits)
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid, token = made["game"]["id"], made["token"]
    seat_url = f"{server.ws_url}/ws/games/{gid}?token={token}"
    spec_url = f"{server.ws_url}/ws/games/{gid}"

    async def run() -> list[str]:
        out = []
        for _ in range(4):  # the seat: 3, then limited, each on a new socket
            got = await _say(seat_url, "hi")
            out.append(got.get("code", got["type"]))
        for _ in range(3):  # spectators from the same address: 2 left of its 5
            got = await _say(spec_url, "hey", "Zed")
            out.append(got.get("code", got["type"]))
        return out

    assert asyncio.run(run()) == ["event", "event", "event", "rate-limited",
                                  "event", "event", "rate-limited"]


def test_a_game_keeps_a_bounded_chat_and_pages_its_events(make_server: ServerFactory) -> None:
    limits = Limits(**BASE, chat_per_second=1000, chat_burst=1000,  # type: ignore[arg-type]
                    chat_per_address=1000, chat_address_burst=1000, chat_lines=5,
                    chat_bytes=10_000)
    server = make_server(limits=limits)
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    gid, token = made["game"]["id"], made["token"]

    async def talk() -> None:
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ws:
            for i in range(8):
                await ws.send(json.dumps({"type": "chat", "text": f"line {i}"}))
                await recv_until(ws, lambda m, i=i: m["type"] == "event"
                                 and m["event"]["text"] == f"line {i}")

    asyncio.run(talk())
    # A line is told once it is stored; the trimming of the oldest is a later write.
    deadline = time.monotonic() + 10
    while True:
        first = HTTP.get(f"{server.url}/api/games/{gid}/events", params={"limit": 2}).json()
        if [e["text"] for e in first["events"]] == ["line 3", "line 4"] \
                or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [e["text"] for e in first["events"]] == ["line 3", "line 4"]
    second = HTTP.get(f"{server.url}/api/games/{gid}/events",
                      params={"after": first["next"], "limit": 2}).json()
    assert [e["text"] for e in second["events"]] == ["line 5", "line 6"]
    last = HTTP.get(f"{server.url}/api/games/{gid}/events",
                    params={"after": second["next"], "limit": 2}).json()
    assert [e["text"] for e in last["events"]] == ["line 7"] and last["next"] is None
    assert HTTP.get(f"{server.url}/api/games/{gid}/events",
                    params={"limit": 10_000}).status_code == 400
    # Dropped from the store too: a restarted server has the same five lines.
    server.stop()
    again = make_server(limits=limits)
    kept = HTTP.get(f"{again.url}/api/games/{gid}/events").json()["events"]
    assert [e["text"] for e in kept] == [f"line {i}" for i in range(3, 8)]


def test_trim_chat_by_bytes() -> None:
    events = [EventRecord("chat", 0, i, {"text": "x" * 100, "name": "A"}, "", n=i + 1)
              for i in range(10)]
    events.insert(3, EventRecord("timeout", 0, 3, {}, "", n=99))
    dropped = trim_chat(events, 100, 350)
    assert dropped == [1, 2, 3, 4, 5, 6, 7]
    assert [e.n for e in events] == [99, 8, 9, 10]


def test_no_spectator_chat_in_a_finished_game(make_server: ServerFactory) -> None:
    server = make_server()
    made = create(server.url, players=2, seats=[{"kind": "bot", "level": "random"},
                                                {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    assert post(server.url, f"/api/games/{gid}/start", {}).is_success
    deadline = time.monotonic() + 60
    while HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    got = asyncio.run(_say(f"{server.ws_url}/ws/games/{gid}", "gg", "Eve"))
    assert got["type"] == "error" and got["code"] == "game-over"
    assert HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"] == []
