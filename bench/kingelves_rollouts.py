"""What the King of the Elves quick bot's rollouts cost with each rollout policy
(``learned_rollouts``: 0 ``fast_policy`` for every seat, 1 the learned policy for the
rivals, 2 for the searcher, 3 for both), side by side in one run on the same searched
positions (4 players, met in games of greedy bots) with the same seeds: CPU per
rollout, building steps per rollout, the share of those steps the policy played, and
rollouts a 20 ms decision buys.

    nice -n 10 python bench/kingelves_rollouts.py --positions 40 --deals 8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from elfenland.bots import kingelves_quick
from elfenland.bots.learned_rollout import rollout_policy
from search_strength import searched_positions

GAME = "king-of-the-elves"
SETTINGS = (0, 1, 2, 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--deals", type=int, default=8, help="deals of every root a search")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved passes")
    args = parser.parse_args()
    positions = searched_positions(GAME, args.positions)
    policy = rollout_policy(positions[0][0])
    if policy is None:
        raise SystemExit("the learned policy cannot play here (numpy, compiled engine)")
    cpu = dict.fromkeys(SETTINGS, 0.0)
    rollouts = dict.fromkeys(SETTINGS, 0)
    steps = dict.fromkeys(SETTINGS, 0)
    learned = dict.fromkeys(SETTINGS, 0)
    real = kingelves_quick.fast_policy
    counted = [0]

    def fast(*a: Any, **k: Any) -> int:
        counted[0] += 1
        return real(*a, **k)
    kingelves_quick.fast_policy = fast
    for _ in range(args.rounds):
        for i, (state, roots) in enumerate(positions):
            for setting in SETTINGS:
                bot = kingelves_quick.KingOfTheElvesQuickBot(i, iterations=args.deals
                                                            * len(roots), seconds=1e9)
                bot.learned_rollouts = setting
                counted[0], before = 0, policy.steps
                t0 = time.thread_time()
                bot.search(state, roots)
                cpu[setting] += time.thread_time() - t0
                rollouts[setting] += bot.rollouts
                steps[setting] += counted[0] + policy.steps - before
                learned[setting] += policy.steps - before
    print(f"{len(positions)} searched positions (4 players), {args.deals} deals of every "
          f"root, {args.rounds} interleaved passes")
    print("| learned_rollouts | CPU a rollout | building steps a rollout (chosen, not "
          "forced) | by the policy | rollouts in 20 ms |")
    print("| --- | --- | --- | --- | --- |")
    for s in SETTINGS:
        per = cpu[s] / rollouts[s]
        print(f"| {s} | {per * 1000:.3f} ms ({per / (cpu[0] / rollouts[0]):.2f}x) | "
              f"{steps[s] / rollouts[s]:.1f} | {learned[s] / max(1, steps[s]):.0%} | "
              f"{0.02 / per:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
