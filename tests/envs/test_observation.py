"""The observation vector: fixed size, inside its bounds, and blind to hidden information
(a state resampled from the observer's information state encodes to the same vector)."""

from __future__ import annotations

import random

import pytest

from .conftest import need, required

np = need("numpy")

import elfenland  # noqa: E402
from elfenland.core.rng import Rng  # noqa: E402
from elfenland.envs.observation import action_mask, encoder_for, num_actions  # noqa: E402

GAMES = [("elfenland", {}), ("elfenland", {"rules": "moon"}),
         ("elfenland", {"destination": True}),
         ("king-of-the-elves", {}), ("king-of-the-elves", {"magic_spell": True})]


@pytest.mark.parametrize(("game", "options"), GAMES)
@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("backend", ["compiled", "pure"])
def test_vector_fixed_bounded_and_blind_to_hidden_information(
        game: str, options: dict[str, object], players: int, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On the compiled engine the C encoder writes the vectors (and the resampled
    states are compiled too); on the pure one the Python reference does."""
    monkeypatch.setenv("ELFENLAND_ENGINE", backend)
    if backend == "compiled" and elfenland.engine_backend(game) != backend and not required():
        pytest.skip("the compiled engines are not built on this machine")
    assert elfenland.engine_backend(game) == backend
    state = elfenland.new_game(game=game, players=players, seed=players, **options)
    assert hasattr(state, "_observe_into") == (backend == "compiled")
    encoder = encoder_for(state)
    high = encoder.layout.high()
    assert encoder.layout.size == high.shape[0]
    rng = random.Random(players)
    checked = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        if state.is_terminal() or rng.random() > 0.1:
            continue
        for p in range(players):
            vec = encoder.encode(state, p)
            assert vec.dtype == np.float32 and vec.shape == (encoder.layout.size,)
            assert (vec >= 0).all() and (vec <= high).all()
            other = state.resample_from_infostate(p, Rng(checked))
            assert np.array_equal(encoder.encode(other, p), vec), "hidden information leaks"
            checked += 1
        mask = action_mask(state)
        assert mask.dtype == np.int8 and mask.shape == (num_actions(game),)
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(state.legal_action_ids())
    assert checked > 0
    final = encoder.encode(state, 0)
    assert (final <= high).all()
    assert not action_mask(state).any()


def test_own_hand_is_seen_and_others_hands_are_not() -> None:
    state = elfenland.new_game(players=3, seed=7)
    encoder = encoder_for(state)
    hand = encoder.layout.block("hand", 0)
    others = [encoder.layout.block("hand", s) for s in (1, 2)]
    for p in range(3):
        vec = encoder.encode(state, p)
        assert vec[hand.offset:hand.offset + hand.size].tolist() == state.hands[p]
        for b in others:
            assert not vec[b.offset:b.offset + b.size].any()
        cards = encoder.layout.block("cards", 1)
        assert vec[cards.offset] == sum(state.hands[(p + 1) % 3])


def test_seats_are_relative_to_the_observer() -> None:
    state = elfenland.new_game(game="king-of-the-elves", players=4, seed=3)
    encoder = encoder_for(state)
    current = encoder.layout.block("current_player")
    for p in range(4):
        vec = encoder.encode(state, p)
        seen = np.flatnonzero(vec[current.offset:current.offset + current.size]).tolist()
        assert seen == [(state.current_player() - p) % 4]


def test_layout_lists_every_offset_once() -> None:
    state = elfenland.new_game(players=4, seed=1)
    layout = encoder_for(state).layout
    covered = np.zeros(layout.size, dtype=int)
    for b in layout.blocks:
        covered[b.offset:b.offset + b.size] += 1
    assert (covered == 1).all()
    lines = list(layout.describe())
    assert len(lines) == len(layout.blocks)
    assert any("hand [seat +0] (observer only)" in line for line in lines)
