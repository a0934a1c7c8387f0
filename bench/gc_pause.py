"""The garbage collector's pause inside the quick level's decisions over a long process
(issue #25: a time budget that holds; ``docs/bots.md``, Quick, session 32).

A full collection of Python's cyclic garbage collector walks every tracked object the
process holds, and it runs inside whichever decision allocates past its threshold, on
that bot's clock.  The Elfenland planner keeps the steps of the journeys it planned
(``planner._STEPS``), a few thousand new ones a game, so a long process (a bench
match, a server playing bots for days) holds more and more of them, and its worst
decision grows with it.  This plays the four-player match of
``bench/search_strength.py`` (the quick level in every seat of each deal against three
``search`` bots as at the goal, 20 ms of thread CPU a decision) in one process, and
prints after every ``--every`` games: the steps held, the objects the collector tracks,
what one full collection then costs in CPU, and the quick level's worst decision and
its decisions over 40 ms in those games.  ``--step-cache N`` sets the bound
(``planner.STEP_CACHE``) for the run, so that two runs side by side compare bounds:

    nice -n 5 python bench/gc_pause.py --games 400 --step-cache 200000 &
    nice -n 5 python bench/gc_pause.py --games 400
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import search_strength
from elfenland.bots import planner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--every", type=int, default=80)
    parser.add_argument("--first", type=int, default=300_000)
    parser.add_argument("--budget", type=float, default=0.02)
    parser.add_argument("--step-cache", type=int, default=planner.STEP_CACHE)
    args = parser.parse_args()
    planner.STEP_CACHE = args.step_cache
    search_strength.SEARCH_SCALE[0] = 0.41
    print(f"step cache bound {args.step_cache:,}; {args.games} four-player games from "
          f"{args.first}, {args.budget * 1000:.0f} ms of thread CPU a decision")
    print("games | steps held | tracked objects | a full collection | "
          "quick's worst decision | decisions over 40 ms")
    worst: list[float] = []
    for k in range(args.games):
        result = search_strength.play("elfenland", "four", args.first + k, args.budget)
        worst.extend(result["cpu"]["quick"])
        if (k + 1) % args.every == 0:
            gc.collect()
            t0 = time.thread_time()
            gc.collect()
            full = time.thread_time() - t0
            print(f"{k + 1} | {len(planner._STEPS):,} | {len(gc.get_objects()):,} | "
                  f"{full * 1000:.1f} ms | {max(worst) * 1000:.1f} ms | "
                  f"{sum(t > 0.04 for t in worst)} of {len(worst):,}", flush=True)
            worst = []


if __name__ == "__main__":
    main()
