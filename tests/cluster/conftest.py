"""Fixtures: real server processes over a PostgreSQL schema of their own, with real
HAProxy in front, on loopback ports; every process is stopped (or killed) afterwards."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from elfenland.server.cluster import LocalCluster

PG_ENV = "ELFENLAND_TEST_PG_URL"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"

pytestmark = pytest.mark.cluster


def _need(what: str, ok: bool) -> None:
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing: CI must run the cluster tests")
    pytest.skip(f"{what} is missing, so the cluster tests are not run here")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema for one test."""
    base = os.environ.get(PG_ENV, "")
    _need(PG_ENV, bool(base))
    _need("haproxy", os.path.exists(HAPROXY))
    import psycopg

    schema = f"c_{secrets.token_hex(6)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


ClusterFactory = Callable[..., LocalCluster]


@pytest.fixture
def make_cluster(pg_url: str, tmp_path: Path) -> Iterator[ClusterFactory]:
    """``make_cluster(processes=3, bot_delay=0.0, lease_seconds=3.0)``: started."""
    made: list[LocalCluster] = []

    def make(processes: int = 3, bot_delay: float = 0.0, lease_seconds: float = 3.0,
             drain_seconds: float = 5.0) -> LocalCluster:
        cluster = LocalCluster(
            pg_url, processes, haproxy=HAPROXY, inter_ms=300,
            log_dir=tmp_path / f"cluster{len(made)}",
            serve_args=["--bot-delay", str(bot_delay), "--lease-seconds", str(lease_seconds),
                        "--drain-seconds", str(drain_seconds), "--rate", "1000",
                        "--games-per-host", "1000", "--absent-after", "0",
                        "--log-level", "warning"])
        made.append(cluster)
        return cluster.start()

    yield make
    for cluster in made:
        cluster.close()
