"""The King of the Elves journey planner's fallback: when the exact search runs out of
its ``budget`` of journey positions, a search without escorts and changes of direction
or a step-by-step walk answers instead.  Its plans must still be legal, earn what they
say and say they are not exact; with room enough the same position is solved exactly,
and never worse."""

from __future__ import annotations

import random
from typing import Any

import pytest
from kingelves_positions import VARIANTS, brute_best, objective, random_journey

import elfenland
from elfenland.bots.kingelves_journey import (
    JOURNEY_CARDS,
    TIE_BREAK_VALUES,
    Plan,
    plan_journey,
)
from elfenland.games.kingelves.actions import Kind
from elfenland.games.kingelves.state import KingOfTheElvesState

KEEP = (60,) * 7 + (40, 80)

#: Anne in the rulebook's third example, with a few more cards: escorts, a change of
#: direction, a thief and both obstacles on a full table.
RICH = {
    "format": "king-of-the-elves-position/1", "players": 4, "phase": "journey",
    "dragon": 0, "current_player": 0,
    "kingdoms": [[{"town": "river", "sea-monster": 3}, {"town": "plains", "gold": 3}],
                 [{"town": "forest", "tree": 2, "gold": 0}, {"town": "mountain"}],
                 [{"town": "desert", "thief": 1}, {"town": "lake", "gold": 1}],
                 [{"town": "mountain", "thief": 2}, {"town": "plains"}]],
    "hands": [{"raft": 4, "unicorn": 3, "dragon": 2, "magic-cloud": 2, "elfcycle": 2,
               "troll-wagon": 1, "escort": 2, "change-of-direction": 2}, {}, {}, {}],
}


def replay(state: KingOfTheElvesState, plan: Plan, values: tuple[int, ...]) -> None:
    """Play the plan on the engine, one legal action at a time, and check what it earns."""
    state = state.clone()
    p = state.current
    gold0 = state.gold[p]
    assert plan.actions[-1].kind is Kind.STOP
    for action in plan.actions:
        assert action in state.legal_actions(), str(action)
        state.apply_action(action)
    assert state.gold[p] - gold0 == plan.gold
    assert objective(state, p, gold0, values) == plan.value
    assert plan.hand == tuple(state.hands[p][c] for c in JOURNEY_CARDS)
    assert plan.gold == sum(s.gain for s in plan.steps)


def rich() -> KingOfTheElvesState:
    state = elfenland.load_position(RICH)
    assert isinstance(state, KingOfTheElvesState)
    return state


@pytest.mark.parametrize("values", [TIE_BREAK_VALUES, KEEP])
@pytest.mark.parametrize("budget", [0, 1, 10, 50])
def test_fallback_is_legal_and_no_better_than_exact(values: tuple[int, ...],
                                                     budget: int) -> None:
    state = rich()
    fallback = plan_journey(state, values=values, budget=budget)
    assert not fallback.exact
    replay(state, fallback, values)
    assert len(fallback.steps) > 1  # the walk does go somewhere
    exact = plan_journey(state, values=values, budget=None)
    assert exact.exact
    replay(state, exact, values)
    assert exact.value >= fallback.value


def test_fallback_without_extras_is_not_exact() -> None:
    """``extras=False`` is exact by its own measure, unless it too runs out."""
    state = rich()
    quick = plan_journey(state, budget=None, extras=False)
    assert quick.exact
    assert {a.kind for a in quick.actions} <= {Kind.VISIT, Kind.SPELL, Kind.STOP}
    tight = plan_journey(state, budget=1, extras=False)
    assert not tight.exact
    replay(state, tight, TIE_BREAK_VALUES)
    assert quick.value >= tight.value


def test_fallback_value_grows_with_the_budget() -> None:
    """As the budget grows: the step-by-step walk, then the search without escorts and
    changes of direction (exact by its own measure once it fits), then the exact search;
    each plan legal, none worse than the one before."""
    state = rich()
    exact = plan_journey(state, budget=None)
    quick = plan_journey(state, budget=None, extras=False)
    assert exact.exact and quick.exact
    assert exact.value > quick.value  # escorts and changes of direction pay here
    # The smallest budget with room for the search without extras.
    fits = next(b for b in range(1, 100_000)
                if plan_journey(state, budget=b, extras=False).exact)
    last = -1
    for budget in sorted({1, 3, 10, 30, fits, 100, 300, 1000, 3000, 10_000, 30_000, 100_000}):
        plan = plan_journey(state, budget=budget)
        replay(state, plan, TIE_BREAK_VALUES)
        assert plan.value >= last
        last = plan.value
        if plan.exact:
            assert plan.value == exact.value
            break
        if budget >= fits:
            assert plan.value >= quick.value
    else:
        raise AssertionError("no budget was enough for the exact search")


@pytest.mark.parametrize("batch", range(3))
def test_fallback_on_random_positions(batch: int) -> None:
    """Over random positions (every variant, part-way journeys too): the fallback's plan
    is legal and earns what it says; the exact plan is the brute-force optimum and never
    worse than the fallback."""
    rng = random.Random(1000 + batch)
    for i in range(40):
        state = random_journey(rng, max_cards=8)
        values = TIE_BREAK_VALUES if i % 2 else tuple(rng.randint(0, 150)
                                                      for _ in JOURNEY_CARDS)
        # No room at all: the step-by-step walk answers.
        fallback = plan_journey(state, values=values, budget=0)
        assert not fallback.exact
        replay(state, fallback, values)
        exact = plan_journey(state, values=values, budget=None)
        assert exact.exact
        assert exact.value == brute_best(state, values)
        assert exact.value >= fallback.value


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_fallback_in_every_variant(variant: int) -> None:
    doc: dict[str, Any] = {**RICH, "options": VARIANTS[variant]}
    state = elfenland.load_position(doc)
    assert isinstance(state, KingOfTheElvesState)
    for values in (TIE_BREAK_VALUES, KEEP):
        fallback = plan_journey(state, values=values, budget=5)
        assert not fallback.exact
        replay(state, fallback, values)
        exact = plan_journey(state, values=values, budget=None)
        assert exact.exact
        replay(state, exact, values)
        assert exact.value >= fallback.value
