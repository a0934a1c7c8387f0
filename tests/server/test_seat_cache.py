"""``Players.seats``, the cache of each game's seated players, stays bounded: a game's
entry goes when its rating is decided or it leaves memory, at most ``seats_cached``
games are kept, and a game read again after its entry went gets the store's answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from websockets.asyncio.client import connect

from elfenland.server.config import Guard
from elfenland.server.players import Players
from elfenland.server.store import GameRecord, PlayerRecord, SeatRecord, open_store
from elfenland.server.tokens import hash_token

from .conftest import ServerFactory
from .helpers import create, post, recv_until, wait_until
from .test_turn_notices_restart import Receiver


def _game(gid: str, status: str = "running") -> GameRecord:
    seats = (SeatRecord(0, "human", "Ann"), SeatRecord(1, "human", "Bo"))
    return GameRecord(gid, "elfenland", 2, None, {}, 7, status, 0,  # type: ignore[arg-type]
                      "2026-01-01T00:00:00Z", "198.51.100.7", seats)


def _player(pid: str) -> PlayerRecord:
    return PlayerRecord(pid, pid.title(), None, "2026-01-01T00:00:00Z")


def test_the_cache_is_bounded_and_answers_from_the_store_after_eviction(
        tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    try:
        games = [f"g{i}" for i in range(5)]
        for i, gid in enumerate(games):
            store.create_game(_game(gid))
            store.create_player(_player(f"p{i}"), hash_token(f"t{i}"))
            store.link_seat(gid, 0, f"p{i}")
        players = Players(store)
        players.seats_cached = 2

        async def run() -> None:
            for i, gid in enumerate(games):
                assert (await players.seated(gid))[0].id == f"p{i}"
                assert len(players.seats) <= 2
            assert list(players.seats) == ["g3", "g4"]
            await players.seated("g3")  # the least recently used goes first
            await players.seated("g0")
            assert list(players.seats) == ["g3", "g0"]
            # g1 left the cache: a seat linked now is in its answer, read from the store.
            await players.link("g1", 1, _player("p4"))
            assert {s: p.id for s, p in (await players.seated("g1")).items()} \
                == {0: "p1", 1: "p4"}
            assert len(players.seats) == 2
            players.forget("g1")
            assert "g1" not in players.seats
            assert (await players.seated("g1"))[1].id == "p4"

        asyncio.run(run())
    finally:
        store.close()


def test_a_players_new_webhook_reaches_the_seats_they_hold(
        make_server: ServerFactory) -> None:
    """The cache kept the record read when the seat was linked: a webhook changed
    mid-game was not called (the old one, or none, was)."""
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)))
    hub = server.app.state.hub
    ann = post(server.url, "/api/players", {"name": "Ann"}).json()
    made = create(server.url, players=2, player=ann["token"],
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]
    assert hub.players.seats[gid][0].webhook is None  # cached at the link
    hook = "http://127.0.0.1:9/hook"
    assert post(server.url, "/api/players/me",
                {"token": ann["token"], "webhook": hook}).is_success
    assert hub.players.seats[gid][0].webhook == hook


def test_a_webhook_changed_by_another_process_is_called(make_server: ServerFactory) -> None:
    """In a cluster the player's change may reach another process, whose ``updated``
    tells only its own cache: this process's cached record kept the old webhook (none
    here), so the player was never told of their turn.  The store's record is read for
    each notice.  (The store written directly is that other process.)"""
    with Receiver() as hook:
        server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)))
        hub = server.app.state.hub
        ann = post(server.url, "/api/players", {"name": "Ann"}).json()
        made = create(server.url, players=2, player=ann["token"],
                      seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
        gid = made["game"]["id"]
        assert hub.players.seats[gid][0].webhook is None  # cached at the link
        record = hub.store.player_by_id(ann["player"]["id"])
        assert record is not None
        hub.store.update_player(replace(record, webhook=hook.url))
        assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
        wait_until(lambda: bool(hook.got), "the turn notice never came")
        assert {(p["game"], p["seat"], p["player"]) for p, _ in hook.got} == {
            (gid, 0, ann["player"]["id"])}
        assert hub.players.seats[gid][0].webhook == hook.url


def test_a_decided_rating_drops_the_games_seats(tmp_path: Path) -> None:
    """The seats were read to decide the rating; nothing asks after them again."""
    store = open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    try:
        store.create_game(_game("g1", "finished"))
        store.create_player(_player("ann"), hash_token("t"))
        store.link_seat("g1", 0, "ann")  # one player: never rated, nothing stored
        players = Players(store)

        async def run() -> None:
            assert (await players.seated("g1"))[0].id == "ann"
            assert await players.rate_finished(_game("g1", "finished"), [3, 2], [0], 9,
                                               "2026-01-01T00:00:00Z") is None
            assert "g1" not in players.seats

        asyncio.run(run())
    finally:
        store.close()


def test_finished_games_leave_no_seats_behind(make_server: ServerFactory) -> None:
    """Each finished game's seats were read to decide its rating and kept for ever."""
    server = make_server()
    hub = server.app.state.hub
    finished = []

    async def watch_to_the_end(gid: str) -> None:
        async with connect(f"{server.ws_url}/ws/games/{gid}") as ws:
            await recv_until(ws, lambda m: m["type"] == "update")
            assert post(server.url, f"/api/games/{gid}/start", {}).is_success
            # read every update (a watcher that reads nothing slows the game to its
            # pace) until the game's end
            await recv_until(ws, lambda m: m["type"] == "update"
                             and m["view"]["current_player"] is None)

    for _ in range(2):
        made = create(server.url, players=2, seats=[{"kind": "bot", "level": "random"}] * 2)
        gid = made["game"]["id"]
        asyncio.run(watch_to_the_end(gid))
        finished.append(gid)

    def left_memory(gid: str) -> Callable[[], bool]:
        return lambda: gid not in hub.games

    for gid in finished:
        # Its last watcher gone, it leaves memory once rated (its seats read then).
        wait_until(left_memory(gid), "the game leaves memory")
    assert not set(finished) & set(hub.players.seats)
