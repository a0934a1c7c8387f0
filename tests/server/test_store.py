"""The store on both backends: rows round-trip, one action per (game, seq), and a
write that lost a race is refused."""

from __future__ import annotations

import pytest

from elfenland.server.errors import StoreConflict
from elfenland.server.store import (
    GameRecord,
    SeatRecord,
    SqliteStore,
    open_store,
    redact,
)
from elfenland.server.tokens import hash_token, new_token, token_matches


def _record(gid: str, host: str = "10.0.0.1", status: str = "open") -> GameRecord:
    seats = (SeatRecord(0, "human", "Ann", None, hash_token("t0")),
             SeatRecord(1, "bot", None, "random"), SeatRecord(2, "open"))
    return GameRecord(gid, "elfenland", 3, "moon", {"destination": True}, 2**62 + 5,
                      status, 0, f"2026-01-01T00:00:0{len(gid) % 10}Z", host, seats)  # type: ignore[arg-type]


def test_round_trip_and_unique_seq(db_url: str) -> None:
    store = open_store(db_url)
    try:
        store.create_game(_record("g1"))
        store.create_game(_record("g22", host="10.0.0.2"))
        assert store.load_game("g1") == _record("g1")
        assert store.load_game("nope") is None
        store.append_action("g1", 1, 0, "draw secret")
        store.append_action("g1", 2, 1, "draw blind")
        with pytest.raises(StoreConflict):
            store.append_action("g1", 2, 1, "draw dragon")
        with pytest.raises(StoreConflict):
            store.append_action("g1", 4, 1, "draw dragon")  # a gap: the game is at 2
        assert store.actions("g1") == ["draw secret", "draw blind"]
        loaded = store.load_game("g1")
        assert loaded is not None and loaded.seq == 2 and loaded.status == "running"
        store.append_action("g1", 3, 2, "pass", finished=True)
        assert [g.id for g in store.list_games("finished")] == ["g1"]
        assert [g.id for g in store.list_games("open")] == ["g22"]
        assert store.unfinished_ids() == ["g22"]
        assert store.count_unfinished("10.0.0.2") == 1
        assert store.count_unfinished("10.0.0.1") == 0
        seats = (SeatRecord(0, "human", "Ann", None, "h"), SeatRecord(1, "human", "Bo", None,
                                                                      "h2"),
                 SeatRecord(2, "bot", None, "greedy"))
        store.save_seats("g22", seats, "running")
        again = store.load_game("g22")
        assert again is not None and again.seats == seats and again.status == "running"
    finally:
        store.close()


def test_urls_and_tokens(tmp_path: object) -> None:
    store = open_store(f"sqlite:///{tmp_path}/a.db")
    assert isinstance(store, SqliteStore) and store.synchronous == "normal"
    store.close()
    store = open_store(f"sqlite:///{tmp_path}/a.db?synchronous=full")
    assert isinstance(store, SqliteStore) and store.synchronous == "full"
    assert store.count_unfinished("nobody") == 0
    store.close()
    with pytest.raises(ValueError):
        open_store(f"{tmp_path}/a.db?synchronous=sometimes")
    with pytest.raises(ValueError):
        open_store("mysql://x")
    assert redact("postgresql://elf:secret@host/db") == "postgresql://elf:***@host/db"
    token = new_token()
    assert len(token) >= 40 and token != new_token()
    assert token_matches(token, hash_token(token))
    assert not token_matches(token + "x", hash_token(token))
    assert not token_matches(None, hash_token(token))
    assert not token_matches(token, None)
