"""The research adapters' cost: random-play steps per second through the raw engines
(pure and compiled), the PettingZoo environment and the OpenSpiel state, side by side in
one run.

    python bench/envs.py [--seconds 3] [--rounds 3] [--players 2 4] [--pure-adapters]

Every loop plays whole seeded games with a random player that picks among the legal
actions with ``random.Random``:

* ``pure engine`` / ``compiled engine``: ``state.legal_actions()`` and
  ``state.apply_action(action)`` on the pure engine (``ELFENLAND_ENGINE=pure``, the
  reference the issue's goal was written against) and on the compiled one;
* ``pettingzoo``: ``env.last()`` (the observation vector and the action mask, as every
  PettingZoo loop reads them), a legal id from ``infos["legal_actions"]``,
  ``env.step(id)``; the env is the order-enforcing wrapped one that ``env()`` returns;
* ``pettingzoo+mask``: the same, the random player finding the legal ids in the mask
  (``np.flatnonzero`` over the whole action space: the agent's cost, not the adapter's);
* ``openspiel``: ``state.legal_actions()`` and ``state.apply_action(id)``;
* ``openspiel+obs``: the same plus the observation of the player to act, the work
  PettingZoo's ``last()`` does, through OpenSpiel's Python observer
  (``make_observation(game).set_from(state, player)``, as its Python algorithms read
  tensors);
* ``openspiel+tensor``: the same through ``state.observation_tensor(player)``, which the
  adapter now answers itself (a new float32 array; before, OpenSpiel's bridge built an
  initial state per call to learn the size and copied into a list: 17 µs vs 0.34 µs
  for the observer, 4-player Elfenland, ``timeit`` on one position).

The adapters run on the default backend (the compiled engines); ``--pure-adapters`` adds
each adapter on the pure engine too.  Rates are per second of this process's CPU time;
the modes take turns in ``--rounds`` slices so that a busy machine slows them alike.
Columns: ``µs/step``; ``pure/mode``, the pure engine's rate over the mode's (the goal
"adapter overhead ≤ 2×" as it was written, against the pure engine); ``same/mode``, the
rate of the raw engine the mode runs on over the mode's (the adapter's cost as a factor
of its own engine); ``adapter µs``, the mode's µs/step minus its raw engine's (what the
adapter itself adds to each step).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

import elfenland
import elfenland.envs.openspiel  # registers the games with OpenSpiel
from elfenland.envs.pettingzoo import env as make_env

SPIEL_NAMES = {"elfenland": "python_elfenland", "king-of-the-elves": "python_king_of_the_elves"}
Loop = Callable[[float], int]


@contextmanager
def backend(name: str) -> Iterator[None]:
    """New games inside start on ``name`` ("pure" or "compiled")."""
    before = os.environ.get("ELFENLAND_ENGINE")
    os.environ["ELFENLAND_ENGINE"] = name
    try:
        yield
    finally:
        if before is None:
            del os.environ["ELFENLAND_ENGINE"]
        else:
            os.environ["ELFENLAND_ENGINE"] = before


def engine_loop(game: str, players: int, engine: str) -> Loop:
    rng = random.Random(0)
    seeds = iter(range(10**9))

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            with backend(engine):
                state = elfenland.new_game(game=game, players=players, seed=next(seeds))
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps
    return run


def pettingzoo_loop(game: str, players: int, use_infos: bool, engine: str) -> Loop:
    rng = random.Random(0)
    env = make_env(game, players=players)
    seeds = iter(range(10**9))

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            with backend(engine):
                env.reset(seed=next(seeds))
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, infos = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = infos["legal_actions"] if use_infos else np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.randrange(len(legal))]))
                steps += 1
        return steps
    return run


def openspiel_loop(game: str, players: int, observe: str, engine: str) -> Loop:
    rng = random.Random(0)
    spiel_game = pyspiel.load_game(SPIEL_NAMES[game], {"players": players})
    observer = make_observation(spiel_game)

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            with backend(engine):
                state = spiel_game.new_initial_state()
            while not state.is_terminal():
                if observe == "observer":
                    observer.set_from(state, state.current_player())
                elif observe == "tensor":
                    state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps
    return run


def adapters(game: str, n: int, engine: str) -> dict[str, Loop]:
    return {
        "pettingzoo": pettingzoo_loop(game, n, use_infos=True, engine=engine),
        "pettingzoo+mask": pettingzoo_loop(game, n, use_infos=False, engine=engine),
        "openspiel": openspiel_loop(game, n, observe="", engine=engine),
        "openspiel+obs": openspiel_loop(game, n, observe="observer", engine=engine),
        "openspiel+tensor": openspiel_loop(game, n, observe="tensor", engine=engine),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="per mode and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--game", nargs="+", default=sorted(SPIEL_NAMES))
    parser.add_argument("--pure-adapters", action="store_true",
                        help="also run every adapter on the pure engine")
    args = parser.parse_args()
    default = elfenland.engine_backend()
    print(f"default backend: {default}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'game':<18}{'players':>8}{'mode':>26}{'steps/s':>10}{'µs/step':>9}"
          f"{'pure/mode':>10}{'same/mode':>10}{'adapter µs':>11}")
    for game in args.game:
        for n in args.players:
            # mode -> (loop, the raw engine mode it runs on)
            loops: dict[str, tuple[Loop, str]] = {
                "pure engine": (engine_loop(game, n, "pure"), "pure engine"),
                "compiled engine": (engine_loop(game, n, "compiled"), "compiled engine"),
            }
            for mode, loop in adapters(game, n, default).items():
                loops[mode] = (loop, f"{default} engine")
            if args.pure_adapters:
                for mode, loop in adapters(game, n, "pure").items():
                    loops[f"{mode} (pure)"] = (loop, "pure engine")
            for run, _ in loops.values():  # warm the lazily built tables
                run(0.05)
            steps = dict.fromkeys(loops, 0)
            for _ in range(args.rounds):
                for mode, (run, _) in loops.items():
                    steps[mode] += run(args.seconds)
            total = args.seconds * args.rounds
            rate = {mode: count / total for mode, count in steps.items()}
            for mode, (_, raw) in loops.items():
                us = 1e6 / rate[mode]
                own = us - 1e6 / rate[raw]
                print(f"{game:<18}{n:>8}{mode:>26}{rate[mode]:>10,.0f}{us:>9.2f}"
                      f"{rate['pure engine'] / rate[mode]:>9.2f}x"
                      f"{rate[raw] / rate[mode]:>9.2f}x{own:>11.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
