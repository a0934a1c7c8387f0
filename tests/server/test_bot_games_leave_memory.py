"""A finished game nobody watches leaves ``hub.games`` (the store and the finished-games
cache keep it), also when the last action was a bot's: the bots' last move asked
``Hub._kick`` from inside their own task, which returned early, so a game whose seats
were all bots and that nobody watched stayed in memory for ever."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from websockets.asyncio.client import connect

from elfenland.server.compose import make_hub, make_store
from elfenland.server.config import ClusterSettings, ServerConfig
from elfenland.server.lobby import CreateGame
from elfenland.server.ownership import Leases
from elfenland.server.store import RATING_KEY, open_store

from .conftest import ServerFactory, pg_schema
from .helpers import HTTP, JSON, create, post, recv_until, wait_until

#: Seconds a finished game nobody watches may stay in memory (it leaves at once: the
#: margin is for a loaded machine).
SHORTLY = 5.0
BOTS = [{"kind": "bot", "level": "random"}] * 2


def _game(base: str, gid: str) -> JSON:
    r = HTTP.get(f"{base}/api/games/{gid}")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _finished(base: str, gid: str) -> bool:
    return bool(_game(base, gid)["game"]["status"] == "finished")


def _still_served(base: str, gid: str) -> None:
    """The finished game's page, record and replay, from the store and the finished
    cache."""
    assert _game(base, gid)["game"]["status"] == "finished"
    record = HTTP.get(f"{base}/api/games/{gid}/record")
    assert record.status_code == 200, record.text
    assert record.json()
    steps = HTTP.get(f"{base}/api/games/{gid}/replay").json()["steps"]
    assert steps > 0


def test_a_bot_game_nobody_watches_leaves_memory_when_it_ends(
        make_server: ServerFactory) -> None:
    server = make_server()
    hub = server.app.state.hub
    gid = create(server.url, players=2, seats=BOTS)["game"]["id"]
    assert post(server.url, f"/api/games/{gid}/start", {}).is_success
    wait_until(lambda: _finished(server.url, gid), "the bot game ends")
    wait_until(lambda: gid not in hub.games, "the finished game leaves memory", SHORTLY)
    _still_served(server.url, gid)
    assert gid not in hub.games  # only looked at: not kept
    assert hub.finished.peek(gid) is not None
    assert gid not in hub.players.seats


def test_players_who_hand_their_seats_to_bots_and_leave(
        make_server: ServerFactory, db_url: str) -> None:
    """Two players, their seats played by bots from the start and nobody watching: the
    game's rating is decided (the policy leaves it out: bots played it) before it
    leaves memory."""
    server = make_server()
    hub = server.app.state.hub
    ann = post(server.url, "/api/players", {"name": "Ann"}).json()["token"]
    bo = post(server.url, "/api/players", {"name": "Bo"}).json()["token"]
    made = create(server.url, players=2, player=ann, seats=[{"kind": "human"},
                                                            {"kind": "open"}])
    gid = made["game"]["id"]
    joined = post(server.url, f"/api/games/{gid}/join", {"player": bo})
    assert joined.is_success, joined.text
    for seat, token in ((0, made["token"]), (1, joined.json()["token"])):
        handed = post(server.url, f"/api/games/{gid}/seats/{seat}/bot",
                      {"token": token, "level": "random"})
        assert handed.is_success, handed.text
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    wait_until(lambda: _finished(server.url, gid), "the bot game ends")
    wait_until(lambda: gid not in hub.games, "the finished game leaves memory", SHORTLY)
    store = open_store(db_url)
    try:
        assert store.decided(gid)
        [decision] = [e for e in store.events(gid) if e.key == RATING_KEY]
        assert decision.kind == "unrated"
    finally:
        store.close()
    _still_served(server.url, gid)


def test_a_game_watched_to_its_end_leaves_memory_with_its_last_watcher(
        make_server: ServerFactory) -> None:
    server = make_server()
    hub = server.app.state.hub
    gid = create(server.url, players=2, seats=BOTS)["game"]["id"]

    async def watch() -> None:
        async with connect(f"{server.ws_url}/ws/games/{gid}") as ws:
            await recv_until(ws, lambda m: m["type"] == "update")
            assert post(server.url, f"/api/games/{gid}/start", {}).is_success
            # every update read (a watcher that reads nothing slows the game to its
            # pace), to the game's end
            await recv_until(ws, lambda m: m["type"] == "update"
                             and m["view"]["current_player"] is None)
            assert _finished(server.url, gid)
            await asyncio.sleep(0.2)
            assert gid in hub.games  # watched: kept

    asyncio.run(watch())
    wait_until(lambda: gid not in hub.games, "the finished game leaves memory", SHORTLY)
    _still_served(server.url, gid)


@pytest.mark.postgres
def test_a_cluster_process_gives_up_the_lease_of_a_bot_game_that_ended() -> None:
    """In a cluster the game leaves memory as every other: its lease is given up."""
    async def run(url: str) -> None:
        config = ServerConfig(db=url, bot_delay=0.0,
                              cluster=ClusterSettings(name="s1", lease_seconds=3))
        hub = make_hub(make_store(config), config)
        await hub.startup()
        try:
            seats: Any = BOTS
            game, _, _ = await hub.create(CreateGame(players=2, seats=seats), "host")
            await hub.start(game.id, None, None)
            leases = hub.ownership
            assert isinstance(leases, Leases)
            assert game.id in leases.epochs  # claimed to play it
            deadline = time.monotonic() + 60
            while hub.games.get(game.id) is not None \
                    and hub.games[game.id].record.status != "finished":
                assert time.monotonic() < deadline, "the bot game did not end"
                await asyncio.sleep(0.05)
            deadline = time.monotonic() + SHORTLY
            while game.id in hub.games or game.id in leases.epochs:
                assert time.monotonic() < deadline, "the finished game stays"
                await asyncio.sleep(0.05)
            assert await hub.db(hub.store.load_game, game.id) is not None
            assert (await hub.get(game.id, keep=False)).record.status == "finished"
        finally:
            await hub.shutdown()

    with pg_schema() as url:
        asyncio.run(run(url))
