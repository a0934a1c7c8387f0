"""King of the Elves bots: the journey planner against exhaustive search over the
engine's legal actions, and every bot choosing only legal actions in every phase, for
2–6 players and every variant."""

from __future__ import annotations

import random

import pytest
from kingelves_positions import VARIANTS, brute_best, objective, random_journey

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.kingelves_journey import JOURNEY_CARDS, TIE_BREAK_VALUES, plan_journey
from elfenland.bots.kingelves_search import KingOfTheElvesSearchBot
from elfenland.core.errors import ElfenlandError
from elfenland.core.rng import Rng
from elfenland.games.kingelves.actions import Kind
from elfenland.games.kingelves.state import KingOfTheElvesState

GAME = "king-of-the-elves"


@pytest.mark.parametrize("batch", range(6))
def test_planner_equals_brute_force(batch: int) -> None:
    rng = random.Random(batch)
    kinds: set[str] = set()
    for i in range(60):
        state = random_journey(rng, max_cards=8)
        values = TIE_BREAK_VALUES if i % 2 else tuple(rng.randint(0, 150)
                                                      for _ in JOURNEY_CARDS)
        plan = plan_journey(state, values=values)
        assert plan.exact
        assert plan.value == brute_best(state, values)
        # The plan is playable as it stands and earns what it says.
        p, gold0 = state.current, state.gold[p := state.current]
        for action in plan.actions:
            assert action in state.legal_actions()
            kinds.add(action.kind.name)
            state.apply_action(action)
        assert objective(state, p, gold0, values) == plan.value
        assert state.gold[p] - gold0 == plan.gold
    assert {"VISIT", "STOP"} <= kinds


def test_planner_uses_every_journey_card_kind() -> None:
    """Over many positions the optimum needs escorts, changes of direction and spells."""
    rng = random.Random(99)
    kinds: set[str] = set()
    for _ in range(300):
        state = random_journey(rng, max_cards=7)
        kinds |= {a.kind.name for a in plan_journey(state).actions}
    assert {"VISIT", "SPELL", "ESCORT", "REVERSE", "STOP"} <= kinds


def test_rulebook_third_example() -> None:
    """Anne's journey in the rulebook's third example (escorts, a change of direction
    around Bob's forest with her gold card, round again to her river): the planner finds
    it or better."""
    doc = {
        "format": "king-of-the-elves-position/1", "players": 4, "phase": "journey",
        "dragon": 0, "current_player": 0,
        "kingdoms": [[{"town": "river", "sea-monster": 3}],
                     [{"town": "forest", "tree": 2, "gold": 0}],
                     [{"town": "desert", "thief": 1}],
                     [{"town": "mountain"}]],
        "hands": [{"raft": 3, "unicorn": 2, "dragon": 1, "magic-cloud": 1, "escort": 2,
                   "change-of-direction": 1}, {}, {}, {}],
    }
    book = elfenland.load_position(doc)
    for step in ("escort", "visit raft", "escort", "visit unicorn", "reverse",
                 "visit unicorn", "visit raft+raft", "visit magic-cloud", "visit dragon"):
        book.apply_action(step)
    # 2 + 8 + 8 + 2 + 5 + 6 and the bonus, less Bob's thief.
    assert book.gold[0] - 12 == 39
    state = elfenland.load_position(doc)
    assert isinstance(state, KingOfTheElvesState)
    plan = plan_journey(state)
    assert plan.value == brute_best(state, TIE_BREAK_VALUES)
    assert plan.gold >= 39


@pytest.mark.parametrize("hand", [{"raft": 2, "giant-pig": 4},
                                  {"raft": 2, "giant-pig": 4, "elfcycle": 4},
                                  {"raft": 3, "giant-pig": 4}])
@pytest.mark.parametrize("raft", [400, 1500])
def test_planner_pays_by_spell_once_a_kind_runs_out(hand: dict[str, int], raft: int) -> None:
    """A river then a lake with two rafts: the raft pays the river, and the lake, no
    longer payable with rafts, takes a spell of cards worth nothing (its bounds must not
    assume the rafts that paid the river still pay for the lake)."""
    doc = {"format": "king-of-the-elves-position/1", "players": 2,
           "options": {"magic_spell": True}, "phase": "journey", "dragon": 0,
           "current_player": 0, "kingdoms": [[{"town": "river"}], [{"town": "lake"}]],
           "hands": [hand, {}], "gold": [12, 0]}
    state = elfenland.load_position(doc)
    assert isinstance(state, KingOfTheElvesState)
    values = (0,) * 6 + (raft, 0, 0)
    plan = plan_journey(state, values=values)
    assert plan.value == brute_best(state, values)


def test_planner_refuses_bad_input() -> None:
    state = elfenland.new_game(GAME, players=3, seed=1)
    assert isinstance(state, KingOfTheElvesState)
    with pytest.raises(ElfenlandError):
        plan_journey(state, 7)
    with pytest.raises(ElfenlandError):
        plan_journey(state, values=(1, 2))
    with pytest.raises(ElfenlandError):
        plan_journey(state, values=(-1,) * len(JOURNEY_CARDS))


def tiny(level: str, seed: int) -> object:
    bot = make_bot(level, GAME, seed)
    if isinstance(bot, KingOfTheElvesSearchBot):
        bot.iterations = 2
        bot.seconds = 0.02
    return bot


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_bots_choose_legal_actions(players: int, variant: int) -> None:
    seed = players * 10 + variant
    state = elfenland.new_game(GAME, players=players, seed=seed, **VARIANTS[variant])
    rng = random.Random(seed)
    bots = {level: tiny(level, seed) for level in ("random", "greedy", "search")}
    order = ("greedy", "search", "random")
    phases: set[str] = set()
    kinds: set[Kind] = set()
    turn = 0
    # The first round: both phases and the pending steps show up.  After a while only
    # the greedy bot plays, so that the building phase ends (random bots seldom all pass).
    while not state.is_terminal() and state.round == 1 and turn < 600:
        legal = state.legal_actions()
        phases.add(str(state.view(None)["phase"]))
        if rng.random() < 0.1:
            for bot in bots.values():
                assert bot.choose(state) in legal  # type: ignore[attr-defined]
        level = order[(state.current_player() + turn // 40) % len(order)] \
            if turn < 6 * players else "greedy"
        action = bots[level].choose(state)  # type: ignore[attr-defined]
        assert action in legal, (level, str(action))
        kinds.add(action.kind)
        state.apply_action(action)
        turn += 1
    assert {"building", "journey"} <= phases
    assert Kind.STOP in kinds


@pytest.mark.parametrize("level", ["greedy", "search"])
def test_pending_steps_are_answered_legally(level: str) -> None:
    base = {"format": "king-of-the-elves-position/1", "players": 3, "phase": "building",
            "current_player": 0}
    take = elfenland.load_position({**base, "pending": "take",
                                    "hands": [{"dragon": 2, "raft": 1}, {}, {}]})
    choice = tiny(level, 1).choose(take)  # type: ignore[attr-defined]
    assert choice in take.legal_actions() and choice.kind is Kind.TAKE
    discard = elfenland.load_position({
        **base, "pending": "discard", "pending_count": 4,
        "hands": [{"dragon": 2, "unicorn": 2, "gold": 1, "troll-wagon": 1, "lake": 1},
                  {}, {}]})
    choice = tiny(level, 1).choose(discard)  # type: ignore[attr-defined]
    assert choice in discard.legal_actions()
    assert str(choice) != "discard gold"


def test_greedy_beats_random_in_a_short_match() -> None:
    wins = 0
    for g in range(4):
        state = elfenland.new_game(GAME, players=3, seed=g)
        seat = g % 3
        bots = [make_bot("greedy" if q == seat else "random", GAME, g * 8 + q)
                for q in range(3)]
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].choose(state))
        wins += seat in state.winners()
    assert wins >= 3


def test_search_ignores_hidden_information() -> None:
    """Two states that differ only in the other hands and the deck get the same answer."""
    state = elfenland.new_game(GAME, players=4, seed=5)
    assert isinstance(state, KingOfTheElvesState)
    rng = random.Random(1)
    for _ in range(3):
        state.apply_action(rng.choice(state.legal_actions()))
    me = state.current
    other = state.resample_from_infostate(me, Rng(123))
    assert other.hands != state.hands or other.deck != state.deck
    answers = []
    for s in (state, other):
        bot = KingOfTheElvesSearchBot(7, iterations=3, seconds=5.0)
        answers.append(str(bot.choose(s)))
    assert answers[0] == answers[1]


def test_levels_are_registered() -> None:
    assert make_bot("greedy", GAME, 1).name == "greedy"
    assert make_bot("search", "kingelves", 1).name == "search"
    with pytest.raises(ElfenlandError):
        make_bot("greedy", GAME, 1).choose(elfenland.new_game("elfenland", players=2, seed=1))
