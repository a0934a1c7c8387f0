"""Fixtures: a database per test (a SQLite file, or a PostgreSQL schema of its own) and
the real server on a loopback port."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from elfenland.server.background import BackgroundServer
from elfenland.server.config import Guard, Limits, ServerConfig

PG_ENV = "ELFENLAND_TEST_PG_URL"


def _pg_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{PG_ENV} is not set: CI must test the PostgreSQL store")
        pytest.skip(f"{PG_ENV} is not set, so the PostgreSQL variant is not run here")
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database URL for one test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.sqlite3'}"
        return
    with pg_schema() as url:
        yield url


@contextlib.contextmanager
def pg_schema() -> Iterator[str]:
    """The URL of a new PostgreSQL schema in the test database, dropped afterwards."""
    import psycopg

    base = _pg_url()
    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


ServerFactory = Callable[..., BackgroundServer]


@pytest.fixture
def make_server(db_url: str) -> Iterator[ServerFactory]:
    """Start servers on the test's database: ``make_server(bot_delay=0, limits=...)``."""
    started: list[BackgroundServer] = []

    def make(bot_delay: float = 0.0, limits: Limits | None = None,
             guard: Guard | None = None, public_url: str = "") -> BackgroundServer:
        config = ServerConfig(db=db_url, bot_delay=bot_delay, bot_time_limit=20.0,
                              limits=limits or Limits(absent_after=0.0, games_per_host=1000,
                                                      messages_per_second=1000, burst=1000),
                              guard=guard or Guard(), public_url=public_url)
        server = BackgroundServer(config).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def server(make_server: ServerFactory) -> BackgroundServer:
    return make_server()
