"""The compiled planner search (``bots/_planner.c``) against the pure one, the reference.

Both plan the same positions, thousands of them: random move-phase positions
(``positions.py``: every rule set, the destination variant, two to six players,
obstacles) and every few steps of greedy and random bot games under the rule sets, the
variants and the rule options the planner reads (caravan size, ``only-if-needed``
caravans, the boatmen, the hand limit), for every player and with every option the bots
pass (the wish journey's wild counters without caravans, end bonuses as the look-ahead
and the search bot give them, the greedy bot's preference).  The journeys must be equal
in every field: steps, actions, cards paid, towns, distance, hand left and its value.

On CI (``CI`` set) a missing compiled planner is a failure, not a skip: CI builds it.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from positions import random_move_position

import elfenland
from elfenland.bots import make_bot, planner
from elfenland.bots.elfenland_greedy import owned_kinds, preference_for
from elfenland.bots.elfenland_search import standing
from elfenland.bots.outlook import _FORCE
from elfenland.games.elfenland.state import ElfenlandState

if not planner.AVAILABLE:
    if os.environ.get("CI"):
        pytest.fail("the compiled planner was not built on CI", pytrace=False)
    pytest.skip("the compiled planner is not built on this machine", allow_module_level=True)


class _Counting:
    """Stands in for the extension module: counts the searches the C code answered, so
    that a silent fallback to the pure search cannot pass for agreement."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.answered = 0
        self.declined = 0

    def plan(self, *args: Any) -> Any:
        got = self.real.plan(*args)
        if got is None:
            self.declined += 1
        else:
            self.answered += 1
        return got

    def tables(self, *args: Any) -> Any:
        return self.real.tables(*args)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counting]:
    spy = _Counting(planner._planner)
    monkeypatch.setattr(planner, "_planner", spy)
    monkeypatch.delenv("ELFENLAND_ENGINE", raising=False)
    yield spy


def same_journey(state: ElfenlandState, **kw: Any) -> planner.Journey:
    """Plan with the pure search, then the compiled one; they must agree exactly."""
    os.environ["ELFENLAND_ENGINE"] = "pure"
    try:
        assert planner.planner_backend() == "pure"
        pure = planner.plan_journey(state, **kw)
    finally:
        del os.environ["ELFENLAND_ENGINE"]
    assert planner.planner_backend() == "compiled"
    compiled = planner.plan_journey(state, **kw)
    assert compiled == pure, (kw, pure, compiled)
    assert compiled.texts == pure.texts
    return compiled


def option_sets(state: ElfenlandState, p: int, rng: random.Random) -> list[dict[str, Any]]:
    """What the bots ask of the planner, plus random end bonuses and preferences."""
    n = len(state.board.towns)
    forced = [0] * n
    forced[rng.randrange(n)] = _FORCE
    return [
        {"player": p},
        {"player": p, "wild_kinds": owned_kinds(state, p), "any_cards": False},
        {"player": p, "wild_kinds": list(range(6))},
        {"player": p, "end_bonus": standing(state, p), "preference": preference_for(state, p)},
        {"player": p, "end_bonus": forced},
        {"player": p, "end_bonus": [rng.randrange(300) for _ in range(n)],
         "use_destination": not state.rules.town_cards},
        {"player": p, "preference": tuple(rng.randrange(-5, 30) for _ in range(7))},
    ]


def test_random_positions(counting: _Counting) -> None:
    rng = random.Random(16)
    plans = 0
    journeys = 0
    for _ in range(1000):
        state = random_move_position(rng, max_cards=rng.choice((4, 8, 12)),
                                     counter_chance=rng.random())
        p = state.current
        for kw in rng.sample(option_sets(state, p, rng), 2):
            journeys += bool(same_journey(state, **kw).steps)
            plans += 1
    assert counting.answered == plans and counting.declined == 0
    assert journeys > plans // 2  # most positions have somewhere to go


#: Rule sets, the variant and the rule options the planner reads.
GAME_CONFIGS: list[dict[str, Any]] = [
    {"rules": "amigo"},
    {"rules": "moon"},
    {"rules": "amigo", "destination": True},
    {"rules": "moon", "destination": True},
    {"rules": "amigo", "caravan": "only-if-needed"},
    {"rules": "moon", "caravan": "only-if-needed", "destination": True},
    {"rules": "amigo", "mare_nebulae_rafts": 1, "boatmen": True},
    {"rules": "moon", "caravan_cards": 3, "hand_limit": 6},
]


@pytest.mark.parametrize("config", GAME_CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_bot_games(config: dict[str, Any], counting: _Counting) -> None:
    """Positions of whole games (every phase: the bots plan while placing, too)."""
    rng = random.Random(str(config))
    positions = 0
    for game, players in enumerate((2, 3, 4, 5, 6)):
        state = elfenland.new_game("elfenland", players=players, seed=1600 + game, **config)
        assert isinstance(state, ElfenlandState)
        bots = [make_bot("greedy" if (q + game) % 2 else "random", "elfenland", game * 8 + q)
                for q in range(players)]
        step = 0
        while not state.is_terminal():
            step += 1
            if step % 7 == 0:
                positions += 1
                p = rng.randrange(players)
                same_journey(state, **rng.choice(option_sets(state, p, rng)))
            state.apply_action(bots[state.current_player()].choose(state))
    assert positions >= 150
    assert counting.answered > 0 and counting.declined == 0


def test_edges_match_engine_prices() -> None:
    """The compiled planner's steps are ``edges_of``'s, in its order, priced by the
    engine (the order is the search's tie-break)."""
    rng = random.Random(7)
    for _ in range(300):
        state = random_move_position(rng, counter_chance=rng.random())
        rules = state.rules
        for wild, any_cards in (((), True), ((0, 3, 5), False), (tuple(range(6)), True)):
            caravan = rules.caravan_cards if any_cards else 0
            raw = planner._planner.edges(
                planner._compiled_tables(state.board), state.route_counter,
                state.route_obstacle, wild, caravan, caravan + 1 if any_cards else 0,
                caravan if rules.boatmen else 0, rules.mare_magnum_rafts,
                rules.mare_nebulae_rafts)
            assert raw is not None
            edges = planner.edges_of(state, wild, any_cards)
            assert [[planner.Edge(r, d, to, k, n, a, planner.Pay(pay), bool(w))
                     for r, d, to, k, n, a, pay, w in row] for row in raw] == edges


def test_declined_search_falls_back_to_pure(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the C code declines, ``plan_journey`` runs the pure search instead."""

    class Declining:
        calls = 0

        def plan(self, *args: Any) -> None:
            Declining.calls += 1
            return None

        def tables(self, *args: Any) -> object:
            return object()

    monkeypatch.setattr(planner, "_planner", Declining())
    monkeypatch.delenv("ELFENLAND_ENGINE", raising=False)
    rng = random.Random(5)
    for _ in range(20):
        state = random_move_position(rng, counter_chance=0.8)
        assert planner.planner_backend() == "compiled"
        got = planner.plan_journey(state)
        monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
        assert got == planner.plan_journey(state)
        monkeypatch.delenv("ELFENLAND_ENGINE")
    assert Declining.calls == 20


def test_backend_follows_engine_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
    assert planner.planner_backend() == "pure"
    monkeypatch.setenv("ELFENLAND_ENGINE", "compiled")
    assert planner.planner_backend() == "compiled"
    monkeypatch.delenv("ELFENLAND_ENGINE")
    assert planner.planner_backend() == "compiled"


def _plan_args(state: ElfenlandState) -> list[Any]:
    """``plan``'s arguments as ``plan_journey`` gives them, for the player to act."""
    p = state.current
    rules = state.rules
    return [planner._compiled_tables(state.board), state.route_counter, state.route_obstacle,
            (), rules.caravan_cards, rules.caravan_cards + 1, 0, rules.mare_magnum_rafts,
            rules.mare_nebulae_rafts, -1, None, rules.hand_limit, planner.PREFERENCE,
            tuple(state.hands[p]), state.boots[p], state.visited[p], False]


def test_plan_declines_what_it_cannot_pack_and_refuses_what_is_not_a_plan() -> None:
    """``plan`` answers None (the pure planner then runs) for what its arrays cannot hold,
    raises a typed error for arguments of the wrong kind, and never crashes."""
    rng = random.Random(11)
    state = random_move_position(rng, max_cards=6, counter_chance=0.7)
    args = _plan_args(state)
    assert planner._planner.plan(*args) is not None
    declined: list[tuple[int, Any]] = [
        (13, (1, 0, 0, 0, 0, 0, 64)),  # 64 cards of a kind
        (13, (1, 2, 3)),  # not 7 kinds
        (13, (0, 0, 0, 0, 0, 0, -1)),
        (1, [0] * 3),  # fewer counters than routes
        (1, [99] * len(state.route_counter)),  # no such counter kind
        (2, ["x"] * len(state.route_obstacle)),
        (3, (9,)),  # no such wild kind
        (3, tuple(range(7)) * 2),
        (9, len(state.board.towns)),  # target out of range
        (9, -2),
        (10, [1, 2]),  # an end bonus per town, not two
        (10, [-1] * len(state.board.towns)),
        (14, -1),  # town out of range
        (14, 10**6),
        (15, -1),  # visited
        (15, 2**80),
        (11, 10**4),  # hand limit
        (4, 10**6),  # a caravan of a million cards
        (7, 0),  # Mare Magnum for no raft
    ]
    for i, value in declined:
        bad = list(args)
        bad[i] = value
        assert planner._planner.plan(*bad) is None, (i, value)
    for i, value in [(0, object()), (0, None), (1, 5), (3, None), (4, "x"), (14, 1.5)]:
        bad = list(args)
        bad[i] = value
        with pytest.raises((TypeError, ValueError)):
            planner._planner.plan(*bad)
    with pytest.raises(TypeError):
        planner._planner.plan(*args[:-1])
    assert planner._planner.plan(*args) is not None  # nothing left behind


def test_tables_refuse_a_board_out_of_range() -> None:
    board = random_move_position(random.Random(2)).board
    links, flat = planner._board_tables(board)
    good = [links, flat, board.capital, planner._COST]
    assert planner._planner.tables(*good) is not None
    for i, value in [(0, []), (0, [[]] * 65), (1, flat[:-1]), (2, -1), (2, len(links)),
                     (3, planner._COST[:6]), (3, [(0,) * 6] * 7),
                     (0, [[(0, 0, 99, 0, 0, 0)]] * len(links)),
                     (0, [[(0, 0, 0, 0, 7, 0)]] * len(links)),
                     (0, [[(-1, 0, 0, 0, 0, 0)]] * len(links))]:
        bad = list(good)
        bad[i] = value
        with pytest.raises(ValueError):
            planner._planner.tables(*bad)


def test_a_board_with_more_routes_than_the_counters_read_is_declined() -> None:
    """Counters shorter than the board's routes: the C code declines, reading nothing
    past the end (the sanitizers run this file)."""
    state = random_move_position(random.Random(8), counter_chance=0.5)
    args = _plan_args(state)
    for cut in (0, 1, len(state.route_counter) - 1):
        bad = list(args)
        bad[1] = state.route_counter[:cut]
        assert planner._planner.plan(*bad) is None


def test_the_step_cache_stays_within_its_bound_and_changes_no_journey(
        counting: _Counting, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_STEPS`` holds at most ``STEP_CACHE`` steps (each one held is walked by every
    full garbage collection, inside some decision's budget), and a journey planned after
    it started again is the journey planned with every step cached."""
    rng = random.Random(32)
    states = [random_move_position(rng, max_cards=rng.choice((4, 8, 12)),
                                   counter_chance=rng.random()) for _ in range(300)]
    planner._STEPS.clear()
    roomy = [planner.plan_journey(s) for s in states]
    assert len(planner._STEPS) > 200
    monkeypatch.setattr(planner, "STEP_CACHE", 40)
    planner._STEPS.clear()
    held = []
    for s, before in zip(states, roomy, strict=True):
        assert planner.plan_journey(s) == before
        held.append(len(planner._STEPS))
    assert max(held) <= 40 and held.count(0) == 0
    assert sum(b < a for a, b in itertools.pairwise(held)) >= 3  # it started again
    assert counting.answered >= 600


def test_the_memo_kept_between_searches_changes_no_journey() -> None:
    """The compiled search keeps its memo's table from one search to the next (emptied
    slot by slot, a grown one freed): the same positions planned in one order and in
    the reverse give the same journeys, small searches after big ones included."""
    rng = random.Random(41)
    asks = []
    for _ in range(150):
        state = random_move_position(rng, max_cards=rng.choice((4, 12, 20)),
                                     counter_chance=rng.random())
        asks.append((state, {"player": state.current, "wild_kinds": list(range(6))}))
        asks.append((state, {"player": state.current}))
    forward = [planner.plan_journey(s, **kw) for s, kw in asks]
    backward = [planner.plan_journey(s, **kw) for s, kw in reversed(asks)][::-1]
    assert forward == backward
    assert sum(bool(j.steps) for j in forward) > len(asks) // 2
