"""``SeededOnUse``: an ``Rng`` whose generator is seeded at its first draw (what a
search gives each rollout's copy of a deal) draws, copies, compares and saves as
``Rng(seed)`` does, on both engines, and a copy never drawn from seeds nothing."""

from __future__ import annotations

from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.core.rng import Rng, SeededOnUse
from elfenland.games.elfenland.fast import AVAILABLE


def seeded(r: Rng) -> bool:
    """Whether the generator behind ``r`` exists (read without making it)."""
    try:
        Rng._r.__get__(r)  # type: ignore[attr-defined]
    except AttributeError:
        return False
    return True


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3, "text"])
def test_it_draws_as_rng_of_the_same_seed(seed: Any) -> None:
    lazy, eager = SeededOnUse(seed), Rng(seed)
    assert not seeded(lazy)
    items, others = list(range(20)), list(range(20))
    lazy.shuffle(items)
    eager.shuffle(others)
    assert seeded(lazy) and items == others
    assert [lazy.randrange(9) for _ in range(5)] == [eager.randrange(9) for _ in range(5)]
    assert lazy.choice("abcdef") == eager.choice("abcdef")
    a, b = [3, 0, 5], [3, 0, 5]
    assert lazy.draw_from_counts(a) == eager.draw_from_counts(b) and a == b
    assert lazy == eager and lazy.to_json() == eager.to_json()
    assert lazy.copy() == eager.copy()


def test_a_copy_or_comparison_before_any_draw_is_rng_of_the_seed() -> None:
    assert SeededOnUse(5).copy() == Rng(5)
    assert SeededOnUse(5) == Rng(5)
    assert SeededOnUse(5).getstate() == Rng(5).getstate()
    lazy = SeededOnUse(6)
    with pytest.raises(AttributeError):
        lazy.no_such_thing  # noqa: B018 -- only ``_r`` is made on demand


@pytest.mark.parametrize("engine", ["pure", "compiled"])
def test_a_game_drawing_from_it_is_the_game_of_rng(engine: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rounds' ends (the travel cards dealt, the counters drawn) from a position
    given ``SeededOnUse(s)`` and from the same position given ``Rng(s)``."""
    if engine == "compiled" and not AVAILABLE:
        pytest.skip("the compiled engine is not built")
    monkeypatch.setenv("ELFENLAND_ENGINE", engine)
    state: Any = elfenland.new_game("elfenland", players=3, seed=11)
    games = []
    for make in (SeededOnUse, Rng):
        bots = [make_bot("greedy", "elfenland", q) for q in range(3)]
        sim = state.clone()
        sim.rng = make(99)
        while not sim.is_terminal() and sim.round <= 2:
            sim.apply_action(bots[sim.current_player()].choose(sim))
        games.append(sim.serialize())
    assert games[0] == games[1]
