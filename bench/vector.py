"""The batched environment's speed beside the raw engine's, side by side in one run.

    python bench/vector.py [--seconds 2] [--rounds 3] [--players 4] [--n 1 64 1024]
                           [--game elfenland king-of-the-elves]

Modes, each playing whole random games (a new game at each end) for ``--seconds`` of
this process's CPU time per round, the modes taking turns so a busy machine slows them
alike; rates are steps per CPU second (one core):

* ``raw engine``: ``ids = state.legal_action_ids()`` and ``state.apply_action(id)``, a
  random legal id chosen with ``random.Random`` (no observation, no mask);
* ``raw + obs + mask``: the same plus the acting seat's observation and the legal-action
  mask written by the engine into numpy buffers (``_observe_into``, ``_legal_mask_into``),
  what a single-game learner needs each step;
* ``vector N=…``: ``VectorGames.step(actions)`` over N games, which leaves the acting
  seat's observation, the mask and the padded legal ids of every game in its arrays; the
  random legal id of each game is picked with numpy from ``legal_ids`` and ``num_legal``
  (counted in the rate: a learner pays that too).  ``step µs`` is the step call alone
  per game step: one call in ``SAMPLE`` is timed (CPU time read around it, less what
  reading the clock twice costs, measured first).

Reading this process's CPU clock is a system call (about 1 µs here), so every loop reads
it once per ``CLOCK_EVERY`` steps (the raw loops once per game, hundreds of steps), not
once per step: at N = 1 it would otherwise be most of what the vector mode measures.

Columns: steps/s, µs/step, and ``raw/mode`` (the raw engine's rate over the mode's: the
issue's goal is a batched step with observation and mask within 1.5× of the raw step).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

import numpy as np

import elfenland
from elfenland.envs.observation import num_actions
from elfenland.envs.vector import VectorGames

Loop = Callable[[float], tuple[int, float]]

#: The vector loops read the clock once per this many game steps (at least once a call).
CLOCK_EVERY = 256
#: One step call in this many is timed for ``step µs``.
SAMPLE = 16


def clock_cost() -> float:
    """CPU seconds that reading the CPU clock twice adds to a timed interval."""
    best = float("inf")
    for _ in range(5):
        total = 0.0
        for _ in range(2000):
            t = time.process_time()
            total += time.process_time() - t
        best = min(best, total / 2000)
    return best


def raw_loop(game: str, players: int, observe: bool) -> Loop:
    rng = random.Random(0)
    seeds = iter(range(10**9))
    probe = elfenland.new_game(game=game, players=players, seed=0)
    obs = np.zeros(probe._observation_size(), np.float32)  # type: ignore[attr-defined]
    mask = np.zeros(num_actions(game), np.int8)

    def run(seconds: float) -> tuple[int, float]:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = elfenland.new_game(game=game, players=players, seed=next(seeds))
            while not state.is_terminal():
                if observe:
                    state._observe_into(obs, state.current_player())  # type: ignore[attr-defined]
                    state._legal_mask_into(mask)  # type: ignore[attr-defined]
                ids = state.legal_action_ids()
                state.apply_action(ids[rng.randrange(len(ids))])
                steps += 1
        return steps, 0.0
    return run


def vector_loop(game: str, players: int, n: int, overhead: float) -> Loop:
    v = VectorGames(game, n, players)
    v.reset(0)
    rng = np.random.default_rng(0)
    rows = np.arange(n)
    calls = max(1, CLOCK_EVERY // n)

    def run(seconds: float) -> tuple[int, float]:
        steps = 0
        in_step = 0.0
        sampled = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            for c in range(calls):
                pick = (rng.random(n) * v.num_legal).astype(np.int64)
                actions = v.legal_ids[rows, pick].astype(np.int64)
                if (steps // n + c) % SAMPLE:
                    v.step(actions)
                    continue
                t = time.process_time()
                v.step(actions)
                in_step += time.process_time() - t - overhead
                sampled += n
            steps += n * calls
        # the sampled calls' time, scaled to all steps
        return steps, in_step * steps / max(sampled, 1)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="per mode and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[4])
    parser.add_argument("--n", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--game", nargs="+", default=["elfenland", "king-of-the-elves"])
    args = parser.parse_args()
    overhead = clock_cost()
    print(f"backend: {elfenland.engine_backend()}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'game':<18}{'players':>8}{'mode':>20}{'steps/s':>12}{'µs/step':>9}"
          f"{'step µs':>9}{'raw/mode':>10}")
    for game in args.game:
        for players in args.players:
            loops: dict[str, Loop] = {
                "raw engine": raw_loop(game, players, observe=False),
                "raw + obs + mask": raw_loop(game, players, observe=True),
            }
            for n in args.n:
                loops[f"vector N={n}"] = vector_loop(game, players, n, overhead)
            for run in loops.values():
                run(0.05)
            steps = dict.fromkeys(loops, 0)
            in_step = dict.fromkeys(loops, 0.0)
            for _ in range(args.rounds):
                for mode, run in loops.items():
                    count, t = run(args.seconds)
                    steps[mode] += count
                    in_step[mode] += t
            total = args.seconds * args.rounds
            rate = {mode: count / total for mode, count in steps.items()}
            for mode in loops:
                step_us = f"{1e6 * in_step[mode] / steps[mode]:>9.2f}" if in_step[mode] \
                    else f"{'':>9}"
                print(f"{game:<18}{players:>8}{mode:>20}{rate[mode]:>12,.0f}"
                      f"{1e6 / rate[mode]:>9.2f}{step_us}"
                      f"{rate['raw engine'] / rate[mode]:>9.2f}x")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
