"""The play path's append on the event loop (``PostgresStore.append_on_loop``): the same
statement as ``append_action`` with the same answers (stored with the fence, a stale
epoch ``LeaseLost``, a stale seq ``StoreConflict``, a lost session ``StoreUnavailable``
and then, by itself, working again), and a hub on PostgreSQL stores a player's action
without handing it to a database thread."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from elfenland.server.config import ClusterSettings, ServerConfig
from elfenland.server.errors import StoreConflict, StoreUnavailable
from elfenland.server.hub import Hub
from elfenland.server.lobby import CreateGame
from elfenland.server.ownership import LeaseLost, Leases, open_shared_store
from elfenland.server.store import GameRecord, PostgresStore, SeatRecord

from .play import writers

pytestmark = pytest.mark.cluster

SEATS = (SeatRecord(0, "bot", None, "random"), SeatRecord(1, "bot", None, "random"))


def _game(store: PostgresStore) -> None:
    store.create_game(GameRecord("g1", "elfenland", 2, None, {}, 7, "running", 0,
                                 "2026-01-01T00:00:00Z", "h", SEATS))


def _stored(db: str) -> list[tuple[int, str]]:
    with psycopg.connect(db) as conn:
        return [(int(s), str(a)) for s, a in conn.execute(
            "SELECT seq, action FROM actions WHERE game_id = 'g1' ORDER BY seq").fetchall()]


def test_the_loop_append_answers_as_the_thread_append(pg_url: str) -> None:
    store = open_shared_store(pg_url, ClusterSettings(name="a"))
    leases = Leases(store, ClusterSettings(name="a"))
    try:
        _game(store)
        epoch = leases.claim("g1")
        assert epoch == 1

        async def run() -> None:
            await store.open_on_loop()
            assert store.on_loop
            try:
                await store.append_on_loop("g1", 1, 0, "x", False, '{"c": 1}',
                                           leases.fence("g1"))
                with pytest.raises(StoreConflict) as raised:  # a stale seq
                    await store.append_on_loop("g1", 1, 1, "y", False, None,
                                               leases.fence("g1"))
                assert not isinstance(raised.value, LeaseLost)
                # Taken over meanwhile: this process's epoch is stale, nothing is stored.
                with psycopg.connect(pg_url, autocommit=True) as conn:
                    conn.execute("UPDATE leases SET epoch = epoch + 1 WHERE game_id = 'g1'")
                with pytest.raises(LeaseLost):
                    await store.append_on_loop("g1", 2, 1, "y", False, '{"c": 2}',
                                               leases.fence("g1"))
            finally:
                await store.close_on_loop()
            assert not store.on_loop
            with pytest.raises(StoreUnavailable):  # closed: refused, not hung
                await store.append_on_loop("g1", 2, 1, "y")

        asyncio.run(run())
        assert _stored(pg_url) == [(1, "x")]
        assert writers(pg_url, "g1") == [("a", 1)]
        assert store.load_clock("g1") == '{"c": 1}'
        assert store.load_game("g1").seq == 1  # type: ignore[union-attr]
    finally:
        leases.close()
        store.close()


def test_the_loop_append_reports_a_lost_session_then_works_again(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        _game(store)

        async def run() -> float:
            await store.open_on_loop()
            try:
                await store.append_on_loop("g1", 1, 0, "x")
                with psycopg.connect(pg_url, autocommit=True) as conn:
                    conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                 "WHERE datname = current_database() "
                                 "AND pid <> pg_backend_pid() "
                                 "AND application_name = ''")
                failed = 0
                started = time.monotonic()
                while True:
                    try:
                        await store.append_on_loop("g1", 2, 1, "y")
                        break
                    except StoreUnavailable:
                        failed += 1
                        assert time.monotonic() - started < 10, "the append never came back"
                        await asyncio.sleep(0.05)
                assert failed >= 1  # the terminated session was reported, not hidden
                return time.monotonic() - started
            finally:
                await store.close_on_loop()

        asyncio.run(run())
        assert _stored(pg_url) == [(1, "x"), (2, "y")]
    finally:
        store.close()


def test_a_hub_on_postgresql_appends_an_action_without_a_database_thread(
        pg_url: str, tmp_path: Path) -> None:
    async def run() -> None:
        hub = Hub(PostgresStore(pg_url), ServerConfig(db=pg_url, bot_delay=3600.0))
        await hub.startup()
        try:
            req = CreateGame(players=2, seed=5, seats=[  # type: ignore[list-item]
                {"kind": "human"}, {"kind": "bot", "level": "random"}])
            made, _, token = await hub.create(req, "host")
            game = await hub.start(made.id, token, None)
            handed: list[Any] = []
            submit = hub._db_pool.submit

            def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
                handed.append(fn)
                return submit(fn, *args, **kwargs)

            hub._db_pool.submit = counted  # type: ignore[method-assign]
            seat = game.state.current_player()
            text = str(game.state.legal_actions()[0])
            async with hub.locked(game):
                await game.play(hub, seat, text)
            hub._db_pool.submit = submit  # type: ignore[method-assign]
            # (A human's turn starting looks up the seat's webhook on a thread, after.)
            names = [getattr(getattr(f, "func", f), "__name__", "") for f in handed]
            assert "append_action" not in names
            assert game.seq == 1
            assert await hub.db(hub.store.actions, game.id) == [str(game.state.history[0])]
        finally:
            await hub.shutdown()

    asyncio.run(run())
