"""What the King of the Elves quick bot's rollouts cost with each rollout policy
(``learned_rollouts``: 0 ``fast_policy`` for every seat, 1 the learned policy for the
rivals, 2 for the searcher, 3 for both), side by side in one run on the same searched
positions (4 players, met in games of greedy bots) with the same seeds: CPU per
rollout, building steps per rollout, the share of those steps the policy played, and
rollouts a 20 ms decision buys.

    nice -n 10 python bench/kingelves_rollouts.py --positions 40 --deals 8
    nice -n 10 python bench/kingelves_rollouts.py --planners --positions 30 --deals 8

``--planners`` (issue #25): the journey planner compiled against the pure one, the
reference.  First every ``plan_journey`` call the quick bot's rollouts make on the
searched positions is recorded (state, player, arguments), and each is timed with both
planners in turns (the best of ``--repeat`` runs of each, CPU time): time a call,
median, 95th percentile and worst, and the ratio of the totals.  Then the quick bot
(``fast_policy`` rollouts) searches the same positions with the same seeds with its
plans pure and compiled (``kingelves_journey.use_backend``), interleaved: rollouts per
CPU second and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from elfenland.bots import kingelves_journey, kingelves_quick
from elfenland.bots.learned_rollout import rollout_policy
from search_strength import searched_positions

GAME = "king-of-the-elves"
SETTINGS = (0, 1, 2, 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--deals", type=int, default=8, help="deals of every root a search")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved passes")
    parser.add_argument("--planners", action="store_true",
                        help="the journey planner compiled against pure (see the doc)")
    parser.add_argument("--repeat", type=int, default=3, help="--planners: runs a call")
    parser.add_argument("--calls", type=int, default=3000,
                        help="--planners: planner calls timed, at most")
    args = parser.parse_args()
    positions = searched_positions(GAME, args.positions)
    if args.planners:
        planners(positions, args)
        return 0
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


def spread(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (f"median {statistics.median(ordered) * 1e6:.0f} us, p95 {p95 * 1e6:.0f} us, "
            f"worst {ordered[-1] * 1e3:.2f} ms")


def planners(positions: list[tuple[Any, list[Any]]], args: Any) -> None:
    """See the module doc, ``--planners``."""
    if kingelves_journey.planner_backend() != "compiled":
        raise SystemExit("the compiled journey planner is not built (or ELFENLAND_ENGINE=pure)")
    calls: list[tuple[Any, int, dict[str, Any]]] = []
    real = kingelves_quick.plan_journey

    def recording(state: Any, player: Any = None, **kwargs: Any) -> Any:
        if len(calls) < args.calls:
            calls.append((state.clone(), player, kwargs))
        return real(state, player, **kwargs)
    kingelves_quick.plan_journey = recording  # type: ignore[assignment]
    for i, (state, roots) in enumerate(positions):
        bot = kingelves_quick.KingOfTheElvesQuickBot(i, iterations=args.deals * len(roots),
                                                     seconds=1e9)
        bot.search(state, roots)
    kingelves_quick.plan_journey = real
    took: dict[str, list[float]] = {"pure": [], "compiled": []}
    for state, player, kwargs in calls:
        for backend in ("pure", "compiled"):
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.thread_time()
                kingelves_journey.plan_journey(state, player, backend=backend, **kwargs)
                best = min(best, time.thread_time() - t0)
            took[backend].append(best)
        # The same plan, as the differential test holds (a cheap spot check here).
    same = sum(kingelves_journey.plan_journey(s, q, backend="pure", **k)
               == kingelves_journey.plan_journey(s, q, **k) for s, q, k in calls[:200])
    print(f"{len(calls)} plan_journey calls of the quick bot's rollouts on {len(positions)} "
          f"searched positions (4 players, {args.deals} deals of every root), the best of "
          f"{args.repeat} CPU timings each; {same}/{min(200, len(calls))} spot-checked equal")
    for backend in ("pure", "compiled"):
        print(f"  {backend:8s}: {spread(took[backend])}, total {sum(took[backend]):.3f} s")
    ratios = sorted(p / c for p, c in zip(took["pure"], took["compiled"], strict=True) if c)
    print(f"  pure / compiled: totals {sum(took['pure']) / sum(took['compiled']):.1f}x, "
          f"per call median {statistics.median(ratios):.1f}x")
    cpu = {"pure": 0.0, "compiled": 0.0}
    rollouts = {"pure": 0, "compiled": 0}
    for _ in range(args.rounds):
        for i, (state, roots) in enumerate(positions):
            for backend in ("pure", "compiled"):
                bot = kingelves_quick.KingOfTheElvesQuickBot(
                    i, iterations=args.deals * len(roots), seconds=1e9)
                with kingelves_journey.use_backend(backend):
                    t0 = time.thread_time()
                    bot.search(state, roots)
                    cpu[backend] += time.thread_time() - t0
                rollouts[backend] += bot.rollouts
    rate = {b: rollouts[b] / cpu[b] for b in cpu}
    print(f"quick bot, {args.rounds} interleaved passes over the positions:")
    for backend in ("pure", "compiled"):
        print(f"  planner {backend:8s}: {rollouts[backend]} rollouts in {cpu[backend]:.2f} CPU "
              f"s, {rate[backend]:.0f} rollouts per CPU second")
    print(f"  compiled / pure: {rate['compiled'] / rate['pure']:.2f}x the rollouts per CPU "
          f"second")


if __name__ == "__main__":
    raise SystemExit(main())
