"""Each rule and each limit of Elfenland, under both rule sets where they differ."""

from __future__ import annotations

import random

import pytest

import elfenland
from elfenland.games.elfenland import ElfenlandState, Phase
from elfenland.games.elfenland.state import NO_PIECE

from .helpers import hand, position, texts


def play_until(state: ElfenlandState, phase: Phase, seed: int = 0) -> ElfenlandState:
    rng = random.Random(seed)
    while state.phase is not phase:
        assert not state.is_terminal()
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def first(state: ElfenlandState, prefix: str) -> str:
    return next(t for t in texts(state) if t.startswith(prefix))


# ---------------------------------------------------------------- setup and deal
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_deals_eight_cards_and_boots_start_in_elvenhold(players: int) -> None:
    state = elfenland.new_game(players=players, seed=3)
    assert isinstance(state, ElfenlandState)
    assert [sum(h) for h in state.hands] == [8] * players
    assert all(b == state.board.capital for b in state.boots)
    assert sum(state.face_up) == 5
    assert state.phase is Phase.DRAW_SECRET and state.current_player() == 0
    assert state.obstacle_in_hand == [True] * players


def test_amigo_fills_hands_up_to_eight_and_moon_deals_eight_more() -> None:
    for rules, expected in (("amigo", 8), ("moon", 11)):
        state = position(rules=rules, phase="move", current_player=1, step=1,
                         hands=[{"dragon": 3}, {"raft": 2}],
                         town_cards=None if rules == "amigo" else ["beata", "virst"])
        state.apply_action("end")
        assert state.round == 2
        assert sum(state.hands[1]) == (8 if rules == "amigo" else 10)
        assert sum(state.hands[0]) == expected


def test_the_starting_player_rotates_left_each_round() -> None:
    state = position(players=3, phase="move", current_player=0, step=2, starting_player=1)
    state.apply_action("end")
    assert state.round == 2 and state.starting == 2
    assert state.current_player() == 2
    state = play_until(state, Phase.MOVE)
    while state.round == 2:
        state.apply_action(first(state, "end") if state.phase is Phase.MOVE
                           and not state.discarding else texts(state)[0])
    assert state.round == 3 and state.starting == 0


# ---------------------------------------------------------------- counters
def test_each_player_draws_one_secret_counter_hidden_from_the_others() -> None:
    state = elfenland.new_game(players=3, seed=11)
    assert texts(state) == ["draw secret"]
    for _ in range(3):
        state.apply_action("draw secret")
    assert state.phase is Phase.DRAW_COUNTERS
    for p in range(3):
        assert sum(state.counters_secret[p]) == 1
        mine = state.view(p)["players"][p]
        assert len(mine["secret"]) == 1
        for q in range(3):
            other = state.view(q)["players"][p]
            assert other["secret_counters"] == 1
            if q != p:
                assert "secret" not in other


def test_three_draws_each_from_five_face_up_refilled_at_once_or_blind() -> None:
    state = elfenland.new_game(players=4, seed=2)
    for _ in range(4):
        state.apply_action("draw secret")
    draws = 0
    while state.phase is Phase.DRAW_COUNTERS:
        assert sum(state.face_up) == 5
        choice = first(state, "draw ")
        before_up = sum(state.counters_up[state.current])
        player = state.current
        state.apply_action(choice)
        assert sum(state.counters_up[player]) == before_up + 1
        draws += 1
    assert draws == 12
    assert all(sum(state.counters_up[p]) == 3 for p in range(4))
    assert sum(state.face_up) == 5


def test_a_face_up_kind_not_in_the_row_cannot_be_drawn() -> None:
    state = position(phase="draw-counters", face_up=["dragon"] * 5)
    assert set(texts(state)) == {"draw dragon", "draw blind"}
    with pytest.raises(elfenland.IllegalActionError, match="no face-up"):
        state.apply_action("draw unicorn")


# ---------------------------------------------------------------- placement
def test_counters_go_only_where_their_transport_may_travel() -> None:
    state = position(phase="place", counters=[{"face_up": ["giant-pig"]}, {}])
    legal = texts(state)
    assert "place giant-pig feodor-throtmanni" not in legal  # desert
    assert "place giant-pig strykhaven-virst" not in legal  # mountain
    assert "place giant-pig elvenhold-beata" in legal  # plains
    with pytest.raises(elfenland.IllegalActionError, match="cannot travel on desert"):
        state.apply_action("place giant-pig feodor-throtmanni")
    with pytest.raises(elfenland.ActionParseError):
        state.apply_action("place giant-pig rivinia-tichih")  # a river: no road there


def test_one_counter_per_road_and_one_obstacle_beside_a_placed_counter() -> None:
    state = position(players=3, phase="place",
                     counters=[{"face_up": ["dragon"]}, {"face_up": ["dragon"]}, {}],
                     roads={"feodor-lapphalya": {"counter": "unicorn"}})
    assert "place dragon feodor-lapphalya" not in texts(state)
    assert "obstacle feodor-lapphalya" in texts(state)
    assert "obstacle elvenhold-beata" not in texts(state)  # no counter there
    with pytest.raises(elfenland.IllegalActionError, match="beside a counter"):
        state.apply_action("obstacle elvenhold-beata")
    state.apply_action("obstacle feodor-lapphalya")
    assert state.route_obstacle[state.board.route("r09").index] == 0
    assert "obstacle feodor-lapphalya" not in texts(state)  # one per road
    state.apply_action("place dragon elvenhold-beata")
    # Player 0 has used their obstacle for the whole game.
    state.apply_action("pass")
    assert not any(t.startswith("obstacle") for t in texts(state))


def test_no_obstacle_on_rivers_or_lakes() -> None:
    state = position(phase="place", roads={"feodor-lapphalya": {"counter": "unicorn"}})
    obstacles = [t for t in texts(state) if t.startswith("obstacle")]
    assert obstacles == ["obstacle feodor-lapphalya"]
    with pytest.raises(elfenland.ActionParseError):
        state.apply_action("obstacle rivinia-tichih")
    with pytest.raises(elfenland.ActionParseError):
        state.apply_action("obstacle grangor-parundia")


def test_the_obstacle_is_used_once_a_game() -> None:
    state = position(phase="place", roads={"feodor-lapphalya": {"counter": "unicorn"}},
                     obstacles_left=[False, True])
    assert not any(t.startswith("obstacle") for t in texts(state))


def test_a_pass_is_not_final_and_all_passing_in_a_row_ends_placement() -> None:
    state = position(players=3, phase="place",
                     counters=[{"face_up": ["dragon", "unicorn"]}, {}, {}])
    state.apply_action("pass")
    state.apply_action("pass")
    assert state.current_player() == 2
    state.apply_action("pass")
    assert state.phase is Phase.MOVE  # all passed in a row: the phase ends
    state = position(players=3, phase="place", current_player=1,
                     counters=[{"face_up": ["dragon", "unicorn"]}, {}, {}])
    state.apply_action("pass")
    state.apply_action("pass")
    assert state.current_player() == 0
    state.apply_action("place dragon elvenhold-beata")  # the streak of passes is broken
    state.apply_action("pass")
    state.apply_action("pass")
    assert state.phase is Phase.PLACE and state.current_player() == 0
    state.apply_action("place unicorn feodor-lapphalya")
    for _ in range(3):
        state.apply_action("pass")
    assert state.phase is Phase.MOVE


def test_placing_uses_a_face_up_counter_before_a_secret_one() -> None:
    state = position(phase="place", counters=[{"face_up": ["dragon"], "secret": ["dragon"]}, {}])
    state.apply_action("place dragon elvenhold-beata")
    assert state.counters_up[0][5] == 0 and state.counters_secret[0][5] == 1


# ---------------------------------------------------------------- movement
def test_no_travel_on_a_road_without_a_counter() -> None:
    state = position(boots=["feodor", "elvenhold"], hands=[{"dragon": 5}, {}])
    assert texts(state) == ["end"]
    with pytest.raises(elfenland.IllegalActionError, match="no transportation counter"):
        state.apply_action("move feodor-lapphalya")


def test_caravan_three_cards_four_with_an_obstacle_only_on_roads_with_a_counter() -> None:
    state = position(roads={"feodor-lapphalya": {"counter": "unicorn"},
                            "feodor-throtmanni": {"counter": "dragon", "obstacle": 1}},
                     boots=["feodor", "elvenhold"],
                     hands=[{"giant-pig": 2, "raft": 2}, {}])
    legal = texts(state)
    assert "move feodor-lapphalya caravan:giant-pig+giant-pig+raft" in legal
    assert "move feodor-lapphalya caravan:giant-pig+raft+raft" in legal
    assert "move feodor-throtmanni caravan:giant-pig+giant-pig+raft+raft" in legal
    assert not any(t.startswith("move feodor-throtmanni caravan") and t.count("+") == 2
                   for t in legal)
    assert not any("feodor-rivinia" in t or "feodor-albaran" in t for t in legal)
    with pytest.raises(elfenland.IllegalActionError, match="takes 4 cards"):
        state.apply_action("move feodor-throtmanni caravan:giant-pig+giant-pig+raft")
    state.apply_action("move feodor-throtmanni caravan:giant-pig+giant-pig+raft+raft")
    assert hand(state) == {}


def test_a_caravan_may_be_chosen_even_when_the_normal_payment_is_possible() -> None:
    state = position(roads={"feodor-lapphalya": {"counter": "unicorn"}},
                     boots=["feodor", "elvenhold"], hands=[{"unicorn": 1, "raft": 3}, {}])
    assert "move feodor-lapphalya" in texts(state)
    assert "move feodor-lapphalya caravan:raft+raft+raft" in texts(state)


def test_no_caravan_on_rivers_or_lakes() -> None:
    state = position(boots=["virst", "elvenhold"], hands=[{"dragon": 4}, {}])
    assert texts(state) == ["end"]
    # Virst-Ixara by caravan means the plains road, which has no counter.
    with pytest.raises(elfenland.IllegalActionError, match="needs a transportation counter"):
        state.apply_action("move virst-ixara caravan:dragon+dragon+dragon")
    state = position(boots=["rivinia", "elvenhold"], hands=[{"dragon": 4}, {}])
    with pytest.raises(elfenland.ActionParseError):
        state.apply_action("move rivinia-tichih caravan:dragon+dragon+dragon")
    with pytest.raises(elfenland.ActionParseError):
        state.apply_action("move grangor-parundia caravan:dragon+dragon+dragon")


@pytest.mark.parametrize("rules", ["amigo", "moon"])
def test_mare_magnum_costs_two_rafts_under_both_rule_sets(rules: str) -> None:
    cards = None if rules == "amigo" else ["beata", "virst"]
    state = position(rules=rules, town_cards=cards, boots=["elvenhold", "elvenhold"],
                     hands=[{"raft": 1, "dragon": 3}, {}])
    assert not any("strykhaven" in t or "elvenhold-virst" in t for t in texts(state))
    state = position(rules=rules, town_cards=cards, boots=["elvenhold", "elvenhold"],
                     hands=[{"raft": 2}, {}])
    assert "move elvenhold-strykhaven raft" in texts(state)
    state.apply_action("move elvenhold-strykhaven raft")
    assert hand(state) == {}


def test_mare_nebulae_amigo_two_rafts_no_boatmen() -> None:
    state = position(boots=["grangor", "elvenhold"], hands=[{"raft": 1, "dragon": 3}, {}])
    assert texts(state) == ["end"]
    with pytest.raises(elfenland.IllegalActionError, match="no boatmen"):
        state.apply_action("move grangor-parundia boatmen:dragon+dragon+dragon")


def test_mare_nebulae_moon_one_raft_or_the_boatmen_for_any_three_cards() -> None:
    cards = ["beata", "virst"]
    state = position(rules="moon", town_cards=cards, boots=["grangor", "elvenhold"],
                     hands=[{"raft": 1, "dragon": 3}, {}])
    legal = texts(state)
    assert "move grangor-parundia raft" in legal
    assert "move grangor-yttar raft" in legal
    assert "move grangor-parundia boatmen:dragon+dragon+dragon" in legal
    assert "move grangor-parundia boatmen:dragon+dragon+raft" in legal
    state.apply_action("move grangor-parundia boatmen:dragon+dragon+dragon")
    assert hand(state) == {"raft": 1}
    state.apply_action("move parundia-yttar raft")
    assert hand(state) == {}


def test_markers_are_collected_from_every_town_reached_and_none_in_elvenhold() -> None:
    state = position(roads={"elvenhold-lapphalya": {"counter": "giant-pig"}},
                     boots=["beata", "elvenhold"], hands=[{"raft": 1, "giant-pig": 2}, {}])
    state.apply_action("move beata-elvenhold raft")
    assert state.markers(0) == 0
    state.apply_action("go lapphalya")
    state.apply_action("go elvenhold")
    assert state.view(None)["players"][0]["towns"] == ["lapphalya"]


def test_discard_down_to_four_at_the_end_of_the_move_choosing_the_cards() -> None:
    state = position(hands=[{"dragon": 3, "raft": 3}, {"raft": 1}])
    state.apply_action("end")
    assert state.current_player() == 0 and state.discarding
    assert set(texts(state)) == {"discard dragon", "discard raft"}
    with pytest.raises(elfenland.IllegalActionError):
        state.apply_action("move virst-ixara raft")
    state.apply_action("discard dragon")
    state.apply_action("discard dragon")
    assert hand(state) == {"dragon": 1, "raft": 3}
    assert state.current_player() == 1 and not state.discarding


# ---------------------------------------------------------------- end of round
def test_amigo_keeps_one_counter_of_the_players_choice_after_the_round() -> None:
    state = position(phase="move", current_player=1, step=1,
                     counters=[{"face_up": ["dragon", "unicorn"], "secret": ["elfcycle"]},
                               {"face_up": ["giant-pig"]}],
                     roads={"feodor-lapphalya": {"counter": "unicorn"}})
    state.apply_action("end")
    assert state.phase is Phase.KEEP and state.current_player() == 0
    assert set(texts(state)) == {"keep dragon", "keep unicorn", "keep secret elfcycle"}
    state.apply_action("keep secret elfcycle")
    assert state.round == 2
    assert state.counters_secret[0][1] == 1 and sum(state.counters_up[0]) == 0
    assert state.counters_up[1][0] == 1  # a single counter is kept without asking
    assert all(c == NO_PIECE for c in state.route_counter)
    assert state.view(1)["log"][-1]["action"] == "keep secret"
    assert state.view(0)["log"][-1]["action"] == "keep secret elfcycle"


def test_moon_chooses_the_kept_counter_at_the_end_of_placement() -> None:
    state = position(rules="moon", town_cards=["beata", "virst"], phase="place",
                     counters=[{"face_up": ["dragon", "unicorn"]}, {}])
    state.apply_action("pass")
    state.apply_action("pass")
    assert state.phase is Phase.KEEP
    state.apply_action("keep unicorn")
    assert state.phase is Phase.MOVE
    assert state.counters_up[0] == [0, 0, 0, 1, 0, 0]


def test_at_most_five_counters_each_round() -> None:
    for seed in range(20):
        state = elfenland.new_game(players=6, seed=seed)
        assert isinstance(state, ElfenlandState)
        play_until(state, Phase.PLACE, seed)
        assert all(state._counters_of(p) <= 5 for p in range(6))


def test_used_obstacles_leave_the_game_at_the_end_of_the_round() -> None:
    state = position(phase="move", current_player=1, step=1,
                     roads={"feodor-lapphalya": {"counter": "unicorn", "obstacle": 0}},
                     obstacles_left=[False, True])
    state.apply_action("end")
    assert all(o == NO_PIECE for o in state.route_obstacle)
    assert state.obstacle_in_hand == [False, True]


# ---------------------------------------------------------------- end of game
ALL_TOWNS = [t.id for t in elfenland.games.elfenland.load_board().towns if t.id != "elvenhold"]


def test_amigo_a_player_with_all_twenty_markers_ends_the_game_after_that_round() -> None:
    state = position(phase="move", current_player=1, step=1, round=2,
                     towns=[ALL_TOWNS, ["beata"]], hands=[{"raft": 1}, {"raft": 3}])
    state.apply_action("end")
    assert state.is_terminal()
    assert state.winners() == [0] and state.scores() == [20, 1]


def test_amigo_game_ends_after_round_four() -> None:
    state = position(phase="move", current_player=1, step=1, round=4,
                     towns=[["beata"], ["beata", "virst"]])
    state.apply_action("end")
    assert state.is_terminal() and state.winners() == [1]
    assert state.returns() == [0.0, 1.0]
    with pytest.raises(elfenland.GameOverError):
        state.apply_action("end")


def test_moon_special_victory_at_the_end_of_round_three_ignores_town_cards() -> None:
    state = position(rules="moon", town_cards=["beata", "virst"], phase="move",
                     current_player=1, step=1, round=3, boots=["yttar", "virst"],
                     towns=[ALL_TOWNS, ALL_TOWNS], hands=[{"raft": 2}, {"raft": 3}])
    state.apply_action("end")
    assert state.is_terminal() and state.special_victory
    assert state.winners() == [1]  # both complete: most travel cards wins
    assert state.scores() == [20, 20]


def test_ties_are_broken_by_cards_in_hand_then_shared() -> None:
    state = position(phase="over", towns=[["beata"], ["virst"]],
                     hands=[{"raft": 1}, {"raft": 2}])
    assert state.winners() == [1]
    state = position(phase="over", towns=[["beata"], ["virst"]],
                     hands=[{"raft": 2}, {"dragon": 2}])
    assert state.winners() == [0, 1]
    assert state.returns() == [0.5, 0.5]


def test_destination_ties_go_first_to_the_player_closest_to_the_town_card() -> None:
    # Both score 2: player 0 has 3 towns and is 1 away, player 1 has 2 and is home.
    state = position(destination=True, phase="over", boots=["throtmanni", "beata"],
                     towns=[["beata", "virst", "ixara"], ["beata", "virst"]],
                     town_cards=["jaccaranda", "beata"], hands=[{"raft": 4}, {}])
    assert state.scores() == [2, 2]
    assert state.winners() == [1]
    moon = position(rules="moon", phase="over", boots=["throtmanni", "beata"],
                    towns=[["beata", "virst", "ixara"], ["beata", "virst"]],
                    town_cards=["jaccaranda", "beata"], hands=[{"raft": 4}, {}])
    assert moon.winners() == [0]  # Moon: most cards


# ---------------------------------------------------------------- errors
def test_an_illegal_action_changes_nothing() -> None:
    state = elfenland.new_game(players=3, seed=9)
    assert isinstance(state, ElfenlandState)
    play_until(state, Phase.PLACE)
    before = state.clone()
    for bad in ("draw secret", "move feodor-lapphalya", "keep dragon", "obstacle beata-strykhaven",
                "discard raft", 10**9, "nonsense", ""):
        with pytest.raises(ValueError):
            state.apply_action(bad)  # type: ignore[arg-type]
        assert state == before


def test_unknown_rules_players_and_options_are_refused() -> None:
    with pytest.raises(elfenland.ElfenlandError, match="rule set"):
        elfenland.new_game(rules="house")
    with pytest.raises(elfenland.ElfenlandError, match="2 to 6"):
        elfenland.new_game(players=7)
    with pytest.raises(elfenland.ElfenlandError, match="unknown option"):
        elfenland.new_game(colour="red")
    with pytest.raises(elfenland.ElfenlandError, match="unknown game"):
        elfenland.new_game(game="chess")
