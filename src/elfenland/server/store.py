"""The durable store: the truth about every game.

A game is its row (which game, options, seed, seats) plus its ordered action rows, one
per accepted action under a unique (game_id, seq) key, each appended in its own
transaction before anyone is told about it.  Everything else the server holds is a
cache rebuilt by replaying these rows.  Two backends share this module's SQL: SQLite
(the default, one file) and PostgreSQL (for a real deployment); ``open_store`` picks one
from a URL.
"""

from __future__ import annotations

import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .errors import LeaseLost, StoreConflict, StoreDamaged, StoreInUse, StoreUnavailable
from .logs import quiet_repeats
from .serving_lock import Mode as ServingMode
from .serving_lock import ServingLock

Status = Literal["open", "running", "finished"]
SeatKind = Literal["open", "human", "bot"]
STATUSES: tuple[Status, ...] = ("open", "running", "finished")


@dataclass(frozen=True)
class Handover:
    """A seat handed to a bot (``to_bot``) or taken back, when the game was at ``seq``;
    the ratings leave out what a bot played (issue 23)."""

    seat: int
    seq: int
    to_bot: bool


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    kind: SeatKind
    name: str | None = None
    level: str | None = None
    #: sha256 of the seat token of the human who holds (or held, if a bot stands in
    #: for them) the seat; None for seats never taken by a human.
    token_hash: str | None = None


@dataclass(frozen=True)
class GameRecord:
    id: str
    game: str
    players: int
    rules: str | None
    options: dict[str, Any]
    seed: int
    status: Status
    seq: int
    created: str
    host: str
    seats: tuple[SeatRecord, ...] = field(default_factory=tuple)

    def with_seats(self, seats: tuple[SeatRecord, ...], status: Status | None = None
                   ) -> GameRecord:
        return replace(self, seats=seats, status=status or self.status)


@dataclass(frozen=True)
class Fence:
    """A game's fencing token (ownership.py): a change of the game is stored only while
    its lease row still names ``owner`` at ``epoch``, checked inside the change's own
    transaction.  Writers that share the store with no one pass none."""

    owner: str
    epoch: int


@dataclass(frozen=True)
class EventRecord:
    """Something that happened at a table besides an action: a timeout, a bot taking a
    seat over, a chat message.  ``seq`` is the game's seq when it happened; ``key``,
    when set, is unique per game (one timeout per turn)."""

    kind: str
    seat: int | None
    seq: int
    body: dict[str, Any]
    created: str
    key: str | None = None
    n: int = 0


@dataclass(frozen=True)
class PlayerRecord:
    """A player kept across games: a name and an optional webhook, proven by a device
    token (stored as its sha256, like seat tokens)."""

    id: str
    name: str
    webhook: str | None
    created: str


#: ``TurnNoticeRecord.outcome``: the webhook answered 2xx.
NOTICE_DELIVERED = "delivered"
#: Refused for good (a 3xx or 4xx answer) or failed at every retry.
NOTICE_GIVEN_UP = "given-up"
#: The turn passed, or its player acted, before the notice went out: not sent.
NOTICE_MOOT = "moot"
#: A running game's turns up to ``turn_row`` when the database gained the table.
NOTICE_FLOOR = "before-upgrade"
#: The key of a finished game's rating decision: its ``rated`` event (ratings stored) or
#: its ``unrated`` one (the policy left it out); the unique (game, key) index makes the
#: decision once per game.
RATING_KEY = "rated"


class RatingsMoved(StoreConflict):
    """A rating changed between its reading and a game's rating that builds on it: the
    game's rating is computed again (``Store.rate_game``)."""


@dataclass(frozen=True)
class TurnNoticeRecord:
    """A "your turn" notice settled for good: ``(game_id, seq)`` is the notice's key
    (the payload's ``game`` and ``seq``); ``turn_row`` the store row of the action that
    began the turn (0: the game's start)."""

    game_id: str
    seq: int
    seat: int
    player_id: str
    turn_row: int
    outcome: str
    attempts: int
    updated: str


@dataclass(frozen=True)
class RatingRecord:
    """One OpenSkill rating per player (or bot level, ``bot:<level>``) and game."""

    player_id: str
    game: str
    name: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


SCHEMA = (
    """CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        players INTEGER NOT NULL,
        rules TEXT,
        options TEXT NOT NULL,
        seed BIGINT NOT NULL,
        status TEXT NOT NULL,
        seq INTEGER NOT NULL,
        created TEXT NOT NULL,
        host TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS seats (
        game_id TEXT NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        name TEXT,
        level TEXT,
        token_hash TEXT,
        PRIMARY KEY (game_id, seat))""",
    """CREATE TABLE IF NOT EXISTS actions (
        game_id TEXT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        player INTEGER NOT NULL,
        action TEXT NOT NULL,
        PRIMARY KEY (game_id, seq))""",
    # Added for async play (issue 15); a database made before them gains them on open.
    """CREATE TABLE IF NOT EXISTS clocks (
        game_id TEXT PRIMARY KEY REFERENCES games(id),
        state TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS events (
        game_id TEXT NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        created TEXT NOT NULL,
        key TEXT,
        PRIMARY KEY (game_id, n))""",
    "CREATE UNIQUE INDEX IF NOT EXISTS events_by_key ON events (game_id, key)",
    """CREATE TABLE IF NOT EXISTS players (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        webhook TEXT,
        created TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS seat_players (
        game_id TEXT NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL REFERENCES players(id),
        PRIMARY KEY (game_id, seat))""",
    """CREATE TABLE IF NOT EXISTS ratings (
        player_id TEXT NOT NULL,
        game TEXT NOT NULL,
        name TEXT NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (player_id, game))""",
    # Seats handed to a bot and taken back (issue 23): a seat a bot played is not rated.
    """CREATE TABLE IF NOT EXISTS handovers (
        game_id TEXT NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        to_bot INTEGER NOT NULL)""",
    # One row the store-recovery probe writes (``Store.ping``): a store that reads but
    # cannot write (a full disk, a write lock another process holds) is still down.
    """CREATE TABLE IF NOT EXISTS probes (
        id INTEGER PRIMARY KEY,
        n BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS games_by_status ON games (status)",
    "CREATE INDEX IF NOT EXISTS games_by_host ON games (host, status)",
    # Turn notices settled (issue: notices lost at a restart): delivered, given up after
    # their retries, or moot; a start re-sends the current turn's notice unless it is
    # here.  Made on open like the tables above (an older database gains it, see below).
    """CREATE TABLE IF NOT EXISTS turn_notices (
        game_id TEXT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        turn_row INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        updated TEXT NOT NULL,
        PRIMARY KEY (game_id, seq, seat))""",
    # One-off steps done to a database, each once (its name is its row: ``ONCE``).
    "CREATE TABLE IF NOT EXISTS schema_marks (name TEXT PRIMARY KEY)",
)

#: One-off steps, each run once per database, after ``SCHEMA``, in a write transaction
#: of its own only if its mark is missing (so opening a database that had them all
#: writes nothing).
ONCE: tuple[tuple[str, tuple[str, ...]], ...] = (
    # A database made before ``turn_notices``: the turns already running when it gains
    # the table were told (or not) by the old server, which kept no record; a floor row
    # per running game (seq -1, ``turn_row`` its last action row) keeps the first start
    # from notifying them all again.  Turns that start later are recorded as usual.  (A
    # new database has no games yet: the step inserts nothing.)
    ("turn_notices", (
        f"""INSERT INTO turn_notices (game_id, seq, seat, player_id, turn_row, outcome,
            attempts, updated)
            SELECT id, -1, -1, '', seq, '{NOTICE_FLOOR}', 0, '' FROM games
            WHERE status = 'running'""",)),
)

_GAME_COLUMNS = "id, game, players, rules, options, seed, status, seq, created, host"
#: ``Store.ping``'s write: one row that changes, so the commit writes a page.
PROBE = ("INSERT INTO probes (id, n) VALUES (1, 1) "
         "ON CONFLICT (id) DO UPDATE SET n = probes.n + 1")


class Store(ABC):
    """SQL shared by the backends, written with ``?`` placeholders; a backend gives
    connections (one per thread) and translates the placeholders if it must."""

    placeholder = "?"

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        with self._tx() as cur:
            for statement in SCHEMA:
                cur.execute(statement)
        self._run_once()

    def _run_once(self) -> None:
        """The ``ONCE`` steps this database has not had, each with its mark in one
        transaction (two servers opening a PostgreSQL database at once: the second's
        mark is a conflict, and its step rolls back)."""
        with self._tx(write=False) as cur:
            cur.execute("SELECT name FROM schema_marks")
            done = {str(r[0]) for r in cur.fetchall()}
        for name, statements in ONCE:
            if name in done:
                continue
            try:
                with self._tx() as cur:
                    for statement in statements:
                        cur.execute(statement)
                    cur.execute(self._q("INSERT INTO schema_marks (name) VALUES (?)"), (name,))
            except Exception as exc:
                if not self._is_conflict(exc):
                    raise

    # -- backend hooks -------------------------------------------------------------
    @abstractmethod
    def _connect(self) -> Any:
        """A new DB-API connection for the calling thread."""

    @abstractmethod
    def _tx(self, write: bool = True) -> AbstractContextManager[Any]:
        """A cursor inside one transaction: committed on success, rolled back on error.
        ``write=False``: the transaction only reads, and must not wait for writers
        (SQLite: a deferred transaction, which in WAL mode reads on while another
        process holds the write lock)."""

    @abstractmethod
    def _is_conflict(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a unique-key violation."""

    def _conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _q(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def pin_thread(self) -> None:
        """Called by a thread that will make many calls (the hub's database threads, as
        they start): its connection is kept between calls.  SQLite's connections are
        per thread already."""
        return None

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                with suppress(Exception):  # closing is best effort
                    conn.close()
            self._all.clear()
        self._local = threading.local()

    def ping(self, timeout: float | None = None) -> None:
        """A cheap round trip that writes: raises ``StoreUnavailable`` while the store
        cannot take a write (a backend waits at most ``timeout`` seconds for a connection
        or a lock).  The store-recovery task's probe: a ``SELECT 1`` answered while every
        write failed (a full disk), so the server took the store for back, failed again
        at once, and logged the pair of lines twenty times a second."""
        with self._tx() as cur:
            cur.execute(PROBE)

    # -- games -----------------------------------------------------------------------
    def create_game(self, game: GameRecord, clock: str | None = None,
                    host_limit: int | None = None) -> bool:
        """Store a new game; with ``host_limit``, only if its host has fewer unfinished
        games than that, counted in the same transaction (False: not stored)."""
        with self._tx() as cur:
            if host_limit is not None:
                self._lock_host(cur, game.host)
                cur.execute(self._q("SELECT COUNT(*) FROM games WHERE host = ? AND "
                                    "status <> ?"), (game.host, "finished"))
                if int(cur.fetchone()[0]) >= host_limit:
                    return False
            cur.execute(
                self._q(f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)"),
                (game.id, game.game, game.players, game.rules, json.dumps(game.options),
                 game.seed, game.status, game.seq, game.created, game.host))
            self._write_seats(cur, game.id, game.seats)
            if clock is not None:
                self._write_clock(cur, game.id, clock)
        return True

    def _lock_host(self, cur: Any, host: str) -> None:
        """Serialise game creation per host for the rest of the transaction (SQLite's
        ``BEGIN IMMEDIATE`` already serialises every writer)."""
        return None

    def drop_events(self, game_id: str, ns: list[int], fence: Fence | None = None) -> None:
        """Forget events (a game's oldest chat lines over its cap)."""
        if not ns:
            return
        marks = ",".join("?" * len(ns))
        with self._tx() as cur:
            self._guard(cur, game_id, None, fence)
            cur.execute(self._q(f"DELETE FROM events WHERE game_id = ? AND n IN ({marks})"),
                        (game_id, *ns))

    def add_handover(self, game_id: str, seat: int, seq: int, to_bot: bool,
                     fence: Fence | None = None) -> None:
        with self._tx() as cur:
            self._guard(cur, game_id, None, fence)
            self._write_handover(cur, game_id, Handover(seat, seq, to_bot))

    def _write_handover(self, cur: Any, game_id: str, handover: Handover) -> None:
        cur.execute(self._q("INSERT INTO handovers (game_id, seat, seq, to_bot) "
                            "VALUES (?,?,?,?)"),
                    (game_id, handover.seat, handover.seq, int(handover.to_bot)))

    def handovers(self, game_id: str) -> list[tuple[int, int, bool]]:
        """(seat, seq, to_bot) of each time a seat went to a bot or back, in order."""
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT seat, seq, to_bot FROM handovers WHERE game_id = ? "
                                "ORDER BY seq"), (game_id,))
            return [(int(r[0]), int(r[1]), bool(r[2])) for r in cur.fetchall()]

    def save_seats(self, game_id: str, seats: tuple[SeatRecord, ...],
                   status: Status | None = None, fence: Fence | None = None,
                   handover: Handover | None = None) -> None:
        """Replace a game's seats (and optionally its status) in one transaction; a seat
        handed to a bot or taken back records its ``handover`` in the same transaction, so
        a seat can never be a bot's without the record the ratings read."""
        with self._tx() as cur:
            self._guard(cur, game_id, None, fence)
            cur.execute(self._q("DELETE FROM seats WHERE game_id = ?"), (game_id,))
            self._write_seats(cur, game_id, seats)
            if handover is not None:
                self._write_handover(cur, game_id, handover)
            if status is not None:
                cur.execute(self._q("UPDATE games SET status = ? WHERE id = ?"),
                            (status, game_id))

    def _guard(self, cur: Any, game_id: str, seq: int | None, fence: Fence | None) -> None:
        """Runs first in every transaction that changes a game (``seq``: the action being
        appended, None otherwise): with a ``fence``, refuses (``LeaseLost``) unless the
        game's lease still names the fence's owner and epoch, and holds a share lock on
        the lease row until the transaction ends, so a takeover waits for it.  An
        appended action's writer is recorded in ``action_writers``."""
        if fence is None:
            return
        if seq is None:
            cur.execute(self._q("SELECT 1 FROM leases WHERE game_id = ? AND owner = ? "
                                "AND epoch = ? FOR SHARE"), (game_id, fence.owner, fence.epoch))
            held = cur.fetchone() is not None
        else:
            cur.execute(self._q("INSERT INTO action_writers (game_id, seq, owner, epoch) "
                                "SELECT game_id, ?, owner, epoch FROM leases WHERE game_id = ? "
                                "AND owner = ? AND epoch = ? FOR SHARE"),
                        (seq, game_id, fence.owner, fence.epoch))
            held = cur.rowcount == 1
        if not held:
            raise LeaseLost(game_id)

    def _write_seats(self, cur: Any, game_id: str, seats: tuple[SeatRecord, ...]) -> None:
        for s in seats:
            cur.execute(
                self._q("INSERT INTO seats (game_id, seat, kind, name, level, token_hash) "
                        "VALUES (?,?,?,?,?,?)"),
                (game_id, s.seat, s.kind, s.name, s.level, s.token_hash))

    def append_action(self, game_id: str, seq: int, player: int, action: str,
                      finished: bool = False, clock: str | None = None,
                      fence: Fence | None = None) -> None:
        """Store the action that makes the game's ``seq``-th; raises ``StoreConflict``
        when that row exists already (the caller's idea of the game is stale).  A game
        with a clock stores the clock as it is after the action in the same transaction,
        so the two never disagree after a crash."""
        try:
            with self._tx() as cur:
                self._guard(cur, game_id, seq, fence)
                if clock is not None:
                    self._write_clock(cur, game_id, clock)
                cur.execute(self._q("INSERT INTO actions (game_id, seq, player, action) "
                                    "VALUES (?,?,?,?)"), (game_id, seq, player, action))
                cur.execute(
                    self._q("UPDATE games SET seq = ?, status = ? WHERE id = ? AND seq = ?"),
                    (seq, "finished" if finished else "running", game_id, seq - 1))
                if cur.rowcount != 1:
                    raise StoreConflict(f"game {game_id} is not at seq {seq - 1}")
        except StoreConflict:
            raise
        except Exception as exc:
            if self._is_conflict(exc):
                raise StoreConflict(f"game {game_id} already has action {seq}") from None
            raise

    def load_game(self, game_id: str) -> GameRecord | None:
        with self._tx(write=False) as cur:
            cur.execute(self._q(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?"),
                        (game_id,))
            row = cur.fetchone()
            if row is None:
                return None
            return self._game(row, self._seats(cur, [game_id])[game_id])

    def list_games(self, status: Status | None = None, limit: int = 200) -> list[GameRecord]:
        """The newest games first."""
        with self._tx(write=False) as cur:
            if status is None:
                cur.execute(self._q(f"SELECT {_GAME_COLUMNS} FROM games "
                                    "ORDER BY created DESC, id LIMIT ?"), (limit,))
            else:
                cur.execute(self._q(f"SELECT {_GAME_COLUMNS} FROM games WHERE status = ? "
                                    "ORDER BY created DESC, id LIMIT ?"), (status, limit))
            rows = cur.fetchall()
            seats = self._seats(cur, [r[0] for r in rows])
            return [self._game(r, seats[r[0]]) for r in rows]

    def unfinished_ids(self) -> list[str]:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT id FROM games WHERE status <> ? ORDER BY created"),
                        ("finished",))
            return [str(r[0]) for r in cur.fetchall()]

    def unrated_finished_ids(self) -> list[str]:
        """Finished games with two players or more linked to their seats whose rating was
        never decided (no event under the key ``rated``: neither a ``rated`` event nor
        the policy's ``unrated`` one): the process stopped, or its store went away,
        between the game's last action and the decision.  A game is decided once, so it
        is listed until then only."""
        with self._tx(write=False) as cur:
            cur.execute(self._q(
                "SELECT g.id FROM games g WHERE g.status = ? AND "
                "(SELECT COUNT(DISTINCT s.player_id) FROM seat_players s "
                "WHERE s.game_id = g.id) >= 2 AND NOT EXISTS (SELECT 1 FROM events e "
                "WHERE e.game_id = g.id AND e.key = ?) ORDER BY g.created"),
                ("finished", RATING_KEY))
            return [str(r[0]) for r in cur.fetchall()]

    def count_unfinished(self, host: str) -> int:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT COUNT(*) FROM games WHERE host = ? AND status <> ?"),
                        (host, "finished"))
            return int(cur.fetchone()[0])

    def actions(self, game_id: str) -> list[str]:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT seq, action FROM actions WHERE game_id = ? "
                                "ORDER BY seq"), (game_id,))
            rows = cur.fetchall()
        for i, (seq, _) in enumerate(rows):
            if int(seq) != i + 1:  # pragma: no cover - the keys make this impossible
                raise StoreConflict(f"game {game_id} has a gap before action {seq}")
        return [str(r[1]) for r in rows]

    # -- clocks and events --------------------------------------------------------------
    def _write_clock(self, cur: Any, game_id: str, clock: str) -> None:
        cur.execute(self._q("INSERT INTO clocks (game_id, state) VALUES (?, ?) "
                            "ON CONFLICT (game_id) DO UPDATE SET state = excluded.state"),
                    (game_id, clock))

    def save_clock(self, game_id: str, clock: str, fence: Fence | None = None) -> None:
        with self._tx() as cur:
            self._guard(cur, game_id, None, fence)
            self._write_clock(cur, game_id, clock)

    def load_clock(self, game_id: str) -> str | None:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT state FROM clocks WHERE game_id = ?"), (game_id,))
            row = cur.fetchone()
            return None if row is None else str(row[0])

    def add_event(self, game_id: str, event: EventRecord, clock: str | None = None,
                  seats: tuple[SeatRecord, ...] | None = None, fence: Fence | None = None
                  ) -> EventRecord | None:
        """Append one event (numbered after the game's last one), with the clock and the
        seats it changes, in one transaction.  An event whose ``key`` the game has
        already is not stored again: the answer is then None and nothing changed, which
        is what makes a deadline applied twice (say after a restart) a no-op."""
        try:
            with self._tx() as cur:
                self._guard(cur, game_id, None, fence)
                n = self._insert_event(cur, game_id, event)
                if clock is not None:
                    self._write_clock(cur, game_id, clock)
                if seats is not None:
                    cur.execute(self._q("DELETE FROM seats WHERE game_id = ?"), (game_id,))
                    self._write_seats(cur, game_id, seats)
        except StoreConflict:
            raise  # this process no longer owns the game (``_guard``): nothing was stored
        except Exception as exc:
            if self._is_conflict(exc):
                return None
            raise
        return replace(event, n=n)

    def _insert_event(self, cur: Any, game_id: str, event: EventRecord) -> int:
        """Append ``event`` after the game's last one; its number."""
        cur.execute(self._q("SELECT COALESCE(MAX(n), 0) FROM events WHERE game_id = ?"),
                    (game_id,))
        n = int(cur.fetchone()[0]) + 1
        cur.execute(
            self._q("INSERT INTO events (game_id, n, kind, seat, seq, body, created, key) "
                    "VALUES (?,?,?,?,?,?,?,?)"),
            (game_id, n, event.kind, event.seat, event.seq, json.dumps(event.body),
             event.created, event.key))
        return n

    def events(self, game_id: str) -> list[EventRecord]:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT n, kind, seat, seq, body, created, key FROM events "
                                "WHERE game_id = ? ORDER BY n"), (game_id,))
            return [EventRecord(str(kind), None if seat is None else int(seat), int(seq),
                                json.loads(body), str(created), key, int(n))
                    for n, kind, seat, seq, body, created, key in cur.fetchall()]

    def undo_counts(self, game_ids: list[str]) -> dict[str, int]:
        """How many stored action rows each game has taken back (games with none are left
        out): a game's seq is its rows less these."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        with self._tx(write=False) as cur:
            cur.execute(self._q(f"SELECT game_id, COUNT(*) FROM events WHERE kind = ? AND "
                                f"game_id IN ({marks}) GROUP BY game_id"),
                        ("undo", *game_ids))
            return {str(g): int(c) for g, c in cur.fetchall()}

    # -- players and ratings -----------------------------------------------------------
    def create_player(self, player: PlayerRecord, token_hash: str) -> None:
        with self._tx() as cur:
            cur.execute(self._q("INSERT INTO players (id, name, token_hash, webhook, created) "
                                "VALUES (?,?,?,?,?)"),
                        (player.id, player.name, token_hash, player.webhook, player.created))

    def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT id, name, webhook, created FROM players "
                                "WHERE token_hash = ?"), (token_hash,))
            row = cur.fetchone()
            return None if row is None else PlayerRecord(row[0], row[1], row[2], row[3])

    def player_by_id(self, player_id: str) -> PlayerRecord | None:
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT id, name, webhook, created FROM players WHERE id = ?"),
                        (player_id,))
            row = cur.fetchone()
            return None if row is None else PlayerRecord(row[0], row[1], row[2], row[3])

    def update_player(self, player: PlayerRecord) -> None:
        with self._tx() as cur:
            cur.execute(self._q("UPDATE players SET name = ?, webhook = ? WHERE id = ?"),
                        (player.name, player.webhook, player.id))

    def link_seat(self, game_id: str, seat: int, player_id: str) -> None:
        with self._tx() as cur:
            cur.execute(self._q("DELETE FROM seat_players WHERE game_id = ? AND seat = ?"),
                        (game_id, seat))
            cur.execute(self._q("INSERT INTO seat_players (game_id, seat, player_id) "
                                "VALUES (?,?,?)"), (game_id, seat, player_id))

    def seat_players(self, game_id: str) -> dict[int, PlayerRecord]:
        with self._tx(write=False) as cur:
            cur.execute(self._q(
                "SELECT s.seat, p.id, p.name, p.webhook, p.created FROM seat_players s "
                "JOIN players p ON p.id = s.player_id WHERE s.game_id = ?"), (game_id,))
            return {int(r[0]): PlayerRecord(r[1], r[2], r[3], r[4]) for r in cur.fetchall()}

    def seat_player_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> the sha256 of the token of the player linked to it: a linked seat
        opens with its player's token too (docs/protocol.md, tokens)."""
        with self._tx(write=False) as cur:
            cur.execute(self._q(
                "SELECT s.seat, p.token_hash FROM seat_players s "
                "JOIN players p ON p.id = s.player_id WHERE s.game_id = ?"), (game_id,))
            return {int(r[0]): str(r[1]) for r in cur.fetchall()}

    def player_games(self, player_id: str) -> list[tuple[str, int]]:
        """(game id, seat) of every unfinished game the player sits in."""
        with self._tx(write=False) as cur:
            cur.execute(self._q(
                "SELECT s.game_id, s.seat FROM seat_players s JOIN games g ON g.id = s.game_id "
                "WHERE s.player_id = ? AND g.status <> ? ORDER BY g.created DESC"),
                (player_id, "finished"))
            return [(str(r[0]), int(r[1])) for r in cur.fetchall()]

    def ratings(self, game: str, ids: list[str] | None = None, limit: int = 200
                ) -> list[RatingRecord]:
        with self._tx(write=False) as cur:
            if ids is None:
                cur.execute(self._q("SELECT player_id, game, name, mu, sigma, games FROM ratings "
                                    "WHERE game = ? ORDER BY mu - 3 * sigma DESC, player_id "
                                    "LIMIT ?"), (game, limit))
            elif not ids:
                return []
            else:
                marks = ",".join("?" * len(ids))
                cur.execute(self._q("SELECT player_id, game, name, mu, sigma, games FROM ratings "
                                    f"WHERE game = ? AND player_id IN ({marks})"),
                            (game, *ids))
            return [RatingRecord(str(r[0]), str(r[1]), str(r[2]), float(r[3]), float(r[4]),
                                 int(r[5])) for r in cur.fetchall()]

    def rate_game(self, game_id: str, event: EventRecord, ratings: list[RatingRecord],
                  fence: Fence | None = None) -> bool:
        """Store a finished game's rating changes with its ``rated`` event in one
        transaction; False (and nothing changed) if the game's rating was decided already
        (the event's key).  Each new rating is stored only over the one it was computed
        from (``games`` one less, or none for a first game): if another game's rating
        moved it meanwhile (another process, or another game of this one), nothing is
        stored and ``RatingsMoved`` is raised, for the caller to compute again."""
        try:
            with self._tx() as cur:
                self._guard(cur, game_id, None, fence)
                self._insert_event(cur, game_id, event)
                # Two bots of one level at a table are one rating: the last seat's counts.
                for r in {r.player_id: r for r in ratings}.values():
                    cur.execute(self._q(
                        "INSERT INTO ratings (player_id, game, name, mu, sigma, games) "
                        "VALUES (?,?,?,?,?,?) ON CONFLICT (player_id, game) DO UPDATE SET "
                        "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
                        "games = excluded.games WHERE ratings.games = ?"),
                        (r.player_id, r.game, r.name, r.mu, r.sigma, r.games, r.games - 1))
                    if cur.rowcount != 1:
                        raise RatingsMoved(f"the rating of {r.player_id} moved meanwhile")
        except Exception as exc:
            if self._is_conflict(exc):
                return False
            raise
        return True

    def decided(self, game_id: str) -> bool:
        """Whether the game's rating was decided: rated, or left out by the policy (an
        event under the key ``rated`` either way)."""
        with self._tx(write=False) as cur:
            cur.execute(self._q("SELECT 1 FROM events WHERE game_id = ? AND key = ?"),
                        (game_id, RATING_KEY))
            return cur.fetchone() is not None

    # -- turn notices ------------------------------------------------------------------
    def turn_notice_due(self, game_id: str, seq: int, seat: int, turn_row: int) -> bool:
        """Whether the notice of the turn that ``seat`` began at ``seq`` (after the action
        in store row ``turn_row``, 0 for the game's start) is still to be sent: the seat
        did not play that row itself (then it is acting, not waiting), and no notice of
        that turn is settled (``record_turn_notice``; the same seq and seat begun at
        another row, before a take-back, is another turn), nor was the turn running
        when the database gained the table (its floor row)."""
        with self._tx(write=False) as cur:
            if turn_row > 0:
                cur.execute(self._q("SELECT player FROM actions WHERE game_id = ? AND seq = ?"),
                            (game_id, turn_row))
                row = cur.fetchone()
                if row is None or int(row[0]) == seat:
                    return False
            cur.execute(self._q(
                "SELECT 1 FROM turn_notices WHERE game_id = ? AND ((seq = ? AND seat = ? "
                "AND turn_row = ?) OR (seq = -1 AND turn_row >= ?)) LIMIT 1"),
                (game_id, seq, seat, turn_row, turn_row))
            return cur.fetchone() is None

    def record_turn_notice(self, notice: TurnNoticeRecord) -> None:
        """Record a notice as settled; the game's notices of earlier turns go (a turn
        that began before the latest one never comes back: a take-back stops at
        another seat's action, which is what began the turn)."""
        with self._tx() as cur:
            cur.execute(self._q("DELETE FROM turn_notices WHERE game_id = ? AND turn_row < ?"),
                        (notice.game_id, notice.turn_row))
            cur.execute(self._q(
                "INSERT INTO turn_notices (game_id, seq, seat, player_id, turn_row, outcome, "
                "attempts, updated) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (game_id, seq, seat) "
                "DO UPDATE SET player_id = excluded.player_id, turn_row = excluded.turn_row, "
                "outcome = excluded.outcome, attempts = excluded.attempts, "
                "updated = excluded.updated"),
                (notice.game_id, notice.seq, notice.seat, notice.player_id, notice.turn_row,
                 notice.outcome, notice.attempts, notice.updated))

    def turn_notices(self, game_id: str) -> list[TurnNoticeRecord]:
        """The game's settled notices (for operators and tests)."""
        with self._tx(write=False) as cur:
            cur.execute(self._q(
                "SELECT game_id, seq, seat, player_id, turn_row, outcome, attempts, updated "
                "FROM turn_notices WHERE game_id = ? ORDER BY turn_row, seq, seat"), (game_id,))
            return [TurnNoticeRecord(str(r[0]), int(r[1]), int(r[2]), str(r[3]), int(r[4]),
                                     str(r[5]), int(r[6]), str(r[7])) for r in cur.fetchall()]

    # -- rows ------------------------------------------------------------------------
    def _seats(self, cur: Any, ids: list[str]) -> dict[str, list[SeatRecord]]:
        out: dict[str, list[SeatRecord]] = {i: [] for i in ids}
        if not ids:
            return out
        marks = ",".join("?" * len(ids))
        cur.execute(self._q("SELECT game_id, seat, kind, name, level, token_hash FROM seats "
                            f"WHERE game_id IN ({marks}) ORDER BY game_id, seat"), tuple(ids))
        for gid, seat, kind, name, level, token_hash in cur.fetchall():
            out[gid].append(SeatRecord(int(seat), kind, name, level, token_hash))
        return out

    @staticmethod
    def _game(row: Any, seats: list[SeatRecord]) -> GameRecord:
        gid, game, players, rules, options, seed, status, seq, created, host = row
        return GameRecord(str(gid), str(game), int(players), rules, json.loads(options),
                          int(seed), status, int(seq), str(created), str(host), tuple(seats))


#: SQLite ``synchronous`` settings a URL may ask for (``?synchronous=full``).
SQLITE_SYNC = ("normal", "full")


class SqliteStore(Store):
    """One SQLite file in WAL mode.  With ``synchronous=normal`` (the default) a committed
    action survives a killed server; with ``full`` it also survives a power cut, at
    about twice the latency per action on a busy disk (each commit waits for fsync).

    A store opened to serve games (``serving=True``: ``elfenland serve``) holds an
    exclusive lock on ``<file>.lock`` for as long as it is open, and refuses
    (``StoreInUse``) a file another serving process holds: each server caches the games
    it serves, so two of them on one file showed their players two different games
    and stopped each other's bots.  Other openers (scripts, tests, backups) do not take
    the lock; the system releases it when the holder dies, even by SIGKILL."""

    #: Seconds a write waits for the write lock while another process holds it (an
    #: operator's ``sqlite3`` shell inside a transaction, a script) before it is refused
    #: with the retryable ``unavailable``.  The server has one database thread and every
    #: store call queues behind a waiting one: SQLite's default, 30 s, hung every player.
    busy_wait = 2.0
    #: Seconds each write waits instead once one waited ``busy_wait`` in vain, until a
    #: write gets the lock again: the writes queued behind a lock held for minutes are
    #: refused in turn at once, not after ``busy_wait`` each.
    busy_again = 0.1

    def __init__(self, path: str | Path, synchronous: str = "normal",
                 serving: bool = False) -> None:
        if synchronous not in SQLITE_SYNC:
            raise ValueError(f"synchronous is one of {SQLITE_SYNC}, not {synchronous!r}")
        self.synchronous = synchronous
        self.path = str(path)
        if not self.path or self.path == ":memory:":
            raise ValueError("the SQLite store needs a file (worker threads share it)")
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        #: Whether the last write found the write lock held by another process (and
        #: waited ``busy_wait`` for it in vain): the next ones wait ``busy_again``.
        self._contended = False
        #: The open lock file of a serving store (None: not serving, or closed).
        self._serving: int | None = self._claim() if serving else None
        try:
            self._check_integrity()
            super().__init__()
        except BaseException:
            self._release()
            raise
        # Writers never checkpoint (a checkpoint syncs the database file and would stall
        # every game's next append); a thread of its own does, without blocking them.
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(target=self._checkpoint_loop, daemon=True,
                                              name="elfenland-sqlite-checkpoint")
        self._checkpointer.start()

    def _claim(self) -> int:
        """Lock ``<file>.lock`` for this process (it holds the process id, for the
        message another one gets); the open descriptor."""
        import fcntl
        import os

        where = f"{self.path}.lock"
        fd = os.open(where, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise StoreInUse(
                f"another server (process {holder}) serves from the SQLite file "
                f"{self.path}; stop it first, or give this one its own --db (several "
                "processes share a PostgreSQL store: --cluster)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd

    def _release(self) -> None:
        """Let go of the serving lock (closing its descriptor releases it)."""
        import os

        fd, self._serving = self._serving, None
        if fd is not None:
            with suppress(OSError):
                os.close(fd)

    def _check_integrity(self) -> None:
        """``PRAGMA quick_check`` before anything else: a file with garbage inside would
        otherwise start "healthy" and then fail every game that touches the bad pages."""
        import sqlite3

        if not Path(self.path).exists():
            return
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            try:
                rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        if rows != ["ok"]:
            found = " ".join("; ".join(rows[:3]).split()) + (" …" if len(rows) > 3 else "")
            raise StoreDamaged(f"the SQLite file {self.path} is damaged ({found}); restore "
                               "it from a backup or move it away to start afresh")

    def _checkpoint_loop(self, every: float = 1.0) -> None:
        import sqlite3

        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        try:
            while not self._stop.wait(every):
                with suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer.is_alive():
            self._checkpointer.join(timeout=5)
        super().close()
        self._release()

    def _connect(self) -> Any:
        import sqlite3

        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_wait)
        self._local.busy = self.busy_wait
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous.upper()}")
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def _tx(self, write: bool = True, wait: float | None = None
            ) -> AbstractContextManager[Any]:
        """A write transaction begins ``IMMEDIATE``: it takes the write lock first, or is
        refused before it did anything (``StoreUnavailable``) after waiting ``wait``
        seconds (default ``busy_wait``, ``busy_again`` while another process holds the
        lock).  A read begins deferred and never takes the lock: in WAL mode it reads the
        last committed state while another process writes or holds the lock."""
        import sqlite3
        from contextlib import contextmanager

        @contextmanager
        def tx() -> Iterator[Any]:
            conn = self._conn()
            if not write:
                self._busy(conn, self.busy_wait)
            else:
                self._busy(conn, wait if wait is not None else
                           self.busy_again if self._contended else self.busy_wait)
            cur = conn.cursor()
            try:
                try:
                    cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                except sqlite3.OperationalError as exc:
                    if write and exc.sqlite_errorname == "SQLITE_BUSY":
                        self._contended = True
                        raise StoreUnavailable(
                            "another process holds the SQLite file's write lock (an open "
                            f"transaction in a sqlite3 shell or a script?): {exc}") from exc
                    raise
                if write:
                    self._contended = False
                try:
                    yield cur
                except BaseException:
                    with suppress(sqlite3.Error):
                        conn.rollback()
                    raise
                else:
                    conn.commit()
            except sqlite3.Error as exc:
                if not _sqlite_outage(exc):
                    raise
                with suppress(sqlite3.Error):  # a failed COMMIT leaves the transaction open
                    conn.rollback()
                raise StoreUnavailable(f"the SQLite store cannot write: {exc}") from exc
            finally:
                cur.close()

        return tx()

    def _busy(self, conn: Any, seconds: float) -> None:
        """Set how long the calling thread's connection waits for a lock."""
        if getattr(self._local, "busy", None) != seconds:
            conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
            self._local.busy = seconds

    def ping(self, timeout: float | None = None) -> None:
        wait = self.busy_wait if timeout is None else min(timeout, self.busy_wait)
        with self._tx(wait=wait) as cur:
            cur.execute(PROBE)

    def _is_conflict(self, exc: BaseException) -> bool:
        import sqlite3

        return isinstance(exc, sqlite3.IntegrityError)


def _sqlite_outage(exc: BaseException) -> bool:
    """Whether a SQLite error is the disk's or the file's (full, I/O error, locked too
    long, unreadable) rather than the query's: those are reported as ``unavailable``."""
    import sqlite3

    if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError
                  | sqlite3.InterfaceError):
        return False
    return isinstance(exc, sqlite3.DatabaseError)


class PostgresStore(Store):
    """PostgreSQL through psycopg 3 and a ``psycopg_pool.ConnectionPool``.  A call that
    finds its connection dead raises ``StoreUnavailable`` and has the pool check every
    idle connection (``ConnectionPool.check``: a dead one is thrown away and replaced), so
    after a restart of PostgreSQL or a terminated session the next call works again
    without anyone restarting the server.  Connections are not checked on every borrow:
    that round trip cost about 12% of the cluster's actions per second at 1,000 games
    (bench/cluster.py), and a call on a dead connection is refused with the same
    retryable error a check would have led to.  A call made while PostgreSQL is away waits
    at most ``timeout`` seconds for a connection, then raises ``StoreUnavailable``.

    A thread that called ``pin_thread`` (the hub's database and health-check threads)
    keeps the connection it borrowed until it breaks, when it goes back to the pool
    (which throws it away and makes another): the borrow and return at every call,
    under the pool's lock shared by every thread, cost about a fifth of a call's time
    on the database threads (bench/store_calls.py).  Other threads borrow per call."""

    placeholder = "%s"
    #: Seconds a call waits for a working connection before it reports the store down.
    timeout = 2.0
    #: Seconds the pool keeps retrying a lost connection in the background before it
    #: leaves the next call to try afresh: short, so a store that is back is found soon.
    reconnect = 0.5

    def __init__(self, url: str, max_size: int = 12,
                 idle_in_transaction: float | None = None,
                 serving: ServingMode | None = None) -> None:
        try:
            import psycopg  # noqa: F401
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError(
                "PostgreSQL needs psycopg and psycopg-pool: "
                "pip install 'elfenland[postgres]'") from exc
        self.url = url
        self.idle_in_transaction = idle_in_transaction
        # The pool logs each failed reconnect (several a second while PostgreSQL is away).
        quiet_repeats("psycopg.pool")
        self._pool = ConnectionPool(
            url, min_size=2, max_size=max_size, open=False, timeout=self.timeout,
            kwargs={"autocommit": True}, configure=self._configure,
            reconnect_timeout=self.reconnect,
            name="elfenland-store")
        # Opening does not wait: the first call reports a store that is down.
        self._pool.open(wait=False)
        #: The connections pinned threads hold (closed by ``close``).
        self._pinned: set[Any] = set()
        #: Outages met so far: a pinned connection borrowed before the last one is
        #: given back at its next use instead of failing a second call.
        self._outages = 0
        super().__init__()
        #: A serving process's hold on the database (``serving_lock.py``): ``alone``
        #: for ``elfenland serve``, ``shared`` for a cluster's processes.
        self._serving: ServingLock | None = None
        if serving is not None:
            lock = ServingLock(url, serving, redact(url))
            try:
                lock.claim()
            except BaseException:
                self.close()
                raise
            self._serving = lock

    def _configure(self, conn: Any) -> None:
        """Set up a new connection.  In a cluster a process stalled inside a transaction
        would keep its row locks and block the takeover for as long as it stalls:
        PostgreSQL ends such a session after ``idle_in_transaction`` seconds (the lease
        time) instead, and its transaction rolls back (nothing half-done is kept)."""
        if self.idle_in_transaction is not None:
            ms = int(self.idle_in_transaction * 1000)
            conn.execute(f"SET idle_in_transaction_session_timeout = {ms}")

    def _connect(self) -> Any:  # pragma: no cover - the pool makes the connections
        raise NotImplementedError

    def pin_thread(self) -> None:
        self._local.pin = True

    def _pinned_conn(self, timeout: float | None) -> Any:
        """The calling pinned thread's connection, borrowed from the pool if it has none
        (or the one it had was closed)."""
        local = self._local
        conn = getattr(local, "pinned", None)
        if conn is not None and not (conn.closed or conn.broken) \
                and local.outages == self._outages:
            return conn
        if conn is not None:
            # Broken, or held since before an outage another thread met: the pool's check
            # replaced the idle connections then; this one is given back to be checked too.
            self._unpin(conn)
        conn = self._pool.getconn(timeout)
        local.pinned, local.outages = conn, self._outages
        with self._lock:
            self._pinned.add(conn)
        return conn

    def _unpin(self, conn: Any) -> None:
        """Give a pinned connection back: the pool rolls back one left in a transaction
        and replaces one that broke."""
        self._local.pinned = None
        with self._lock:
            self._pinned.discard(conn)
        with suppress(Exception):  # a closed pool closes it instead
            self._pool.putconn(conn)

    @contextmanager
    def _connection(self, timeout: float | None = None) -> Iterator[Any]:
        """A connection from the pool (a pinned thread's own); a lost one becomes
        ``StoreUnavailable``."""
        from psycopg.pq import TransactionStatus

        conn = None
        pinned = getattr(self._local, "pin", False)
        try:
            if pinned:
                conn = self._pinned_conn(timeout)
                try:
                    yield conn
                finally:
                    if conn.broken or conn.closed or \
                            conn.info.transaction_status != TransactionStatus.IDLE:
                        self._unpin(conn)
            else:
                with self._pool.connection(timeout) as conn:
                    yield conn
        except Exception as exc:
            if not _pg_outage(exc, conn):
                raise
            self._outages += 1
            with suppress(Exception):  # the store is down: the check may fail too
                self._pool.check()
            raise StoreUnavailable(f"the PostgreSQL store is unreachable: {exc}") from exc

    def _tx(self, write: bool = True) -> AbstractContextManager[Any]:
        @contextmanager
        def tx() -> Iterator[Any]:
            with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur

        return tx()

    def ping(self, timeout: float | None = None) -> None:
        with self._connection(timeout) as conn:
            conn.execute(PROBE)

    def close(self) -> None:
        serving, self._serving = getattr(self, "_serving", None), None
        if serving is not None:
            serving.close()
        with self._lock:
            pinned = list(self._pinned)
            self._pinned.clear()
        for conn in pinned:
            with suppress(Exception):  # closing is best effort
                conn.close()
        with suppress(Exception):
            self._pool.close(timeout=2.0)

    def _is_conflict(self, exc: BaseException) -> bool:
        import psycopg

        return isinstance(exc, psycopg.errors.UniqueViolation)

    def _lock_host(self, cur: Any, host: str) -> None:
        # Under READ COMMITTED two transactions would both count 4 and both insert.
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ("games-of:" + host,))

    def append_action(self, game_id: str, seq: int, player: int, action: str,
                      finished: bool = False, clock: str | None = None,
                      fence: Fence | None = None) -> None:
        """As ``Store.append_action``, in one statement: the games row moves from ``seq``
        - 1 to ``seq`` and the action (and clock) rows are inserted only if it did, all or
        nothing, in one round trip instead of five (BEGIN, three statements, COMMIT).
        Every action of every game pays those round trips, on the server's database
        threads and on PostgreSQL's side.  With a ``fence``, its check (``_guard``) is
        the statement's first part: the share lock on the lease row is taken as ``g``
        asks whether ``f`` has a row, before the games row changes, and held until the
        statement commits; the writer is recorded with the action (``w``)."""
        params: dict[str, Any] = {"gid": game_id, "seq": seq, "player": player,
                                  "action": action, "clock": clock,
                                  "status": "finished" if finished else "running"}
        fenced = also = ""
        if fence is not None:
            params.update(owner=fence.owner, epoch=fence.epoch)
            fenced = ("f AS (SELECT owner, epoch FROM leases WHERE game_id = %(gid)s "
                      "AND owner = %(owner)s AND epoch = %(epoch)s FOR SHARE), ")
            also = ("w AS (INSERT INTO action_writers (game_id, seq, owner, epoch) "
                    "SELECT g.id, %(seq)s, f.owner, f.epoch FROM g, f RETURNING 1), ")
        clock_cte = ("c AS (INSERT INTO clocks (game_id, state) SELECT id, %(clock)s FROM g "
                     "ON CONFLICT (game_id) DO UPDATE SET state = excluded.state "
                     "RETURNING 1), " if clock is not None else "")
        held = "EXISTS (SELECT 1 FROM f)" if fenced else "TRUE"
        sql = ("WITH " + fenced
               + "g AS (UPDATE games SET seq = %(seq)s, status = %(status)s "
               "WHERE id = %(gid)s AND seq = %(seq)s - 1 AND " + held + " RETURNING id), "
               + clock_cte + also
               + "a AS (INSERT INTO actions (game_id, seq, player, action) "
               "SELECT id, %(seq)s, %(player)s, %(action)s FROM g RETURNING 1) "
               "SELECT " + held + ", EXISTS (SELECT 1 FROM a)")
        try:
            with self._connection() as conn:
                row = conn.execute(sql, params).fetchone()
        except Exception as exc:
            if self._is_conflict(exc):
                raise StoreConflict(f"game {game_id} already has action {seq}") from None
            raise
        if not row[0]:
            raise LeaseLost(game_id)
        if not row[1]:
            raise StoreConflict(f"game {game_id} is not at seq {seq - 1}")


#: SQLSTATE classes of a lost or refused connection (08: connection exception, 57:
#: operator intervention such as a shutdown or a terminated backend, 53: out of
#: resources, 58: system error); a lock timeout (55P03) or a conflict is the query's.
_PG_OUTAGE_CLASSES = ("08", "57", "53", "58")


def _pg_outage(exc: BaseException, conn: Any) -> bool:
    """Whether a psycopg error means the store is unreachable rather than refusing."""
    import psycopg
    from psycopg_pool import PoolTimeout

    if isinstance(exc, PoolTimeout | psycopg.InterfaceError):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    if conn is not None and (conn.broken or conn.closed):
        return True
    state = exc.sqlstate
    return state is None or state[:2] in _PG_OUTAGE_CLASSES


def default_db_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("elfenland")) / "games.sqlite3"


def redact(url: str) -> str:
    """The URL without its password, for printing."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


def open_store(url: str | None, serving: bool = False) -> Store:
    """``sqlite:///path[?synchronous=full]``, a bare path, ``postgresql://…``, or None for
    the default file.  ``serving``: for a server process, which must be the only one on
    a SQLite file (``SqliteStore``)."""
    if not url:
        return SqliteStore(default_db_path(), serving=serving)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url, serving="alone" if serving else None)
    if "://" in url and not url.startswith("sqlite:///"):
        raise ValueError(f"unknown database URL {url!r}: use sqlite:///path or postgresql://")
    path, _, query = url.removeprefix("sqlite:///").partition("?")
    params = dict(p.partition("=")[::2] for p in query.split("&") if p)
    return SqliteStore(path, params.get("synchronous", "normal").lower(), serving=serving)
