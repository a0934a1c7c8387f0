"""The Elfenland quick level's compiled rollouts (``_quick_rollout.h``, issue #25)
against its Python rollouts: on the same positions, deals and seeds, every root's mean
reward is the same float and the same root is chosen, in every rule set and player
count, for the level's settings and the evaluation settings the C code ports; settings
it does not port keep the Python rollouts; and it refuses bad input with typed errors."""

from __future__ import annotations

from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_quick import (
    ElfenlandQuickBot,
    _Plans,
    candidate_ids,
    compiled_rollouts,
)
from elfenland.bots.elfenland_search import candidates
from elfenland.bots.planner import planner_backend
from elfenland.core.rng import Rng
from elfenland.games.elfenland import fast as fast_engine
from elfenland.games.elfenland.actions import Kind, from_id
from elfenland.games.elfenland.fast import AVAILABLE
from elfenland.games.elfenland.state import ElfenlandState, Phase

pytestmark = pytest.mark.skipif(
    not AVAILABLE or planner_backend() != "compiled",
    reason="the compiled rollouts need the compiled engine and planner")


def searched(players: int, seeds: range, rules: str = "amigo", destination: bool = False,
             rounds: tuple[int, ...] = (1, 2, 3, 4)) -> list[tuple[Any, list[Any]]]:
    """Placement positions of greedy games where the level searches, with its roots."""
    out: list[tuple[Any, list[Any]]] = []
    for seed in seeds:
        state: Any = elfenland.new_game("elfenland", players=players, seed=seed,
                                        rules=rules, destination=destination)
        greedy = [make_bot("greedy", "elfenland", 7 * seed + q) for q in range(players)]
        probe: Any = make_bot("quick", "elfenland", seed)
        while not state.is_terminal():
            if state.phase is Phase.PLACE and state.round in rounds:
                roots = candidates(state, probe.greedy)
                if len(roots) > 1:
                    out.append((state.clone(), roots))
            state.apply_action(greedy[state.current_player()].choose(state))
    return out


def search_both(state: Any, roots: list[Any], seed: int, deals: int = 6,
                **settings: Any) -> tuple[tuple[Any, ...], tuple[Any, ...], bool]:
    """The level's search of ``roots`` with its Python and its compiled rollouts (a
    fixed number of rollouts, the same seed): (chosen id, every root's mean reward) of
    each, and whether the compiled ones played."""
    got = []
    used = False
    for compiled in (False, True):
        bot = ElfenlandQuickBot(seed)
        for name, value in settings.items():
            setattr(bot, name, value)
        bot.compiled = compiled
        bot.iterations, bot.seconds = deals * len(roots), 1e9
        if compiled:
            used = bot.compiled_for(state, bot.scoring(state)) is not None
        chosen = bot.search(state, roots)
        got.append((chosen.id, tuple(bot.loop.last)))
    return got[0], got[1], used


@pytest.mark.parametrize(("players", "rules", "destination"), [
    (2, "amigo", False), (3, "amigo", False), (4, "amigo", False), (6, "amigo", False),
    (2, "moon", False), (4, "moon", False), (5, "moon", False), (2, "amigo", True),
    (4, "amigo", True),
])
def test_compiled_rollouts_give_the_python_rollouts_rewards(
        players: int, rules: str, destination: bool) -> None:
    """Every root's mean reward, bit for bit, and the choice, on positions of every
    round (the last round's exact outcome and town cards included)."""
    positions = searched(players, range(3), rules, destination)
    assert len(positions) >= 6
    step = max(1, len(positions) // 8)
    for i, (state, roots) in enumerate(positions[::step]):
        python, compiled, used = search_both(state, roots, 1000 + i)
        assert used
        assert compiled == python


@pytest.mark.parametrize("settings", [
    {"exact": 1.0, "margin_scale": 3.0},
    {"horizon": 0.55, "horizon_late": 0.25, "cards": 0.15},
    {"counter": 0.5, "obstacle": 0.0, "exact": 0.0},
    {"own_tree": False},
])
def test_compiled_rollouts_follow_the_evaluation_settings(settings: dict[str, Any]) -> None:
    """The settings the C code ports give the Python rewards too, with two players and
    with four."""
    for players in (2, 4):
        positions = searched(players, range(1), rounds=(2, 3, 4))
        for i, (state, roots) in enumerate(positions[:: max(1, len(positions) // 4)]):
            python, compiled, used = search_both(state, roots, 50 + i, **settings)
            assert used
            assert compiled == python


@pytest.mark.parametrize("setting", [
    ("compiled", False), ("rival_greedy", True), ("rival_tree", True), ("place_ahead", 1),
    ("react_wishes", False), ("calibrated", True), ("learned", True), ("every_rival", True),
    ("tie_cards", 0.1), ("standing", 0.3),
])
def test_settings_the_c_code_lacks_keep_the_python_rollouts(setting: tuple[str, Any]) -> None:
    state, _ = searched(2, range(1))[0]
    bot = ElfenlandQuickBot(1)
    assert bot.compiled_for(state, bot.scoring(state)) is not None
    setattr(bot, *setting)
    assert bot.compiled_for(state, bot.scoring(state)) is None


def test_the_pure_engine_keeps_the_python_rollouts() -> None:
    pure = ElfenlandState(players=2, seed=4)
    assert compiled_rollouts(pure) is None
    bot = ElfenlandQuickBot(1)
    assert bot.compiled_for(pure, bot.scoring(pure)) is None


def test_the_compiled_rollouts_refuse_bad_input() -> None:
    """A typed error, never a crash: a state of the pure engine, a rollout before any
    deal, a seat out of range, tables or ids of the wrong shape."""
    from elfenland.bots import planner

    state: Any = elfenland.new_game("elfenland", players=2, seed=5)
    fast: Any = compiled_rollouts(state)
    assert fast is not None
    pure = ElfenlandState(players=2, seed=5)
    with pytest.raises(TypeError):
        fast.reset(pure)
    with pytest.raises(TypeError):
        fast.reset(object())
    assert fast.reset(state) is True
    with pytest.raises(RuntimeError):
        fast.advance(state, 0, False)  # no deal yet
    fast.deal(state)
    fast.start()
    with pytest.raises(ValueError):
        fast.evaluate(state, 5, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0)
    with pytest.raises(TypeError):
        fast.evaluate(state, 0, "x", 0.0, 0.0, 0.0, 0.0, 4.0)
    with pytest.raises(ValueError):
        fast.candidates(state)  # not the placement phase
    kind = type(fast)
    tables = planner.compiled_tables(state.board)
    api = fast_engine.c_api()
    n = len(state.board.routes)
    good = ([[0] * 6] * n, 0, (0,) * 7, [0] * n, [(0, 1)] * n, 5)
    kind(tables, api, *good)
    with pytest.raises(ValueError):
        kind(tables, api, [[0] * 5] * n, *good[1:])  # a row short
    with pytest.raises(ValueError):
        kind(tables, api, [[0] * 6] * 80, *good[1:])  # more routes than fit
    with pytest.raises(ValueError):
        kind(tables, api, *good[:4], [(0, 99)] * n, 5)  # a town off the board
    with pytest.raises(ValueError):
        kind(tables, api, *good[:5], 0)  # no candidate
    with pytest.raises(ValueError):
        kind(object(), api, *good)  # not a tables capsule
    with pytest.raises(ValueError):
        kind(tables, tables, *good)  # not the engine's entry


def test_the_compiled_tree_refuses_bad_input() -> None:
    """The searcher's trees kept in C (``trees``, ``rollout``, ``backup``): a typed
    error for a tree of another search or none, a rollout before any deal, a seat or
    root out of range, a random source that is not one; a whole rollout's reward is in
    [0, 1] and the state left at the round's move phase."""
    from elfenland.bots.elfenland_quick import _Draws
    from elfenland.bots.elfenland_search import EXPLORATION

    state, roots = searched(2, range(1))[0]
    fast: Any = compiled_rollouts(state)
    assert fast.reset(state) is True
    for bad in ((-1, EXPLORATION), (5000, EXPLORATION), (2, -1.0), (2, float("nan"))):
        with pytest.raises(ValueError):
            fast.trees(*bad)
    ids = fast.trees(len(roots), EXPLORATION)
    assert len(set(ids)) == len(roots)
    scoring = (0.5, 0.3, 1.0, 0.0, 0.25, 6.0)
    me = state.current
    with pytest.raises(RuntimeError):
        fast.rollout(state.clone(), me, roots[0].id, ids[0], _Draws(1), *scoring)
    fast.deal(state)
    for tree in (-2, max(ids) + 1):
        with pytest.raises(ValueError):
            fast.rollout(state.clone(), me, roots[0].id, tree, _Draws(1), *scoring)
    with pytest.raises(ValueError):
        fast.rollout(state.clone(), 7, roots[0].id, ids[0], _Draws(1), *scoring)
    illegal = next(i for i in range(len(state.legal_action_ids()) + 5000)
                   if i not in state.legal_action_ids())
    sim = state.clone()
    with pytest.raises(ValueError):
        fast.rollout(sim, me, illegal, ids[0], _Draws(1), *scoring)
    assert sim.serialize() == state.serialize()
    with pytest.raises(TypeError):
        fast.backup("x")

    class Wrong:
        def randrange(self, n: int) -> int:
            return n

    rewards = []
    for i, root in enumerate(roots):
        for bad in (object(), Wrong()):
            with pytest.raises((AttributeError, ValueError)):
                fast.rollout(state.clone(), me, root.id, ids[i], bad, *scoring)
        fast.deal(state)
        sim = state.clone()
        rewards.append(fast.rollout(sim, me, root.id, ids[i], _Draws(3), *scoring))
        assert sim.phase is Phase.MOVE and sim.round == state.round
    assert all(0.0 <= r <= 1.0 for r in rewards)
    assert fast.reset(state) is True
    fast.deal(state)
    with pytest.raises(ValueError):  # the trees went with the last search
        fast.rollout(state.clone(), me, roots[0].id, ids[0], _Draws(1), *scoring)


def test_a_game_beyond_the_c_codes_bounds_keeps_the_python_rollouts() -> None:
    """A hand the compiled planner declines (more than 63 cards of a kind in the
    game): ``reset`` says no, and the level searches with its Python rollouts."""
    state: Any = elfenland.new_game("elfenland", players=2, seed=6)
    fast: Any = compiled_rollouts(state)
    assert fast.reset(state) is True
    big = state.clone()
    pile = list(big.card_pile)
    pile[0] += 100
    big.card_pile = pile
    assert fast.reset(big) is False
    bot = ElfenlandQuickBot(1)
    assert bot.compiled_for(big, bot.scoring(big)) is None


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_compiled_candidates_are_candidate_ids(players: int) -> None:
    """The tree's roots listed in C are ``candidate_ids``' (so ``candidates``'), in
    order, on placement positions and on deals of them, obstacles held and laid
    included."""
    checked = with_obstacle = 0
    for state, _ in searched(players, range(2)):
        fast: Any = compiled_rollouts(state)
        assert fast.reset(state)
        for det in (state, state.resample_from_infostate(state.current, Rng(checked))):
            want = candidate_ids(det, _Plans().wish)
            assert fast.candidates(det) == want
            checked += 1
            with_obstacle += any(from_id(i).kind is Kind.OBSTACLE for i in want)
    assert checked > 20 and with_obstacle > 0
