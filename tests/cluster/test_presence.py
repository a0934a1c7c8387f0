"""Whether a seat's player is connected is right in every process's lobby, not only on
the process that serves the game: it turns true when the player's socket (on another
process) opens, false when it closes, and false when that process is killed outright —
both in the lobby list and on the lobby feed.  And asking any process for a player's
games (the lobby's "Games waiting for you") leaves the games where they are served."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from websockets.asyncio.client import ClientConnection, connect

from .conftest import ClusterFactory
from .play import HTTP, owner_of, post

pytestmark = pytest.mark.cluster


def _seat0(base: str, gid: str) -> bool | None:
    """Seat 0's ``connected`` flag in the lobby list answered by ``base``."""
    games = HTTP.get(f"{base}/api/games?status=open").json()["games"]
    found = [g for g in games if g["id"] == gid]
    assert found, f"game {gid} is missing from the list of {base}"
    value = found[0]["seats"][0]["connected"]
    assert isinstance(value, bool)
    return value


async def _until(check: Callable[[], bool], seconds: float = 60.0) -> float:
    """Wait until ``check()`` holds; returns how long that took."""
    start = time.monotonic()
    while not await asyncio.to_thread(check):
        assert time.monotonic() - start < seconds, "timed out"
        await asyncio.sleep(0.1)
    return time.monotonic() - start


async def _feed_flag(feed: ClientConnection, gid: str, want: bool, seconds: float = 60.0
                     ) -> None:
    """Read the lobby feed until a ``lobby`` message shows seat 0 of ``gid`` as ``want``."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"the feed never showed connected={want}"
        with contextlib.suppress(TimeoutError):
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(feed.recv(), left))
            game = msg.get("game")
            if (msg["type"] == "lobby" and isinstance(game, dict) and game["id"] == gid
                    and game["seats"][0]["connected"] is want):
                return


def _rows(db: str, gid: str) -> list[tuple[int, str]]:
    with psycopg.connect(db) as conn:
        return [(int(s), str(o).split("/")[0]) for s, o in conn.execute(
            "SELECT seat, owner FROM presence WHERE game_id = %s", (gid,)).fetchall()]


def test_connected_flags_across_processes(make_cluster: ClusterFactory) -> None:
    cluster = make_cluster(3)
    made = post(cluster.url, "/api/games", {
        "players": 2, "name": "Ann", "seats": [{"kind": "human"}, {"kind": "open"}]}).json()
    gid, token = made["game"]["id"], made["token"]
    play_url = f"{cluster.ws_url}/ws/games/{gid}?token={token}"

    async def scenario() -> str:
        # The player's socket goes through HAProxy to the process that serves the game.
        async with connect(play_url) as ws:
            assert json.loads(await ws.recv())["type"] == "hello"
            owner = await asyncio.to_thread(owner_of, cluster.db, gid)
            assert owner is not None
            other = next(n for n in cluster.names if n != owner)
            base = cluster.server_url(other)
            assert await asyncio.to_thread(_seat0, cluster.server_url(owner), gid) is True
            await _until(lambda: _seat0(base, gid) is True)
            feed = await connect(base.replace("http", "ws") + "/ws/lobby")
            assert json.loads(await feed.recv())["type"] == "hello"
        # The socket closed: every process's list and the feed say so.
        await _feed_flag(feed, gid, False)
        await _until(lambda: _seat0(base, gid) is False)
        assert await asyncio.to_thread(_rows, cluster.db, gid) == []

        # Connected again, then the serving process is killed outright.
        ws = await connect(play_url)
        assert json.loads(await ws.recv())["type"] == "hello"
        await _feed_flag(feed, gid, True)
        await _until(lambda: _seat0(base, gid) is True)
        owner = await asyncio.to_thread(owner_of, cluster.db, gid)
        assert owner is not None and owner != other
        assert await asyncio.to_thread(_rows, cluster.db, gid) == [(0, owner)]
        await asyncio.to_thread(cluster.kill, owner)
        # The dead process's row stops counting at once and is swept soon after, and
        # the feed hears of it.
        await _until(lambda: _seat0(base, gid) is False)
        await _feed_flag(feed, gid, False)
        await _until(lambda: not _rows(cluster.db, gid))
        with contextlib.suppress(Exception):
            await ws.close()
        await feed.close()
        return other

    # In a thread of its own: a browser test's Playwright may hold this thread's loop.
    with ThreadPoolExecutor(1) as pool:
        other = pool.submit(asyncio.run, scenario()).result()
    # A process that is still up answers the same through HAProxy.
    assert _seat0(cluster.url, gid) is False
    assert _seat0(cluster.server_url(other), gid) is False


def test_a_players_games_are_looked_at_not_pulled_over(make_cluster: ClusterFactory) -> None:
    """The lobby's "Games waiting for you" asks any process for the player's games; that
    process reads them from the store instead of claiming them from their owner."""
    cluster = make_cluster(3)
    player = post(cluster.url, "/api/players", {"name": "Ann"}).json()["token"]
    made = post(cluster.url, "/api/games", {
        "players": 2, "player": player, "seats": [{"kind": "human"}, {"kind": "open"}]}).json()
    gid = made["game"]["id"]
    assert post(cluster.url, f"/api/games/{gid}/join", {"name": "Bob"}).is_success
    assert post(cluster.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    owner = owner_of(cluster.db, gid)
    assert owner is not None
    for name in cluster.names:
        if name == owner:
            continue
        r = HTTP.get(f"{cluster.server_url(name)}/api/players/me/games",
                     params={"token": player})
        assert r.status_code == 200, r.text
        (game,) = r.json()["games"]
        assert game["id"] == gid and game["seat"] == 0
        assert game["to_act"] == 0 and game["waiting"] is True
        assert owner_of(cluster.db, gid) == owner, f"asking {name} moved the game"
