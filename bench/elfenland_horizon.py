"""What the Elfenland quick level's evaluation at the rollout horizon should count
(issue #25, ``docs/bots.md``, Quick): a least-squares fit of each player's markers at
the game's end on what the evaluation sees where a round's move phase starts, over
games of greedy bots.

    nice -n 10 python bench/elfenland_horizon.py --players 2 --games 400
    nice -n 10 python bench/elfenland_horizon.py --players 4 --games 200

Features a player at rounds 1-3 (the journey planned on the hand held, as the
evaluation plans it, ``_Plans.every``): ``M`` markers plus the towns the journey
collects (what the search bot's margin counts), ``R`` the towns ``outlook`` reaches
from the journey's end in the rounds left (``evaluate``'s ``horizon``), ``C`` the
travel cards kept after the journey (at most the hand limit).  Printed a round: the
coefficients, R², and ``R/M``, what a town within reach is worth against a town
collected now: the ``horizon`` setting it suggests.  Needs numpy.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_quick import _Plans
from elfenland.games.elfenland.state import Phase


def rows(players: int, games: int, first: int) -> list[tuple[int, int, int, int, int]]:
    """(round, M, R, C, markers at the end) a player and round, over ``games`` games."""
    out = []
    for g in range(first, first + games):
        s: Any = elfenland.new_game("elfenland", players=players, seed=g)
        bots = [make_bot("greedy", "elfenland", g * 8 + q) for q in range(players)]
        seen_rounds: set[int] = set()
        found = []
        while not s.is_terminal():
            if (s.phase is Phase.MOVE and s.round not in seen_rounds
                    and s.round < s.rules.rounds):
                seen_rounds.add(s.round)
                plans = _Plans()
                board = s.board
                for q, j in enumerate(plans.every(s)):
                    seen = s.visited[q] | 1 << board.capital
                    end = s.boots[q]
                    for st in j.steps:
                        end = st.to
                        seen |= 1 << end
                    found.append((s.round, q, s.markers(q) + j.new_towns,
                                  plans.reached(s, end, seen),
                                  min(sum(j.hand), s.rules.hand_limit)))
            s.apply_action(bots[s.current_player()].choose(s))
        out += [(r, m, reach, c, s.markers(q)) for r, q, m, reach, c in found]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--first", type=int, default=70_000, help="seed of the first game")
    args = parser.parse_args()
    started = time.perf_counter()
    data = np.array(rows(args.players, args.games, args.first), float)
    print(f"{args.players} players, {args.games} games of greedy bots, "
          f"{time.perf_counter() - started:.0f} s")
    for r in sorted({int(x) for x in data[:, 0]}):
        x = data[data[:, 0] == r]
        y = x[:, 4]
        for cols, name in (([1], "M"), ([1, 2], "M R"), ([1, 2, 3], "M R C")):
            z = np.column_stack([np.ones(len(x)), x[:, cols]])
            coef = np.linalg.lstsq(z, y, rcond=None)[0]
            r2 = 1 - ((y - z @ coef) ** 2).sum() / ((y - y.mean()) ** 2).sum()
            ratio = f", R/M {coef[2] / coef[1]:.2f}" if len(cols) > 1 else ""
            names = ["1", *name.split()]
            terms = " ".join(f"{n} {c:+.3f}" for n, c in zip(names, coef, strict=True))
            print(f"  round {r}, {len(x)} rows, {terms}: R² {r2:.3f}{ratio}")


if __name__ == "__main__":
    main()
