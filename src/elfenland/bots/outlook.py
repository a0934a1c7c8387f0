"""Where a journey leaves a player for the rounds still to come.

Towns in Elfenland belong to nobody: every player collects their own markers, and the
game is mostly lost in the last round, when the towns left lie far apart (greedy bots
collect about 5 towns in each of rounds 1 and 2 but only 2.6 in round 4).  Of the
journeys that collect as many towns now, the best one leaves the towns still to collect
on a short walk from where it ends.  ``outlook`` estimates that walk; ``look_ahead_move``
picks the journey by it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..games.elfenland.actions import Action
from ..games.elfenland.state import ElfenlandState
from .planner import PREFERENCE, Journey, plan_journey

#: Links a player is assumed to travel in one round (8 cards, steps of 1 or 2 cards).
LINKS_PER_ROUND = 5
#: An end bonus large enough to make the planner end in one town whenever it can do so
#: without collecting fewer towns (it ranks after the towns collected).
_FORCE = 1_000_000


def outlook(distances: Sequence[Sequence[int]], start: int, remaining: Sequence[int],
            rounds_left: int) -> tuple[int, int]:
    """(towns reached within the rounds left, minus the length of the whole walk) for a
    walk from ``start`` that always goes on to the nearest town still to collect (of
    equally near ones, the one with most such towns beside it).  Larger is better."""
    budget = rounds_left * LINKS_PER_ROUND
    here = start
    todo = set(remaining)
    reached = 0
    length = 0
    while todo:
        row = distances[here]
        nxt = min(todo, key=lambda u: (row[u],
                                       -sum(1 for v in todo if distances[u][v] == 1), u))
        length += row[nxt]
        if length <= budget:
            reached += 1
        todo.discard(nxt)
        here = nxt
    return reached, -length


def journey_outlook(s: ElfenlandState, p: int, j: Journey) -> tuple[int, int]:
    board = s.board
    end = j.steps[-1].to if j.steps else s.boots[p]
    mask = s.visited[p]
    for st in j.steps:
        mask |= 1 << st.to
    todo = [u for u in range(len(board.towns)) if u != board.capital and not mask >> u & 1]
    return outlook(board.distances, end, todo, s.rules.rounds - s.round)


def look_ahead_journey(s: ElfenlandState, p: int,
                       preference: Sequence[int] = PREFERENCE,
                       end_bonus: Sequence[int] | None = None) -> Journey:
    """Of the journeys collecting the most towns (and ending as near the town card), one
    per town it can end in, the one with the best ``outlook``; then the cards kept.  In
    the last round it is the planner's journey."""
    first = plan_journey(s, p, preference=preference, end_bonus=end_bonus)
    if s.round >= s.rules.rounds:
        return first
    board = s.board
    n = len(board.towns)
    here = s.boots[p]
    cards = sum(s.hands[p])
    best = (journey_outlook(s, p, first), first.usefulness)
    choice = first
    ends = {first.steps[-1].to if first.steps else here}
    for t in range(n):
        if t in ends or board.distances[here][t] > cards:
            continue
        bonus = [0] * n
        bonus[t] = _FORCE
        j = plan_journey(s, p, preference=preference, end_bonus=bonus)
        end = j.steps[-1].to if j.steps else here
        if end in ends or j.key[:2] != first.key[:2]:
            continue
        ends.add(end)
        value = (journey_outlook(s, p, j), j.usefulness)
        if value > best:
            best, choice = value, j
    return choice


def look_ahead_move(s: ElfenlandState, preference: Sequence[int] = PREFERENCE,
                    end_bonus: Sequence[int] | None = None) -> Action:
    """The next step of ``look_ahead_journey`` for the player to move."""
    return look_ahead_journey(s, s.current, preference, end_bonus).actions[0]
