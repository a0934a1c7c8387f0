"""Every position that loads is one the rules can go on from (issue #12): the examples
the audit found are refused with a ``PositionError`` saying what is wrong, and positions
taken from real games and then altered either load and play on to the end with every
invariant holding, or are refused."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import elfenland
from elfenland.core.game import GameState
from elfenland.games.invariants import check_game_state

EL = "elfenland-position/1"
KE = "king-of-the-elves-position/1"
ALL_COUNTERS = ["giant-pig", "elfcycle", "magic-cloud", "unicorn", "troll-wagon", "dragon"]


@pytest.mark.parametrize("doc,why", [
    ({"players": 2, "phase": "keep"}, "no choice of counter to keep"),
    ({"players": 2, "phase": "move", "discarding": True, "hands": [{"dragon": 2}, {}]},
     "need not discard"),
    ({"players": 2, "phase": "draw-secret", "face_up": ["dragon"] * 5, "counter_pile": {},
      "counters": [{"face_up": ["dragon"] * 3 + [k for k in ALL_COUNTERS[:5]
                                                 for _ in range(8)]}, {}]},
     "face-down pile is empty"),
    ({"players": 2, "phase": "draw-counters", "face_up": [], "counter_pile": {},
      "counters": [{"face_up": [k for k in ALL_COUNTERS for _ in range(8)]}, {}]},
     "nobody can draw a counter"),
    ({"players": 3, "phase": "move", "starting_player": 1, "current_player": 0, "step": 0},
     "turns go round from the starting player"),
    ({"players": 2, "phase": "move", "kept_face_up": ["dragon"],
      "counters": [{"kept_face_up": ["dragon"]}, {}]}, "only during the keep phase"),
    ({"players": 2, "phase": "keep", "round": 4, "rules": {"final_keep": False},
      "counters": [{"face_up": ["dragon", "unicorn"]}, {}]}, "final_keep"),
    ({"players": 2, "phase": "draw-counters", "step": 6}, "has 6 turns"),
])
def test_elfenland_positions_where_nobody_can_act_are_refused(doc: dict[str, Any],
                                                              why: str) -> None:
    doc = {"format": EL, **doc}
    doc.pop("kept_face_up", None)
    with pytest.raises(elfenland.PositionError, match=why):
        elfenland.load_position(doc)


TWO_KINGDOMS = [[{"town": "plains"}], [{"town": "forest"}]]


@pytest.mark.parametrize("doc,why", [
    ({"players": 2, "pending": "discard-other", "pending_count": 1,
      "hands": [["plains", "forest"], []]}, "holds only town cards"),
    ({"players": 2, "phase": "journey", "kingdoms": TWO_KINGDOMS,
      "journey": {"at": "1.0", "visited": ["0.0", "1.0"], "bonus_paid": False}},
     "bonus is paid exactly when"),
    ({"players": 2, "phase": "journey", "kingdoms": TWO_KINGDOMS,
      "journey": {"at": "0.0", "visited": ["0.0"], "bonus_paid": True}},
     "bonus is paid exactly when"),
    # Player 0 claims to have started in kingdom 1, skipping their own town.
    ({"players": 2, "phase": "journey", "kingdoms": TWO_KINGDOMS,
      "hands": [["change-of-direction"], []],
      "journey": {"at": "1.0", "visited": ["1.0"], "own_visited": True}},
     "own_visited|never skipping"),
    ({"players": 2, "phase": "journey", "kingdoms": [[], [{"town": "forest"}]],
      "hands": [["change-of-direction"], []],
      "journey": {"at": "1.0", "visited": ["1.0"], "own_visited": True}}, "own_visited"),
    ({"players": 2, "phase": "journey", "kingdoms": [[], [{"town": "forest"}]],
      "journey": {"at": "1.0", "visited": ["1.0"], "direction": "counterclockwise"}},
     "change of direction needs"),
    ({"players": 2, "pending": "take", "hands": [["plains"], []]}, "no town card in hand"),
    ({"players": 3, "phase": "journey",
      "kingdoms": [[{"town": "plains"}], [{"town": "forest"}], [{"town": "lake"}]],
      "hands": [["escort"], [], []],
      "journey": {"at": "0.0", "visited": ["0.0"], "escort": 2}}, "escort protects"),
])
def test_king_of_the_elves_inconsistent_positions_are_refused(doc: dict[str, Any],
                                                              why: str) -> None:
    with pytest.raises(elfenland.PositionError, match=why):
        elfenland.load_position({"format": KE, **doc})


def test_the_refusal_says_what_is_wrong_and_a_valid_position_still_loads() -> None:
    with pytest.raises(elfenland.PositionError) as caught:
        elfenland.load_position({"format": EL, "players": 2, "phase": "keep"})
    assert "player 0" in str(caught.value) and "keep" in str(caught.value)
    state = elfenland.load_position({"format": EL, "players": 2, "phase": "keep",
                                     "counters": [{"face_up": ["dragon", "unicorn"]}, {}]})
    assert [str(a) for a in state.legal_actions()] == ["keep unicorn", "keep dragon"] or \
        {str(a) for a in state.legal_actions()} == {"keep unicorn", "keep dragon"}


# ---------------------------------------------------------------- altered real positions

def _random_state(game: str, players: int, seed: int, steps: int,
                  options: dict[str, Any]) -> GameState:
    rng = random.Random(seed)
    state = elfenland.new_game(game=game, players=players, seed=seed, **options)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def _play_out(state: GameState, seed: int, limit: int = 20_000) -> None:
    rng = random.Random(seed)
    for _ in range(limit):
        check_game_state(state)
        if state.is_terminal():
            return
        legal = state.legal_actions()
        assert legal, "a loaded position offers an action or is over"
        state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError("the game did not end")


EL_CHANGES: dict[str, st.SearchStrategy[Any]] = {
    "phase": st.sampled_from(["draw-secret", "draw-counters", "place", "keep", "move",
                              "over"]),
    "current_player": st.integers(0, 5),
    "starting_player": st.integers(0, 5),
    "step": st.integers(0, 20),
    "passes": st.integers(0, 5),
    "discarding": st.booleans(),
    "round": st.integers(1, 4),
    "face_up": st.lists(st.sampled_from(ALL_COUNTERS), max_size=6),
    "counter_pile": st.just({}),
    "hands": st.none(),
}
KE_CHANGES: dict[str, st.SearchStrategy[Any]] = {
    "phase": st.sampled_from(["building", "journey", "over"]),
    "current_player": st.integers(0, 5),
    "dragon": st.integers(0, 5),
    "passes": st.integers(0, 5),
    "pending": st.sampled_from([None, "take", "discard", "discard-other"]),
    "pending_count": st.integers(0, 4),
    "round": st.integers(1, 5),
    "journey": st.fixed_dictionaries({}, optional={
        "at": st.sampled_from([None, "0.0", "0.1", "1.0", "1.1", "2.0"]),
        "visited": st.lists(st.sampled_from(["0.0", "0.1", "1.0", "1.1", "2.0", "2.1"]),
                            max_size=4, unique=True),
        "direction": st.sampled_from(["clockwise", "counterclockwise"]),
        "turned": st.booleans(), "own_visited": st.booleans(),
        "bonus_paid": st.booleans(), "escort": st.sampled_from([None, 0, 1, 2])}),
    "kingdoms": st.none(),
    "hands": st.none(),
}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["elfenland", "king-of-the-elves"]), players=st.integers(2, 6),
       seed=st.integers(0, 2**20), steps=st.integers(0, 600), data=st.data())
def test_any_position_that_loads_can_be_played_to_the_end(
        game: str, players: int, seed: int, steps: int, data: st.DataObject) -> None:
    state = _random_state(game, players, seed, steps, {})
    doc = json.loads(json.dumps(state.to_position()))
    changes = EL_CHANGES if game == "elfenland" else KE_CHANGES
    keys = data.draw(st.lists(st.sampled_from(sorted(changes)), min_size=1, max_size=2,
                              unique=True))
    for key in keys:
        value = data.draw(changes[key], label=key)
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    for key in ("winners", "special_victory"):
        doc.pop(key, None)
    try:
        loaded = elfenland.load_position(doc)
    except elfenland.PositionError:
        return
    assert loaded.is_terminal() or loaded.legal_actions()
    _play_out(loaded, seed)
