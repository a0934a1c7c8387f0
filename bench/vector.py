"""The batched environment's speed beside the raw engine's, side by side in one run.

    python bench/vector.py [--seconds 2] [--rounds 3] [--players 4] [--n 1 64 1024]
                           [--game elfenland king-of-the-elves] [--threads 1 2]

Modes, each playing whole random games (a new game at each end) for ``--seconds`` of
this process's CPU time per round, the modes taking turns so a busy machine slows them
alike; rates are steps per CPU second (one core):

* ``raw engine``: ``ids = state.legal_action_ids()`` and ``state.apply_action(id)``, a
  random legal id chosen with ``ids[rng.randrange(len(ids))]`` (``random.Random``; no
  observation, no mask);
* ``raw + obs + mask``: the same plus the acting seat's observation and the legal-action
  mask written by the engine into numpy buffers (``_observe_into``, ``_legal_mask_into``),
  what a single-game learner needs each step;
* ``vector N=…``: ``games.step(games.sample_legal_actions())`` over N games: a uniformly
  random legal id of each game drawn in C, then the step, which leaves the acting
  seat's observation, the mask and the padded legal ids of every game in the batch's
  arrays.

Every loop pays for its random choice (an agent pays for its own too), and each mode
also times its choice alone, in a loop of its own for a tenth of the round's time
(``pick µs``: ``randrange`` over the legal-id lists of the round's first game, or
``sample_legal_actions()``, which changes no game and can be called again and again);
``step µs`` is the loop's µs/step less that: the engine's step alone.  (Timing single
step calls with the clock read around each, as this script did before, read 0.05–0.1 µs
more than the whole loop: two system calls around a sub-microsecond call disturb it.)

Reading this process's CPU clock is a system call (about 1 µs here), so every loop reads
it once per ``CLOCK_EVERY`` steps (the raw loops once per game, hundreds of steps), not
once per step: at N = 1 it would otherwise be most of what the vector mode measures.

Columns: steps/s, µs/step (the whole loop), ``pick µs``, ``step µs``, then the mode
over the raw engine: ``loop ÷ raw`` (µs/step over the raw loop's) and ``step ÷ raw``
(step µs over the raw engine's step µs).  The issue's goal: a batched step with
observation and mask within 1.5× of the raw engine's step.

``--threads 1 2`` compares the batch split across native threads instead (``threads=k``,
the GIL released): for each N, ``games.step(games.sample_legal_actions())`` with each k,
the ks taking turns in every round, timed by the wall clock (threads add CPU seconds, not
wall ones): agent-steps per wall second, the process's CPU seconds per wall second (how
many cores it kept busy), its CPU µs per agent-step (what the threads cost in work: the
same as one thread's means the split itself is nearly free), and the speed over
``threads=1`` at the same N, measured side by side.  On a loaded machine the threads
wait for cores (and Linux's autogroup scheduling gives a session one share whatever its
thread count): read the load average and the cores column printed with it.
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
#: The random choice alone is timed for this share of each round's seconds.
PICK_SHARE = 0.1


def raw_loop(game: str, players: int, observe: bool) -> Loop:
    rng = random.Random(0)
    seeds = iter(range(10**9))
    probe = elfenland.new_game(game=game, players=players, seed=0)
    obs = np.zeros(probe._observation_size(), np.float32)  # type: ignore[attr-defined]
    mask = np.zeros(num_actions(game), np.int8)

    def run(seconds: float) -> tuple[int, float]:
        steps = 0
        lists: list[list[int]] = []  # the first game's legal-id lists, for the pick alone
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = elfenland.new_game(game=game, players=players, seed=next(seeds))
            first = not lists
            while not state.is_terminal():
                if observe:
                    state._observe_into(obs, state.current_player())  # type: ignore[attr-defined]
                    state._legal_mask_into(mask)  # type: ignore[attr-defined]
                ids = state.legal_action_ids()
                if first:
                    lists.append(ids)
                state.apply_action(ids[rng.randrange(len(ids))])
                steps += 1
        picked = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds * PICK_SHARE:
            for ids in lists:
                ids[rng.randrange(len(ids))]
            picked += len(lists)
        return steps, elapsed * steps / picked
    return run


def vector_loop(game: str, players: int, n: int) -> Loop:
    v = VectorGames(game, n, players)
    v.reset(0)
    step, sample = v.step, v.sample_legal_actions
    calls = max(1, CLOCK_EVERY // n)

    def run(seconds: float) -> tuple[int, float]:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            for _ in range(calls):
                step(sample())
            steps += n * calls
        picked = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds * PICK_SHARE:
            for _ in range(calls):
                sample()
            picked += n * calls
        return steps, elapsed * steps / picked
    return run


def threaded_loop(game: str, players: int, n: int, threads: int) -> Loop:
    """Wall seconds, not CPU: returns (agent-steps, CPU seconds) over ``seconds`` of wall
    time."""
    v = VectorGames(game, n, players, threads=threads)
    v.reset(0)
    step, sample = v.step, v.sample_legal_actions
    calls = max(1, CLOCK_EVERY // n)

    def run(seconds: float) -> tuple[int, float]:
        steps = 0
        cpu = time.process_time()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(calls):
                step(sample())
            steps += n * calls
        return steps, time.process_time() - cpu
    return run


def interleaved(loops: dict[str, Loop], seconds: float, rounds: int,
                ) -> tuple[dict[str, int], dict[str, float]]:
    """Each loop warmed up, then timed ``rounds`` times taking turns, so that a change
    of load hits every loop alike: the steps and the seconds each loop reported."""
    for run in loops.values():
        run(0.05)
    steps = dict.fromkeys(loops, 0)
    spent = dict.fromkeys(loops, 0.0)
    for _ in range(rounds):
        for key, run in loops.items():
            count, used = run(seconds)
            steps[key] += count
            spent[key] += used
    return steps, spent


def compare_threads(args: argparse.Namespace) -> None:
    print(f"{'game':<18}{'players':>8}{'N':>7}{'threads':>8}{'steps/s':>13}{'µs/step':>9}"
          f"{'cores':>7}{'CPU µs/step':>13}{'÷ threads=1':>13}")
    for game in args.game:
        for players in args.players:
            for n in args.n:
                loops = {str(k): threaded_loop(game, players, n, k) for k in args.threads}
                steps, cpu = interleaved(loops, args.seconds, args.rounds)
                total = args.seconds * args.rounds
                base = steps[str(args.threads[0])]
                for k in loops:
                    rate = steps[k] / total
                    print(f"{game:<18}{players:>8}{n:>7}{k:>8}{rate:>13,.0f}"
                          f"{1e6 / rate:>9.3f}{cpu[k] / total:>7.2f}"
                          f"{1e6 * cpu[k] / steps[k]:>13.3f}{steps[k] / base:>12.2f}x")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="per mode and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[4])
    parser.add_argument("--n", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--game", nargs="+", default=["elfenland", "king-of-the-elves"])
    parser.add_argument("--threads", type=int, nargs="+", default=None,
                        help="compare these thread counts (the first is the baseline)")
    args = parser.parse_args()
    print(f"backend: {elfenland.engine_backend()}; load average {os.getloadavg()[0]:.2f}")
    if args.threads:
        compare_threads(args)
        return
    print(f"{'game':<18}{'players':>8}{'mode':>20}{'steps/s':>12}{'µs/step':>9}"
          f"{'pick µs':>9}{'step µs':>9}{'loop ÷ raw':>11}{'step ÷ raw':>11}")
    for game in args.game:
        for players in args.players:
            loops: dict[str, Loop] = {
                "raw engine": raw_loop(game, players, observe=False),
                "raw + obs + mask": raw_loop(game, players, observe=True),
            }
            for n in args.n:
                loops[f"vector N={n}"] = vector_loop(game, players, n)
            steps, in_pick = interleaved(loops, args.seconds, args.rounds)
            total = args.seconds * args.rounds
            loop_us = {mode: 1e6 * total / count for mode, count in steps.items()}
            pick_us = {mode: 1e6 * in_pick[mode] / steps[mode] for mode in loops}
            step_us = {mode: loop_us[mode] - pick_us[mode] for mode in loops}
            raw = "raw engine"
            for mode in loops:
                print(f"{game:<18}{players:>8}{mode:>20}{1e6 / loop_us[mode]:>12,.0f}"
                      f"{loop_us[mode]:>9.2f}{pick_us[mode]:>9.3f}{step_us[mode]:>9.2f}"
                      f"{loop_us[mode] / loop_us[raw]:>10.2f}x"
                      f"{step_us[mode] / step_us[raw]:>10.2f}x")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
