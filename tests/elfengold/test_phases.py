"""Setup, phases 1–3 and 5–7, the end of the game and the options that change them."""

from __future__ import annotations

import pytest

import elfenland
from elfenland.core.errors import ElfenlandError, IllegalActionError
from elfenland.core.options import OptionError
from elfenland.games.elfengold import OPTIONS, ElfengoldState, make_rules
from elfenland.games.elfengold.items import (
    FIXED_GOLD,
    GOLD_CARD,
    GOLD_TOKENS,
    ITEM_COUNTS,
    SEA_MONSTER,
    TREE,
    WITCH,
)

from .helpers import legal, position


def new(players: int = 3, seed: int = 1, **options: object) -> ElfengoldState:
    s = elfenland.new_game(game="elfengold", players=players, seed=seed, **options)
    assert isinstance(s, ElfengoldState)
    return s


def test_setup() -> None:
    s = new(4)
    assert s.coins == [12] * 4 and s.paid_out == 48
    assert [sum(h) for h in s.hands] == [5] * 4
    assert sum(s.display) == 3 and s.display[GOLD_CARD] == 0
    assert s.supply[GOLD_CARD] == 7 and sum(s.supply) == 63 - 20 - 3 + 7
    assert sum(s.hands[p][WITCH] for p in range(4)) == 0
    assert s.round == 1 and s.phase.value == "draw-items"   # phases 1 and 2 skipped
    assert sum(s.item_pile) + len(s.drawn) == 48
    assert {s.board.towns[t].id: v for t, v in enumerate(s.gold_values) if v} == FIXED_GOLD


def test_witch_cards_are_shuffled_in_before_the_deal() -> None:
    dealt = 0
    for seed in range(40):
        s = new(6, seed, witch=True)
        dealt += sum(h[WITCH] for h in s.hands)
        assert sum(h[WITCH] for h in s.hands) + s.supply[WITCH] + s.display[WITCH] == 6
    assert dealt > 0


def test_random_gold_is_a_permutation_of_the_20_tokens() -> None:
    seen = set()
    for seed in range(5):
        s = new(3, seed, random_gold=True)
        values = [v for t, v in enumerate(s.gold_values) if t != s.board.capital]
        assert sorted(values) == sorted(GOLD_TOKENS) and s.gold_values[s.board.capital] == 0
        seen.add(tuple(values))
    assert len(seen) > 1


def test_phase_3_two_items_one_face_down_by_choice() -> None:
    s = position(3, phase="draw-items", drawn=["dragon", "tree"], round=1)
    assert legal(s) == {"hide dragon", "hide tree"}
    s.apply_action("hide tree")
    assert s.items_down[0][TREE] == 1 and s.items_up[0][5] == 1
    assert s.current == 1 and len(s.drawn) == 2
    assert s.view(1)["log"][-1]["action"] == "hide"
    assert "face_down" not in s.view(1)["log"][-1]
    assert s.view(0)["log"][-1]["face_down"] == "tree"


def _to_round_2(s: ElfengoldState) -> None:
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])


def test_round_2_starts_with_draws_round_robin_then_income() -> None:
    s = new(3, 5)
    _to_round_2(s)
    assert s.phase.value == "draw-cards" and s.starting == 1
    order = []
    coins = s.coins[:]
    while s.phase.value == "draw-cards":
        order.append(s.current)
        s.apply_action("draw blind" if "draw blind" in legal(s) else s.legal_actions()[0])
    dedup = [p for i, p in enumerate(order) if i == 0 or order[i - 1] != p]
    assert dedup == [1, 2, 0] * 3               # gold cards drawn make a player draw again
    assert s.coins == [c + 2 for c in coins]    # phase 2: 2 coins each


def test_three_at_once_option() -> None:
    s = new(3, 5, eg_card_draw="three-at-once")
    _to_round_2(s)
    order = []
    while s.phase.value == "draw-cards":
        order.append(s.current)
        s.apply_action("draw blind" if "draw blind" in legal(s) else s.legal_actions()[0])
    dedup = [p for i, p in enumerate(order) if i == 0 or order[i - 1] != p]
    assert dedup == [1, 2, 0]


def test_a_gold_card_drawn_goes_to_the_gold_deck_and_the_player_draws_again() -> None:
    s = position(3, phase="draw-cards", round=2, starting_player=1, current_player=1, step=0,
                 supply={"gold": 1}, display={"dragon": 3})
    s.apply_action("draw blind")
    assert s.gold_deck == 1 and s.current == 1 and s.step == 0
    assert "take gold" in legal(s)
    coins, discarded = s.coins[1], s.discard[GOLD_CARD]
    s.apply_action("take gold")
    assert s.coins[1] == coins + 3 and s.gold_deck == 0
    assert s.discard[GOLD_CARD] == discarded + 1
    assert s.current == 2


def test_gold_card_turned_into_the_display() -> None:
    doc = {"phase": "draw-cards", "round": 2, "starting_player": 1, "current_player": 1,
           "step": 0, "display": {"dragon": 3}, "supply": {"gold": 1, "raft": 1}}
    s = position(3, **doc)
    s.apply_action("draw dragon")             # the refill turns up a gold card first?
    assert s.display[GOLD_CARD] == 0 and sum(s.display) == 3
    assert s.gold_deck + s.display[GOLD_CARD] + s.supply[GOLD_CARD] == 1
    stays = position(3, rules={"eg_gold_in_display": "stays-face-up"},
                     **{**doc, "supply": {"gold": 1}})
    stays.apply_action("draw dragon")
    assert stays.display[GOLD_CARD] == 1 and stays.gold_deck == 0
    assert "take gold" in legal(stays)


def test_the_discard_pile_becomes_the_supply_when_it_runs_out() -> None:
    s = position(3, phase="draw-cards", round=2, starting_player=0, current_player=0,
                 step=0, supply={}, display={})
    discarded = sum(s.discard)
    s.apply_action("draw blind")
    assert sum(s.discard) == 0
    assert sum(s.supply) + sum(s.hands[0]) + s.gold_deck == discarded
    assert sum(s.hands[0]) + s.gold_deck >= 1


def test_with_supply_and_discard_empty_the_gold_deck_is_drawn() -> None:
    everything = {k: 9 for k in ("giant-pig", "elfcycle", "magic-cloud", "unicorn",
                                 "troll-wagon", "dragon", "raft")}
    s = position(3, phase="move", supply={}, discard={}, display={}, gold_deck=7,
                 hands=[{}, everything, {}])
    s.apply_action("end")
    assert legal(s) == {"take gold"}
    s.apply_action("take gold")
    assert s.coins[0] == 12 + 21
    # the gold cards went to the discard pile, which is now the supply (rule 25)
    assert legal(s) == {"draw blind"}
    s.apply_action("draw blind")            # a gold card: to the gold deck, draw again
    assert s.gold_deck == 1 and legal(s) == {"draw blind", "take gold"}
    s.apply_action("take gold")
    assert s.coins[0] == 12 + 21 + 3 and s.current == 1 and s.phase.value == "move"


# ----- placement (rules 39–46) --------------------------------------------------------
def placing(items: dict[str, int], roads: dict[str, object]) -> ElfengoldState:
    return position(3, phase="place", roads=roads, items=[{"face_up": items}, {}, {}])


def test_counter_only_on_an_empty_road_it_can_travel() -> None:
    s = placing({"unicorn": 1}, {"feodor-lapphalya": {"counters": ["dragon"]}})
    assert "place unicorn feodor-lapphalya" not in legal(s)
    assert "place unicorn rivinia-feodor" in legal(s)          # forest
    assert "place unicorn elvenhold-beata" not in legal(s)     # plains: no unicorn


def test_tree_only_beside_a_counter_on_a_road_without_obstacle_or_gold() -> None:
    roads = {"feodor-lapphalya": {"counters": ["dragon"]},
             "feodor-dagamura": {"counters": ["dragon"], "gold_piece": True},
             "feodor-albaran": {"counters": ["dragon"], "obstacle": "tree"}}
    s = placing({"tree": 1}, roads)
    trees = {a for a in legal(s) if a.startswith("tree")}
    assert trees == {"tree feodor-lapphalya"}
    with pytest.raises(IllegalActionError):
        s.apply_action("tree virst-ixara")       # the road Virst–Ixara has no counter


def test_sea_monster_only_on_water_one_obstacle_per_link() -> None:
    s = placing({"sea-monster": 1}, {"r44": {"obstacle": "sea-monster"}})
    monsters = {a for a in legal(s) if a.startswith("monster")}
    assert len(monsters) == 7 + 6 - 1 and "monster elvenhold-virst" not in monsters
    s.apply_action("monster virst-ixara")
    assert s.obstacle[s.board.route("r36").index] == SEA_MONSTER


def test_gold_piece_only_beside_a_counter_and_then_no_obstacle() -> None:
    s = placing({"gold-piece": 1, "tree": 1}, {"feodor-lapphalya": {"counters": ["dragon"]}})
    assert "gold feodor-lapphalya" in legal(s)
    assert not any(a.startswith("gold") and "dagamura" in a for a in legal(s))
    s.apply_action("gold feodor-lapphalya")
    for _ in range(2):
        s.apply_action("pass")
    assert "tree feodor-lapphalya" not in legal(s)


def test_placement_ends_after_everyone_passes_in_a_row() -> None:
    s = placing({"dragon": 2}, {})
    s.apply_action("place dragon feodor-dagamura")
    s.apply_action("pass")
    s.apply_action("pass")
    assert s.current == 0 and s.phase.value == "place"   # a pass is not final
    s.apply_action("place dragon feodor-albaran")
    for _ in range(3):
        s.apply_action("pass")
    assert s.phase.value == "move"


# ----- end of round ------------------------------------------------------------------
def test_keep_two_items_orientation_kept_rest_and_board_back_to_the_pile() -> None:
    s = position(2, phase="move", step=1, current_player=1,
                 items=[{"face_up": {"dragon": 1, "tree": 1}, "face_down": {"double": 1}},
                        {"face_up": {"unicorn": 1}}],
                 roads={"feodor-lapphalya": {"counters": ["dragon"], "obstacle": "tree"},
                        "r36": {"obstacle": "sea-monster"}},
                 supply={"raft": 3})
    s.apply_action("end")
    s.apply_action("draw blind")
    s.apply_action("draw blind")
    assert s.phase.value == "keep" and s.current == 0     # player 1 holds one: kept
    assert not any(s.counters) and all(o == -1 for o in s.obstacle)
    s.apply_action("keep secret double")
    s.apply_action("keep tree")
    assert s.items_down[0][9] == 1 and s.items_up[0][TREE] == 1 and s._held(0) == 2
    assert s.round == 2 and s.starting == 1
    assert sum(s.item_pile) + 3 + sum(s.display) * 0 == 48


def test_used_obstacles_leave_the_game_with_the_remove_option() -> None:
    doc = {"phase": "move", "step": 1, "current_player": 1, "supply": {"raft": 3},
           "roads": {"feodor-lapphalya": {"counters": ["dragon"], "obstacle": "tree"},
                     "r16": {"counters": ["dragon", "elfcycle"], "double": True,
                             "gold_piece": True}}}
    s = position(2, rules={"eg_used_obstacles": "remove"}, **doc)
    s.apply_action("end")
    s.apply_action("draw blind")
    s.apply_action("draw blind")
    assert s.removed[TREE] == 1 and s.item_pile[TREE] == ITEM_COUNTS[TREE] - 1
    # gold pieces, Doubles and counters go back into the pile under either reading
    assert s.item_pile[8:10] == [ITEM_COUNTS[8], ITEM_COUNTS[9]] and sum(s.removed) == 1
    assert s.item_pile[:6] == list(ITEM_COUNTS[:6])
    kept = position(2, **doc)
    for a in ("end", "draw blind", "draw blind"):
        kept.apply_action(a)
    assert kept.item_pile[TREE] == ITEM_COUNTS[TREE] and not any(kept.removed)


def _last_mover(players: int, **doc: object) -> ElfengoldState:
    return position(players, phase="move", round=6, step=players - 1,
                    current_player=(5 + players - 1) % players, starting_player=5 % players,
                    supply={"raft": 9}, **doc)


def test_the_game_ends_after_round_6_most_towns_then_most_coins() -> None:
    s = _last_mover(3, towns=[["feodor", "albaran"], ["feodor", "beata"], ["yttar"]],
                    coins=[4, 9, 30])
    s.apply_action("end")
    s.apply_action("draw blind")
    s.apply_action("draw blind")
    assert s.is_terminal() and s.winners() == [1] and s.returns() == [0.0, 1.0, 0.0]
    tie = _last_mover(2, towns=[["feodor"], ["beata"]], coins=[5, 5])
    for a in ("end", "draw blind", "draw blind"):
        tie.apply_action(a)
    assert tie.winners() == [0, 1]


def test_tiebreak_by_cards_after_coins_by_option() -> None:
    doc = {"towns": [["feodor"], ["beata"]], "coins": [5, 5],
           "hands": [{"raft": 1}, {"raft": 4}]}
    s = position(2, phase="move", round=6, step=1, current_player=0, starting_player=1,
                 supply={"raft": 4}, rules={"eg_tiebreak": "coins-cards"}, **doc)
    s.apply_action("end")
    s.apply_action("discard raft") if "discard raft" in legal(s) else None
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.winners() == [1]


def test_early_end_when_a_player_has_all_20_towns() -> None:
    towns = [t.id for t in position(2).board.towns if t.id != "elvenhold"]
    s = position(2, phase="move", round=2, step=1, current_player=0, starting_player=1,
                 towns=[towns, ["beata"]], supply={"raft": 9})
    for a in ("end", "draw blind", "draw blind"):
        s.apply_action(a)
    assert s.is_terminal() and s.winners() == [0]


def test_town_card_variant_scores_towns_minus_distance() -> None:
    s = _last_mover(2, rules={"town_cards": True}, town_cards=["grangor", "beata"],
                    boots=["feodor", "elvenhold"], towns=[["feodor", "albaran"], ["beata"]])
    for a in ("end", "draw blind", "draw blind"):
        s.apply_action(a)
    assert s.scores() == [2 - s.board.distance(s.board.town("feodor"),
                                                  s.board.town("grangor")), 1 - 1]


# ----- hand limit (Q4) ---------------------------------------------------------------
def test_no_hand_limit_by_default() -> None:
    s = position(2, phase="move", hands=[{"raft": 9}, {}])
    s.apply_action("end")
    assert s.phase.value == "move-draw"


@pytest.mark.parametrize("when", ["before-draw", "after-draw"])
def test_hand_limit_option(when: str) -> None:
    s = position(2, phase="move", hands=[{"raft": 6}, {}], supply={"dragon": 5},
                 rules={"eg_hand_limit": 4, "eg_hand_limit_when": when})
    s.apply_action("end")
    if when == "before-draw":
        assert s.phase.value == "discard"
        s.apply_action("discard raft")
        s.apply_action("discard raft")
        assert s.phase.value == "move-draw"
        s.apply_action("draw blind")
        s.apply_action("draw blind")
        assert sum(s.hands[0]) == 6 and s.current == 1
    else:
        s.apply_action("draw blind")
        s.apply_action("draw blind")
        assert s.phase.value == "discard" and s.current == 0
        for _ in range(4):
            s.apply_action("discard raft")
        assert sum(s.hands[0]) == 4 and s.current == 1


# ----- options -------------------------------------------------------------------------
def test_every_section_2_question_is_an_option_with_the_spec_default() -> None:
    defaults = {o.name: o.default for o in OPTIONS}
    assert defaults == {
        "eg_card_draw": "round-robin", "eg_gold_in_display": "to-gold-deck",
        "eg_overbid": "allowed", "eg_defaulter_rebids": False, "eg_public_gold": True,
        "eg_hand_limit": 0, "eg_hand_limit_when": "before-draw",
        "eg_used_obstacles": "return", "eg_flight_collects_piece": True,
        "eg_exchange_same_kind": False, "eg_tiebreak": "coins", "eg_witch_in_caravan": True,
        "caravan": "always", "rounds": 6, "random_gold": False, "witch": False,
        "town_cards": False}
    assert OPTIONS.rule_set("elfengold") == defaults
    assert OPTIONS.is_standard("elfengold", {"witch": True, "town_cards": True})
    assert not OPTIONS.is_standard("elfengold", {"eg_overbid": "capped"})


def test_bad_options_are_refused() -> None:
    with pytest.raises(OptionError):
        make_rules(eg_overbid="sometimes")
    with pytest.raises(OptionError):
        make_rules(no_such_option=True)
    with pytest.raises(ElfenlandError, match="for 2 to 6 players") as refused:
        new(7)
    assert not isinstance(refused.value, IllegalActionError)  # not an action


def test_witch_in_caravan_option() -> None:
    roads = {"feodor-dagamura": {"counters": ["dragon"]}}
    hand = [{"witch": 1, "raft": 2}, {}]
    yes = position(2, phase="move", boots=["feodor", "elvenhold"], hands=hand, roads=roads,
                   rules={"witch": True})
    assert "move feodor-dagamura caravan:raft+raft+witch" in legal(yes)
    no = position(2, phase="move", boots=["feodor", "elvenhold"], hands=hand, roads=roads,
                  rules={"witch": True, "eg_witch_in_caravan": False})
    assert not any("caravan" in a for a in legal(no))


def test_caravan_only_if_needed_option() -> None:
    roads = {"feodor-dagamura": {"counters": ["dragon"]}}
    hand = [{"dragon": 1, "raft": 3}, {}]
    always = position(2, phase="move", boots=["feodor", "elvenhold"], hands=hand, roads=roads)
    assert "move feodor-dagamura caravan:raft+raft+raft" in legal(always)
    needed = position(2, phase="move", boots=["feodor", "elvenhold"], hands=hand,
                      roads=roads, rules={"caravan": "only-if-needed"})
    assert not any("caravan" in a for a in legal(needed))


def test_obstacle_on_a_doubled_road_hits_both_transports_and_the_caravan() -> None:
    roads = {"r16": {"counters": ["dragon", "elfcycle"], "double": True, "obstacle": "tree"}}
    s = position(2, phase="move", boots=["ixara", "elvenhold"], roads=roads,
                 hands=[{"dragon": 2, "elfcycle": 1, "raft": 3}, {}])
    moves = {a for a in legal(s) if a.startswith("move ixara-lapphalya")}
    assert "move ixara-lapphalya dragon" not in moves       # 2 + 1 dragons
    assert "move ixara-lapphalya elfcycle" not in moves     # 1 + 1 elfcycles
    assert not any(a.count("+") == 2 for a in moves)        # a caravan takes 4 cards
    assert "move ixara-lapphalya caravan:elfcycle+dragon+dragon+raft" in moves


def test_an_illegal_action_changes_nothing() -> None:
    s = position(2, phase="move", hands=[{"raft": 1}, {}])
    before = s.to_position()
    with pytest.raises(IllegalActionError):
        s.apply_action("bid 3")
    assert s.to_position() == before



def test_rounds_option_ends_the_game_after_that_round() -> None:
    s = new(3, 4, rounds=2)
    while not s.is_terminal():
        assert s.round <= 2
        s.apply_action(s.legal_actions()[0])
    assert s.round == 2


def test_town_card_ties_go_to_the_closest_then_the_richest() -> None:
    doc = {"rules": {"town_cards": True}, "town_cards": ["grangor", "beata"],
           "towns": [["feodor", "albaran", "dagamura"], ["beata", "strykhaven"]]}
    # player 0: 3 pieces, one link from Grangor; player 1: 2 pieces, at Beata
    closer = _last_mover(2, boots=["mahdavikia", "beata"], coins=[50, 0], **doc)
    for a in ("end", "draw blind", "draw blind"):
        closer.apply_action(a)
    assert closer.scores() == [2, 2] and closer.winners() == [1]   # distance 0 beats 1
    richer = _last_mover(2, boots=["grangor", "beata"], coins=[3, 2],
                         **{**doc, "towns": [["feodor", "albaran"], ["beata", "strykhaven"]]})
    for a in ("end", "draw blind", "draw blind"):
        richer.apply_action(a)
    assert richer.scores() == [2, 2] and richer.winners() == [0]   # same distance: coins
