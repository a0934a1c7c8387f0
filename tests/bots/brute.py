"""Exhaustive search over the engine's own legal actions: the planner's referee."""

from __future__ import annotations

from elfenland.bots.planner import PREFERENCE, usefulness
from elfenland.games.elfenland.actions import Kind
from elfenland.games.elfenland.state import NO_PIECE, ElfenlandState


def brute_best(state: ElfenlandState,
               end_bonus: list[int] | None = None) -> tuple[int, int, int]:
    """The best (new towns, -distance, usefulness + end bonus) over every sequence of
    legal moves, by playing them on clones of the engine (memoised on boot, hand and
    markers)."""
    p = state.current
    start = state.visited[p].bit_count()
    target = state.town_cards[p] if state.rules.town_cards else NO_PIECE
    memo: dict[tuple[int, tuple[int, ...], int], tuple[int, int, int]] = {}

    def rec(s: ElfenlandState) -> tuple[int, int, int]:
        key = (s.boots[p], tuple(s.hands[p]), s.visited[p])
        if key in memo:
            return memo[key]
        best: tuple[int, int, int] | None = None
        for a in s.legal_actions():
            if a.kind is Kind.END:
                dist = 0 if target == NO_PIECE else s.board.distance(s.boots[p], target)
                bonus = 0 if end_bonus is None else end_bonus[s.boots[p]]
                value = (s.visited[p].bit_count() - start, -dist,
                         usefulness(s.hands[p], s.rules.hand_limit, PREFERENCE) + bonus)
            else:
                child = s.clone()
                child.apply_action(a)
                value = rec(child)
            if best is None or value > best:
                best = value
        assert best is not None
        memo[key] = best
        return best

    return rec(state)
