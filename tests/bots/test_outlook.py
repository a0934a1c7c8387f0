"""The look-ahead move: as many towns as the planner, then a short walk over the rest."""

from __future__ import annotations

import random

import pytest
from positions import random_move_position

from elfenland.bots.outlook import (
    LINKS_PER_ROUND,
    journey_outlook,
    look_ahead_journey,
    outlook,
)
from elfenland.bots.planner import plan_journey

# A path 0 - 1 - 2 - ... - 9: distances are index differences.
LINE = [[abs(a - b) for b in range(10)] for a in range(10)]


def test_outlook_walks_to_the_nearest_town_first() -> None:
    # From 5: 6 (1 link), 8 (2 more), then back to 1 (7 more): 10 links in all.
    assert outlook(LINE, 5, [1, 6, 8], rounds_left=1) == (2, -10)
    assert outlook(LINE, 5, [1, 6, 8], rounds_left=2) == (3, -10)
    assert outlook(LINE, 0, [], rounds_left=3) == (0, 0)


def test_outlook_prefers_ending_beside_the_towns_left() -> None:
    near = outlook(LINE, 7, [8, 9], rounds_left=1)
    far = outlook(LINE, 0, [8, 9], rounds_left=1)
    assert near > far
    # 8 links to the first town: beyond one round's walk.
    assert far == (0, -9) and LINKS_PER_ROUND < 8


@pytest.mark.parametrize("seed", range(25))
def test_look_ahead_collects_as_many_towns_as_the_planner(seed: int) -> None:
    state = random_move_position(random.Random(91_000 + seed))
    p = state.current
    plain = plan_journey(state)
    chosen = look_ahead_journey(state, p)
    assert chosen.key[:2] == plain.key[:2]
    assert chosen.actions[0] in state.legal_actions()
    # It is never worse by its own measure than the planner's first answer.
    if state.round < state.rules.rounds:
        assert (journey_outlook(state, p, chosen), chosen.usefulness) >= (
            journey_outlook(state, p, plain), plain.usefulness)
    else:
        assert chosen == plain
    # Every step is legal in turn, and the journey ends where it says.
    sim = state.clone()
    for action in chosen.actions[:-1]:
        assert action in sim.legal_actions()
        sim.apply_action(action)
    assert sim.boots[p] == (chosen.steps[-1].to if chosen.steps else state.boots[p])


def _reference_outlook(distances: list[list[int]], start: int, remaining: list[int],
                       rounds_left: int) -> tuple[int, int]:
    """The walk as first written (sets and sums), which ``outlook`` must equal."""
    budget = rounds_left * LINKS_PER_ROUND
    here, todo, reached, length = start, set(remaining), 0, 0
    while todo:
        row = distances[here]
        nxt = min(todo, key=lambda u: (row[u],
                                       -sum(1 for v in todo if distances[u][v] == 1), u))
        length += row[nxt]
        reached += length <= budget
        todo.discard(nxt)
        here = nxt
    return reached, -length


@pytest.mark.parametrize("engine", ["compiled", "pure"])
def test_outlook_equals_the_reference_walk_on_the_board_and_random_graphs(
        engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk on bit masks, in C (``_planner.outlook``) and in Python, equals the walk
    as first written."""
    import elfenland
    from elfenland.bots import planner

    if engine == "compiled" and not planner.AVAILABLE:
        pytest.skip("the compiled planner is not built")
    monkeypatch.setenv("ELFENLAND_ENGINE", engine)

    board = elfenland.new_game("elfenland", players=2, seed=1).board  # type: ignore[attr-defined]
    rng = random.Random(4)
    tables = [board.distances, [list(r) for r in board.distances]]
    for _ in range(20):  # random symmetric graphs with ties
        n = rng.randrange(2, 30)
        d = [[0 if a == b else rng.randrange(1, 4) for b in range(n)] for a in range(n)]
        tables.append([[min(d[a][b], d[b][a]) for b in range(n)] for a in range(n)])
    for table in tables:
        n = len(table)
        for _ in range(60):
            todo = rng.sample(range(n), rng.randrange(n + 1))
            start, left = rng.randrange(n), rng.randrange(5)
            assert outlook(table, start, todo, left) == _reference_outlook(
                [list(r) for r in table], start, todo, left)


def test_the_compiled_walk_refuses_what_is_not_a_board() -> None:
    from elfenland.bots import planner

    if not planner.AVAILABLE:
        pytest.skip("the compiled planner is not built")
    c = planner._planner
    walks = c.walks([0, 1, 1, 0], 2)
    assert c.outlook(walks, 0, 0b10, 5) == (1, -1)
    for args in [(walks, 2, 1, 5), (walks, -1, 1, 5), (walks, 0, 0b100, 5),
                 (walks, 0, -1, 5), (walks, 0, 2**70, 5)]:
        with pytest.raises(ValueError):
            c.outlook(*args)
    for bad in [([0, 1, 1], 2), ([0] * 65 * 65, 65), ([0, -1, 1, 0], 2), ([], 0)]:
        with pytest.raises(ValueError):
            c.walks(*bad)
    with pytest.raises((TypeError, ValueError)):
        c.outlook(object(), 0, 1, 5)
    with pytest.raises((TypeError, ValueError)):
        c.walks(None, 2)
