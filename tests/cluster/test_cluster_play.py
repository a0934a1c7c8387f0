"""Three server processes behind HAProxy: whole games of both games played by socket
clients through it, each finishing exactly as one process (the engine alone) plays it."""

from __future__ import annotations

import asyncio

import pytest

from .conftest import ClusterFactory
from .play import Game, check_games, new_game, play_all, writers

pytestmark = pytest.mark.cluster


def test_whole_games_through_haproxy(make_cluster: ClusterFactory) -> None:
    # The production lease (10 s): no process stops here, and a short lease on a loaded
    # CI machine is a stall (tested in test_failover.py), not a routing fault.
    cluster = make_cluster(3, lease_seconds=10.0)
    games: list[Game] = []
    for i in range(4):
        games.append(new_game(cluster.url, "elfenland", 100 + i))
        games.append(new_game(cluster.url, "king-of-the-elves", 200 + i))
    asyncio.run(play_all(cluster.ws_url, games))
    check_games(cluster.db, games)
    owners = {w[0] for g in games for w in writers(cluster.db, g.id)}
    assert len(owners) >= 2, f"the games were not spread over processes: {owners}"
    assert all(len({w for w in writers(cluster.db, g.id)}) == 1 for g in games), \
        "a game changed hands although no process stopped"
    # Nobody had to reconnect: every request of a game went to its owner.
    assert all(s.reconnects == 0 for g in games for s in g.seats)
