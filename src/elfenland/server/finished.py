"""Finished games kept in memory once rebuilt, so looking at one again replays nothing.

A game that is not in memory is rebuilt from its stored actions to be answered about;
for a finished one that was every page view, every replay step and every record
download (a 1,928-action game: 34 ms a view, 67 ms a step, 57 ms a record).  A finished
game's actions never change (an undo is refused once it is over), so what is built from
them once is kept here, per process, for the games looked at last:

- the actions (less those taken back) and their store rows, and the final state (a
  ``LiveGame`` gets a clone of it: clones are copy-on-write, a few microseconds);
- a snapshot of the state every ``SNAPSHOT_EVERY`` actions, so that a replay's step
  clones the snapshot before it and applies at most ``SNAPSHOT_EVERY - 1`` actions,
  whatever the step (stepping one by one costs O(1) replays, not O(n));
- filled when first asked for: the final view of each viewer (a view's log line of an
  action is the same at every later step, so a step's view is its state's view without
  the log plus the first ``step`` lines of the final view's log) and the saved record.

What can change about a finished game is not kept: its record (seats, links), its
events (chat, the rating's decision) and its clock are read from the store as before,
and only an entry whose key (the game's seq, seed, rules and the rows taken back) matches
the record and events just read is used.  A game still in play is never put here (only
``record.status == "finished"`` is).  Each process has its own cache, so a restart or
another process of a cluster builds it again from the store, which holds the same game.

Bounded by games (``ServerConfig.finished_games``) and by approximate bytes
(``ServerConfig.finished_bytes``): the least recently used entries leave first.  An
entry too big for the bytes alone is not kept but as the spare, until the routes' next
``trim``, so that the request which built it does not build it again.  The
hub's event loop uses the cache; entries are built and their lazy parts filled on its
CPU threads, so the cache and each entry have a lock.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.game import GameState, JSONDict
from .live import build_state
from .store import EventRecord, GameRecord
from .undo import effective_actions

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["SNAPSHOT_EVERY", "FinishedGame", "FinishedGames"]

#: A snapshot of the state every this many actions: a replay's step applies fewer.
SNAPSHOT_EVERY = 32
#: Approximate bytes of an entry: a fixed part, per action (its text, its link in the
#: state's history, its row), per snapshot, and per log line of a kept view.
BASE_BYTES = 32_768
ACTION_BYTES = 400
SNAPSHOT_BYTES = 4_096
LOG_LINE_BYTES = 600

Key = tuple[Any, ...]


def entry_key(record: GameRecord, events: Sequence[EventRecord]) -> Key:
    """What an entry must match to stand for the game the store holds now."""
    undone = tuple(sorted(int(e.body["row"]) for e in events if e.kind == "undo"))
    return (record.id, record.seq, record.game, record.seed, record.rules,
            repr(sorted(record.options.items())), undone)


class FinishedGame:
    """One finished game rebuilt (``build``, on a CPU thread): never changed after that
    but for its lazily filled views and saved record."""

    def __init__(self, key: Key, actions: Sequence[str], rows: Sequence[int],
                 final: GameState, snapshots: list[GameState]) -> None:
        self.key = key
        self.actions = tuple(actions)
        self.rows = tuple(rows)
        self.final = final
        self.snapshots = snapshots
        self._lock = threading.Lock()
        self._views: dict[int | None, JSONDict] = {}
        self._saved: str | None = None

    @classmethod
    def build(cls, key: Key, record: GameRecord, actions: Sequence[str],
              rows: Sequence[int]) -> FinishedGame:
        """Replay the game once, keeping a snapshot every ``SNAPSHOT_EVERY`` actions."""
        state = build_state(record)
        snapshots = [state.clone()]
        for i, action in enumerate(actions, 1):
            state.apply_action(action)
            if i % SNAPSHOT_EVERY == 0:
                snapshots.append(state.clone())
        return cls(key, actions, rows, state, snapshots)

    @property
    def steps(self) -> int:
        return len(self.actions)

    def state(self) -> GameState:
        """A copy of the final state (whoever holds it cannot touch the kept one)."""
        return self.final.clone()

    @staticmethod
    def replayed(step: int) -> int:
        """The actions applied to answer a replay at ``step``."""
        return step % SNAPSHOT_EVERY

    def state_at(self, step: int) -> GameState:
        """The state after the first ``step`` actions (a copy)."""
        step = max(0, min(step, self.steps))
        if step == self.steps:
            return self.final.clone()
        base = step // SNAPSHOT_EVERY
        state = self.snapshots[base].clone()
        for action in self.actions[base * SNAPSHOT_EVERY:step]:
            state.apply_action(action)
        return state

    def final_view(self, seat: int | None) -> JSONDict:
        """The final state's view for ``seat`` (kept: do not change it)."""
        with self._lock:
            view = self._views.get(seat)
        if view is None:
            view = self.final.view(seat)
            with self._lock:
                view = self._views.setdefault(seat, view)
        return view

    def public_view(self) -> JSONDict:
        """The final view for spectators, a copy of the kept one's top level."""
        return dict(self.final_view(None))

    def view_at(self, step: int, seat: int | None) -> JSONDict:
        """The view for ``seat`` after the first ``step`` actions: the state's view
        without the log, and the first ``step`` lines of the final view's log (a log
        line never changes once written)."""
        step = max(0, min(step, self.steps))
        view = self.state_at(step).view(seat, log_after=step)
        view["log"] = self.final_view(seat)["log"][:step]
        return view

    def saved(self) -> str:
        """The record as the engine saves it (``state.serialize()``), kept."""
        with self._lock:
            saved = self._saved
        if saved is None:
            saved = self.final.serialize()
            with self._lock:
                self._saved = saved
        return saved

    def size(self) -> int:
        """Approximate bytes held."""
        with self._lock:
            lines = sum(len(v.get("log", ())) for v in self._views.values())
            saved = len(self._saved) if self._saved is not None else 0
        return (BASE_BYTES + ACTION_BYTES * self.steps + SNAPSHOT_BYTES * len(self.snapshots)
                + LOG_LINE_BYTES * lines + saved)


class FinishedGames:
    """The recently used finished games (module text), least recently used first."""

    def __init__(self, max_games: int, max_bytes: int) -> None:
        self.max_games = max(0, max_games)
        self.max_bytes = max(0, max_bytes)
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, FinishedGame] = OrderedDict()
        self._building: dict[Key, asyncio.Future[FinishedGame]] = {}
        #: The last entry built too big to keep, until the next ``trim`` or build: a
        #: request asks for its game twice (loading it, then answering from it), and
        #: would replay it twice where the rate limit charges one (http_ration.py).
        self._spare: FinishedGame | None = None
        #: Entries built (each a replay of a whole game), for tests and benchmarks.
        self.builds = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def peek(self, game_id: str) -> FinishedGame | None:
        """The entry of the game, if kept (not counted as a use)."""
        with self._lock:
            return self._entries.get(game_id)

    def size(self) -> int:
        """Approximate bytes held by every entry."""
        with self._lock:
            entries = list(self._entries.values())
        return sum(e.size() for e in entries)

    def _get(self, key: Key) -> FinishedGame | None:
        with self._lock:
            entry = self._entries.get(key[0])
            if entry is None:
                spare = self._spare
                return spare if spare is not None and spare.key == key else None
            if entry.key != key:  # not the game the store holds now: build it again
                del self._entries[key[0]]
                return None
            self._entries.move_to_end(key[0])
            return entry

    def put(self, entry: FinishedGame) -> None:
        """Keep the entry (if the bounds let it in at all), then trim to the bounds; one
        too big to keep stays as the spare until the request that built it is done."""
        with self._lock:
            if self.max_games == 0 or entry.size() > self.max_bytes:
                self._spare = entry
                return
            self._spare = None
            self._entries[entry.key[0]] = entry
            self._entries.move_to_end(entry.key[0])
        self.trim()

    def trim(self) -> None:
        """Drop the least recently used entries until both bounds hold (the newest one
        stays if it fits alone: ``put`` refuses one that does not), and the spare (the
        routes trim once they have answered)."""
        with self._lock:
            self._spare = None
            while len(self._entries) > self.max_games:
                self._entries.popitem(last=False)
            total = sum(e.size() for e in self._entries.values())
            while len(self._entries) > 1 and total > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                total -= dropped.size()

    async def obtain(self, hub: Hub, record: GameRecord,
                     events: Sequence[EventRecord]) -> FinishedGame:
        """The finished game's entry: kept, being built for another request (awaited),
        or read from the store and built now (on the hub's CPU threads)."""
        if record.status != "finished":
            raise ValueError(f"game {record.id} is not finished")
        key = entry_key(record, events)
        entry = self._get(key)
        if entry is not None:
            return entry
        pending = self._building.get(key)
        if pending is not None:
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():  # this request was cancelled
                    raise
                return await self.obtain(hub, record, events)  # the builder's was
        future: asyncio.Future[FinishedGame] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            raw = await hub.db(hub.store.actions, record.id)
            actions, rows = effective_actions(raw, events)
            entry = await hub.cpu(FinishedGame.build, key, record, actions, rows)
            self.builds += 1
            self.put(entry)
            future.set_result(entry)
            return entry
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: only the awaiting requests see it
            raise
        finally:
            self._building.pop(key, None)
