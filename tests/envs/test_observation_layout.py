"""The observation layout as a declared, versioned API: named slices covering the vector
exactly, pinned per version (a change to the blocks without a new version fails here),
and OpenSpiel's ``observation_tensor`` answered by the engine."""

from __future__ import annotations

import hashlib
import json

import pytest

from .conftest import need

np = need("numpy")
pyspiel = need("pyspiel")

import elfenland  # noqa: E402
import elfenland.envs.openspiel  # noqa: E402
from elfenland.envs.observation import (  # noqa: E402
    OBSERVATION_VERSION,
    encoder_for,
    observation_layout,
)

GAMES = ["elfenland", "king-of-the-elves", "elfengold"]

#: sha256 of the (name, seat, size, private) rows for 2..6 players, per game, for
#: OBSERVATION_VERSION.  Changing a block means a new version and a new fingerprint.
FINGERPRINTS = {
    1: {"elfenland": "841040b311f519e76388e06dcbd149f4b5d8133af214bd0318ee9aa2b2197c2f",
        "king-of-the-elves": "7b666ada5146de3578caa4e5df87de1903ef0a1dab2de50fdd225687088132ba",
        "elfengold": "78827c8cd3ea07f7e5019fb3c6cad0fac34401852ff5d4ae331e25d16a39bb9b"},
}


def fingerprint(game: str) -> str:
    rows = [[(b.name, b.seat, b.size, b.private)
             for b in observation_layout(game, n).blocks] for n in range(2, 7)]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


@pytest.mark.parametrize("game", GAMES)
def test_the_layout_is_pinned_to_its_version(game: str) -> None:
    assert fingerprint(game) == FINGERPRINTS[OBSERVATION_VERSION][game]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_named_slices_cover_the_vector(game: str, players: int) -> None:
    layout = observation_layout(game, players)
    assert layout.version == OBSERVATION_VERSION
    slices = layout.slices()
    assert len(slices) == len(layout.blocks)
    at = 0
    for s in slices.values():
        assert s.start == at and s.stop > s.start
        at = s.stop
    assert at == layout.size
    state = elfenland.new_game(game=game, players=players, seed=players)
    assert encoder_for(state).layout.size == layout.size
    doc = layout.to_json()
    assert doc["size"] == layout.size and len(doc["blocks"]) == len(slices)
    per_seat = sum(b.size for b in layout.blocks if b.seat == 0)
    assert per_seat == {"elfenland": 93, "king-of-the-elves": 24, "elfengold": 131}[game]


@pytest.mark.parametrize("game", GAMES)
def test_the_hand_slice_holds_the_observers_hand(game: str) -> None:
    layout = observation_layout(game, 3)
    state = elfenland.new_game(game=game, players=3, seed=5)
    enc = encoder_for(state)
    for p in range(3):
        v = enc.encode(state, p)
        assert list(v[layout.slices()["hand@+0"]]) == list(state.hands[p])  # type: ignore[attr-defined]
        assert not v[layout.slices()["hand@+1"]].any()


def test_layout_follows_rule_options() -> None:
    moon = observation_layout("elfenland", 4, rules="moon")
    amigo = observation_layout("elfenland", 4)
    assert moon.size == amigo.size  # the rules block holds the values, not the shape
    with pytest.raises(ValueError):
        observation_layout("elfenland", 7)


@pytest.mark.parametrize("name", ["python_elfenland", "python_king_of_the_elves",
                                  "python_elfengold"])
def test_openspiel_observation_tensor_is_the_engines_vector(name: str) -> None:
    """``state.observation_tensor`` was OpenSpiel's list, built through a new initial
    state per call; now the engine's numbers in a float32 array, the observer's."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(name, {"players": 3})
    observer = make_observation(game)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(60):
        for p in range(3):
            tensor = state.observation_tensor(p)
            assert isinstance(tensor, np.ndarray) and tensor.dtype == np.float32
            observer.set_from(state, p)
            assert np.array_equal(tensor, observer.tensor)
            assert np.array_equal(tensor, pyspiel.State.observation_tensor(state, p))
            assert np.array_equal(state.information_state_tensor(p), tensor)
        first = state.observation_tensor()
        assert np.array_equal(first, state.observation_tensor(state.current_player()))
        state.apply_action(int(rng.choice(state.legal_actions())))
    with pytest.raises(pyspiel.SpielError):
        state.observation_tensor(3)
