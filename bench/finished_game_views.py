"""Looking at a long finished game that is not in memory, with and without the finished
games' cache (``elfenland.server.finished``), side by side in one run.

A random six-player Elfengold game (some 4,000 actions) is stored in a SQLite file; a
real server (``BackgroundServer``) answers its page, every ``--stride``-th replay step
and its record, once with the cache off (``finished_games=0``: every answer replays the
game) and once with it on; the medians of each kind and their ratio are printed.

    python bench/finished_game_views.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import httpx

from elfenland.server.background import BackgroundServer
from elfenland.server.config import Limits, ServerConfig
from elfenland.server.live import build_state, now_iso
from elfenland.server.store import GameRecord, SeatRecord, open_store

FREE = Limits(work_address_burst=10**9, work_per_address=10**6)


def store_game(db: str, game: str, players: int, seed: int) -> tuple[str, int]:
    seats = tuple(SeatRecord(i, "human", f"p{i}", None, f"h{i}") for i in range(players))
    record = GameRecord("long", game, players, None, {}, seed, "running", 0, now_iso(), "h",
                        seats)
    state, pick, actions = build_state(record), random.Random(seed), []
    while not state.is_terminal():
        action = str(pick.choice(state.legal_actions()))
        state.apply_action(action)
        actions.append(action)
    store = open_store(db)
    try:
        store.create_game(replace(record))
        for seq, action in enumerate(actions, 1):
            store.append_action("long", seq, 0, action, finished=seq == len(actions))
    finally:
        store.close()
    return "long", len(actions)


def measure(db: str, gid: str, steps: int, games: int, stride: int,
            repeat: int) -> dict[str, float]:
    """Median milliseconds of a page view, a replay step and a record download."""
    config = ServerConfig(db=db, limits=FREE, finished_games=games)
    times: dict[str, list[float]] = {"page": [], "step": [], "record": []}
    with BackgroundServer(config) as server, httpx.Client(timeout=60) as http:
        base = f"{server.url}/api/games/{gid}"
        http.get(base).raise_for_status()  # warm-up (and, with the cache, its one build)
        for kind, url, params in (
                [("page", base, {})] * repeat
                + [("step", f"{base}/replay", {"step": s}) for s in range(0, steps, stride)]
                + [("record", f"{base}/record", {})] * repeat):
            start = time.perf_counter()
            http.get(url, params=params).raise_for_status()
            times[kind].append(time.perf_counter() - start)
    return {kind: statistics.median(t) * 1e3 for kind, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="elfengold")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--stride", type=int, default=37, help="replay steps asked")
    parser.add_argument("--repeat", type=int, default=20, help="pages and records asked")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "games.sqlite3")
        gid, steps = store_game(db, args.game, args.players, args.seed)
        print(f"{args.game}, {args.players} players, {steps} actions")
        off = measure(db, gid, steps, 0, args.stride, args.repeat)
        on = measure(db, gid, steps, ServerConfig.finished_games, args.stride, args.repeat)
    print(f"{'answer':8} {'no cache ms':>12} {'cache ms':>10} {'ratio':>7}")
    for kind in off:
        print(f"{kind:8} {off[kind]:12.2f} {on[kind]:10.2f} {off[kind] / on[kind]:7.1f}")


if __name__ == "__main__":
    main()
