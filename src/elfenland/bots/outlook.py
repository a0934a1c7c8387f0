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
from . import planner
from .planner import PREFERENCE, Journey, plan_journey, planner_backend

#: Links a player is assumed to travel in one round (8 cards, steps of 1 or 2 cards).
LINKS_PER_ROUND = 5
#: An end bonus large enough to make the planner end in one town whenever it can do so
#: without collecting fewer towns (it ranks after the towns collected).
_FORCE = 1_000_000


#: Per distance table (a board's, a tuple, kept alive here): each town's neighbours
#: (one link away) as a bit mask, and the compiled walk's copy (None without it).
_NEAR: dict[int, tuple[Sequence[Sequence[int]], list[int], object]] = {}


def _near(distances: Sequence[Sequence[int]]) -> tuple[list[int], object]:
    hit = _NEAR.get(id(distances))
    if hit is not None and hit[0] is distances:
        return hit[1], hit[2]
    n = len(distances)
    masks = [sum(1 << v for v, d in enumerate(row) if d == 1) for row in distances]
    walks = None
    compiled = planner._planner  # type: ignore[attr-defined]  # the C module, or None
    if compiled is not None and 1 <= n <= 64 and all(len(row) == n for row in distances):
        walks = compiled.walks([d for row in distances for d in row], n)
    if isinstance(distances, tuple):  # a list may change: never kept
        _NEAR[id(distances)] = (distances, masks, walks)
    return masks, walks


def outlook(distances: Sequence[Sequence[int]], start: int, remaining: Sequence[int],
            rounds_left: int) -> tuple[int, int]:
    """(towns reached within the rounds left, minus the length of the whole walk) for a
    walk from ``start`` that always goes on to the nearest town still to collect (of
    equally near ones, the one with most such towns beside it, then the lowest).  Larger
    is better.  The towns still to collect are a bit mask, and each candidate's order
    one integer: the search bots' rollouts end in it."""
    budget = rounds_left * LINKS_PER_ROUND
    near, walks = _near(distances)
    here = start
    todo = 0
    for u in remaining:
        todo |= 1 << u
    if walks is not None and planner_backend() == "compiled":
        return planner._planner.outlook(walks, start, todo, budget)  # type: ignore[attr-defined,no-any-return]
    reached = 0
    length = 0
    while todo:
        row = distances[here]
        best = -1
        m = todo
        while m:
            low = m & -m
            u = low.bit_length() - 1
            m ^= low
            # (links, -neighbours to collect, town), as one number (towns < 2**10)
            key = (row[u] << 20) | ((1023 - (near[u] & todo).bit_count()) << 10) | u
            if best < 0 or key < best:
                best = key
        nxt = best & 1023
        length += row[nxt]
        if length <= budget:
            reached += 1
        todo &= ~(1 << nxt)
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
