"""The planner is exact: it matches an exhaustive search over the engine's legal actions,
and its journeys are legal and reach what it promises."""

from __future__ import annotations

import random
from typing import Any

import pytest
from brute import brute_best
from positions import random_move_position

import elfenland
from elfenland.bots.planner import (
    PREFERENCE,
    discard_choice,
    plan_journey,
    sub_multisets,
    usefulness,
)
from elfenland.core.errors import ElfenlandError
from elfenland.games.elfenland.state import ElfenlandState


def load(doc: dict[str, Any]) -> ElfenlandState:
    state = elfenland.load_position({"players": 2, "phase": "move", **doc})
    assert isinstance(state, ElfenlandState)
    return state


def play(state: ElfenlandState, texts: list[str]) -> ElfenlandState:
    s = state.clone()
    for t in texts:
        s.apply_action(t)
    return s


def check_journey(state: ElfenlandState) -> None:
    journey = plan_journey(state)
    assert journey.key == brute_best(state)
    p = state.current
    after = play(state, journey.texts)
    gained = after.visited[p].bit_count() - state.visited[p].bit_count()
    assert gained == journey.new_towns
    assert tuple(after.hands[p]) == journey.hand or after.discarding is False
    assert after.boots[p] == (journey.towns[-1] if journey.towns else state.boots[p])


@pytest.mark.parametrize("seed", range(300))
def test_planner_equals_brute_force(seed: int) -> None:
    check_journey(random_move_position(random.Random(seed)))


@pytest.mark.parametrize("seed", range(40))
def test_planner_equals_brute_force_crowded_board(seed: int) -> None:
    rng = random.Random(10_000 + seed)
    check_journey(random_move_position(rng, max_cards=7, counter_chance=0.9))


@pytest.mark.parametrize("seed", range(6))
def test_planner_equals_brute_force_big_moon_hands(seed: int) -> None:
    # Nine or ten cards and caravans on a crowded board: the deferred choice of the
    # cards caravans and boatmen take must still find the best hand.
    rng = random.Random(40_000 + seed)
    check_journey(random_move_position(rng, max_cards=10, min_cards=9, counter_chance=0.8,
                                       rules={"rules": "moon"}))


@pytest.mark.parametrize("seed", range(40))
def test_planner_with_end_bonus_equals_brute_force(seed: int) -> None:
    rng = random.Random(50_000 + seed)
    state = random_move_position(rng, max_cards=7)
    bonus = [rng.choice((0, 0, 50, 150, 400)) for _ in state.board.towns]
    j = plan_journey(state, end_bonus=bonus)
    end = j.towns[-1] if j.towns else state.boots[state.current]
    assert (j.new_towns, -(j.distance or 0), j.usefulness + bonus[end]) == brute_best(
        state, bonus)
    after = play(state, j.texts)
    assert after.visited[state.current].bit_count() - state.visited[
        state.current].bit_count() == j.new_towns


def test_rulebook_feodor_lapphalya_virst() -> None:
    state = load({
        "hands": [{"dragon": 3, "elfcycle": 1}, {}], "boots": ["feodor", "elvenhold"],
        "roads": {"feodor-lapphalya": {"counter": "dragon", "obstacle": 1},
                  "lapphalya-virst": {"counter": "elfcycle"}},
    })
    journey = plan_journey(state)
    assert journey.texts == ["move feodor-lapphalya", "move lapphalya-virst", "end"]
    assert [sum(s.paid) for s in journey.steps] == [3, 1]
    assert journey.steps[0].paid[5] == 3 and journey.steps[1].paid[1] == 1
    assert journey.new_towns == 2 and sum(journey.hand) == 0


def test_rulebook_river_down_one_raft_up_two() -> None:
    down = load({"hands": [{"raft": 1}, {}], "boots": ["virst", "elvenhold"]})
    assert plan_journey(down).texts == ["move virst-ixara raft", "end"]
    up = load({"hands": [{"raft": 1}, {}], "boots": ["ixara", "elvenhold"],
               "towns": [["mahdavikia"], []]})
    assert plan_journey(up).new_towns == 0
    up2 = load({"hands": [{"raft": 2}, {}], "boots": ["ixara", "elvenhold"],
                "towns": [["mahdavikia"], []]})
    j = plan_journey(up2)
    assert j.texts == ["move ixara-virst raft", "end"] and j.steps[0].paid[6] == 2


def test_rulebook_there_and_back_with_a_magic_cloud() -> None:
    state = load({"hands": [{"magic-cloud": 4}, {}], "boots": ["dagamura", "elvenhold"],
                  "roads": {"dagamura-kihromah": {"counter": "magic-cloud"}},
                  "towns": [["dagamura"], []]})
    j = plan_journey(state)
    assert j.new_towns == 1 and j.steps[0].paid[2] == 2
    # Going back costs 2 more; the planner would not spend them for nothing...
    assert len(j.steps) == 1
    # ...but the engine agrees that there and back is exactly 4 cards.
    after = play(state, ["move dagamura-kihromah", "move kihromah-dagamura"])
    assert sum(after.hands[0]) == 0


def test_repeated_route_to_pass_through_a_visited_town() -> None:
    # From Lapphalya: out to Feodor and back through Lapphalya on to Virst.
    state = load({"hands": [{"giant-pig": 3}, {}], "boots": ["feodor", "elvenhold"],
                  "towns": [["lapphalya"], []],
                  "roads": {"feodor-lapphalya": {"counter": "giant-pig"},
                            "lapphalya-virst": {"counter": "giant-pig"}}})
    j = plan_journey(state)
    assert j.new_towns == 1 and j.towns == [11, 3]
    check_journey(state)


def test_lakes_amigo_two_rafts_moon_one_raft_or_boatmen() -> None:
    base = {"hands": [{"raft": 1, "dragon": 2}, {}], "boots": ["grangor", "elvenhold"]}
    amigo = load({**base, "rules": "amigo"})
    assert plan_journey(amigo).new_towns == 0
    moon = load({**base, "rules": "moon", "town_cards": ["yttar", "virst"]})
    j = plan_journey(moon)
    # One raft over Mare Nebulae to the town card; the boatmen would want 3 cards.
    assert j.texts == ["move grangor-yttar raft", "end"] and j.key == (1, 0, 200 + 12)
    assert j.key == brute_best(moon)
    boat = load({"hands": [{"dragon": 3}, {}], "boots": ["grangor", "elvenhold"],
                 "rules": "moon", "town_cards": ["virst", "beata"]})
    jb = plan_journey(boat)
    assert jb.new_towns == 1 and "boatmen:dragon+dragon+dragon" in jb.texts[0]


def test_caravan_gives_the_least_useful_cards() -> None:
    state = load({"hands": [{"raft": 2, "giant-pig": 1, "magic-cloud": 2}, {}],
                  "boots": ["feodor", "elvenhold"],
                  "roads": {"feodor-albaran": {"counter": "dragon"}}})
    j = plan_journey(state)
    assert j.texts[0] == "move feodor-albaran caravan:giant-pig+magic-cloud+magic-cloud"
    assert j.hand == (0, 0, 0, 0, 0, 0, 2)
    check_journey(state)


def test_caravan_with_an_obstacle_takes_four() -> None:
    state = load({"hands": [{"raft": 3}, {}], "boots": ["feodor", "elvenhold"],
                  "roads": {"feodor-albaran": {"counter": "dragon", "obstacle": 1}}})
    assert plan_journey(state).new_towns == 0
    state4 = load({"hands": [{"raft": 4}, {}], "boots": ["feodor", "elvenhold"],
                   "roads": {"feodor-albaran": {"counter": "dragon", "obstacle": 1}}})
    assert plan_journey(state4).texts[0] == "move feodor-albaran caravan:raft+raft+raft+raft"


def test_destination_breaks_ties_between_equal_towns() -> None:
    state = load({"hands": [{"raft": 1}, {}], "boots": ["elvenhold", "elvenhold"],
                  "rules": "amigo", "destination": True, "town_cards": ["beata", "virst"],
                  "towns": [["beata", "rivinia"], []]})
    # Both rivers from Elvenhold lead to collected towns: stay (distance 1) or go to
    # Beata (distance 0) upstream? Upstream costs 2 rafts, so only Rivinia (downstream)
    # is possible, which is farther: staying is best.
    j = plan_journey(state)
    assert j.key == brute_best(state) and j.steps == ()


def test_usefulness_counts_cards_then_preference() -> None:
    assert usefulness((0, 0, 0, 0, 0, 0, 5), 4) == 4 * (100 + PREFERENCE[6])
    assert usefulness((1, 0, 0, 0, 0, 0, 0), 4) > usefulness((0,) * 7, 4)
    assert usefulness((0, 0, 0, 0, 0, 1, 0), 4) > usefulness((0, 0, 1, 0, 0, 0, 0), 4)
    assert discard_choice((1, 0, 1, 0, 0, 0, 1)) == 2


def test_sub_multisets_are_all_payments() -> None:
    pays = sub_multisets((2, 1, 0, 0, 0, 0, 1), 3)
    assert sorted(pays) == [(1, 1, 0, 0, 0, 0, 1), (2, 0, 0, 0, 0, 0, 1), (2, 1, 0, 0, 0, 0, 0)]
    assert all(sum(p) == 3 for p in pays)


def test_bad_player_is_a_typed_error() -> None:
    state = load({"hands": [{"raft": 1}, {}]})
    with pytest.raises(ElfenlandError):
        plan_journey(state, player=5)
    with pytest.raises(ElfenlandError):
        plan_journey(state, preference=(1, 2))
    with pytest.raises(ElfenlandError):
        plan_journey(state, end_bonus=[1, 2])


def test_describe_for_the_preview() -> None:
    state = load({"hands": [{"raft": 1}, {}], "boots": ["virst", "elvenhold"]})
    assert plan_journey(state).describe(state) == [
        {"action": "move virst-ixara raft", "to": "ixara", "paid": "raft"}]


@pytest.mark.parametrize("seed", range(40))
def test_planned_journeys_are_legal_when_caravans_are_only_for_need(seed: int) -> None:
    rng = random.Random(seed)
    rules = {"rules": "amigo", "caravan": "only-if-needed"}
    state = random_move_position(rng, counter_chance=0.7, max_cards=8, rules=rules)
    journey = plan_journey(state)
    for step in journey.steps:
        assert step.action in state.legal_actions()
        state.apply_action(step.action)


@pytest.mark.parametrize("caravan", ["always", "only-if-needed"])
def test_caravans_only_for_need_are_never_planned_where_the_counter_is_paid(caravan: str) -> None:
    state = elfenland.load_position({
        "players": 2, "phase": "move", "current_player": 0,
        "rules": elfenland.games.elfenland.Rules(caravan=caravan).to_json(),  # type: ignore[arg-type]
        "roads": {"feodor-lapphalya": {"counter": "elfcycle"}},
        "boots": ["feodor", "elvenhold"], "towns": [["feodor"], []],
        "hands": [{"elfcycle": 1, "magic-cloud": 6}, {}]})
    assert isinstance(state, ElfenlandState)
    # Seven cards, four kept: a caravan of clouds would keep the better elfcycle.
    journey = plan_journey(state)
    assert journey.new_towns == 1
    for step in journey.steps:
        assert step.action in state.legal_actions()
        state.apply_action(step.action)
    assert (state.hands[0][1] == 1) == (caravan == "always")
