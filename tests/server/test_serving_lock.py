"""One lone server, or one cluster, per PostgreSQL database (``serving_lock.py``): two
``elfenland serve`` on one database each kept their own copy of the games in memory and
showed their players two different games, as two servers on one SQLite file did."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from elfenland.server.errors import StoreInUse
from elfenland.server.store import PostgresStore, open_store

from .conftest import pg_schema
from .test_operator_faults import _serve, _up


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    with pg_schema() as url:
        yield url


@pytest.mark.postgres
def test_lone_servers_and_clusters_exclude_each_other(pg_schema_url: str) -> None:
    url = pg_schema_url
    lone = open_store(url, serving=True)
    try:
        with pytest.raises(StoreInUse, match="another server serves from this PostgreSQL"):
            open_store(url, serving=True)
        with pytest.raises(StoreInUse, match="a server without --cluster serves"):
            PostgresStore(url, serving="shared")
        reader = open_store(url)  # scripts, backups and tests take no lock
        assert reader.unfinished_ids() == []
        reader.close()
    finally:
        lone.close()
    first = PostgresStore(url, serving="shared")
    second = PostgresStore(url, serving="shared")  # a cluster's processes share it
    try:
        with pytest.raises(StoreInUse, match="another server serves"):
            open_store(url, serving=True)
    finally:
        first.close()
        second.close()
    again = open_store(url, serving=True)  # let go on close
    again.close()


@pytest.mark.postgres
def test_schemas_of_one_database_do_not_exclude_each_other() -> None:
    with pg_schema() as one, pg_schema() as other:
        stores = [open_store(one, serving=True), open_store(other, serving=True)]
        for store in stores:
            store.close()


@pytest.mark.postgres
def test_a_second_serve_on_one_postgresql_database_is_one_line_and_exit_2(
        pg_schema_url: str, tmp_path: Path) -> None:
    first, url = _serve(pg_schema_url, tmp_path / "first.log")
    try:
        _up(first, url)
        second = subprocess.run(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", "0",
             "--db", pg_schema_url], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert "elfenland serve: another server serves from this PostgreSQL database" \
            in second.stderr
        assert "elf:***@" in second.stderr  # the password is not shown
        assert "Traceback" not in second.stderr
        assert "open http" not in second.stdout
    finally:
        first.terminate()
        first.wait(30)
