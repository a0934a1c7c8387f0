"""The server survives its database (issue 21): PostgreSQL restarted, or the server's
sessions terminated, in the middle of play.  Real processes on a PostgreSQL instance of
the test's own (never the shared one), real sockets, real HAProxy for the cluster.

Each game is played by two reconnecting socket clients and two server bots; the games
must finish exactly as the engine alone plays them (so nothing a client was told was
lost, and no game took two continuations), with no error but the retryable
``unavailable`` seen while the store was away."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from elfenland.server.cluster import LocalCluster, free_port, wait_http

from .conftest import HAPROXY, _need
from .play import Game, check_games, new_game, play
from .private_pg import PrivatePostgres, available

pytestmark = pytest.mark.cluster
#: Bots wait a little, so the games are still running when the faults come.
BOT_DELAY = "0.03"


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    _need("PostgreSQL 15 binaries (initdb, pg_ctl)", available())
    pg = PrivatePostgres().start()
    yield pg
    pg.close()


def _healthy_after(url: str, since: float, limit: float = 20.0) -> float:
    """Seconds from ``since`` until ``url``/healthz answers 200."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=3).status_code == 200:
                return time.monotonic() - since
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{url} did not answer /healthz within {limit} s")


def _store_down(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=5).status_code == 503
    except httpx.TransportError:
        return False


async def _play_through(ws_url: str, games: list[Game], faults: object) -> None:
    players = asyncio.gather(*(play(ws_url, s, deadline=120) for g in games for s in g.seats))
    await asyncio.to_thread(faults)  # type: ignore[arg-type]
    await players


def test_one_process_survives_terminated_sessions_and_a_restart(
        private_pg: PrivatePostgres, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp_path / "serve.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port),
             "--db", private_pg.url, "--bot-delay", BOT_DELAY, "--rate", "1000",
             "--games-per-host", "1000", "--log-level", "warning"],
            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_http(f"{url}/healthz", proc=proc)
        games = [new_game(url, "elfenland" if i % 2 else "kingelves", 500 + i)
                 for i in range(4)]
        recovered: list[float] = []

        def faults() -> None:
            time.sleep(1.0)
            assert private_pg.terminate_backends() > 0
            recovered.append(_healthy_after(url, time.monotonic()))
            time.sleep(1.0)
            private_pg.stop()
            time.sleep(0.5)
            assert _store_down(url)  # reported down while it is
            private_pg.begin()
            recovered.append(_healthy_after(url, time.monotonic()))

        asyncio.run(_play_through(f"ws://127.0.0.1:{port}", games, faults))
        assert proc.poll() is None  # never restarted
    finally:
        proc.terminate()
        proc.wait(20)
    assert all(r < 5.0 for r in recovered), recovered
    # The faults came while the games were being played.
    with psycopg.connect(private_pg.url) as conn:
        counts = [int(conn.execute("SELECT count(*) FROM actions WHERE game_id = %s",
                                   (g.id,)).fetchone()[0]) for g in games]  # type: ignore[index]
    assert all(c > 40 for c in counts), counts
    check_games(private_pg.url, games, allowed=("unavailable",), cluster=False)
    assert (tmp_path / "serve.log").read_text().count("the store is back") >= 1


def test_cluster_survives_terminated_sessions_and_a_restart(private_pg: PrivatePostgres,
                                             tmp_path: Path) -> None:
    _need("haproxy", Path(HAPROXY).exists())
    cluster = LocalCluster(
        private_pg.url, 3, haproxy=HAPROXY, inter_ms=300, log_dir=tmp_path / "cluster",
        serve_args=["--bot-delay", BOT_DELAY, "--lease-seconds", "3", "--rate", "1000",
                    "--games-per-host", "1000", "--absent-after", "0",
                    "--log-level", "warning"])
    cluster.start()
    try:
        games = [new_game(cluster.url, "elfenland" if i % 2 else "kingelves", 900 + i)
                 for i in range(12)]

        def faults() -> None:
            time.sleep(2.0)
            assert private_pg.terminate_backends() > 0  # every session, liveness locks too
            for name in cluster.names:
                _healthy_after(cluster.server_url(name), time.monotonic())
            time.sleep(1.0)
            private_pg.restart()
            for name in cluster.names:
                _healthy_after(cluster.server_url(name), time.monotonic())

        asyncio.run(_play_through(cluster.ws_url, games, faults))
        assert all(p.poll() is None for p in cluster.servers.values())
        logs = {name: cluster.log_text(name) for name in cluster.names}
    finally:
        cluster.close()
    check_games(private_pg.url, games, allowed=("unavailable",))
    with psycopg.connect(private_pg.url) as conn:
        epochs: dict[str, int] = dict(
            conn.execute("SELECT game_id, epoch FROM leases").fetchall())
    # No ping-pong: a game changes hands a few times at most, not in a loop: its first
    # claim, then for each of the two faults (every session terminated, the restart) a
    # takeover and a hand-back, and under load one more move each while a process's
    # liveness lock comes back (CI runs under load saw 5 and 6; a loop with these 3 s
    # leases would pass this many within the faults alone).
    assert max(epochs.values(), default=1) <= 7, epochs
    assert all(text.count("lost game") <= 12 for text in logs.values()), logs


def test_an_outage_logs_each_reconnect_failure_once_a_minute(
        private_pg: PrivatePostgres, tmp_path: Path) -> None:
    """psycopg's pool logged every failed reconnect, some six lines a second while
    PostgreSQL was away; now the first of each kind, and the count held at the next."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp_path / "serve.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port),
             "--db", private_pg.url, "--log-level", "warning"],
            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_http(f"{url}/healthz", proc=proc)
        private_pg.terminate_backends()
        private_pg.stop()
        away = time.monotonic()
        while time.monotonic() - away < 6.0:
            assert _store_down(url)
            time.sleep(0.5)
        private_pg.begin()
        _healthy_after(url, time.monotonic())
    finally:
        proc.terminate()
        proc.wait(20)
    text = (tmp_path / "serve.log").read_text()
    failures = text.count("error connecting in 'elfenland-store'")
    assert 1 <= failures <= 2, (failures, text[-2000:])
    assert text.count("reconnection attempt in pool 'elfenland-store' failed") <= 2


def test_the_serving_lock_is_taken_again_after_a_restart(
        private_pg: PrivatePostgres, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone server's hold on its database is a session's advisory lock, which a
    restart of PostgreSQL ends: it is taken again once PostgreSQL is back, so a second
    server started afterwards is still refused."""
    from elfenland.server.errors import StoreInUse
    from elfenland.server.serving_lock import ServingLock
    from elfenland.server.store import open_store

    monkeypatch.setattr(ServingLock, "recheck", 0.2)
    serving = open_store(private_pg.url, serving=True)
    try:
        private_pg.stop()
        time.sleep(0.5)
        private_pg.begin()
        deadline = time.monotonic() + 20
        while True:
            try:
                other = open_store(private_pg.url, serving=True)
            except StoreInUse:
                break  # held again
            except Exception:
                pass  # PostgreSQL not yet answering
            else:
                other.close()
                assert time.monotonic() < deadline, "the lock was never taken again"
            time.sleep(0.2)
    finally:
        serving.close()
