"""The fence inside the one-statement append (``PostgresStore.append_action`` given the
``Fence`` of ``Leases.fence``): an action is stored only by the lease's holder at its
epoch, all of it or nothing, and an append racing a takeover loses cleanly."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

from elfenland.server.config import ClusterSettings
from elfenland.server.errors import StoreConflict
from elfenland.server.ownership import LeaseLost, Leases, open_shared_store
from elfenland.server.store import GameRecord, PostgresStore, SeatRecord

from .play import writers

pytestmark = pytest.mark.cluster


@dataclass
class Process:
    """One process's store and leases, as ``compose.make_hub`` composes them."""

    store: PostgresStore
    leases: Leases

    def append_action(self, game_id: str, seq: int, player: int, action: str,
                      clock: str | None = None) -> None:
        """Store with the process's fence, as the hub does (``LeaseLost`` before any SQL
        for a game it never claimed)."""
        self.store.append_action(game_id, seq, player, action, clock=clock,
                                 fence=self.leases.fence(game_id))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.leases, name)

    def close(self) -> None:
        self.leases.close()
        self.store.close()


def _process(pg_url: str, name: str) -> Process:
    settings = ClusterSettings(name=name)
    store = open_shared_store(pg_url, settings)
    return Process(store, Leases(store, settings))


@pytest.fixture
def stores(pg_url: str) -> Iterator[tuple[Process, Process]]:
    a = _process(pg_url, "a")
    b = _process(pg_url, "b")
    seats = (SeatRecord(0, "bot", None, "random"), SeatRecord(1, "bot", None, "random"))
    a.store.create_game(GameRecord("g1", "elfenland", 2, None, {}, 7, "running", 0,
                                   "2026-01-01T00:00:00Z", "h", seats))
    yield a, b
    a.close()
    b.close()


def _stored(db: str) -> tuple[list[int], int]:
    """The action rows' seqs and the games row's seq."""
    with psycopg.connect(db) as conn:
        seqs = [int(r[0]) for r in conn.execute(
            "SELECT seq FROM actions WHERE game_id = 'g1' ORDER BY seq").fetchall()]
        row = conn.execute("SELECT seq FROM games WHERE id = 'g1'").fetchone()
    assert row is not None
    return seqs, int(row[0])


def test_only_the_holder_at_its_epoch_stores(stores: tuple[Process, Process],
                                             pg_url: str) -> None:
    a, b = stores
    with pytest.raises(LeaseLost):  # never claimed: refused before any SQL
        a.append_action("g1", 1, 0, "x")
    assert a.claim("g1") == 1
    a.append_action("g1", 1, 0, "x")
    assert b.claim("g1") is None  # a is alive and its lease runs
    assert a.hand_over("g1", b.owner, b.owner_key)
    epoch = b.claim("g1")
    assert epoch is not None and epoch > 1
    # a stalled through all that and still believes it holds epoch 1.
    a.epochs["g1"] = 1
    with pytest.raises(LeaseLost):
        a.append_action("g1", 2, 1, "y", clock='{"c": 1}')
    assert _stored(pg_url) == ([1], 1)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM clocks").fetchone() == (0,)
    b.append_action("g1", 2, 1, "y", clock='{"c": 1}')
    # A stale seq is a conflict, not a lost lease, and stores nothing either.
    for seq in (2, 4):
        with pytest.raises(StoreConflict) as raised:
            b.append_action("g1", seq, 0, "z")
        assert not isinstance(raised.value, LeaseLost)
    assert _stored(pg_url) == ([1, 2], 2)
    assert writers(pg_url, "g1") == [("a", 1), ("b", epoch)]
    assert b.store.load_clock("g1") == '{"c": 1}'


@pytest.mark.parametrize("takeover", [True, False])
def test_an_append_waits_for_a_claim_in_progress_and_obeys_it(
        stores: tuple[Process, Process], pg_url: str, takeover: bool) -> None:
    """A claim holds the lease row's update lock while it raises the epoch: an append
    started meanwhile waits, then stores nothing if the claim went through (it re-reads
    the row and finds the new epoch), or its action if the claim was abandoned."""
    a, _ = stores
    assert a.claim("g1") == 1
    outcome: list[BaseException | None] = []

    def append() -> None:
        try:
            a.append_action("g1", 1, 0, "x")
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    with psycopg.connect(pg_url) as claimer:
        claimer.execute("SELECT 1 FROM leases WHERE game_id = 'g1' FOR UPDATE")
        thread = threading.Thread(target=append)
        thread.start()
        time.sleep(0.5)
        assert thread.is_alive() and not outcome  # waiting on the lease row
        if takeover:
            claimer.execute("UPDATE leases SET owner = 'c/1', epoch = epoch + 1 "
                            "WHERE game_id = 'g1'")
            claimer.commit()
        else:
            claimer.rollback()
        thread.join(60)  # a hang guard: it ends at once
    assert len(outcome) == 1
    if takeover:
        assert isinstance(outcome[0], LeaseLost) and outcome[0].game_id == "g1"
        assert _stored(pg_url) == ([], 0)
        assert writers(pg_url, "g1") == []
    else:
        assert outcome[0] is None
        assert _stored(pg_url) == ([1], 1)
        assert writers(pg_url, "g1") == [("a", 1)]


def test_handovers_and_chat_trimming_are_fenced_too(stores: tuple[Process, Process],
                                                    pg_url: str) -> None:
    """Issue 23's writes of a game (a seat handed to a bot or back, for the ratings; the
    oldest chat lines dropped over the cap) obey the fence as every other write does: a
    process that lost the game stores neither."""
    from elfenland.server.store import EventRecord

    a, b = stores
    assert a.claim("g1") == 1
    chat = a.store.add_event("g1", EventRecord("chat", 0, 0, {"text": "hi"}, "t"),
                             fence=a.leases.fence("g1"))
    assert chat is not None
    a.store.add_handover("g1", 0, 0, True, fence=a.leases.fence("g1"))
    assert a.hand_over("g1", b.owner, b.owner_key)
    assert b.claim("g1") is not None
    a.epochs["g1"] = 1  # a stalled and still believes it holds epoch 1
    with pytest.raises(LeaseLost):
        a.store.add_handover("g1", 0, 1, False, fence=a.leases.fence("g1"))
    with pytest.raises(LeaseLost):
        a.store.drop_events("g1", [chat.n], fence=a.leases.fence("g1"))
    assert a.store.handovers("g1") == [(0, 0, True)]
    assert [e.n for e in a.store.events("g1")] == [chat.n]
    b.store.drop_events("g1", [chat.n], fence=b.leases.fence("g1"))
    b.store.add_handover("g1", 0, 1, False, fence=b.leases.fence("g1"))
    assert a.store.events("g1") == []
    assert b.store.handovers("g1") == [(0, 0, True), (0, 1, False)]
