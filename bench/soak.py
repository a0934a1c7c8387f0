"""Soak test: many random whole games of both engines under every rule set, variant and
reading, with every invariant checked after every step.

    python bench/soak.py [--games 10000] [--workers 2] [--seed 0] [--quiet]

Game ``i`` plays configuration ``i % len(CONFIGS)`` (each game's rule options crossed
with 2–6 players; Elfengold's options each once, its player count going round 2–6 from
one cycle of the configurations to the next, so that its long games do not take over the
run) from seed ``seed + i``, choosing uniformly among the legal actions.
After every action: the game's invariants (``elfenland.games.invariants``, the same
checks the property tests and the position loader use) and, for Elfenland, what only the
sequence of states shows.  At one random step of each game and at its end: the position
document loads back to the same document and a clone is equal; at the end the saved
game replays to an equal state.
It prints counts and times, and every failure with what reproduces it; the exit status is
1 if anything failed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import elfenland
from elfenland.games.elfengold.invariants import CONFIGURATIONS as ELFENGOLD_CONFIGS
from elfenland.games.elfengold.invariants import Watcher as ElfengoldWatcher
from elfenland.games.elfengold.state import ElfengoldState
from elfenland.games.elfenland.invariants import CONFIGURATIONS as ELFENLAND_CONFIGS
from elfenland.games.elfenland.invariants import Watcher
from elfenland.games.elfenland.state import ElfenlandState
from elfenland.games.invariants import check_game_state
from elfenland.games.kingelves.invariants import CONFIGURATIONS as KING_CONFIGS

#: ``players`` of a configuration whose player count goes round 2–6 game by game.
ROTATING = 0
#: (game, players, new_game options) for every combination the soak cycles through.
CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    (game, players, dict(options))
    for game, configs in (("elfenland", ELFENLAND_CONFIGS),
                          ("king-of-the-elves", KING_CONFIGS))
    for options in configs
    for players in range(2, 7)
] + [("elfengold", ROTATING, dict(options)) for options in ELFENGOLD_CONFIGS]
#: A game longer than this is a failure (no real game comes near).
STEP_LIMIT = 100_000


def label(game: str, players: int, options: dict[str, Any]) -> str:
    opts = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{game} {players}p {opts}".strip()


def play_one(index: int, base_seed: int) -> tuple[str, int, str | None]:
    """One game: (its configuration's label, steps played, failure or None)."""
    game, players, options = CONFIGS[index % len(CONFIGS)]
    if players == ROTATING:
        players = 2 + index // len(CONFIGS) % 5
    seed = base_seed + index
    name = label(game, players, options)
    rng = random.Random(seed)
    steps = 0
    try:
        state = elfenland.new_game(game=game, players=players, seed=seed, **options)
        watcher = Watcher(state) if isinstance(state, ElfenlandState) else None
        gold_watcher = (ElfengoldWatcher(state) if isinstance(state, ElfengoldState)
                        else None)
        snapshot_at = rng.randrange(1, 400)
        check_game_state(state)
        while not state.is_terminal():
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            mover = state.current_player()
            if watcher is not None:
                assert isinstance(state, ElfenlandState)
                was_discarding, round_before = state.discarding, state.round
            state.apply_action(action)
            steps += 1
            check_game_state(state)
            if watcher is not None:
                assert isinstance(state, ElfenlandState)
                watcher.after(state, mover, str(action), was_discarding, round_before)
            if gold_watcher is not None:
                assert isinstance(state, ElfengoldState)
                gold_watcher.after(state)
            if steps == snapshot_at:
                check_position(state)
            if steps > STEP_LIMIT:
                raise AssertionError(f"no end after {STEP_LIMIT} steps")
        check_position(state)
        if elfenland.deserialize(state.serialize()) != state:
            raise AssertionError("the saved game does not replay to an equal state")
    except Exception as exc:  # every failure is reported, whatever its kind
        return name, steps, (f"{name} seed {seed} (game {index}) after {steps} steps: "
                             f"{type(exc).__name__}: {exc}")
    return name, steps, None


def check_position(state: elfenland.GameState) -> None:
    doc = json.loads(json.dumps(state.to_position()))
    if elfenland.load_position(doc).to_position() != doc:
        raise AssertionError("the position does not load back to the same document")
    if state.clone() != state:
        raise AssertionError("a clone differs from its original")


def _chunk(args: tuple[int, int, int]) -> list[tuple[str, int, str | None]]:
    start, stop, base_seed = args
    return [play_one(i, base_seed) for i in range(start, stop)]


def run(games: int, workers: int, base_seed: int) -> Iterator[tuple[str, int, str | None]]:
    size = max(1, min(50, games // (workers * 8) or 1))
    chunks = [(i, min(i + size, games), base_seed) for i in range(0, games, size)]
    if workers <= 1:
        for chunk in chunks:
            yield from _chunk(chunk)
        return
    with ProcessPoolExecutor(workers) as pool:
        for results in pool.map(_chunk, chunks):
            yield from results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="print only the totals")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    games: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    failures: list[str] = []
    for name, n, failure in run(args.games, args.workers, args.seed):
        games[name] += 1
        steps[name] += n
        if failure is not None:
            failures.append(failure)
            print("FAIL", failure, flush=True)
    wall = time.perf_counter() - start
    if not args.quiet:
        width = max(map(len, games), default=13) + 2
        print(f"{'configuration':<{width}}{'games':>7}{'steps':>11}")
        for name in sorted(games):
            print(f"{name:<{width}}{games[name]:>7}{steps[name]:>11,}")
    total_steps = sum(steps.values())
    print(f"{sum(games.values())} games, {total_steps:,} steps, {len(games)} configurations, "
          f"{len(failures)} failures; {wall:.1f} s wall with {args.workers} workers "
          f"({total_steps / wall:,.0f} checked steps/s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
