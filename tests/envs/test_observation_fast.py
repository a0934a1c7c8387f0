"""The compiled engines' observation encoders against the Python reference: the same
float32 numbers, bit for bit, for every seat at every position of random games of both
games under every rule set and variant, and the same action mask.  (That the vector is
blind to hidden information is tested in ``test_observation.py`` on both backends.)"""

from __future__ import annotations

import random
from typing import Any

import pytest

from .conftest import need, required

np = need("numpy")

import elfenland  # noqa: E402
from elfenland.envs.observation import (  # noqa: E402
    action_mask,
    action_mask_python,
    encoder_for,
    num_actions,
)
from elfenland.games.elfenland import fast as elfenland_fast  # noqa: E402
from elfenland.games.kingelves import fast as kingelves_fast  # noqa: E402

ELFENLAND_RULES: list[dict[str, Any]] = [
    {}, {"rules": "moon"}, {"destination": True},
    {"boatmen": True, "mare_nebulae_rafts": 1, "mare_magnum_rafts": 1},
    {"keep_when": "after-placement", "counters_kept": 0, "deal": "fresh"},
    {"rules": "moon", "special_victory_at": "round-3", "caravan": "only-if-needed",
     "hand_limit": 6, "counter_draws": 2, "face_up_counters": 3},
    {"counters_kept": 3, "rounds": 2, "final_keep": False, "closest_breaks_ties": False},
]
KING_VARIANTS: list[dict[str, Any]] = [
    {}, {"magic_spell": True}, {"weak_gold": True}, {"gold_for_all": True},
    {"escort_two_towns": True, "no_town_card_from_discard": True},
    {"magic_spell": True, "weak_gold": True, "gold_for_all": True, "rebuild_deck": False},
]
CASES = ([("elfenland", o) for o in ELFENLAND_RULES]
         + [("king-of-the-elves", o) for o in KING_VARIANTS])


@pytest.fixture(autouse=True)
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled engines, whatever ``ELFENLAND_ENGINE`` says; without them (no C
    compiler at install) these tests skip, except on CI, which builds them."""
    if not (elfenland_fast.AVAILABLE and kingelves_fast.AVAILABLE) and not required():
        pytest.skip("the compiled engines are not built on this machine")
    monkeypatch.setenv("ELFENLAND_ENGINE", "compiled")


def _compare_game(game: str, options: dict[str, Any], players: int, seed: int,
                  stride: int) -> int:
    """Plays one random game; at every ``stride``-th position compares every seat's
    vector and the mask.  Returns the positions compared."""
    state = elfenland.new_game(game=game, players=players, seed=seed, **options)
    assert hasattr(state, "_observe_into"), "the compiled engine must be in use"
    encoder = encoder_for(state)
    buffer = np.empty(encoder.layout.size, dtype=np.float32)
    rng = random.Random(seed)
    compared = step = 0
    while True:
        if step % stride == 0 or state.is_terminal():
            # Now and then the reference reads the pure engine's own twin of the game
            # rather than the compiled state's attribute mirrors.
            twin = state.to_pure() if compared % 25 == 0 else state  # type: ignore[attr-defined]
            for p in range(players):
                fast = encoder.encode(state, p)
                ref = encoder.encode_python(twin, p)
                assert fast.dtype == np.float32 and fast.shape == ref.shape
                if fast.tobytes() != ref.tobytes():
                    wrong = [f"{b.name}[{b.seat}]" for b in encoder.layout.blocks
                             if fast[b.offset:b.offset + b.size].tobytes()
                             != ref[b.offset:b.offset + b.size].tobytes()]
                    pytest.fail(f"{game} {options} seat {p} at step {step}: {wrong}")
                buffer.fill(7.0)  # the C code overwrites every number, stale or not
                state._observe_into(buffer, p)  # type: ignore[attr-defined]
                assert buffer.tobytes() == ref.tobytes()
            mask = action_mask(state)
            assert mask.dtype == np.int8
            assert mask.tobytes() == action_mask_python(twin).tobytes()
            compared += 1
        if state.is_terminal():
            return compared
        ids = state.legal_action_ids()
        state.apply_action(ids[rng.randrange(len(ids))])
        step += 1


@pytest.mark.parametrize(("game", "options"), CASES)
def test_compiled_encoding_equals_the_python_reference(
        game: str, options: dict[str, Any]) -> None:
    assert elfenland.engine_backend(game) == "compiled"
    # King of the Elves games run to thousands of actions: every third is plenty.
    stride = 1 if game == "elfenland" else 3
    compared = sum(_compare_game(game, options, n, seed=10 * n + 1, stride=stride)
                   for n in range(2, 7))
    assert compared >= 500


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
def test_bad_buffers_and_seats_raise_and_write_nothing(game: str) -> None:
    state = elfenland.new_game(game=game, players=3, seed=5)
    size = encoder_for(state).layout.size
    fast: Any = state
    for bad in (np.zeros(size - 1, np.float32), np.zeros(size, np.float64),
                np.zeros(size, np.int32), bytes(4 * size), np.zeros((2, size), np.float32)[:, 0]):
        with pytest.raises((ValueError, TypeError, BufferError)):
            fast._observe_into(bad, 0)
    buffer = np.full(size, 3.0, np.float32)
    for seat in (-1, 3, 99):
        with pytest.raises(ValueError):
            fast._observe_into(buffer, seat)
    assert (buffer == 3.0).all()
    mask = np.full(num_actions(game), 5, np.int8)
    with pytest.raises(ValueError):
        fast._legal_mask_into(np.zeros(num_actions(game) + 1, np.int8))
    with pytest.raises(ValueError):
        fast._legal_mask_into(np.zeros(num_actions(game), np.float32))
    fast._legal_mask_into(mask)
    assert sorted(np.flatnonzero(mask).tolist()) == sorted(state.legal_action_ids())
