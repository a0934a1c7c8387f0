"""Finished games kept rebuilt (``finished.py``): a finished game not in memory was
replayed from its stored actions for every page view, every replay step and every
record download.  Now it is replayed once per process; the answers are the same bytes
as without the cache; the cache keeps to its bounds; a game in play is never in it; a
replay's step applies at most ``SNAPSHOT_EVERY - 1`` actions."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from elfenland.server.background import BackgroundServer
from elfenland.server.compose import make_store
from elfenland.server.config import Limits, ServerConfig
from elfenland.server.finished import SNAPSHOT_EVERY, FinishedGame, FinishedGames, entry_key
from elfenland.server.http_ration import HttpRation
from elfenland.server.hub import Hub
from elfenland.server.live import build_state, now_iso
from elfenland.server.lobby import CreateGame
from elfenland.server.store import GameRecord, SeatRecord, open_store

from . import test_rating_scan as scan
from .helpers import HTTP, wait_until

GENEROUS = Limits(absent_after=0.0, games_per_host=1000, messages_per_second=1000,
                  burst=1000, work_address_burst=10**9, work_per_address=10**6)


def _played(game: str, players: int, seed: int) -> tuple[GameRecord, list[str]]:
    seats = tuple(SeatRecord(i, "human", f"p{i}", None, f"h{i}") for i in range(players))
    record = GameRecord(f"g{seed}", game, players, None, {}, seed, "finished", 0, now_iso(),
                        "h", seats)
    state, pick, actions = build_state(record), random.Random(seed), []
    while not state.is_terminal():
        action = str(pick.choice(state.legal_actions()))
        state.apply_action(action)
        actions.append(action)
    return GameRecord(record.id, game, players, None, {}, seed, "finished", len(actions),
                      record.created, "h", seats), actions


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves", "elfengold"])
def test_every_step_from_the_cache_is_a_fresh_replays_view(game: str) -> None:
    record, actions = _played(game, 3, seed=7)
    rows = list(range(1, len(actions) + 1))
    kept = FinishedGame.build(entry_key(record, []), record, actions, rows)
    assert len(kept.snapshots) == len(actions) // SNAPSHOT_EVERY + 1
    n = len(actions)
    # every step of the first snapshots' spans and around the last, every 5th between
    # (each fresh view replays from the start)
    steps = sorted(set(range(min(n, 2 * SNAPSHOT_EVERY + 2))) | set(range(0, n + 1, 5))
                   | {n - 1, n})
    for step in steps:
        fresh = build_state(record, actions[:step])
        for seat in (None, 0, 2):
            assert _same(kept.view_at(step, seat), fresh.view(seat)), (step, seat)
        assert FinishedGame.replayed(step) < SNAPSHOT_EVERY
    final = build_state(record, actions)
    assert _same(kept.public_view(), final.view(None))
    assert kept.saved() == final.serialize()
    assert kept.state() == final and kept.state() is not kept.final


def test_the_cache_keeps_to_its_bounds_least_recently_used_first() -> None:
    record, actions = _played("elfenland", 2, seed=3)
    rows = list(range(1, len(actions) + 1))

    def entry(gid: str) -> FinishedGame:
        r = replace(record, id=gid)
        return FinishedGame.build(entry_key(r, []), r, actions, rows)

    games = FinishedGames(max_games=3, max_bytes=10**9)
    a = entry("a")
    for gid in "abcde":
        games.put(a if gid == "a" else entry(gid))
        assert games._get(a.key) is a  # "a" is used after every put
    assert len(games) == 3 and games.peek("a") is not None  # "a", used last, stays
    assert games.peek("b") is None and games.peek("c") is None
    one = entry("x").size()
    by_size = FinishedGames(max_games=100, max_bytes=2 * one + one // 2)
    for gid in "abcde":
        by_size.put(entry(gid))
        assert by_size.size() <= by_size.max_bytes
    assert len(by_size) == 2
    # The lazily kept views count too: filling them trims the cache.
    kept = by_size.peek("e")
    assert kept is not None
    kept.final_view(None)
    kept.final_view(0)
    kept.saved()
    by_size.trim()
    assert by_size.size() <= by_size.max_bytes
    assert FinishedGames(0, 10**9).max_games == 0
    none = FinishedGames(0, 10**9)
    none.put(entry("a"))
    assert len(none) == 0


def _serve(db: str, store: Any, games: int = 256, size: int = 64 * 1024 * 1024
           ) -> BackgroundServer:
    config = ServerConfig(db=db, limits=GENEROUS, finished_games=games, finished_bytes=size)
    return BackgroundServer(config, store=store).start()


def _looks(base: str, gid: str, steps: int) -> list[bytes]:
    """Pages, every replay step (a seat's too), records and actions of the game."""
    out = []
    for _ in range(3):
        out.append(HTTP.get(f"{base}/api/games/{gid}").content)
    for step in range(steps + 1):
        out.append(HTTP.get(f"{base}/api/games/{gid}/replay", params={"step": step}).content)
    for step in (0, steps // 2, steps):
        out.append(HTTP.get(f"{base}/api/games/{gid}/replay",
                            params={"step": step, "seat": 1}).content)
    out.append(HTTP.get(f"{base}/api/games/{gid}/replay").content)
    for _ in range(3):
        out.append(HTTP.get(f"{base}/api/games/{gid}/record").content)
    out.append(HTTP.get(f"{base}/api/games/{gid}/actions").content)
    return out


def _unlinked_game(store: Any, gid: str, seed: int) -> int:
    """A finished two-seat Elfenland game with no players linked (never rated)."""
    record, actions = _played("elfenland", 2, seed)
    store.create_game(replace(record, id=gid, status="running", seq=0))
    for seq, action in enumerate(actions, 1):
        store.append_action(gid, seq, 0, action, finished=seq == len(actions))
    return len(actions)


def test_a_finished_game_is_replayed_once_and_answered_the_same(db_url: str) -> None:
    """Every look at a finished game read its actions and replayed them again (a replay
    step or a record twice); now the first one does, and the answers are the bytes the
    server gives with the cache off."""
    config = ServerConfig(db=db_url)
    store = make_store(config)
    scan.add_players(store)
    scan.finished_game(store, "done", [scan.ANN, scan.CY], seed=4)
    rated = len(store.actions("done"))
    steps = _unlinked_game(store, "free", seed=9)
    reads = scan.count_replays(store)
    server = _serve(db_url, store)
    try:
        # The start's scan rates "done" first (its load, and the rating's own replay).
        wait_until(lambda: any(e["kind"] in ("rated", "unrated") for e in HTTP.get(
            f"{server.url}/api/games/done/events").json()["events"]), "the game is rated")
        scanned = reads["done"]
        cached = _looks(server.url, "free", steps) + _looks(server.url, "done", rated)
        assert reads["done"] == scanned <= 2, reads
    finally:
        server.stop()
    assert reads["free"] == 1, reads  # today: one per look, two per step or record
    assert all(b.startswith(b"{") for b in cached)

    store = make_store(config)
    reads = scan.count_replays(store)
    server = _serve(db_url, store, games=0)  # no cache: every look replays
    try:
        uncached = _looks(server.url, "free", steps) + _looks(server.url, "done", rated)
    finally:
        server.stop()
    assert reads["free"] >= steps
    assert cached == uncached


def test_a_game_in_play_is_never_kept(tmp_path: Path) -> None:
    async def run() -> None:
        db = str(tmp_path / "games.sqlite3")
        store = open_store(db)
        reads = scan.count_replays(store)
        hub = Hub(store, ServerConfig(db=db, bot_delay=3600.0))
        await hub.startup()
        try:
            seats: Any = [{"kind": "human"}, {"kind": "human"}]
            req = CreateGame(players=2, seed=5, seats=seats)
            game, _, token = await hub.create(req, "host")
            await hub.start(game.id, token, None)
            with pytest.raises(ValueError):
                await hub.finished.obtain(hub, game.record, game.events)
            hub.games.clear()  # as in another process: read from the store each time
            for _ in range(3):
                looked = await hub.get(game.id, keep=False)
                assert looked.record.status == "running"
                hub.games.clear()
            assert len(hub.finished) == 0 and hub.finished.builds == 0
            assert reads[game.id] == 3
        finally:
            await hub.shutdown()

    asyncio.run(run())


def test_only_the_replay_that_happens_is_charged(tmp_path: Path) -> None:
    """The ration charged a read and a whole replay again for every step of a finished
    game; a kept game's step costs the actions after its snapshot, its record none."""
    async def run() -> None:
        db = str(tmp_path / "games.sqlite3")
        store = open_store(db)
        scan.add_players(store)
        scan.finished_game(store, "done", [scan.ANN, scan.CY], seed=4)
        steps = len(store.actions("done"))
        hub = Hub(store, ServerConfig(db=db))
        try:
            ration = HttpRation(Limits())
            per = Limits().work_entries
            step = SNAPSHOT_EVERY + 5
            query = f"step={step}".encode()
            # Not kept yet: one read (the build also answers the step).
            first = await ration._game_cost(hub, "done", "replay", query)
            assert first == pytest.approx((steps + 5) / per)
            record = store.load_game("done")
            assert record is not None
            await hub.finished.obtain(hub, record, store.events("done"))
            assert await ration._game_cost(hub, "done", "replay", query) == \
                pytest.approx(5 / per)
            assert await ration._game_cost(hub, "done", "record", b"") == 0.0
            assert await ration._game_cost(hub, "done", None, b"") == 0.0
        finally:
            await hub.shutdown()

    asyncio.run(run())


def test_a_kept_games_views_are_built_off_the_event_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long game's view takes a hundred milliseconds to build: the page and the
    actions build a kept game's on the CPU threads, never on the loop every socket of
    the process waits on."""
    import threading

    from elfenland.server.finished import FinishedGame

    where: list[str] = []
    real = FinishedGame.final_view

    def spy(self: FinishedGame, seat: int | None) -> Any:
        where.append(threading.current_thread().name)
        return real(self, seat)

    monkeypatch.setattr(FinishedGame, "final_view", spy)
    db = str(tmp_path / "games.sqlite3")
    store = open_store(db)
    _unlinked_game(store, "free", seed=9)
    server = _serve(db, store)
    try:
        assert HTTP.get(f"{server.url}/api/games/free").is_success
        assert HTTP.get(f"{server.url}/api/games/free/actions").is_success
    finally:
        server.stop()
    assert len(where) >= 2 and all(name.startswith("elfenland-bot") for name in where), where


def test_a_game_too_big_to_keep_is_replayed_once_a_request(tmp_path: Path) -> None:
    """A finished game whose entry exceeds the cache's bytes is not kept, so each look
    replays it; a look asks for it twice (loading the game, then answering from it),
    and was replayed twice where the rate limit charges one replay."""
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    store = open_store(db)
    steps = _unlinked_game(store, "big", seed=11)
    reads = scan.count_replays(store)
    server = _serve(db, store, size=1)  # every entry too big
    try:
        base = f"{server.url}/api/games/big"
        looks = [lambda: HTTP.get(base),
                 lambda: HTTP.get(f"{base}/replay", params={"step": steps // 2}),
                 lambda: HTTP.get(f"{base}/record"),
                 lambda: HTTP.get(f"{base}/actions")]
        for n, look in enumerate(looks, 1):
            assert look().status_code == 200
            assert reads["big"] == n, reads
    finally:
        server.stop()

