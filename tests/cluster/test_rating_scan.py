"""A cluster's processes decide the ratings finished games were left without, as one
process does at its start (``Hub.rate_missed``): two processes starting together over
one store claim each game's lease before they replay it, so each game is replayed and
decided by one of them, every rating is applied once, and ratings of one player built
by both processes at once are never stored over each other.  A later start looks at
none of them.  Two processes' hubs in one test process (as ``test_directory.py``), each
with its own store, session and leases, started as ``elfenland serve --cluster``
starts them."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from tests.server.rating_helpers import ANN, CY, count_replays, finished_game, settle

from elfenland.server.compose import make_hub, make_store
from elfenland.server.config import ClusterSettings, ServerConfig
from elfenland.server.hub import Hub
from elfenland.server.store import RATING_KEY, open_store

pytestmark = pytest.mark.cluster

LOST = [f"lost{i}" for i in range(4)]
LEFT = ["left0", "left1"]


def _processes(pg_url: str, *names: str) -> list[tuple[Hub, Counter[str]]]:
    out = []
    for name in names:
        config = ServerConfig(db=pg_url, cluster=ClusterSettings(name=name, lease_seconds=3))
        store = make_store(config)
        reads = count_replays(store)
        out.append((make_hub(store, config), reads))
    return out


def _start(processes: list[tuple[Hub, Counter[str]]]) -> None:
    async def run() -> None:
        hubs = [hub for hub, _ in processes]
        await asyncio.gather(*(hub.startup() for hub in hubs))
        try:
            await asyncio.gather(*(settle(hub) for hub in hubs))
        finally:
            for hub in hubs:
                await hub.shutdown()

    asyncio.run(run())


def test_processes_starting_together_decide_each_game_once(pg_url: str) -> None:
    store = open_store(pg_url)
    try:
        for p in (ANN, CY):
            store.create_player(p, f"hash-{p.id}")
        for i, gid in enumerate(LOST):
            finished_game(store, gid, [ANN, CY], seed=10 + i)
        for i, gid in enumerate(LEFT):
            finished_game(store, gid, [ANN, ANN, CY], seed=20 + i)
    finally:
        store.close()

    first = _processes(pg_url, "a", "b")
    _start(first)
    store = open_store(pg_url)
    try:
        for gid in LOST + LEFT:
            decided = [e.kind for e in store.events(gid) if e.key == RATING_KEY]
            assert decided == (["rated"] if gid in LOST else ["unrated"]), (gid, decided)
            # Replayed by one process only (its load and its replay read the actions).
            assert [reads[gid] for _, reads in first].count(0) == 1, (gid, first)
        # Four games each, every one applied once, none lost to a concurrent update.
        assert {r.player_id: r.games for r in store.ratings("elfenland")} == {
            "ann": 4, "cy": 4}
        assert store.unrated_finished_ids() == []
    finally:
        store.close()

    again = _processes(pg_url, "c")
    _start(again)
    assert sum(again[0][1].values()) == 0
