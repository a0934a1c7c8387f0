"""A process that owns busy games dies (SIGKILL), stalls (SIGSTOP) or is told to stop
(SIGTERM) in the middle of play: the clients reconnect through HAProxy, another process
takes the games over from the store, and every game finishes exactly as one
uninterrupted process plays it, with no acknowledged action lost and never two processes
applying actions to one game."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter

import pytest

from elfenland.server.cluster import LocalCluster

from .conftest import ClusterFactory
from .play import Game, Seat, check_games, new_game, owner_of, play, writers

pytestmark = pytest.mark.cluster


def _games(cluster: LocalCluster, n: int = 6) -> list[Game]:
    # King of the Elves games are long (about 700 actions against 210): they keep the
    # process busy while it is killed or stopped.
    return [new_game(cluster.url, "elfenland" if i % 2 == 0 else "king-of-the-elves",
                     300 + i) for i in range(n)]


def _seats(games: list[Game]) -> list[Seat]:
    return [s for g in games for s in g.seats]


async def _until(check: object, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def _busiest(cluster: LocalCluster, games: list[Game]) -> tuple[str, list[Game]]:
    """The process owning the most of the games still running, and those games."""
    owners = {g.id: owner_of(cluster.db, g.id) for g in games
              if not any(s.done for s in g.seats)}
    name, _ = Counter(o for o in owners.values() if o).most_common(1)[0]
    return name, [g for g in games if owners.get(g.id) == name]


def _acked(games: list[Game]) -> dict[str, int]:
    return {g.id: max(s.seq for s in g.seats) for g in games}


def test_sigkill_of_an_owner(make_cluster: ClusterFactory) -> None:
    # A killed process's games are taken at once (its liveness lock is free), whatever
    # the lease; a short lease on a loaded CI machine only let a busy process lose a game
    # before the kill, which this test cannot tell from a routing fault.
    cluster = make_cluster(3, bot_delay=0.02, lease_seconds=10.0)
    games = _games(cluster)

    async def scenario() -> tuple[str, list[Game], dict[str, int]]:
        tasks = [asyncio.create_task(play(cluster.ws_url, s)) for s in _seats(games)]
        await _until(lambda: min(s.seq for s in _seats(games)) >= 30)
        victim, owned = _busiest(cluster, games)
        acked = _acked(games)
        cluster.kill(victim)
        await asyncio.gather(*tasks)
        return victim, owned, acked

    victim, owned, acked = asyncio.run(scenario())
    check_games(cluster.db, games)  # identical finish, no error shown, logs = replay
    assert owned
    for g in owned:
        rows = writers(cluster.db, g.id)
        # Everything acknowledged before the kill was the victim's and is stored.
        assert len(rows) >= acked[g.id]
        assert [w for w, _ in rows[:acked[g.id]]] == [victim] * acked[g.id]
        assert rows[-1][0] != victim, "another process finished the game"
        assert any(s.reconnects for s in g.seats)


def test_sigstop_of_an_owner_never_gives_a_game_two_writers(
        make_cluster: ClusterFactory) -> None:
    cluster = make_cluster(3, bot_delay=0.05, lease_seconds=3.0)
    games = _games(cluster)

    async def scenario() -> tuple[str, list[Game]]:
        tasks = [asyncio.create_task(play(cluster.ws_url, s)) for s in _seats(games)]
        await _until(lambda: min(s.seq for s in _seats(games)) >= 20)
        victim, owned = _busiest(cluster, games)
        acked = _acked(owned)
        cluster.signal(victim, signal.SIGSTOP)
        try:
            # Its games move on elsewhere once its leases have expired.
            await _until(lambda: all(max(s.seq for s in g.seats) >= acked[g.id] + 15
                                     or any(s.done for s in g.seats) for g in owned))
        finally:
            cluster.signal(victim, signal.SIGCONT)
        await asyncio.gather(*tasks)
        return victim, owned

    victim, owned = asyncio.run(scenario())
    check_games(cluster.db, games)  # includes: epochs only grow, one process per epoch
    for g in owned:
        names = [w for w, _ in writers(cluster.db, g.id)]
        assert victim in names and any(n != victim for n in names)
    # The stalled process found out, on waking, that its games had moved.
    deadline = time.monotonic() + 10
    while "lost game" not in cluster.log_text(victim):
        assert time.monotonic() < deadline, cluster.log_text(victim)[-3000:]
        time.sleep(0.1)


def test_sigterm_drains(make_cluster: ClusterFactory) -> None:
    cluster = make_cluster(3, bot_delay=0.02)
    games = _games(cluster)

    async def scenario() -> tuple[str, list[Game], float]:
        tasks = [asyncio.create_task(play(cluster.ws_url, s)) for s in _seats(games)]
        await _until(lambda: min(s.seq for s in _seats(games)) >= 30)
        victim, owned = _busiest(cluster, games)
        cluster.signal(victim, signal.SIGTERM)
        sent = time.monotonic()
        await asyncio.gather(*tasks)
        return victim, owned, sent

    victim, owned, _sent = asyncio.run(scenario())
    proc = cluster.servers[victim]
    proc.wait(15)
    check_games(cluster.db, games)  # nothing lost, no error shown
    for g in owned:
        # Each client of the drained process was told to reconnect, and nothing else.
        assert all(1012 in s.close_codes for s in g.seats if s.reconnects), \
            [s.close_codes for s in g.seats]
        names = [w for w, _ in writers(cluster.db, g.id)]
        assert names[0] == victim and names[-1] != victim
    assert "Traceback" not in cluster.log_text(victim), cluster.log_text(victim)[-3000:]
