"""The worked examples of the rulebooks, each set up as a position and played."""

from __future__ import annotations

import pytest

import elfenland

from .helpers import hand, position, texts


def test_example_1_troll_wagon_and_obstacle_on_a_desert_road_cost_three_cards() -> None:
    roads = {"feodor-throtmanni": {"counter": "troll-wagon", "obstacle": 1}}
    state = position(roads=roads, boots=["feodor", "elvenhold"],
                     hands=[{"troll-wagon": 3}, {}])
    assert "move feodor-throtmanni" in texts(state)
    state.apply_action("move feodor-throtmanni")
    assert hand(state) == {}
    assert state.view(0)["players"][0]["boot"] == "throtmanni"

    short = position(roads=roads, boots=["feodor", "elvenhold"], hands=[{"troll-wagon": 2}, {}])
    assert "move feodor-throtmanni" not in texts(short)
    with pytest.raises(elfenland.IllegalActionError, match="3 troll-wagon"):
        short.apply_action("move feodor-throtmanni")


def test_example_2_feodor_lapphalya_virst_three_dragons_then_one_elfcycle() -> None:
    roads = {"feodor-lapphalya": {"counter": "dragon", "obstacle": 1},
             "lapphalya-virst": {"counter": "elfcycle"}}
    state = position(roads=roads, boots=["feodor", "elvenhold"],
                     hands=[{"dragon": 3, "elfcycle": 1, "raft": 1}, {}])
    state.apply_action("go lapphalya")
    assert hand(state) == {"elfcycle": 1, "raft": 1}
    state.apply_action("go virst")
    assert hand(state) == {"raft": 1}
    assert set(state.view(0)["players"][0]["towns"]) == {"lapphalya", "virst"}


def test_example_3_river_virst_to_ixara_downstream_one_raft_upstream_two() -> None:
    state = position(boots=["virst", "ixara"], hands=[{"raft": 1}, {"raft": 2}])
    assert "move virst-ixara raft" in texts(state)
    state.apply_action("move virst-ixara raft")
    assert hand(state) == {}
    state.apply_action("end")
    # John, upstream: two rafts.
    assert state.current_player() == 1
    assert "move ixara-virst raft" in texts(state)
    state.apply_action("move ixara-virst raft")
    assert hand(state, 1) == {}


def test_upstream_with_one_raft_is_not_possible() -> None:
    state = position(boots=["ixara", "elvenhold"], hands=[{"raft": 1}, {}])
    assert "move ixara-virst raft" not in texts(state)
    assert "move ixara-mahdavikia raft" in texts(state)


def test_example_4_dagamura_kihromah_and_back_by_magic_cloud_costs_four() -> None:
    state = position(roads={"dagamura-kihromah": {"counter": "magic-cloud"}},
                     boots=["dagamura", "elvenhold"], hands=[{"magic-cloud": 4}, {}])
    state.apply_action("go kihromah")
    state.apply_action("go dagamura")
    assert hand(state) == {}
    assert state.view(0)["players"][0]["towns"] == ["dagamura", "kihromah"]


def test_example_5_destination_seventeen_towns_one_from_jaccaranda_scores_sixteen() -> None:
    towns = ["beata", "strykhaven", "virst", "ergeren", "rivinia", "tichih", "throtmanni",
             "albaran", "dagamura", "lapphalya", "feodor", "kihromah", "yttar", "grangor",
             "mahdavikia", "ixara", "parundia"]
    assert len(towns) == 17
    state = position(rules="amigo", destination=True, phase="over",
                     boots=["throtmanni", "elvenhold"], towns=[towns, []],
                     town_cards=["jaccaranda", "beata"])
    assert state.scores()[0] == 16
    assert state.view(None)["scores"][0] == 16


def test_moon_example_seventeen_towns_ending_in_rivinia_with_tichih_scores_sixteen() -> None:
    towns = ["beata", "strykhaven", "virst", "ergeren", "rivinia", "jaccaranda", "throtmanni",
             "albaran", "dagamura", "lapphalya", "feodor", "kihromah", "yttar", "grangor",
             "mahdavikia", "ixara", "parundia"]
    state = position(rules="moon", phase="over", boots=["rivinia", "elvenhold"],
                     towns=[towns, []], town_cards=["tichih", "beata"])
    assert state.scores()[0] == 16
