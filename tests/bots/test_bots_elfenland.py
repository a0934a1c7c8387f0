"""Greedy and search bots for Elfenland: sensible choices, and no peeking."""

from __future__ import annotations

import random
from typing import Any

import pytest
from positions import random_move_position

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_greedy import ElfenlandGreedyBot, wish
from elfenland.bots.elfenland_search import (
    ElfenlandSearchBot,
    candidates,
    evaluate,
    move,
    standing,
)
from elfenland.bots.planner import plan_journey
from elfenland.games.elfenland.state import ElfenlandState


def load(doc: dict[str, Any]) -> ElfenlandState:
    state = elfenland.load_position(doc)
    assert isinstance(state, ElfenlandState)
    return state


def placing(rival_hand: dict[str, int], rival_secret: list[str]) -> ElfenlandState:
    return load({
        "players": 3, "phase": "place", "current_player": 0, "starting_player": 0,
        "hands": [{"elfcycle": 2, "raft": 2, "dragon": 2}, rival_hand, {"unicorn": 2}],
        "counters": [{"face_up": ["elfcycle", "dragon"], "secret": ["giant-pig"]},
                     {"face_up": ["unicorn"], "secret": rival_secret}, {}],
        "roads": {"elvenhold-ergeren": {"counter": "troll-wagon"}},
        "boots": ["lapphalya", "feodor", "elvenhold"],
        "towns": [["lapphalya"], ["feodor"], []],
    })


@pytest.mark.parametrize("level", ["greedy", "search"])
def test_choice_does_not_depend_on_hidden_information(level: str) -> None:
    one = placing({"dragon": 3, "magic-cloud": 1}, ["dragon"])
    other = placing({"raft": 2, "giant-pig": 2}, ["unicorn"])
    assert one.view(0) == other.view(0)
    choices = []
    for state in (one, other):
        bot = make_bot(level, "elfenland", 9)
        if isinstance(bot, ElfenlandSearchBot):
            bot.iterations, bot.seconds = 3, 60.0
        choices.append(str(bot.choose(state)))
    assert choices[0] == choices[1]


def test_greedy_places_counters_on_its_own_journey() -> None:
    state = placing({"dragon": 3}, ["dragon"])
    action = ElfenlandGreedyBot(1).choose(state)
    journey = wish(state, 0)
    assert action in [st.action for st in journey.steps]
    after = state.clone()
    after.apply_action(action)
    assert journey.new_towns >= wish(after, 0).new_towns >= 3


def test_greedy_draws_a_counter_its_journey_lacks() -> None:
    state = load({
        "players": 2, "phase": "draw-counters", "current_player": 0, "starting_player": 0,
        "hands": [{"magic-cloud": 4}, {}], "face_up": ["magic-cloud", "giant-pig",
                                                        "giant-pig", "troll-wagon", "dragon"],
        "boots": ["dagamura", "elvenhold"], "towns": [["dagamura"], []],
    })
    assert str(ElfenlandGreedyBot(1).choose(state)) == "draw magic-cloud"


def test_greedy_moves_along_the_planned_journey() -> None:
    state = load({"players": 2, "phase": "move", "hands": [{"raft": 1}, {}],
                  "boots": ["virst", "elvenhold"]})
    assert str(ElfenlandGreedyBot(1).choose(state)) == "move virst-ixara raft"


def test_search_candidates_start_with_the_greedy_choice() -> None:
    state = placing({"dragon": 3}, ["dragon"])
    greedy = ElfenlandGreedyBot(1)
    roots = candidates(state, greedy)
    assert roots[0] == greedy.choose(state)
    assert len(roots) == len(set(roots)) and all(a in state.legal_actions() for a in roots)


def test_evaluation_prefers_the_leader() -> None:
    ahead = load({"players": 2, "phase": "move", "towns": [["beata", "virst"], []]})
    behind = load({"players": 2, "phase": "move", "towns": [[], ["beata", "virst"]]})
    assert evaluate(ahead, 0) > 0.5 > evaluate(behind, 0)


@pytest.mark.parametrize("seed", range(20))
def test_search_moves_collect_as_many_towns_as_the_planner(seed: int) -> None:
    state = random_move_position(random.Random(70_000 + seed))
    p = state.current
    plain = plan_journey(state)
    placed = plan_journey(state, end_bonus=standing(state, p))
    assert (placed.new_towns, placed.distance) == (plain.new_towns, plain.distance)
    assert move(state) in state.legal_actions()


def test_standing_counts_towns_still_to_collect_nearby() -> None:
    state = load({"players": 2, "phase": "move", "towns": [["beata"], []]})
    board = state.board
    value = standing(state, 0)
    beata = next(t for t, town in enumerate(board.towns) if town.id == "beata")
    # Beata is collected, so it is worth nothing to its neighbours; everything else is
    # still to collect.
    for t in range(len(board.towns)):
        near = [u for u in range(len(board.towns)) if board.distances[t][u] == 1
                and u not in (board.capital, beata)]
        far = [u for u in range(len(board.towns)) if board.distances[t][u] == 2
               and u not in (board.capital, beata)]
        assert value[t] == 120 * len(near) + 40 * len(far)
    everything = load({"players": 2, "phase": "move", "towns": [
        [t.id for i, t in enumerate(board.towns) if i != board.capital], []]})
    assert set(standing(everything, 0)) == {0}
