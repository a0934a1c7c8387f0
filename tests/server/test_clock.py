"""Tempos and clocks: a turn's time, the bank, timeouts, the bot that plays for a player
out of time and, after too many timeouts, takes the seat for good."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from elfenland.server.clock import Clock, TempoRequest
from elfenland.server.config import Limits

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv


def test_turns_banks_and_timeouts() -> None:
    clock = Clock.new(TempoRequest(kind="live", per_move=10, bank=30), 3, min_per_move=1)
    assert clock.banks == (30, 30, 30) and clock.deadline is None
    clock = clock.turn(1, 0, now=1000.0)
    assert clock.deadline == 1000 + 10 + 30
    assert clock.turn(1, 1, now=1005.0) is clock  # the same seat acts on: the same turn
    clock = clock.turn(2, 2, now=1025.0)  # seat 1 ran 15 s over its 10: the bank pays
    assert clock.banks == (30, 15, 30) and clock.turn_seq == 2
    assert clock.deadline == 1025 + 10 + 30
    out = clock.timed_out()
    assert out.banks[2] == 0 and out.timeouts == (0, 0, 1) and out.stand_in
    assert out.deadline is None and not out.out_for_good(2)
    assert Clock.loads(out.dumps()) == out
    # Turn-based: a day per turn, no bank; a tempo may not go below the server's floor.
    turn = Clock.new(TempoRequest(kind="turn"), 2, min_per_move=10)
    assert turn.per_move == 86400 and turn.banks == (0, 0)
    assert Clock.new(TempoRequest(kind="live", per_move=1), 2, min_per_move=10).per_move == 10
    with pytest.raises(ValueError):
        TempoRequest(kind="turn", per_move=-1)
    with pytest.raises(ValueError):
        TempoRequest(kind="blitz")  # type: ignore[arg-type]


FAST = Limits(absent_after=0.0, games_per_host=1000, messages_per_second=1000, burst=1000,
              min_per_move=0.1)


def test_a_player_out_of_time_gets_a_bot_then_loses_the_seat(make_server: ServerFactory
                                                              ) -> None:
    server = make_server(limits=FAST)
    made = create(server.url, players=2, seed=5, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}],
                  tempo={"kind": "turn", "per_move": 0.6, "max_timeouts": 2})
    gid, token = made["game"]["id"], made["token"]
    assert made["game"]["clock"]["tempo"] == "turn"
    assert made["game"]["clock"]["per_move"] == 0.6

    async def watch() -> list[JSON]:
        got: list[JSON] = []
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ws:
            assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success
            while True:
                msg = await recv(ws)
                got.append(msg)
                if msg["type"] == "update" and msg["view"]["current_player"] is None:
                    return got

    got = asyncio.run(watch())
    events = [m["event"] for m in got if m["type"] == "event"]
    assert [(e["kind"], e["seat"], e["timeouts"], e["for_good"]) for e in events] == [
        ("timeout", 0, 1, False), ("timeout", 0, 2, True)]
    # Ann never acted, yet her seat played: the first time for one turn, then for good.
    assert any(m["type"] == "lobby" and m["game"]["seats"][0]["kind"] == "bot" for m in got)
    final = [m for m in got if m["type"] == "update"][-1]
    assert final["clock"]["timeouts"] == [2, 0] and final["clock"]["deadline"] is None
    summary = HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]
    assert summary["seats"][0] == {"seat": 0, "kind": "bot", "level": "greedy",
                                   "name": "Greedy bot", "human": "Ann", "connected": False}
    r = post(server.url, f"/api/games/{gid}/seats/0/take", {"token": token})
    assert r.status_code == 409 and r.json()["code"] in ("timed-out", "game-over")
    stored = HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"]
    assert [e["n"] for e in stored] == [1, 2]


def test_a_player_who_acts_in_time_keeps_the_seat(make_server: ServerFactory) -> None:
    """Each of Ann's turns gets a fresh deadline, and acting before it keeps her seat.
    Her time per move is long (with 1.5 s, a loaded machine that held back her messages
    timed her out), so the deadline's renewal is checked by its value, not by the clock
    running out."""
    server = make_server(limits=FAST)
    made = create(server.url, players=2, seed=9, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}],
                  tempo={"kind": "live", "per_move": 60, "bank": 0, "max_timeouts": 1})
    gid, token = made["game"]["id"], made["token"]

    async def play() -> list[JSON]:
        got: list[JSON] = []
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ws:
            assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success
            acted = 0
            while acted < 6:
                msg = await recv(ws)
                got.append(msg)
                if msg["type"] == "update" and msg["view"].get("legal") and \
                        msg["view"]["current_player"] == 0:
                    assert msg["clock"]["seat"] == 0 and msg["clock"]["deadline"] is not None
                    await ws.send(json.dumps({"type": "action", "seq": msg["seq"],
                                              "action": msg["view"]["legal"][0]}))
                    acted += 1
        return got

    got = asyncio.run(play())
    assert not [m for m in got if m["type"] in ("event", "error")]
    # A fresh deadline each turn (her actions within one turn share its time): later
    # than the last one.
    deadlines = [m["clock"]["deadline"] for m in got if m["type"] == "update"
                 and m["view"].get("legal") and m["view"]["current_player"] == 0]
    assert deadlines == sorted(deadlines) and len(set(deadlines)) >= 2, deadlines
    assert HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]["seats"][0]["kind"] == "human"


def test_a_tempo_is_checked(make_server: ServerFactory) -> None:
    server = make_server()
    r = post(server.url, "/api/games", {"tempo": {"kind": "turn", "per_move": 0}})
    assert r.status_code == 400 and r.json()["code"] == "bad-request"
    r = post(server.url, "/api/games", {"tempo": {"kind": "fast"}})
    assert r.status_code == 400
    made = create(server.url, tempo={"kind": "live", "per_move": 1})
    assert made["game"]["clock"]["per_move"] == 10  # the server's floor
    assert "clock" not in create(server.url)["game"]
