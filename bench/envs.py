"""The research adapters' cost: random-play steps per second through the raw engine, the
PettingZoo environment and the OpenSpiel state, side by side in one run.

    python bench/envs.py [--seconds 3] [--rounds 3] [--players 2 4]

Every loop plays whole seeded games with a random player that picks among the legal
actions with ``random.Random``:

* ``engine``: ``state.legal_actions()`` and ``state.apply_action(action)``;
* ``pettingzoo``: ``env.last()`` (the observation vector and the action mask, as every
  PettingZoo loop reads them), a legal id from ``infos["legal_actions"]``,
  ``env.step(id)``; the env is the order-enforcing wrapped one that ``env()`` returns;
* ``pettingzoo+mask``: the same, the random player finding the legal ids in the mask
  (``np.flatnonzero`` over the whole action space: the agent's cost, not the adapter's);
* ``openspiel``: ``state.legal_actions()`` and ``state.apply_action(id)``;
* ``openspiel+obs``: the same plus the observation of the player to act, the work
  PettingZoo's ``last()`` does, through OpenSpiel's Python observer
  (``make_observation(game).set_from(state, player)``, as its Python algorithms read
  tensors).  ``state.observation_tensor(player)`` gives the same numbers but costs a new
  game each call: OpenSpiel's bridge for Python games builds an initial state to learn
  the tensor's shape every time.

Rates are per second of this process's CPU time; the modes take turns in ``--rounds``
slices so that a busy machine slows them alike.  The ratio column is engine steps/s
over the adapter's: the adapter's cost as a factor.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

import elfenland
import elfenland.envs.openspiel  # registers the games with OpenSpiel
from elfenland.envs.pettingzoo import env as make_env

SPIEL_NAMES = {"elfenland": "python_elfenland", "king-of-the-elves": "python_king_of_the_elves"}
Loop = Callable[[float], int]


def engine_loop(game: str, players: int) -> Loop:
    rng = random.Random(0)
    seeds = iter(range(10**9))

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = elfenland.new_game(game=game, players=players, seed=next(seeds))
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps
    return run


def pettingzoo_loop(game: str, players: int, use_infos: bool) -> Loop:
    rng = random.Random(0)
    env = make_env(game, players=players)
    seeds = iter(range(10**9))

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
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


def openspiel_loop(game: str, players: int, observe: bool) -> Loop:
    rng = random.Random(0)
    spiel_game = pyspiel.load_game(SPIEL_NAMES[game], {"players": players})
    observer = make_observation(spiel_game)

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = spiel_game.new_initial_state()
            while not state.is_terminal():
                if observe:
                    observer.set_from(state, state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="per mode and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--game", nargs="+", default=sorted(SPIEL_NAMES))
    args = parser.parse_args()
    print(f"{'game':<19}{'players':>8}{'mode':>17}{'steps/s':>10}{'engine/mode':>13}")
    for game in args.game:
        for n in args.players:
            loops = {
                "engine": engine_loop(game, n),
                "pettingzoo": pettingzoo_loop(game, n, use_infos=True),
                "pettingzoo+mask": pettingzoo_loop(game, n, use_infos=False),
                "openspiel": openspiel_loop(game, n, observe=False),
                "openspiel+obs": openspiel_loop(game, n, observe=True),
            }
            for run in loops.values():  # warm the lazily built tables
                run(0.05)
            steps = dict.fromkeys(loops, 0)
            for _ in range(args.rounds):
                for mode, run in loops.items():
                    steps[mode] += run(args.seconds)
            total = args.seconds * args.rounds
            base = steps["engine"] / total
            for mode, count in steps.items():
                rate = count / total
                print(f"{game:<19}{n:>8}{mode:>17}{rate:>10,.0f}{base / rate:>12.2f}x")


if __name__ == "__main__":
    main()
