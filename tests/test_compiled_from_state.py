"""A pure state and its copy on the compiled engine (``from_state``) are two games: played
on with the same actions, they draw the same cards, each from its own random state.  They
shared one Rng before, so the second to draw got the next card instead (every game
diverged within its first round)."""

from __future__ import annotations

import random

import pytest
from tests.fuzz.engines import PAIRS


@pytest.mark.parametrize("game", sorted(PAIRS))
def test_a_compiled_copy_plays_on_like_the_pure_state_it_was_made_from(game: str) -> None:
    pair = PAIRS[game]
    if not pair.available:
        pytest.skip("compiled engine not built")
    for seed in range(3):
        a = pair.pure(players=3, seed=seed)  # type: ignore[call-arg]
        b = pair.from_state(a)
        r = random.Random(seed)
        steps = 0
        while not a.is_terminal() and steps < 400:
            legal = a.legal_action_ids()
            assert legal == b.legal_action_ids(), (game, seed, steps)
            x = legal[r.randrange(len(legal))]
            a.apply_action(x)
            b.apply_action(x)
            steps += 1
        assert a.to_position() == b.to_position()
        assert a.rng.to_json() == b.rng.to_json() and a.rng is not b.rng  # type: ignore[attr-defined]
