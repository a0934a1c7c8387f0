"""Taking back an Elfengold action (the server's undo asks ``take_back_seat``): allowed
only for the last action's own player, and only when that action drew nothing at random,
which the state's random generator proves: it must not have moved."""

from __future__ import annotations

import random

import pytest

from elfenland.games.elfengold import ElfengoldState, Kind

#: Kinds that always draw (a card or the display's refill, the next player's items or
#: the auction row).
RANDOM_KINDS = {Kind.DRAW, Kind.DRAW_BLIND, Kind.HIDE}


@pytest.mark.parametrize("options", [{}, {"witch": True, "eg_hand_limit": 6},
                                     {"eg_hand_limit": 5, "eg_hand_limit_when": "after-draw"}])
def test_only_actions_that_drew_nothing_may_be_taken_back(options: dict[str, object]) -> None:
    allowed: set[Kind] = set()
    for seed in range(4):
        s = ElfengoldState(players=4, seed=seed, **options)  # type: ignore[arg-type]
        rng = random.Random(seed)
        assert s.take_back_seat() is None
        while not s.is_terminal():
            player = s.current_player()
            legal = s.legal_actions()
            # Mostly small bids, so games end in a few hundred steps.
            small = [a for a in legal if a.kind is not Kind.BID or a.amount <= 3]
            action = rng.choice(small or legal)
            before = s.rng.getstate()
            s.apply_action(action)
            seat = s.take_back_seat()
            if seat is not None:
                assert seat == player
                assert action.kind not in RANDOM_KINDS
                assert s.rng.getstate() == before, (action, s.phase)
                assert s.view(None)["take_back"] == player
                allowed.add(action.kind)
            else:
                assert s.view(player)["take_back"] is None
        assert s.take_back_seat() is None
    # Bids, passes, placements, moves and keeps are taken back in such games.
    assert {Kind.BID, Kind.PASS, Kind.PLACE, Kind.MOVE, Kind.END, Kind.COLLECT,
            Kind.CARDS} <= allowed
