"""The store on both backends: rows round-trip, one action per (game, seq), and a
write that lost a race is refused."""

from __future__ import annotations

import pytest

from elfenland.server.errors import StoreConflict
from elfenland.server.store import (
    EventRecord,
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


OLD_SCHEMA = (  # the store's tables before clocks and events were added
    """CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,
        rules TEXT, options TEXT NOT NULL, seed BIGINT NOT NULL, status TEXT NOT NULL,
        seq INTEGER NOT NULL, created TEXT NOT NULL, host TEXT NOT NULL)""",
    """CREATE TABLE seats (game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
        kind TEXT NOT NULL, name TEXT, level TEXT, token_hash TEXT,
        PRIMARY KEY (game_id, seat))""",
    """CREATE TABLE actions (game_id TEXT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL, player INTEGER NOT NULL, action TEXT NOT NULL,
        PRIMARY KEY (game_id, seq))""",
    "INSERT INTO games VALUES ('old1', 'elfenland', 2, 'amigo', '{}', 3, 'running', 1, "
    "'2026-01-01T00:00:00Z', 'h')",
    "INSERT INTO seats VALUES ('old1', 0, 'human', 'Ann', NULL, 'x')",
    "INSERT INTO seats VALUES ('old1', 1, 'bot', NULL, 'random', NULL)",
    "INSERT INTO actions VALUES ('old1', 1, 0, 'draw secret')",
)


def test_a_database_from_before_clocks_and_events_opens(db_url: str) -> None:
    if db_url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(db_url, autocommit=True) as conn:
            for statement in OLD_SCHEMA:
                conn.execute(statement)
    else:
        import sqlite3

        conn = sqlite3.connect(db_url.removeprefix("sqlite:///"))
        for statement in OLD_SCHEMA:
            conn.execute(statement)
        conn.commit()
        conn.close()
    store = open_store(db_url)
    try:
        game = store.load_game("old1")
        assert game is not None and game.seq == 1 and game.seats[0].name == "Ann"
        assert store.actions("old1") == ["draw secret"]
        assert store.load_clock("old1") is None and store.events("old1") == []
        store.append_action("old1", 2, 1, "draw blind", clock='{"x": 1}')
        assert store.load_clock("old1") == '{"x": 1}'
    finally:
        store.close()


def test_an_event_with_a_key_is_stored_once(db_url: str) -> None:
    store = open_store(db_url)
    try:
        store.create_game(_record("g1"), clock='{"c": 0}')
        first = EventRecord("timeout", 0, 3, {"timeouts": 1}, "2026-01-01T00:00:00Z",
                            key="timeout:3")
        stored = store.add_event("g1", first, clock='{"c": 1}')
        assert stored is not None and stored.n == 1
        seats = (SeatRecord(0, "bot", "Ann", "greedy", "h"), SeatRecord(1, "open"),
                 SeatRecord(2, "open"))
        assert store.add_event("g1", first, clock='{"c": 2}', seats=seats) is None
        # The refused event changed nothing: neither the clock nor the seats.
        assert store.load_clock("g1") == '{"c": 1}'
        assert store.load_game("g1") == _record("g1")
        chat = EventRecord("chat", 1, 3, {"text": "hi"}, "2026-01-01T00:00:01Z")
        assert store.add_event("g1", chat) is not None
        assert store.add_event("g1", chat) is not None  # no key: every message counts
        assert [(e.n, e.kind, e.body) for e in store.events("g1")] == [
            (1, "timeout", {"timeouts": 1}), (2, "chat", {"text": "hi"}),
            (3, "chat", {"text": "hi"})]
    finally:
        store.close()
