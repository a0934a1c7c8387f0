"""Seconds per decision of the ``learned`` bot, numpy and pure Python side by side.

    python bench/learned.py --games 10 [--game king-of-the-elves]

Each game (4 players, seeds 1..N) seats the learned bot with one backend, then
the other, at seat ``game mod 4`` against three greedy bots on the same seed, so both
backends decide the same positions (their choices are the same); the greedy bots'
decisions are timed too, for scale.  Process CPU time per decision, and the ratio.
"""

from __future__ import annotations

import argparse
import time

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.learned import LearnedBot


def timed_game(game: str, backend: str,
               seed: int) -> tuple[float, int, float, int, list[int]]:
    seat = seed % 4
    bots: list[object] = [make_bot("greedy", game, seed + s) for s in range(4)]
    bots[seat] = LearnedBot(game, backend=backend)
    state = elfenland.new_game(game, players=4, seed=seed)
    spent, count, g_spent, g_count = 0.0, 0, 0.0, 0
    while not state.is_terminal():
        p = state.current_player()
        t = time.process_time()
        action = bots[p].choose(state)  # type: ignore[attr-defined]
        dt = time.process_time() - t
        if p == seat:
            spent, count = spent + dt, count + 1
        else:
            g_spent, g_count = g_spent + dt, g_count + 1
        state.apply_action(action)
    return spent, count, g_spent, g_count, state.scores()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--game", default="elfenland",
                        help="a game with shipped weights: elfenland or king-of-the-elves")
    args = parser.parse_args()
    total = {"numpy": [0.0, 0], "python": [0.0, 0], "greedy": [0.0, 0]}
    for seed in range(1, args.games + 1):
        results = {}
        for backend in ("numpy", "python"):  # interleaved, game by game
            spent, count, g_spent, g_count, scores = timed_game(args.game, backend, seed)
            total[backend][0] += spent
            total[backend][1] += count
            total["greedy"][0] += g_spent
            total["greedy"][1] += g_count
            results[backend] = scores
        assert results["numpy"] == results["python"], "the backends played differently"
    per = {k: v[0] / max(1, int(v[1])) for k, v in total.items()}
    print(f"{'decider':<22} {'decisions':>9} {'ms/decision':>12}")
    for k, label in (("numpy", "learned, numpy"), ("python", "learned, pure Python"),
                     ("greedy", "greedy (for scale)")):
        print(f"{label:<22} {int(total[k][1]):>9} {1000 * per[k]:>12.3f}")
    print(f"pure Python / numpy: {per['python'] / per['numpy']:.2f}x")


if __name__ == "__main__":
    main()
