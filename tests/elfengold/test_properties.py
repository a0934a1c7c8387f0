"""Random whole games for 2–6 players under every option, every invariant checked after
every step; replays, saves and positions give the same game; views leak nothing."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import elfenland
from elfenland.core.errors import InvariantError
from elfenland.core.rng import Rng
from elfenland.games.elfengold import ElfengoldState, deserialize, from_position
from elfenland.games.elfengold.invariants import CONFIGURATIONS, Watcher, check_state
from elfenland.games.invariants import check_game_state


def hidden_free(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("log", "seq", "take_back")}


def play(players: int, seed: int, options: dict[str, Any], chooser: int) -> ElfengoldState:
    rng = random.Random(chooser)
    s = elfenland.new_game(game="elfengold", players=players, seed=seed, **options)
    assert isinstance(s, ElfengoldState)
    watcher = Watcher(s)
    checkpoints = {rng.randrange(20, 600) for _ in range(4)}
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        action = legal[rng.randrange(len(legal))]
        assert s.parse_action(str(action)) == action
        assert s.parse_action(action.id) is action
        s.apply_action(action)
        steps += 1
        check_game_state(s)
        watcher.after(s)
        if steps in checkpoints:
            doc = s.to_position()
            assert from_position(json.loads(json.dumps(doc))).to_position() == doc
            for viewer in range(players):
                other = s.resample_from_infostate(viewer, Rng(steps + viewer))
                check_state(other)
                assert hidden_free(other.view(viewer)) == hidden_free(s.view(viewer))
    assert s.winners() and abs(sum(s.returns()) - 1) < 1e-9
    assert deserialize(s.serialize()) == s
    return s


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 6), config=st.integers(0, len(CONFIGURATIONS) - 1),
       seed=st.integers(0, 2**31), chooser=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(players: int, config: int, seed: int,
                                          chooser: int) -> None:
    play(players, seed, dict(CONFIGURATIONS[config]), chooser)


@pytest.mark.parametrize("config", range(len(CONFIGURATIONS)))
def test_same_seed_and_actions_give_the_same_game(config: int) -> None:
    options = dict(CONFIGURATIONS[config])
    a = play(4, 100 + config, options, 7)
    b = elfenland.new_game(game="elfengold", players=4, seed=100 + config, **options)
    for action in a.history:
        b.apply_action(str(action))
    assert b == a and b.to_position() == a.to_position()


def test_a_resampled_state_redeals_what_the_viewer_cannot_see() -> None:
    s = elfenland.new_game(game="elfengold", players=4, seed=3, witch=True)
    assert isinstance(s, ElfengoldState)
    rng = random.Random(3)
    while s.round < 3:
        s.apply_action(rng.choice(s.legal_actions()))
    changed_hands = changed_items = 0
    for k in range(20):
        other = s.resample_from_infostate(0, Rng(k))
        assert other.hands[0] == s.hands[0] and other.items_down[0] == s.items_down[0]
        assert hidden_free(other.view(0)) == hidden_free(s.view(0))
        changed_hands += other.hands[1:] != s.hands[1:]
        changed_items += other.item_pile != s.item_pile
    assert changed_hands > 10 and changed_items > 0
    # what another player sees of the redealt state does change
    assert any(hidden_free(s.resample_from_infostate(0, Rng(k)).view(1))
               != hidden_free(s.view(1)) for k in range(5))


def test_a_view_never_shows_another_players_hidden_things() -> None:
    s = elfenland.new_game(game="elfengold", players=3, seed=8, eg_public_gold=False)
    assert isinstance(s, ElfengoldState)
    rng = random.Random(8)
    while s.round < 2 or s.phase.value != "place":
        s.apply_action(rng.choice(s.legal_actions()))
    view = s.view(1)
    for seat in view["players"]:
        if seat["seat"] != 1:
            assert "hand" not in seat and "face_down" not in seat and "coins" not in seat
    assert isinstance(view["supply"], int) and isinstance(view["item_pile"], int)
    public = elfenland.new_game(game="elfengold", players=3, seed=8)
    assert all("coins" in seat for seat in public.view(1)["players"])


def test_the_invariants_catch_a_lost_item_and_a_lost_coin() -> None:
    s = elfenland.new_game(game="elfengold", players=3, seed=2)
    assert isinstance(s, ElfengoldState)
    # Whole fields are written back: the compiled engine hands out copies of its lists.
    s.item_pile = [s.item_pile[0] - 1, *s.item_pile[1:]]
    with pytest.raises(InvariantError, match="giant-pig"):
        check_state(s)
    s.item_pile = [s.item_pile[0] + 1, *s.item_pile[1:]]
    s.coins = [c + (p == 1) for p, c in enumerate(s.coins)]
    with pytest.raises(InvariantError, match="coins"):
        check_state(s)
    s.coins = [c - (p == 1) for p, c in enumerate(s.coins)]
    hands = s.hands
    hands[2][6] += 1
    s.hands = hands
    with pytest.raises(InvariantError, match="cards"):
        check_state(s)


def test_the_invariants_catch_too_many_items_carried_into_a_round() -> None:
    s = elfenland.new_game(game="elfengold", players=3, seed=2)
    assert isinstance(s, ElfengoldState)
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])
    check_state(s)
    s.item_pile = [s.item_pile[0] - 3, *s.item_pile[1:]]
    items_up = s.items_up
    items_up[1][0] += 3
    s.items_up = items_up
    with pytest.raises(InvariantError, match="items before the auction"):
        check_state(s)
