"""Does the shipped learned value predict King of the Elves's winner better than the
quick bot's ``round_outcome``?  An offline check before any game is played with it
(issue #25): games of four bots are played, and at the end of each round's building
(the first position of its journeys) every seat's chance of winning is predicted by

- ``round_outcome``: the quick bot's evaluation (this round's journeys planned, the
  margin against the best rival through a logistic), each seat's made a share of the
  seats' sum;
- ``value``: the learned value's share (``bots/kingelves_value.py``);
- their mean;

and scored against the game's result (1 for a win, shared): Brier score (lower is
better; 0.1875 is a constant 1/4) and how often the seat predicted most likely won.

    nice -n 10 python bench/kingelves_value.py --games 60 --bots greedy
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.kingelves_quick import _Plans, round_outcome
from elfenland.bots.kingelves_value import value_head
from elfenland.games.kingelves.state import Phase


def snapshots(seed: int, bots: str) -> tuple[list[Any], list[float]]:
    """The positions where each round's journeys start, and the game's result."""
    state: Any = elfenland.new_game("king-of-the-elves", players=4, seed=seed)
    players = [make_bot(bots, "king-of-the-elves", seed * 10 + q) for q in range(4)]
    for bot in players:
        if hasattr(bot, "seconds"):
            bot.iterations, bot.seconds, bot.clock = 10**9, 0.02, time.thread_time
    seen: list[Any] = []
    rounds: set[int] = set()
    while not state.is_terminal():
        if state.phase is Phase.JOURNEY and state.round not in rounds:
            rounds.add(state.round)
            seen.append(state.clone())
        state.apply_action(players[state.current].choose(state))
    won = state.winners()
    return seen, [1.0 / len(won) if q in won else 0.0 for q in range(4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--first", type=int, default=90_000, help="first game seed")
    parser.add_argument("--bots", default="greedy", help="the level of all four seats")
    args = parser.parse_args()
    names = ("round_outcome", "value", "mean")
    # round -> predictor -> [squared errors], [winner picked]
    brier: dict[int, dict[str, list[float]]] = {}
    picked: dict[int, dict[str, list[float]]] = {}
    for g in range(args.games):
        seen, result = snapshots(args.first + g, args.bots)
        for s in seen:
            head = value_head(s)
            assert head is not None, "the value needs numpy and the compiled engine"
            ro = [round_outcome(s, q, _Plans()) for q in range(4)]
            ro = [x / sum(ro) for x in ro]
            vh = [head.share(s, q) for q in range(4)]
            for name, p in zip(names, (ro, vh, [(a + b) / 2 for a, b in zip(ro, vh, strict=True)]),
                               strict=True):
                brier.setdefault(s.round, {}).setdefault(name, []).extend(
                    (x - r) ** 2 for x, r in zip(p, result, strict=True))
                best = max(range(4), key=lambda q: p[q])
                picked.setdefault(s.round, {}).setdefault(name, []).append(result[best])
    print(f"{args.games} games of four {args.bots} bots, seeds {args.first}-"
          f"{args.first + args.games - 1}")
    print(f"{'round':>5} {'positions':>9} " + " ".join(f"{n + ' Brier':>20} {'won':>6}"
                                                      for n in names))
    for r in sorted(brier):
        cells = []
        for n in names:
            b, w = brier[r][n], picked[r][n]
            cells.append(f"{sum(b) / len(b):>20.4f} {sum(w) / len(w):>6.1%}")
        print(f"{r:>5} {len(picked[r][names[0]]):>9} " + " ".join(cells))


if __name__ == "__main__":
    main()
