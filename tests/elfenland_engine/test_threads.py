"""Issue #22: a state belongs to one thread (docs/performance.md), and separate states in
separate threads are independent: every thread's game is the one a single thread plays
from the same seed, on both engines and both games, clones and resamples included."""

from __future__ import annotations

import os
import threading

import pytest

import elfenland
from elfenland.core.rng import Rng

GAMES = ["elfenland", "king-of-the-elves"]


def play(game: str, seed: int, steps: int = 400) -> str:
    """A game played by a fixed rule, with clones and resamples along the way; its saved
    text and final position."""
    state = elfenland.new_game(game=game, players=3, seed=seed)
    pick = Rng(seed)
    for i in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        if i % 7 == 0:
            twin = state.clone()
            twin.apply_action(legal[0])
            sampled = state.resample_from_infostate(state.current_player(), Rng(i))
            assert sampled.legal_actions()
        state.apply_action(legal[pick.randrange(len(legal))])
    return state.serialize() + repr(state.to_position())


@pytest.mark.parametrize("engine", ["pure", "compiled"])
@pytest.mark.parametrize("game", GAMES)
def test_states_in_separate_threads_are_independent(game: str, engine: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELFENLAND_ENGINE", engine)
    seeds = list(range(8))
    expected = {seed: play(game, seed) for seed in seeds}
    got: dict[int, str] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(seeds))

    def worker(seed: int) -> None:
        try:
            barrier.wait()
            got[seed] = play(game, seed)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert got == expected
    assert os.environ["ELFENLAND_ENGINE"] == engine
