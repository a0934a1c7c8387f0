"""The start-up scan for finished games left unrated (``Store.unrated_finished_ids``,
``Hub.rate_missed``) looks at each game until its rating is decided, and no longer: a
game the rating policy leaves out used never to get a ``rated`` event, so every start
replayed it again, forever.  Now the policy's decision is stored as an ``unrated``
event (with the reason) under the same key, so the first start replays such a game and
later ones do not; a game whose rating was lost is rated once.  SQLite and PostgreSQL,
the real hub started as ``elfenland serve`` starts it."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from elfenland.server.compose import make_hub, make_store
from elfenland.server.config import ServerConfig
from elfenland.server.store import RATING_KEY, EventRecord, Store

from .rating_helpers import ANN, CY, count_replays, finished_game, settle


def add_players(store: Store) -> None:
    for p in (ANN, CY):
        store.create_player(p, f"hash-{p.id}")


def start(config: ServerConfig) -> Counter[str]:
    """One start of a server on the database, until its scan is done; its replays."""
    store = make_store(config)
    reads = count_replays(store)
    hub = make_hub(store, config)

    async def run() -> None:
        await hub.startup()
        try:
            await settle(hub)
        finally:
            await hub.shutdown()

    asyncio.run(run())
    return reads


def decisions(config: ServerConfig, gid: str) -> list[EventRecord]:
    store = make_store(ServerConfig(db=config.db))
    try:
        return [e for e in store.events(gid) if e.key == RATING_KEY]
    finally:
        store.close()


def ratings(config: ServerConfig) -> dict[str, int]:
    store = make_store(ServerConfig(db=config.db))
    try:
        return {r.player_id: r.games for r in store.ratings("elfenland")}
    finally:
        store.close()


def test_a_game_left_out_is_replayed_at_the_first_start_only(db_url: str) -> None:
    """Ann holds two seats of one game (rated for neither: one player left, too few),
    and a game of Ann and Cy lost its rating: the first start rates the second once and
    records why the first is not rated; the next start replays neither."""
    config = ServerConfig(db=db_url)
    store = make_store(config)
    try:
        add_players(store)
        finished_game(store, "left", [ANN, ANN, CY], seed=3)
        finished_game(store, "lost", [ANN, CY], seed=4)
        assert sorted(store.unrated_finished_ids()) == ["left", "lost"]
    finally:
        store.close()

    first = start(config)
    assert first["left"] >= 1 and first["lost"] >= 1
    (left,) = decisions(config, "left")
    assert left.kind == "unrated"
    assert left.body == {"reason": "too-few-players",
                         "left_out": [{"seat": 0, "why": "two-seats"},
                                      {"seat": 1, "why": "two-seats"}]}
    (lost,) = decisions(config, "lost")
    assert lost.kind == "rated"
    assert ratings(config) == {"ann": 1, "cy": 1}

    second = start(config)
    assert second["left"] == 0 and second["lost"] == 0, second
    assert len(decisions(config, "left")) == 1 and len(decisions(config, "lost")) == 1
    assert ratings(config) == {"ann": 1, "cy": 1}  # not rated twice


def test_an_unrated_table_is_decided_without_a_replay(db_url: str) -> None:
    """A table whose creator chose the seed is never rated: its decision is stored at
    the first start without replaying it, and no start looks at it again."""
    config = ServerConfig(db=db_url)
    store = make_store(config)
    try:
        add_players(store)
        finished_game(store, "chosen", [ANN, CY], seed=5)
        with store._tx() as cur:
            cur.execute(store._q("UPDATE games SET options = ? WHERE id = ?"),
                        ('{"final_keep": false, "seed_chosen": true}', "chosen"))
    finally:
        store.close()
    assert start(config)["chosen"] == 1  # loaded once (its score), not replayed again
    (chosen,) = decisions(config, "chosen")
    assert (chosen.kind, chosen.body["reason"]) == ("unrated", "unrated-table")
    assert ratings(config) == {}
    assert start(config)["chosen"] == 0


def test_ratings_computed_from_a_stale_reading_are_computed_again(db_url: str) -> None:
    """Two games of Ann and Cy rated at once (two processes of a cluster): each rating
    builds on the one before, so the second is computed again from the first's result,
    never stored over it (a lost update)."""
    config = ServerConfig(db=db_url)
    store = make_store(config)
    try:
        add_players(store)
        finished_game(store, "g1", [ANN, CY], seed=6)
        finished_game(store, "g2", [ANN, CY], seed=7)
    finally:
        store.close()
    store = make_store(config)
    hub = make_hub(store, config)
    real_ratings = store.ratings
    first_reads: list[Any] = []

    def stale(*args: Any) -> Any:
        # The first reading of each game sees no ratings (as if read before the other
        # game's rating was stored): the store must refuse to build on it.
        got = real_ratings(*args)
        if len(first_reads) < 2:
            first_reads.append(got)
            return []
        return got

    store.ratings = stale  # type: ignore[method-assign]

    async def run() -> None:
        try:
            await hub.rate_missed()
        finally:
            await hub.shutdown()

    asyncio.run(run())
    assert ratings(config) == {"ann": 2, "cy": 2}
    assert len(decisions(config, "g1")) == 1 and len(decisions(config, "g2")) == 1

