"""King of the Elves bot strength and speed: prints the figures docs/bots.md quotes.

    python bench/bots_kingelves.py                        # 200 games per match
    python bench/bots_kingelves.py --games 40 --workers 2 --search-seconds 0.3
    python bench/bots_kingelves.py --only planner --positions 1000
    python bench/bots_kingelves.py --only planner --dump-slowest /tmp/slow.json
    python bench/bots_kingelves.py --budget 1500          # stop each match after 25 min
    python bench/bots_kingelves.py --only matches --match search-greedy

Matches (four players, seats rotated, game i from seed i + 1): greedy against three
random bots, search against three greedy bots.  For each: win rate (a shared win counts
1/k) with its 95% Wilson interval, mean gold, and the bot's thinking time per decision
(mean and worst, wall clock of the deciding process).  Then the journey planner's
median, 95th percentile and worst time over journey positions met in real bot games.
``--budget`` caps each match's wall time: the games finished by then are reported, and
the count says how many that was.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from multiprocessing import get_context
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.kingelves_greedy import keep_values
from elfenland.bots.kingelves_journey import plan_journey
from elfenland.games.kingelves.state import KingOfTheElvesState, Phase

GAME = "king-of-the-elves"
MATCHES = (("greedy", "random", 0.90), ("search", "greedy", 0.40))
Z95 = 1.959963984540054


def play(job: tuple[str, str, int, float | None]) -> dict[str, Any]:
    """One four-player game: ``me`` in seat ``i % 4``, ``them`` in the others."""
    me, them, i, seconds = job
    seat = i % 4
    bots = []
    for q in range(4):
        bot = make_bot(me if q == seat else them, GAME, (i + 1) * 16 + q)
        if seconds is not None and hasattr(bot, "seconds"):
            bot.seconds = seconds
        bots.append(bot)
    state = elfenland.new_game(GAME, players=4, seed=i + 1)
    times: list[float] = []
    while not state.is_terminal():
        p = state.current_player()
        t0 = time.perf_counter()
        action = bots[p].choose(state)
        if p == seat:
            times.append(time.perf_counter() - t0)
        state.apply_action(action)
    won = state.winners()
    return {"share": 1 / len(won) if seat in won else 0.0, "gold": state.scores()[seat],
            "times": times}


def wilson(wins: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / d
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def match(me: str, them: str, games: int, workers: int, seconds: float | None,
          budget: float | None, target: float) -> None:
    jobs = [(me, them, i, seconds) for i in range(games)]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    ctx = get_context("spawn" if sys.platform == "darwin" else "fork")
    with ctx.Pool(workers) as pool:
        for r in pool.imap_unordered(play, jobs):
            results.append(r)
            if len(results) % 10 == 0:
                print(f"  … {len(results)}/{games} games", file=sys.stderr, flush=True)
            if budget is not None and time.perf_counter() - started > budget:
                pool.terminate()
                break
    n = len(results)
    wins = sum(r["share"] for r in results)
    lo, hi = wilson(wins, n)
    times = [t for r in results for t in r["times"]]
    gold = statistics.mean(r["gold"] for r in results) if results else 0.0
    budget_text = "" if seconds is None or me != "search" else f", {seconds} s budget"
    print(f"\n{me} vs 3 {them}{budget_text}: {n} of {games} games "
          f"({time.perf_counter() - started:.0f} s wall, {workers} workers)")
    print(f"  win rate {wins / max(n, 1):.1%}  95% CI [{lo:.1%}, {hi:.1%}]  "
          f"(target {target:.0%}; parity 25%)")
    if times:
        print(f"  mean gold {gold:.1f}; time per decision: mean {statistics.mean(times):.3f} s, "
              f"worst {max(times):.3f} s over {len(times)} decisions")
    sys.stdout.flush()


def journey_positions(count: int) -> list[KingOfTheElvesState]:
    """Journey positions (each step of each traveller) from four-player games of two
    greedy and two random bots, the variants taking turns."""
    variants: tuple[dict[str, bool], ...] = (
        {}, {"magic_spell": True}, {"weak_gold": True}, {"gold_for_all": True})
    out: list[KingOfTheElvesState] = []
    seed = 0
    while len(out) < count:
        state = elfenland.new_game(GAME, players=4, seed=5000 + seed,
                                   **variants[seed % len(variants)])
        assert isinstance(state, KingOfTheElvesState)
        bots = [make_bot("greedy" if q % 2 == 0 else "random", GAME, seed * 8 + q)
                for q in range(4)]
        while not state.is_terminal() and len(out) < count:
            if state.phase is Phase.JOURNEY:
                out.append(state.clone())
            state.apply_action(bots[state.current_player()].choose(state))
        seed += 1
    return out


def planner_times(count: int, dump: str | None = None) -> None:
    """``dump``: a file for the ten slowest positions (position documents, slowest
    first, each with its time), to study or replay them."""
    positions = journey_positions(count)
    times = []
    inexact = 0
    for s in positions:
        t0 = time.perf_counter()
        plan = plan_journey(s, values=keep_values(s))
        times.append(time.perf_counter() - t0)
        inexact += not plan.exact
    cards = [sum(s.hands[s.current]) for s in positions]
    if dump is not None:
        slowest = sorted(range(len(times)), key=lambda i: -times[i])[:10]
        with open(dump, "w", encoding="utf-8") as f:
            json.dump([{"index": i, "ms": round(times[i] * 1000, 2),
                        "position": positions[i].to_position()} for i in slowest], f)
    times.sort()
    print(f"\njourney planner over {len(times)} journey positions from bot games "
          f"(hands of {min(cards)}–{max(cards)} cards): "
          f"median {statistics.median(times) * 1000:.2f} ms, "
          f"95th percentile {times[int(0.95 * len(times))] * 1000:.2f} ms, "
          f"worst {times[-1] * 1000:.1f} ms; over budget (fallback used): {inexact}")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--search-seconds", type=float, default=None,
                        help="the search bot's time per decision (default: its own, 0.8)")
    parser.add_argument("--budget", type=float, default=None,
                        help="wall seconds per match; unfinished games are left out")
    parser.add_argument("--only", choices=("matches", "planner"), default=None)
    parser.add_argument("--match", choices=[f"{me}-{them}" for me, them, _ in MATCHES],
                        default=None, help="play one match only (e.g. search-greedy)")
    parser.add_argument("--dump-slowest", metavar="FILE", default=None,
                        help="write the planner's ten slowest positions to FILE (JSON)")
    args = parser.parse_args()
    if args.only != "matches":
        planner_times(args.positions, args.dump_slowest)
    if args.only == "planner":
        return 0
    for me, them, target in MATCHES:
        if args.match not in (None, f"{me}-{them}"):
            continue
        match(me, them, args.games, args.workers, args.search_seconds, args.budget, target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
