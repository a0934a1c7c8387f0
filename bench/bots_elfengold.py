"""Elfengold bot strength and speed: greedy against three random bots, search against
three greedy bots (four players), with 95% Wilson intervals, and the seconds per
decision of the bot under test (median, 99th percentile, worst; CPU and wall).

    nice -n 10 python bench/bots_elfengold.py --match greedy-random --games 200
    nice -n 10 python bench/bots_elfengold.py --match search-greedy --games 200 \\
        --max-seconds 3000

Seats are rotated and seeds paired: game ``i`` deals seed ``seed + i // players`` and
seats the bot under test at ``i % players``, so every deal is played with the bot in
every seat (a seat's advantage and a deal's luck cancel out in whole blocks); ``--seed
26 --games 100`` plays exactly games 100-199 of ``--seed 1 --games 200``, so a match may
run as halves side by side.  The search bot gets a fixed iteration budget
(``--iterations``, the deals of its placement search, which ``--place-search`` turns
on) and no clock (``--search-seconds`` adds one), so a loaded machine changes how long
the match takes, not its result; its decision times are measured in the same run, under
that same budget: CPU seconds (what the bot's work costs, nearly independent of the
load) and wall seconds (what a player waits on this machine as loaded as it was).  One
process, one game at a time (the machine is shared): ``--max-seconds`` stops the match
after the game that passes it and prints the figures of the games played, saying how
many that was.
A shared win counts as a fraction (1 / number of winners).
"""

from __future__ import annotations

import argparse
import statistics
import time

from elfenland.bots import make_bot
from elfenland.bots.base import Bot
from elfenland.bots.elfengold_search import ElfengoldSearchBot
from elfenland.bots.tournament import wilson
from elfenland.games.elfengold.state import ElfengoldState
from elfenland.games.registry import new_game

GOALS = {"greedy-random": 0.90, "search-greedy": 0.40}


def make(level: str, seed: int, iterations: int, seconds: float | None,
         place_search: bool = False) -> Bot:
    if level == "search":
        return ElfengoldSearchBot(seed, iterations=iterations, seconds=seconds,
                                  place_search=place_search)
    return make_bot(level, "elfengold", seed)


def spread(xs: list[float]) -> str:
    if not xs:
        return "none"
    xs = sorted(xs)
    p99 = xs[min(len(xs) - 1, int(0.99 * len(xs)))]
    return f"median {statistics.median(xs):.4f}, p99 {p99:.3f}, worst {xs[-1]:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--match", choices=sorted(GOALS), default="greedy-random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=540.0)
    parser.add_argument("--iterations", type=int, default=8,
                        help="deals per searched placement (the search's fixed budget)")
    parser.add_argument("--search-seconds", type=float, default=None,
                        help="also a wall-clock budget per decision (default: none)")
    parser.add_argument("--place-search", action="store_true",
                        help="the search bot searches its placements (off by default)")
    parser.add_argument("--witch", action="store_true")
    parser.add_argument("--random-gold", action="store_true")
    args = parser.parse_args()
    me, them = args.match.split("-")
    n = args.players
    wins = 0.0
    played = 0
    cpu: list[float] = []
    wall: list[float] = []
    by_phase: dict[str, list[float]] = {}
    towns: list[int] = []
    rival_towns: list[float] = []
    coins: list[int] = []
    rival_coins: list[float] = []
    by_seat = [[0.0, 0] for _ in range(n)]
    started = time.perf_counter()
    for i in range(args.games):
        seed = args.seed + i // n
        seat = i % n
        levels = [them] * n
        levels[seat] = me
        bots = [make(level, seed * 16 + s, args.iterations, args.search_seconds,
                     args.place_search) for s, level in enumerate(levels)]
        state = new_game("elfengold", players=n, seed=seed, witch=args.witch,
                         random_gold=args.random_gold)
        assert isinstance(state, ElfengoldState)
        while not state.is_terminal():
            p = state.current_player()
            phase = state.phase.value
            c0, t0 = time.process_time(), time.perf_counter()
            action = bots[p].choose(state)
            if p == seat:
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - t0)
                by_phase.setdefault(phase, []).append(cpu[-1])
            state.apply_action(action)
        winners = state.winners()
        share = 1 / len(winners) if seat in winners else 0.0
        wins += share
        by_seat[seat][0] += share
        by_seat[seat][1] += 1
        played += 1
        towns.append(state.markers(seat))
        rival_towns.append(statistics.mean(state.markers(q) for q in range(n) if q != seat))
        coins.append(state.coins[seat])
        rival_coins.append(statistics.mean(state.coins[q] for q in range(n) if q != seat))
        if time.perf_counter() - started > args.max_seconds:
            break
    low, high = wilson(wins, played)
    budget = (f"iterations={args.iterations} search_seconds={args.search_seconds} "
              f"place_search={args.place_search}"
              if me == "search" else "")
    print(f"elfengold {me} vs {n - 1} {them}: {played} of {args.games} games asked "
          f"({time.perf_counter() - started:.0f} s wall), options: "
          f"witch={args.witch} random_gold={args.random_gold} {budget}")
    print(f"  win rate {wins / played:.3f} ({wins:g} of {played})  95% Wilson "
          f"[{low:.3f}, {high:.3f}]  goal {GOALS[args.match]:.2f}  "
          f"(parity {1 / n:.2f})")
    print("  by seat: " + ", ".join(f"{s}: {w:g}/{g}" for s, (w, g) in enumerate(by_seat)))
    print(f"  towns: {me} {statistics.mean(towns):.2f}, each {them} "
          f"{statistics.mean(rival_towns):.2f}; coins (the tie-break): {me} "
          f"{statistics.mean(coins):.1f}, each {them} {statistics.mean(rival_coins):.1f}")
    print(f"  {me} CPU seconds per decision: {spread(cpu)} ({len(cpu)} decisions)")
    print(f"  {me} wall seconds per decision: {spread(wall)}")
    for phase, xs in sorted(by_phase.items()):
        print(f"    {phase:12} CPU {spread(xs)} ({len(xs)})")


if __name__ == "__main__":
    main()
