"""The hub's database threads keep their PostgreSQL connection between calls (issue #21,
the play path's cost): one borrow per thread, not one per call; a connection that
breaks goes back to the pool and the next call gets a new one; closing the store
closes the connections threads still hold."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from elfenland.server.errors import StoreUnavailable
from elfenland.server.store import PostgresStore

pytestmark = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)


@pytest.fixture
def store(db_url: str) -> Iterator[PostgresStore]:
    s = PostgresStore(db_url)
    try:
        yield s
    finally:
        s.close()


def _pid(store: PostgresStore) -> int:
    with store._connection() as conn:
        return int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])


def _requests(store: PostgresStore) -> int:
    return int(store._pool.get_stats().get("requests_num", 0))


def _alive(db_url: str, pid: int) -> bool:
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                           (pid,)).fetchone()
        return bool(row and row[0])


def test_a_pinned_thread_borrows_once(store: PostgresStore) -> None:
    with ThreadPoolExecutor(1, initializer=store.pin_thread) as pinned, \
            ThreadPoolExecutor(1) as plain:
        first = pinned.submit(_pid, store).result()
        before = _requests(store)
        pids = {pinned.submit(_pid, store).result() for _ in range(30)}
        assert pids == {first}
        assert _requests(store) == before  # no borrow at all after the first
        for _ in range(30):
            plain.submit(store.ping).result()
        assert _requests(store) == before + 30  # an ordinary thread borrows per call


def test_a_broken_pinned_connection_is_replaced(store: PostgresStore, db_url: str) -> None:
    import psycopg

    with ThreadPoolExecutor(1, initializer=store.pin_thread) as pinned:
        old = pinned.submit(_pid, store).result()
        with psycopg.connect(db_url, autocommit=True) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (old,)).fetchone()[0]
        # The call that meets the dead connection is refused as the store being away...
        with pytest.raises(StoreUnavailable):
            pinned.submit(store.ping).result()
        # ...and the next one has a new connection: no restart, no stuck thread.
        new = pinned.submit(_pid, store).result()
        assert new != old
        assert pinned.submit(_pid, store).result() == new


def test_one_outage_costs_one_refused_call_not_one_per_thread(
        store: PostgresStore, db_url: str) -> None:
    import psycopg

    a = ThreadPoolExecutor(1, initializer=store.pin_thread)
    b = ThreadPoolExecutor(1, initializer=store.pin_thread)
    try:
        pids = [a.submit(_pid, store).result(), b.submit(_pid, store).result()]
        with psycopg.connect(db_url, autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreUnavailable):
            a.submit(store.ping).result()
        # The outage thread a met tells b to give back the connection it held since
        # before it: b's next call works at once (as unpinned threads' calls do after
        # the pool's check), instead of failing a second action.
        b.submit(store.ping).result()
        assert b.submit(_pid, store).result() not in pids
    finally:
        a.shutdown()
        b.shutdown()


def test_a_transaction_left_open_gives_the_connection_back(store: PostgresStore) -> None:
    from psycopg.pq import TransactionStatus

    def leave_open() -> None:
        with store._connection() as conn:
            conn.execute("BEGIN")

    def status() -> Any:
        with store._connection() as conn:
            return conn.info.transaction_status

    with ThreadPoolExecutor(1, initializer=store.pin_thread) as pinned:
        pinned.submit(leave_open).result()
        before = _requests(store)
        # The connection left inside a transaction went back to the pool (which rolls
        # it back); the thread's next call borrows afresh and starts idle.
        assert pinned.submit(status).result() == TransactionStatus.IDLE
        assert _requests(store) == before + 1


def test_closing_the_store_closes_pinned_connections(db_url: str) -> None:
    store = PostgresStore(db_url)
    pool = ThreadPoolExecutor(2, initializer=store.pin_thread)
    try:
        pids = {pool.submit(_pid, store).result() for _ in range(4)}
        assert all(_alive(db_url, pid) for pid in pids)
        store.close()
        assert not any(_alive(db_url, pid) for pid in pids)
    finally:
        pool.shutdown()
        store.close()
