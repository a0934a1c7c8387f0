"""Behind the project's HAProxy a client cannot choose the address it is counted and
logged as (issue 23): HAProxy sets ``X-Forwarded-For`` to the connection's source
itself, and the servers believe the header from the proxy only."""

from __future__ import annotations

from pathlib import Path

import pytest

from elfenland.server.cluster import LocalCluster

from .conftest import HAPROXY
from .play import HTTP

pytestmark = pytest.mark.cluster


def test_a_made_up_forwarded_for_is_replaced(pg_url: str, tmp_path: Path) -> None:
    cluster = LocalCluster(pg_url, 1, haproxy=HAPROXY, inter_ms=300, log_dir=tmp_path,
                           serve_args=["--games-per-host", "1", "--log-level", "warning"])
    cluster.start()
    try:
        first = HTTP.post(f"{cluster.url}/api/games", json={"players": 2},
                          headers={"X-Forwarded-For": "203.0.113.9"})
        assert first.status_code == 201
        # Another made-up address gets the client nothing: it is the same client.
        again = HTTP.post(f"{cluster.url}/api/games", json={"players": 2},
                          headers={"X-Forwarded-For": "198.51.100.7"})
        assert again.status_code == 429, again.text
        assert "127.0.0.1 has 1 unfinished games" in again.json()["message"]
    finally:
        cluster.close()
