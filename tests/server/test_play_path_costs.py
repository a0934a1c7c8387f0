"""The play path's cheaper parts keep their meaning (docs/deploy.md, "Profiled"): an update
shared by several sockets is encoded once, yet each socket gets the log it lacks;
``Hub.locked`` marks a game to be read again only after a store failure of unknown
outcome, and always lets go of the lock; a copied random generator draws the same future
as the original, independently of it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from elfenland.core.rng import Rng
from elfenland.server.config import ServerConfig
from elfenland.server.errors import ServerError
from elfenland.server.hub import Connection, Hub, LiveGame
from elfenland.server.lobby import CreateGame
from elfenland.server.ratelimit import TokenBucket
from elfenland.server.store import open_store


def _conn(seat: int | None) -> Connection:
    return Connection(seat, TokenBucket(10, 20), asyncio.Queue(256))


def _drain(conn: Connection) -> list[dict[str, Any]]:
    out = []
    while not conn.queue.empty():
        text = conn.queue.get_nowait()
        assert text is not None
        out.append(json.loads(text))
    return out


async def _running_game(tmp_path: Path) -> tuple[Hub, LiveGame]:
    db = str(tmp_path / "games.sqlite3")
    hub = Hub(open_store(db), ServerConfig(db=db, bot_delay=3600.0))
    await hub.startup()
    req = CreateGame(players=2, seed=5, seats=[{"kind": "human"}, {"kind": "bot",  # type: ignore[list-item]
                                                                    "level": "random"}])
    game, _, token = await hub.create(req, "host")
    return hub, await hub.start(game.id, token, None)


def test_a_shared_update_is_encoded_once_and_each_socket_gets_its_own_log(
        tmp_path: Path) -> None:
    async def run() -> None:
        hub, game = await _running_game(tmp_path)
        try:
            a, b, watcher = _conn(0), _conn(0), _conn(None)
            for c in (a, b, watcher):
                hub.attach(game, c, 0)
                _drain(c)
            seat = game.state.current_player()
            legal = game.state.legal_actions()
            async with hub.locked(game):
                await game.play(hub, seat, str(legal[0]))
            sent = {id(c): _drain(c) for c in (a, b, watcher)}
            # One socket of seat 0 had everything, the other two the same log position.
            assert sent[id(a)] == sent[id(b)] and len(sent[id(a)]) == 1
            assert sent[id(a)][0]["type"] == "update" and sent[id(a)][0]["view"]["viewer"] == 0
            assert "hand" in sent[id(a)][0]["view"]["players"][0]
            assert "hand" not in sent[id(watcher)][0]["view"]["players"][0]
            assert a.log_seq == b.log_seq == watcher.log_seq == game.seq
            # A socket behind the others gets what it lacks, not what they were sent.
            b.log_seq = 0
            game.send_update()
            (to_a,), (to_b,) = _drain(a), _drain(b)
            assert to_a["log"] == [] and [e["seq"] for e in to_b["log"]] == \
                list(range(1, game.seq + 1))
            assert a.log_seq == b.log_seq == game.seq
        finally:
            await hub.shutdown()

    asyncio.run(run())


def test_locked_marks_only_unknown_outcomes_and_always_lets_go(tmp_path: Path) -> None:
    async def run() -> None:
        hub, game = await _running_game(tmp_path)
        try:
            async def inside(exc: BaseException) -> None:
                with pytest.raises(type(exc)):
                    async with hub.locked(game) as held:
                        assert held is game and game.lock.locked()
                        raise exc
                assert not game.lock.locked()

            await inside(ServerError("illegal", "a refusal"))
            assert not game.suspect
            await inside(asyncio.CancelledError())
            assert not game.suspect
            await inside(ServerError("internal", "the action could not be stored"))
            assert game.suspect
            async with hub.locked(game):  # read again from the store first
                assert not game.suspect
            await inside(RuntimeError("a lost connection"))
            assert game.suspect
        finally:
            await hub.shutdown()

    asyncio.run(run())


def test_a_copied_generator_draws_the_same_future_on_its_own() -> None:
    rng = Rng(11)
    rng.randrange(100)
    rng._r.gauss(0.0, 1.0)  # leaves a cached second value in the state
    copy = rng.copy()
    assert copy == rng and copy._r is not rng._r
    ahead = [copy.randrange(1000) for _ in range(20)]
    assert copy != rng  # the original did not move with it
    assert [rng.randrange(1000) for _ in range(20)] == ahead
    assert copy._r.gauss(0.0, 1.0) == rng._r.gauss(0.0, 1.0)


def test_shutdown_closes_the_store_only_after_the_players_queries_in_flight(
        tmp_path: Path) -> None:
    """A player query (seat_players) ran on the loop's default threads, which the hub's
    shutdown does not wait for: it closed the SQLite connection under the running query,
    and the process died of a segmentation fault.  Now the query runs on the hub's
    store threads, and the store is closed after them."""
    import threading

    async def run() -> None:
        hub, game = await _running_game(tmp_path)
        store = hub.store
        started, release = threading.Event(), threading.Event()
        order: list[str] = []
        real_seat_players, real_close = store.seat_players, store.close

        def slow_seat_players(game_id: str) -> Any:
            started.set()
            release.wait(5)
            order.append("query done")
            return real_seat_players(game_id)

        def close() -> None:
            order.append("store closed")
            real_close()

        store.seat_players = slow_seat_players  # type: ignore[method-assign]
        store.close = close  # type: ignore[method-assign]
        hub.players.seats.clear()
        query = asyncio.ensure_future(hub.players.seated(game.record.id))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        threading.Timer(0.3, release.set).start()
        await hub.shutdown()
        await asyncio.gather(query, return_exceptions=True)
        assert "query done" in order and order[-1] == "store closed"
        assert order.count("store closed") == 1

    asyncio.run(run())
