"""Every Elfengold position that loads is one the rules can go on from: positions taken
from random games and then altered either load and play on to the end with every
invariant holding after every step, or are refused with a ``PositionError``."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import elfenland
from elfenland.games.elfengold.items import ITEM_SLUGS
from elfenland.games.elfengold.state import Phase
from elfenland.games.invariants import check_game_state

ITEMS = st.sampled_from(list(ITEM_SLUGS))
CHANGES: dict[str, st.SearchStrategy[Any]] = {
    "phase": st.sampled_from([p.value for p in Phase]),
    "current_player": st.integers(0, 5),
    "starting_player": st.integers(0, 5),
    "step": st.integers(0, 18),
    "passes": st.integers(0, 5),
    "round": st.integers(1, 6),
    "drawn": st.lists(ITEMS, max_size=3),
    "auction": st.fixed_dictionaries({}, optional={
        "row": st.lists(ITEMS, max_size=13), "high_bid": st.integers(0, 600),
        "high_bidder": st.integers(-1, 5), "passed": st.integers(0, 63),
        "excluded": st.integers(0, 63)}),
    "move": st.fixed_dictionaries({}, optional={
        "moved": st.booleans(), "earned": st.integers(0, 50),
        "draws_left": st.integers(0, 2),
        "after_discard": st.sampled_from(["next", "settle"])}),
    "coins": st.lists(st.integers(0, 40), min_size=2, max_size=6),
    "gold_deck": st.integers(0, 7),
    "display": st.lists(st.sampled_from(["dragon", "raft", "witch", "gold"]), max_size=4),
    "supply": st.just({}),
    "item_pile": st.none(),
    "hands": st.none(),
    "rules": st.sampled_from([{"eg_hand_limit": 2}, {"witch": True},
                              {"eg_gold_in_display": "stays-face-up"}, {"rounds": 2}]),
    "items": st.none(),
    "roads": st.none(),
}


def _play_out(state: elfenland.GameState, seed: int, limit: int = 50_000) -> None:
    rng = random.Random(seed)
    for _ in range(limit):
        check_game_state(state)
        if state.is_terminal():
            return
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError("the game did not end")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**20), steps=st.integers(0, 900),
       data=st.data())
def test_any_position_that_loads_can_be_played_to_the_end(
        players: int, seed: int, steps: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    state = elfenland.new_game(game="elfengold", players=players, seed=seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    doc = json.loads(json.dumps(state.to_position()))
    keys = data.draw(st.lists(st.sampled_from(sorted(CHANGES)), min_size=1, max_size=2,
                              unique=True))
    for key in keys:
        value = data.draw(CHANGES[key], label=key)
        if value is None:
            doc.pop(key, None)
        elif key == "rules":
            doc["rules"] = {**doc["rules"], **value}
        else:
            doc[key] = value
    doc.pop("winners", None)
    try:
        loaded = elfenland.load_position(doc)
    except elfenland.PositionError:
        return
    _play_out(loaded, seed)
