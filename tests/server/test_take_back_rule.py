"""The engines' take-back rule (``take_back_seat``, the view's ``take_back``) checked
against the rule's meaning, replayed: an action may be taken back exactly when it left
the random generator untouched and, played on states its player cannot tell from the
real one, leaves that player's view the same.  On every game, pure and compiled."""

from __future__ import annotations

import random
from typing import Any

import pytest

from elfenland.core.game import GameState, JSONDict
from elfenland.core.rng import Rng
from elfenland.games.elfengold.state import ElfengoldState
from elfenland.games.elfenland.fast import FastElfenlandState
from elfenland.games.elfenland.fast import enabled as elfenland_fast
from elfenland.games.elfenland.state import ElfenlandState
from elfenland.games.kingelves.fast import FastKingOfTheElvesState
from elfenland.games.kingelves.fast import enabled as kingelves_fast
from elfenland.games.kingelves.state import KingOfTheElvesState
from elfenland.server.undo import undo_refusal

ENGINES: list[Any] = [ElfenlandState, KingOfTheElvesState, ElfengoldState]
if elfenland_fast():
    ENGINES.append(FastElfenlandState)
if kingelves_fast():
    ENGINES.append(FastKingOfTheElvesState)


#: Actions the engine refuses although a few replays rarely catch what they show: saying
#: one has no town card offers the town kinds left in the deck, which tells, when one is
#: missing, about the other hands.
STRICTER = {"no-town-card"}


def _seen(state: GameState, player: int) -> JSONDict:
    view = state.view(player)
    log = view.pop("log", [])
    for key in ("seq", "take_back"):
        view.pop(key, None)
    view["last"] = {k: v for k, v in log[-1].items() if k != "seq"} if log else None
    return view


def _replayed_truth(before: GameState, action: Any) -> bool:
    """Whether ``action`` shows nothing new, found by replaying it (slow; a test's)."""
    player = before.current_player()
    after = before.clone()
    after.apply_action(action)
    if before.rng.getstate() != after.rng.getstate():  # type: ignore[attr-defined]
        return False
    seen = _seen(after, player)
    for k in range(4):
        other = before.resample_from_infostate(player, Rng(k))
        try:
            other.apply_action(action)
        except ValueError:
            return False
        if _seen(other, player) != seen:
            return False
    return True


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
@pytest.mark.parametrize("seed", [1, 7])
def test_take_back_is_exactly_what_shows_nothing_new(engine: Any, seed: int) -> None:
    state = engine(players=2 + seed % 3, seed=seed)
    pick = random.Random(seed)
    kinds_yes: set[str] = set()
    kinds_no: set[str] = set()
    steps = 0
    while not state.is_terminal() and steps < 700:
        actions = state.legal_actions()
        action = pick.choice(actions)
        player = state.current_player()
        truth = _replayed_truth(state, action)
        after = state.clone()
        after.apply_action(action)
        told = after.take_back_seat()
        name = str(action).split()[0]
        if not after.is_terminal():
            if told == player:  # never offered for what the replay shows to be new
                assert truth, (steps, str(action))
            elif name not in STRICTER:
                assert not truth, (steps, str(action), told)
            assert after.view(player)["take_back"] == told
            assert after.view(None)["take_back"] == told
            (kinds_yes if truth else kinds_no).add(name)
            # The server's refusal says the same as the engine.
            assert (undo_refusal(state, str(action)) is None) == (told == player)
        state = after
        steps += 1
    # The game went through takeable and untakeable actions alike.
    assert kinds_yes and kinds_no
