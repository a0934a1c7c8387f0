"""Elfengold bot strength and speed: greedy against three random bots, search against
three greedy bots (four players, the bot under test rotated through the seats, game ``i``
from seed ``seed + i``), with 95% Wilson intervals, and the seconds per decision of the
bot under test (mean, 99th percentile, worst).

    python bench/bots_elfengold.py --match greedy-random --games 200 --max-seconds 540
    python bench/bots_elfengold.py --match search-greedy --games 200 --max-seconds 540

One process, one game at a time (the machine is shared): ``--max-seconds`` stops the
match after the game that passes it and prints the figures of the games played, saying
how many that was.  A shared win counts as a fraction (1 / number of winners).
"""

from __future__ import annotations

import argparse
import statistics
import time

from elfenland.bots import make_bot
from elfenland.bots.tournament import wilson
from elfenland.games.registry import new_game

GOALS = {"greedy-random": 0.90, "search-greedy": 0.40}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", choices=sorted(GOALS), default="greedy-random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=540.0)
    parser.add_argument("--search-seconds", type=float, default=None,
                        help="time budget per searched decision")
    parser.add_argument("--witch", action="store_true")
    parser.add_argument("--random-gold", action="store_true")
    args = parser.parse_args()
    me, them = args.match.split("-")
    n = args.players
    wins = 0.0
    played = 0
    times: list[float] = []
    towns: list[int] = []
    rival_towns: list[float] = []
    started = time.perf_counter()
    for i in range(args.games):
        seed = args.seed + i
        seat = i % n
        levels = [them] * n
        levels[seat] = me
        bots = [make_bot(level, "elfengold", seed * 16 + s) for s, level in enumerate(levels)]
        if args.search_seconds is not None:
            for b in bots:
                if hasattr(b, "seconds"):
                    b.seconds = args.search_seconds
        state = new_game("elfengold", players=n, seed=seed, witch=args.witch,
                         random_gold=args.random_gold)
        while not state.is_terminal():
            p = state.current_player()
            t0 = time.perf_counter()
            action = bots[p].choose(state)
            if p == seat:
                times.append(time.perf_counter() - t0)
            state.apply_action(action)
        winners = state.winners()
        if seat in winners:
            wins += 1 / len(winners)
        played += 1
        towns.append(state.markers(seat))
        rival_towns.append(statistics.mean(state.markers(q) for q in range(n) if q != seat))
        if time.perf_counter() - started > args.max_seconds:
            break
    low, high = wilson(wins, played)
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0
    print(f"elfengold {me} vs {n - 1} {them}: {played} of {args.games} games asked "
          f"({time.perf_counter() - started:.0f} s wall), options: "
          f"witch={args.witch} random_gold={args.random_gold}")
    print(f"  win rate {wins / played:.3f}  95% Wilson [{low:.3f}, {high:.3f}]  "
          f"goal {GOALS[args.match]:.2f}")
    print(f"  towns: {me} {statistics.mean(towns):.1f}, each {them} "
          f"{statistics.mean(rival_towns):.1f}")
    print(f"  {me} seconds per decision: mean {statistics.mean(times):.4f}, "
          f"p99 {p99:.3f}, worst {times[-1] if times else 0.0:.3f} ({len(times)} decisions)")


if __name__ == "__main__":
    main()
