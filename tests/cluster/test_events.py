"""Lobby changes and turns made on one process reach a lobby feed on another one (through
PostgreSQL LISTEN/NOTIFY), and /healthz tells HAProxy who is up."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from typing import Any

import pytest
from websockets.asyncio.client import connect

from .conftest import ClusterFactory
from .play import HTTP, owner_of, post

pytestmark = pytest.mark.cluster


def test_lobby_events_reach_a_client_on_another_process(make_cluster: ClusterFactory) -> None:
    cluster = make_cluster(2)
    one, two = cluster.server_url("s1"), cluster.server_url("s2")
    events: list[dict[str, Any]] = []

    async def scenario() -> tuple[str, str]:
        feed_url = one.replace("http", "ws") + "/ws/lobby"
        async with connect(feed_url) as feed:
            hello = json.loads(await feed.recv())
            assert hello == {"type": "hello", "server": hello["server"]}
            assert hello["server"].startswith("s1/")

            def on_two() -> str:
                # Everything below happens on process s2 only.
                made = post(two, "/api/games", {
                    "players": 3, "seed": 5, "name": "Ann",
                    "seats": [{"kind": "human"}, {"kind": "open"},
                              {"kind": "bot", "level": "random"}]}).json()
                gid = made["game"]["id"]
                assert post(two, f"/api/games/{gid}/join", {"name": "Bob"}).is_success
                assert post(two, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
                r = post(two, f"/api/games/{gid}/seats/1/bot",
                         {"token": made["token"], "level": "random"})
                assert r.is_success, r.text
                return str(gid)

            gid = await asyncio.to_thread(on_two)
            deadline = time.monotonic() + 60  # a hang guard: the loop ends when both came
            while time.monotonic() < deadline:
                got = [e for e in events if _gid(e) == gid and e["type"] == "lobby"]
                if any(e["game"]["seats"][1]["kind"] == "bot" for e in got) and any(
                        e["type"] == "turn" and e["seat"] == 0 for e in events):
                    break
                with contextlib.suppress(TimeoutError):
                    events.append(json.loads(await asyncio.wait_for(feed.recv(), 0.5)))
            return gid, str(hello["server"])

    gid, _feed_server = asyncio.run(scenario())
    assert owner_of(cluster.db, gid) == "s2", "the game lives on s2, the feed on s1"
    lobby = [e["game"] for e in events if e["type"] == "lobby" and _gid(e) == gid]
    statuses = [g["status"] for g in lobby]
    assert statuses[0] == "open" and "running" in statuses
    assert any(g["seats"][1].get("name") == "Bob" for g in lobby)  # the join
    handed = [g for g in lobby if g["seats"][1]["kind"] == "bot"]
    assert handed and handed[-1]["seats"][1]["human"] == "Bob"  # the seat hand-over
    # Whose turn it is: each human turn, and a bot's only when it follows a human's.
    turns = [e for e in events if e["type"] == "turn" and e["game"] == gid]
    assert turns and any(e["seat"] == 0 for e in turns)
    assert all(prev["seat"] in (0, 1)
               for prev, e in itertools.pairwise(turns) if e["seat"] == 2)
    assert turns[-1]["seq"] >= 0


def _gid(event: dict[str, Any]) -> str | None:
    game = event.get("game")
    return game.get("id") if isinstance(game, dict) else game


def test_healthz(make_cluster: ClusterFactory) -> None:
    cluster = make_cluster(2)
    body = HTTP.get(f"{cluster.server_url('s1')}/healthz").json()
    assert body["status"] == "ok" and body["store"] is True and body["server"].startswith("s1/")
    assert HTTP.get(f"{cluster.url}/healthz").status_code == 200  # through HAProxy
