"""Random-play speed of every game's engine: steps per second and complete games per second.

    python bench/engine.py [--seconds 5] [--players 2 4 6]

One core, pure Python; the random player's own choice (``rng.randrange``) is included, as
a researcher's loop would include it.  Rates are per second of this process's CPU time,
so that other work on the machine does not distort them.
"""

from __future__ import annotations

import argparse
import random
import time

import elfenland
from elfenland.games.registry import GAMES


def measure(game: str, players: int, seconds: float) -> tuple[float, float, float]:
    rng = random.Random(0)
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = elfenland.new_game(game=game, players=players, seed=games)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        games += 1
    elapsed = time.process_time() - start
    return steps / elapsed, games / elapsed, steps / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--game", nargs="+", default=sorted(GAMES))
    args = parser.parse_args()
    # Warm the lazily built action tables so that they are not timed.
    for game in args.game:
        elfenland.new_game(game=game, players=2, seed=0).legal_actions()
    print(f"{'game':<20}{'players':>8}{'steps/s':>12}{'games/s':>10}{'steps/game':>12}")
    for game in args.game:
        for n in args.players:
            steps_s, games_s, per_game = measure(game, n, args.seconds)
            print(f"{game:<20}{n:>8}{steps_s:>12,.0f}{games_s:>10.1f}{per_game:>12.0f}")


if __name__ == "__main__":
    main()
