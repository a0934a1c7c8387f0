"""A learned value for the Elfenland quick level's rollout horizon (issue #25): a
player's markers at the game's end predicted, where a round's move phase starts, from
what the evaluation can see there, with coefficients fitted offline
(``bench/elfenland_value.py``: ridge regression over positions of the quick level's
own games against ``search``) and shipped here as a table, so that play needs only
the standard library.

Why a learned value: the search bot's margin counts the towns collected by the end of
this round's journey (``M``) as if the game ended there, and ``horizon`` adds the
towns within reach with one weight fitted on greedy games.  The rollouts end in the
quick level's own positions, and more than the towns in reach may tell who ends ahead:
where the journey leaves a player, the cards and counters carried over.
"""

from __future__ import annotations

from typing import Protocol

from ..games.elfenland.state import ElfenlandState
from .planner import Journey

#: The features, a player: markers plus the towns this round's journey collects; the
#: towns ``outlook`` reaches from the journey's end in the rounds left; the travel
#: cards kept after the journey (at most the hand limit); the towns still to collect
#: one link from the journey's end; the links from the end to the nearest of them;
#: the transport counters in hand (one is kept into the next round).
NAMES = ("M", "R", "C", "S1", "D1", "K")


class Reach(Protocol):
    """What ``features`` needs of the quick level's ``_Plans`` (its memoised
    ``outlook``), named here so that this module does not import the level."""

    def reached(self, s: ElfenlandState, end: int, seen: int) -> int: ...


def features(s: ElfenlandState, q: int, j: Journey, plans: Reach) -> list[float]:
    """``NAMES`` for player ``q`` whose journey this round is ``j`` (planned on the board
    as it is where the move phase starts)."""
    board = s.board
    seen = s.visited[q] | 1 << board.capital
    end = s.boots[q]
    for st in j.steps:
        end = st.to
        seen |= 1 << end
    reached = plans.reached(s, end, seen)
    near = board.distances[end]
    todo = [near[u] for u in range(len(board.towns)) if not seen >> u & 1]
    return [float(s.markers(q) + j.new_towns), float(reached),
            float(min(sum(j.hand), s.rules.hand_limit)),
            float(sum(1 for d in todo if d == 1)), float(min(todo, default=0)),
            float(sum(s.counters_up[q]) + sum(s.counters_secret[q]))]


#: Coefficients by number of players, then by round (1 to 3): the constant, then one a
#: feature of ``NAMES``; the predicted markers at the game's end.  Two players: 200
#: games of the quick level against ``search`` (20 ms of thread CPU a decision each,
#: deals 200000-200199, the quick in either seat), ridge 1 (``nice -n 10 python
#: bench/elfenland_value.py --players 2 --games 200 --rows v2.jsonl``, then ``--fit
#: v2.jsonl``).  R² 0.14, 0.31, 0.59 (``M`` alone 0.13, 0.27, 0.55).
VALUE: dict[int, dict[int, tuple[float, ...]]] = {
    2: {1: (11.611, 0.585, 0.053, -0.105, 0.08, 0.707, 0.123),
        2: (5.903, 0.665, 0.364, -0.161, 0.138, 1.002, 0.142),
        3: (2.366, 0.873, 0.507, -0.046, 0.152, 0.133, 0.031)},
}


def value(s: ElfenlandState, q: int, j: Journey, plans: Reach) -> float | None:
    """The predicted markers at the game's end of player ``q``, or None where the
    table has no entry (the last round, a number of players not fitted)."""
    by_round = VALUE.get(s.num_players)
    coef = None if by_round is None else by_round.get(s.round)
    if coef is None:
        return None
    x = features(s, q, j, plans)
    return coef[0] + sum(c * v for c, v in zip(coef[1:], x, strict=True))
