"""Issue #22: every loader error is typed, and both engines load exactly the same
documents: a malformed random state, impossible winners and a saved game without its
seed are refused the same way on the pure and the compiled engine."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

import elfenland
from elfenland.core.errors import PositionError, SerializationError

ENGINES = ["pure", "compiled"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    old = os.environ.get("ELFENLAND_ENGINE")
    os.environ["ELFENLAND_ENGINE"] = request.param
    yield request.param
    if old is None:
        os.environ.pop("ELFENLAND_ENGINE", None)
    else:
        os.environ["ELFENLAND_ENGINE"] = old


def finished(game: str) -> elfenland.GameState:
    state = elfenland.new_game(game=game, players=2, seed=5)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


BAD_RNG: list[Any] = [[3, [2**70] * 625, None], [3, [1] * 3, None], "x", [3, None, None],
                      [2**80, [0] * 625, None], [3, [0] * 624 + [10**30], None]]


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
@pytest.mark.parametrize("rng", BAD_RNG, ids=str)
def test_a_malformed_random_state_is_a_position_error(engine: str, game: str,
                                                      rng: Any) -> None:
    doc = elfenland.new_game(game=game, players=3, seed=1).to_position()
    doc["rng"] = rng
    with pytest.raises(PositionError):
        elfenland.load_position(doc)


@pytest.mark.parametrize("winners", [[0, 1, 0, 1, 0, 1, 0, 1], [0, 0], [], [5], [True],
                                     "0", [-1]], ids=str)
def test_impossible_winners_are_refused_by_both_engines(engine: str, winners: Any) -> None:
    doc = finished("elfenland").to_position()
    assert "winners" in doc
    doc["winners"] = winners
    with pytest.raises(PositionError):
        elfenland.load_position(doc)


def test_good_winners_load_on_both_engines(engine: str) -> None:
    doc = finished("elfenland").to_position()
    assert elfenland.load_position(doc).winners() == finished("elfenland").winners()


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
@pytest.mark.parametrize("seed", [None, "1", True, 1.5])
def test_a_saved_game_without_an_integer_seed_is_refused(engine: str, game: str,
                                                         seed: Any) -> None:
    state = elfenland.new_game(game=game, players=2, seed=7)
    state.apply_action(state.legal_actions()[0])
    doc = json.loads(state.serialize())
    assert doc["seed"] == 7
    doc["seed"] = seed
    with pytest.raises(SerializationError, match="seed"):
        elfenland.deserialize(json.dumps(doc))
