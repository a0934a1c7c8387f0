"""The compiled King of the Elves journey search (``bots/_kingelves_planner.c``) against
the pure one, the reference.

Both plan the same positions, thousands of them: every few steps of random and greedy
bot games (two to six players, every variant, the reading options the planner reads),
in the building phase (the journey from the castle, for every player) and during the
journeys (the journey under way, for the traveller); random what-if hands (``hand=``),
the bots' card values (``KEEP_VALUES``, the quick bot's scaled ones, random ones),
``extras=False``, and small ``budget``s that send the search to its fallbacks.  The plans
must be equal in every field: steps (actions, towns, gains), gold, objective, hand left,
ring and ``exact``.

On CI (``CI`` set) a missing compiled planner is a failure, not a skip: CI builds it.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from kingelves_positions import VARIANTS, random_journey

import elfenland
from elfenland.bots import kingelves_journey as kj
from elfenland.bots import make_bot
from elfenland.bots.kingelves_greedy import KEEP_VALUES
from elfenland.bots.kingelves_journey import JOURNEY_CARDS, plan_journey, planner_backend
from elfenland.core.errors import ElfenlandError
from elfenland.games.kingelves.state import KingOfTheElvesState, Phase

GAME = "king-of-the-elves"

if not kj.AVAILABLE:
    if os.environ.get("CI"):
        pytest.fail("the compiled journey planner was not built on CI", pytrace=False)
    pytest.skip("the compiled journey planner is not built on this machine",
                allow_module_level=True)


class _Counting:
    """Stands in for the extension module: counts the searches the C code answered,
    declined and found over budget, so that a silent fallback to the pure search cannot
    pass for agreement."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.CONSTANTS = real.CONSTANTS
        self.answered = 0
        self.declined = 0
        self.over = 0

    def solve(self, *args: Any) -> Any:
        got = self.real.solve(*args)
        if got is None:
            self.declined += 1
        elif got is False:
            self.over += 1
        else:
            self.answered += 1
        return got


class _PureCalls:
    """Counts the pure searches started (``_Search.solve``), speed-independently."""

    def __init__(self) -> None:
        self.calls = 0


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counting]:
    spy = _Counting(kj._kingelves_planner)
    monkeypatch.setattr(kj, "_kingelves_planner", spy)
    monkeypatch.delenv("ELFENLAND_ENGINE", raising=False)
    yield spy


@pytest.fixture
def pure_calls(monkeypatch: pytest.MonkeyPatch) -> _PureCalls:
    seen = _PureCalls()
    real = kj._Search.solve

    def solve(self: kj._Search, pos: Any) -> int:
        seen.calls += 1
        return real(self, pos)

    monkeypatch.setattr(kj._Search, "solve", solve)
    return seen


def same(state: KingOfTheElvesState, **kwargs: Any) -> kj.Plan:
    """Both planners on one question: the plans equal in every field."""
    pure = plan_journey(state, backend="pure", **kwargs)
    fast = plan_journey(state, **kwargs)
    assert fast == pure, (kwargs, pure, fast)
    # Field by field too (a Plan's equality is the dataclass's; say what differs).
    assert fast.steps == pure.steps and fast.hand == pure.hand
    assert (fast.gold, fast.value, fast.exact) == (pure.gold, pure.value, pure.exact)
    return fast


OPTIONS = (*VARIANTS, {"escort_two_towns": True}, {"no_town_card_from_discard": True},
           {"magic_spell": True, "escort_two_towns": True})


def game_states(seed: int, every: int = 3) -> Iterator[KingOfTheElvesState]:
    """Every ``every``-th state of one bot game (random and greedy bots, 2-6 players,
    an option set chosen by the seed), building and journeys: the same object, played
    on (clone it to keep it)."""
    rng = random.Random(seed)
    players = 2 + seed % 5
    options = OPTIONS[seed % len(OPTIONS)]
    state = elfenland.new_game(GAME, players=players, seed=seed, **options)
    assert isinstance(state, KingOfTheElvesState)
    bots = [make_bot("greedy" if rng.random() < 0.5 else "random", GAME, seed * 8 + q)
            for q in range(players)]
    step = 0
    while not state.is_terminal() and step < 3000:
        if step % every == 0:
            yield state
        state.apply_action(bots[state.current_player()].choose(state))
        step += 1


def random_values(rng: random.Random) -> tuple[int, ...]:
    return tuple(rng.randint(0, 150) for _ in JOURNEY_CARDS)


@pytest.mark.parametrize("seed", range(10))
def test_equal_on_bot_games(seed: int, counting: _Counting) -> None:
    """Building and journeys of real games: every player's plan, with each of the value
    tables the bots pass, the estimate without extras, and what-if hands."""
    rng = random.Random(1000 + seed)
    phases: set[Phase] = set()
    questions = 0
    scaled = tuple(round(v * 1.5) for v in KEEP_VALUES)
    for state in game_states(seed, every=6):
        phases.add(state.phase)
        for q in range(state.n):
            # The flat table the C code reads is the pure search's table.
            table, ring = kj._table(state, q)
            assert kj._flat_table(state, q) == (kj._flat(table), ring)
            values = rng.choice((None, KEEP_VALUES, scaled, random_values(rng)))
            same(state, player=q, values=values)
            same(state, player=q, values=values, extras=False)
            hand = tuple(rng.choice((0, 0, 0, 1, 1, 2, 3)) for _ in JOURNEY_CARDS)
            same(state, player=q, hand=hand, values=values)
            questions += 3 if any(state.kingdoms) else 0  # no towns: nothing to search
    assert Phase.JOURNEY in phases and len(phases) >= 2 and questions >= 40
    # Every question the C code answered: none declined, none silently pure.
    assert counting.declined == 0
    assert counting.answered + counting.over >= questions


@pytest.mark.parametrize("batch", range(4))
def test_equal_on_random_journeys(batch: int, counting: _Counting) -> None:
    """Random tables (every variant, 2-6 players), part-way journeys, hands up to 14
    cards, random card values."""
    rng = random.Random(batch)
    for i in range(250):
        state = random_journey(rng, max_cards=14)
        values = None if i % 3 == 0 else KEEP_VALUES if i % 3 == 1 else random_values(rng)
        same(state, values=values)
    assert counting.declined == 0 and counting.answered >= 200  # (a few have no towns)


@pytest.mark.parametrize("budget", (0, 1, 5, 20, 40, 120, 400))
def test_equal_under_small_budgets(budget: int, counting: _Counting) -> None:
    """Budgets small enough to stop the exact search (the fallbacks: without extras,
    then the step-by-step walk), counted as the pure search counts positions."""
    rng = random.Random(budget)
    inexact = 0
    for _ in range(60):
        state = random_journey(rng, max_cards=16)
        values = rng.choice((None, KEEP_VALUES, random_values(rng)))
        plan = same(state, values=values, budget=budget)
        inexact += not plan.exact
        same(state, values=values, budget=budget, extras=False)
    if budget <= 40:
        assert counting.over > 0 and inexact > 0


def test_big_hands_equal(counting: _Counting) -> None:
    """Hands of 20 and more cards with escorts and changes of direction, where the
    ring walks of the bounds do most of the pruning."""
    rng = random.Random(7)
    for state in game_states(3, every=40):
        for q in range(state.n):
            hand = (*(rng.randint(0, 4) for _ in range(7)), rng.randint(0, 2),
                    rng.randint(0, 2))
            same(state, player=q, hand=hand, values=KEEP_VALUES)
            same(state, player=q, hand=hand, budget=300)
    assert counting.answered > 0 and counting.over > 0 and counting.declined == 0


def test_declines_beyond_its_limits(counting: _Counting, pure_calls: _PureCalls) -> None:
    """More than 60 cards of a kind: the C code says no and the pure search answers."""
    state = next(s for s in game_states(2) if s.phase is Phase.JOURNEY)
    hand = (61, 0, 0, 0, 0, 0, 0, 0, 0)
    plan = same(state, player=state.current, hand=hand, budget=200)
    assert counting.declined >= 1 and pure_calls.calls >= 2
    assert plan.steps[-1].action == kj._STOP
    # Card values beyond 10**6 (a ring's gains would overflow the C ints): declined too.
    declined = counting.declined
    same(state, player=state.current, values=(10**7,) * 7 + (1, 1))
    assert counting.declined > declined


def test_compiled_backend_answers_without_the_pure_search(
        monkeypatch: pytest.MonkeyPatch, pure_calls: _PureCalls) -> None:
    """The backend is reported, and with it no pure ``_Search`` is solved (today's code
    solved one per plan: this fails on it); ``backend="pure"`` and
    ``ELFENLAND_ENGINE=pure`` pin the pure search."""
    monkeypatch.delenv("ELFENLAND_ENGINE", raising=False)
    assert planner_backend() == "compiled"
    assert planner_backend("pure") == "pure"
    states = [s.clone() for s in game_states(4, every=7) if any(s.kingdoms)]
    pure_calls.calls = 0  # (the greedy bots planned too, tables without towns in pure)
    for state in states:
        plan_journey(state, player=0)
    assert len(states) > 10 and pure_calls.calls == 0
    plan_journey(states[-1], player=0, backend="pure")
    assert pure_calls.calls == 1
    monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
    assert planner_backend() == "pure"
    plan_journey(states[-1], player=0)
    assert pure_calls.calls == 2


def test_bad_input_raises_as_before() -> None:
    state = elfenland.new_game(GAME, players=3, seed=1)
    assert isinstance(state, KingOfTheElvesState)
    for kwargs in ({"player": 3}, {"values": (1,) * 8}, {"values": (-1,) + (1,) * 8},
                   {"hand": (1,) * 8}, {"hand": (-1,) + (0,) * 8},
                   {"backend": "fortran"}):
        with pytest.raises(ElfenlandError):
            plan_journey(state, **kwargs)
    with pytest.raises(ElfenlandError):
        plan_journey(elfenland.new_game("elfenland", players=2, seed=1))  # type: ignore[arg-type]


def test_use_backend_pins_the_calls_that_name_none(
        monkeypatch: pytest.MonkeyPatch, pure_calls: _PureCalls) -> None:
    """``use_backend("pure")`` pins a block (a bot's decision) to the pure search; a call
    naming its backend still gets it; the pin ends with the block."""
    monkeypatch.delenv("ELFENLAND_ENGINE", raising=False)
    state = next(s for s in game_states(6) if any(s.kingdoms)).clone()
    with kj.use_backend("pure"):
        assert planner_backend() == "pure"
        plan_journey(state, player=0)
        assert pure_calls.calls == 1
        assert planner_backend("compiled") == "compiled"
        plan_journey(state, player=0, backend="compiled")
        assert pure_calls.calls == 1
    assert planner_backend() == "compiled"
    plan_journey(state, player=0)
    assert pure_calls.calls == 1
    with pytest.raises(ElfenlandError), kj.use_backend("turbo"):
        pass


def test_fast_policy_tables_answer_as_the_functions() -> None:
    """``fast_policy``'s tables (its speed) give what the functions they replace give."""
    from elfenland.bots import kingelves_quick as kq
    from elfenland.bots.kingelves_search import reachable
    from elfenland.games.kingelves.actions import Action
    from elfenland.games.kingelves.cards import TOWN_KINDS, Card, town_value

    rng = random.Random(5)
    for _ in range(500):
        hand = [rng.choice((0, 0, 1, 2, 3)) for _ in range(len(Card))]
        for terrain in range(6):
            assert kq._reachable(hand, terrain) == reachable(hand, terrain)
    assert {t: town_value(t) for t in TOWN_KINDS} == kq._TOWN_VALUE
    for t in TOWN_KINDS:
        for p in range(6):
            assert kq._play_id(int(t), p) == Action.play(Card(t), p).id
    for card in (Card.GOLD, *kq.HARM):
        for q in range(6):
            for k in range(3):
                assert kq._place_id(int(card), q, k) == Action.place(card, q, k).id


def test_quick_bot_decides_alike_with_either_planner() -> None:
    """At a fixed number of rollouts the quick bot takes the same decisions with the
    compiled planner as with the pure one (only its speed changes), building and
    journeys, two and four players."""
    from elfenland.bots.kingelves_quick import KingOfTheElvesQuickBot

    decisions = 0
    for players, seed in ((2, 13001), (4, 52)):
        actions = {}
        for backend in ("pure", "compiled"):
            state = elfenland.new_game(GAME, players=players, seed=seed)
            bots = [KingOfTheElvesQuickBot(seed * 8 + q, iterations=12, seconds=1e9)
                    for q in range(players)]
            seq = []
            with kj.use_backend(backend):
                while not state.is_terminal() and len(seq) < 60:
                    action = bots[state.current_player()].choose(state)
                    seq.append(action)
                    state.apply_action(action)
            actions[backend] = seq
        assert actions["pure"] == actions["compiled"]
        decisions += len(actions["pure"])
    assert decisions >= 100


_JUNK: tuple[Any, ...] = (None, 0, -1, 2**70, -2**70, 1.5, float("nan"), "x", b"y", (), [],
                          {}, (1,), [1, 2], ((),), True)


def _mutate(value: Any, rng: random.Random, depth: int = 0) -> Any:
    if rng.random() < 0.15 or depth > 3:
        return rng.choice(_JUNK)
    if isinstance(value, (tuple, list)):
        items = [_mutate(v, rng, depth + 1) if rng.random() < 0.3 else v for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, int) and not isinstance(value, bool):
        return rng.choice([value + 1, value - 1, -value, value * 1000, 2**31, 2**63,
                           -2**63, 255, 256, 10**7])
    return value


def test_the_extension_survives_malformed_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C search is reached only through ``plan_journey``, but a crash there would
    take a server down with it: its entry point, given the arguments of real calls with
    parts replaced by wrong types, out-of-range numbers and wrong lengths (3,000 calls),
    answers a plan, over budget or None (declined) or raises, and never crashes."""
    real = kj._kingelves_planner
    assert real is not None
    calls: list[tuple[Any, ...]] = []

    class Spy:
        CONSTANTS = real.CONSTANTS

        @staticmethod
        def solve(*args: Any) -> Any:
            calls.append(args)
            return real.solve(*args)
    monkeypatch.setattr(kj, "_kingelves_planner", Spy)
    for state in game_states(7, every=5):
        for q in range(state.n):
            plan_journey(state, q)
    monkeypatch.setattr(kj, "_kingelves_planner", real)
    assert len(calls) > 50
    rng = random.Random(25)
    outcomes: dict[str, int] = {}
    for _ in range(3_000):
        args = list(rng.choice(calls))
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(args))
            args[i] = _mutate(args[i], rng)
        try:
            got = real.solve(*args)
        except (TypeError, ValueError, OverflowError, MemoryError) as error:
            outcomes[type(error).__name__] = outcomes.get(type(error).__name__, 0) + 1
            continue
        assert got is None or got is False or isinstance(got, tuple)
        outcomes[type(got).__name__] = outcomes.get(type(got).__name__, 0) + 1
    assert outcomes.get("NoneType", 0) > 100 and outcomes.get("tuple", 0) > 100, outcomes
