"""The specification (``shared/rules/elfengold.md``) rule by rule, where the other test
files leave a rule or an option's reading unchecked.  Every test runs on both engines: the
pure one (the reference) and the compiled one, built from the same position."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from elfenland.core.errors import IllegalActionError
from elfenland.games.elfengold import ElfengoldState, fast
from elfenland.games.elfengold.items import (
    DOUBLE,
    GOLD_PIECE,
    ITEM_SLUGS,
    TREE,
    WITCH,
)

from .helpers import legal, position

Make = Callable[..., ElfengoldState]

ENGINES = ["pure", pytest.param("compiled", marks=pytest.mark.skipif(
    not fast.AVAILABLE or fast.STALE, reason="compiled engine not built"))]

DRAGON, ELFCYCLE, CLOUD, UNICORN, TROLL, PIG = 5, 1, 2, 3, 4, 0
RAFT = 6


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(engine: str) -> Make:
    """``position(...)`` on the engine under test."""

    def build(players: int = 3, **doc: Any) -> ElfengoldState:
        s = position(players, **doc)
        if engine == "compiled":
            s = fast.FastElfengoldState.from_state(s)
            assert type(s) is fast.FastElfengoldState
        return s

    return build


def run(s: ElfengoldState, *actions: str) -> None:
    for a in actions:
        s.apply_action(a)


def route(s: ElfengoldState, rid: str) -> int:
    return s.board.route(rid).index


# ----- 1.1/1.2/1.4/1.9/1.10: the shape of a whole seeded game ---------------------------
_ORDER = ("draw-cards", "draw-items", "auction", "place", "move", "keep")
_MAJOR = {"settle": "move", "move-draw": "move", "discard": "move"}


@pytest.mark.parametrize("players", [2, 4])
def test_a_seeded_game_rounds_starting_player_income_and_no_deal(engine: str,
                                                                 players: int) -> None:
    """Rules 14, 16–19, 26, 60, 64, 65: seat 0 starts round 1, which begins at phase 3
    (no draw, no income); a game lasts 6 rounds; every round runs its phases in order,
    each one opened by the starting player (rule 18; phase 7 keeps are not turns);
    the starting player moves one seat left each round; from round 2 every player gets
    2 coins once the card draws are over; hands are never dealt or refilled between
    rounds; the game ends after round 6."""
    cls = fast.FastElfengoldState if engine == "compiled" else ElfengoldState
    s = cls(players=players, seed=11)
    r = random.Random(11)
    assert s.round == 1 and s.starting == 0 and s.phase.value == "draw-items"
    assert s.coins == [12] * players
    seen: dict[int, list[str]] = {1: []}
    while not s.is_terminal():
        phase = _MAJOR.get(s.phase.value, s.phase.value)
        if not seen[s.round] or seen[s.round][-1] != phase:
            seen[s.round].append(phase)
        acts = [str(a) for a in s.legal_actions()]
        if "pass" in acts and s.phase.value == "auction":
            choice = "pass" if r.random() < 0.6 else r.choice(acts[1:6] or acts)
        else:
            choice = r.choice(acts)
        before_round, before_phase = s.round, s.phase.value
        coins, hands = s.coins[:], [sum(h) for h in s.hands]
        actor = s.current
        s.apply_action(choice)
        if s.round != before_round:
            assert s.round == before_round + 1
            assert s.starting == (s.round - 1) % players          # rule 60
            assert s.phase.value == "draw-cards"                  # rule 19: from round 2
            seen[s.round] = []
            if before_phase == "keep":                            # rule 64: no deal
                assert [sum(h) for h in s.hands] == hands
        major = _MAJOR.get(s.phase.value, s.phase.value)
        if major not in ("over", "keep") and major != _MAJOR.get(before_phase, before_phase):
            assert s.current == s.starting, (s.round, major)     # rule 18
        if before_phase == "draw-cards" and s.phase.value == "draw-items":
            bonus = [0] * players
            if choice == "take gold":
                bonus[actor] = s.view(None)["log"][-1]["coins"]
            assert s.coins == [c + 2 + b for c, b in zip(coins, bonus, strict=True)]
    assert s.round == 6 and sorted(seen) == [1, 2, 3, 4, 5, 6]   # rule 16
    for rnd, phases in seen.items():
        assert phases == sorted(phases, key=_ORDER.index), (rnd, phases)
        assert phases[0] == ("draw-items" if rnd == 1 else "draw-cards")
    assert s.winners()


# ----- 1.3 phase 1 -------------------------------------------------------------------------
def test_a_face_up_card_taken_is_replaced_at_once(make: Make) -> None:
    """Rule 21: "A face-up card taken is replaced at once from the top of the supply"."""
    s = make(3, phase="draw-cards", round=2, starting_player=1, current_player=1, step=0,
             display={"dragon": 3}, supply={"raft": 2})
    s.apply_action("draw dragon")
    assert s.hands[1][DRAGON] == 1
    assert s.display[DRAGON] == 2 and s.display[RAFT] == 1 and s.supply[RAFT] == 1
    assert s.current == 2                                  # round-robin: one card a turn


def test_a_gold_card_left_face_up_is_taken_with_the_gold_deck(make: Make) -> None:
    """Q2 `stays-face-up`: "the card can be taken as 'take the gold deck'" (rule 23: 3
    coins a gold card, the cards to the discard pile); the display is then refilled."""
    s = make(3, phase="draw-cards", round=2, starting_player=0, current_player=0, step=0,
             display={"gold": 1, "dragon": 2}, gold_deck=1, supply={"raft": 3},
             rules={"eg_gold_in_display": "stays-face-up"})
    assert "draw gold" not in legal(s) and "take gold" in legal(s)
    gold_discarded = s.discard[8]
    run(s, "take gold")
    assert s.coins[0] == 12 + 6 and s.gold_deck == 0 and s.discard[8] == gold_discarded + 2
    assert s.display[8] == 0 and s.display[DRAGON] == 2 and s.display[RAFT] == 1
    assert s.current == 1


def test_the_discard_pile_is_not_reshuffled_at_the_end_of_a_round(make: Make) -> None:
    """Rule 25: "When the supply is exhausted, the discard pile is shuffled into a new
    supply … Elfengold never reshuffles at round end"."""
    s = make(2, phase="move", round=1, step=1, current_player=1, starting_player=0,
             supply={"dragon": 5})           # every other card on the discard pile
    discard = s.discard[:]
    assert sum(discard) > 0
    run(s, "end", "draw blind", "draw blind")
    assert s.round == 2 and s.phase.value == "draw-cards"
    assert s.discard == discard
    assert sum(s.supply) == 3 and s.supply[DRAGON] == 3


# ----- 1.6 the auction -----------------------------------------------------------------------
def test_a_whole_auction_opener_overbid_default_return_and_payments(make: Make) -> None:
    """Rules 29–38 on one row, starting player 2.  31: the starting player opens every
    item; 32: raise or pass; 34: sold when all others passed, paid to the bank, face up;
    36: a winner who cannot pay hands over all coins and the item goes again (Q3b: the
    defaulter sits that re-auction out, the starting player opens again); 33: the
    defaulter and the passers bid again on later items; 37: an item nobody bids on goes
    back into the pile without a replacement; 35: any number of items; 38: then phase 5
    from the starting player."""
    s = make(3, phase="auction", coins=[10, 4, 10], starting_player=2, current_player=2,
             auction={"row": ["dragon", "tree", "gold-piece", "unicorn"]})
    pile, paid_in = s.item_pile[:], s.paid_in
    assert s.current == 2
    run(s, "bid 3", "bid 5", "pass", "bid 6")      # 2, 0, 1 (passes), 2
    assert s.current == 0                          # 1 passed: out of this item
    run(s, "pass")
    assert s.items_up[2][DRAGON] == 1 and s.coins == [10, 4, 4]
    assert s.current == 2 and ITEM_SLUGS[s.row[0]] == "tree"      # the opener again
    run(s, "pass", "pass")
    assert s.current == 1 and legal(s) >= {"pass", "bid 1", "bid 9"}
    run(s, "bid 9")                                # 1 holds 4: wins, cannot pay
    assert s.coins[1] == 0 and s.items_up[1][TREE] == 0
    assert ITEM_SLUGS[s.row[0]] == "tree" and s.current == 2 and s.high_bid == 0
    run(s, "bid 1", "bid 2")                       # 2, then 0; 1 is skipped
    assert s.current == 2
    run(s, "pass")
    assert s.items_up[0][TREE] == 1 and s.coins == [8, 0, 4]
    run(s, "pass", "pass")                         # gold piece: 2 and 0 pass
    assert s.current == 1                          # the defaulter may bid again
    run(s, "pass")
    assert s.item_pile[GOLD_PIECE] == pile[GOLD_PIECE] + 1
    assert [ITEM_SLUGS[i] for i in s.row] == ["unicorn"]             # no replacement
    run(s, "bid 4", "pass", "pass")
    assert s.items_up[2][UNICORN] == 1 and s.coins == [8, 0, 0]
    assert s.paid_in == paid_in + 6 + 4 + 2 + 4
    assert s.phase.value == "place" and s.current == 2
    assert sum(s.items_up[2]) == 2 and sum(s.items_down[2]) == 0


def test_a_defaulting_starting_player_leaves_the_opening_to_the_next_seat(
        make: Make) -> None:
    """Rule 31 with Q3b: after a default "the starting player opens again"; when the
    defaulter is the starting player, the next seat in turn opens."""
    s = make(3, phase="auction", coins=[2, 12, 12], auction={"row": ["dragon"]})
    run(s, "bid 5", "pass", "pass")
    assert s.coins[0] == 0 and s.current == 1 and s.excluded == 0b001
    run(s, "pass", "pass")                          # nobody bids: back into the pile
    assert s.phase.value == "place" and sum(s.items_up[p][DRAGON] for p in range(3)) == 0


def test_capped_bids_leave_a_player_without_coins_only_the_pass(make: Make) -> None:
    """Q3a `capped`: a bid may not exceed the bidder's coins (so nobody defaults)."""
    s = make(3, phase="auction", coins=[0, 3, 12], auction={"row": ["dragon"]},
             rules={"eg_overbid": "capped"})
    assert legal(s) == {"pass"}
    run(s, "pass")
    assert legal(s) == {"pass", "bid 1", "bid 2", "bid 3"}
    with pytest.raises(IllegalActionError):
        s.apply_action("bid 4")


def test_an_uncapped_bid_does_not_depend_on_the_coins_held(make: Make) -> None:
    """Q3a `allowed` (rule 36: "a bid is not limited by the coins held"), even at 0."""
    s = make(2, phase="auction", coins=[0, 12], auction={"row": ["dragon"]})
    assert "bid 30" in legal(s)
    run(s, "bid 30", "pass")                       # 0 defaults with nothing to pay
    assert s.coins[0] == 0 and s.excluded == 0b01 and s.current == 1
    run(s, "bid 1")
    assert s.items_up[1][DRAGON] == 1 and s.coins[1] == 11


# ----- 1.7 placement ------------------------------------------------------------------------
def test_gold_piece_placement(make: Make) -> None:
    """Rules 43–44: a gold piece only on a road with a counter (so never on water), not
    on a road with an obstacle, at most one per road; rule 46: a doubled road may take
    one."""
    roads = {"r09": {"counters": ["dragon"], "obstacle": "tree"},     # feodor-lapphalya
             "r22": {"counters": ["dragon"], "gold_piece": True},    # feodor-dagamura
             "r16": {"counters": ["dragon", "elfcycle"], "double": True},
             "r23": {"counters": ["dragon"]}}                        # feodor-albaran
    s = make(3, phase="place", roads=roads, items=[{"face_up": {"gold-piece": 1}}, {}, {}])
    golds = {a for a in legal(s) if a.startswith("gold")}
    assert golds == {"gold lapphalya-ixara", "gold feodor-albaran"}
    run(s, "gold lapphalya-ixara")
    assert s.gold_piece[route(s, "r16")] and s.double[route(s, "r16")]


def test_spells_need_a_counter_and_a_double_only_one_second_counter(make: Make) -> None:
    """Rule 45: spells only on a road that already carries a counter; rule 47: the
    Double adds one counter (a doubled road takes no further one); rule 46: a doubled
    road may still take an obstacle."""
    roads = {"r16": {"counters": ["dragon", "elfcycle"], "double": True}}
    items = [{"face_up": {"double": 1, "exchange": 1, "giant-pig": 1, "tree": 1}}, {}, {}]
    s = make(3, phase="place", roads=roads, items=items)
    acts = legal(s)
    assert not any(a.startswith("double") for a in acts)      # no road with one counter
    assert not any(a.startswith("exchange") for a in acts)    # one road with counters
    assert "tree lapphalya-ixara" in acts
    assert not any(a.startswith("place giant-pig lapphalya-ixara") for a in acts)


def test_exchange_on_a_doubled_road_leaves_obstacle_gold_and_double_in_place(
        make: Make) -> None:
    """Rule 48 and Q7 (default): either counter of a doubled road may be swapped;
    "obstacles, gold pieces and Doubles stay with their road"; the Exchange goes back
    into the pile."""
    roads = {"r16": {"counters": ["dragon", "elfcycle"], "double": True,
                     "obstacle": "tree"},
             "r09": {"counters": ["magic-cloud"], "gold_piece": True}}
    s = make(3, phase="place", roads=roads, items=[{"face_up": {"exchange": 1}}, {}, {}])
    exchanges = {a for a in legal(s) if a.startswith("exchange")}
    assert len(exchanges) == 2                   # the dragon or the elfcycle, both forest
    pile = s.item_pile[:]
    s.apply_action("exchange elfcycle lapphalya-ixara magic-cloud feodor-lapphalya")
    r16, r09 = route(s, "r16"), route(s, "r09")
    assert sorted(s.counters[r16]) == [CLOUD, DRAGON] and s.counters[r09] == [ELFCYCLE]
    assert s.double[r16] and s.obstacle[r16] == TREE and s.gold_piece[r09]
    assert not s.double[r09] and not s.gold_piece[r16]
    assert s.item_pile[10] == pile[10] + 1 and s.item_pile[DOUBLE] == pile[DOUBLE]


def test_phases_5_and_6_start_with_the_starting_player(make: Make) -> None:
    """Rule 18 / 39: placement from the starting player, ended by everybody passing in a
    row; movement then starts with the starting player too."""
    s = make(3, phase="place", starting_player=1, current_player=1)
    assert s.current == 1
    run(s, "pass", "pass", "pass")
    assert s.phase.value == "move" and s.current == 1


# ----- 1.8 movement ------------------------------------------------------------------------
def _mover(make: Make, hand: dict[str, int], roads: dict[str, Any], boot: str,
           **doc: Any) -> ElfengoldState:
    return make(2, phase="move", hands=[hand, {}], boots=[boot, "elvenhold"], roads=roads,
                **doc)


def test_caravan_only_on_a_road_with_a_counter_never_on_water(make: Make) -> None:
    """Rule 51: a caravan of any 3 cards, only on a road that carries a counter, never on
    a river or a lake."""
    bare = _mover(make, {"raft": 3}, {}, "virst")
    assert not any("caravan" in a for a in legal(bare))
    s = _mover(make, {"raft": 3}, {"r05": {"counters": ["giant-pig"]}}, "virst")
    caravans = [a for a in s.legal_actions() if "caravan" in str(a)]
    assert len(caravans) == 1 and caravans[0].route == route(s, "r05")
    s.apply_action(caravans[0])
    assert s.boots[0] == s.board.town("ixara") and sum(s.hands[0]) == 0 and s.earned == 3


def test_a_tree_costs_one_card_more_of_the_transport(make: Make) -> None:
    """Rule 52: a tree adds one card of the transport used (desert dragon: 1 + 1)."""
    roads = {"r22": {"counters": ["dragon"], "obstacle": "tree"}}
    assert "move feodor-dagamura dragon" not in legal(
        _mover(make, {"dragon": 1}, roads, "feodor"))
    s = _mover(make, {"dragon": 3}, roads, "feodor")
    s.apply_action("move feodor-dagamura dragon")
    assert s.hands[0][DRAGON] == 1 and s.discard[DRAGON] >= 2


def test_taking_the_gold_deck_is_one_of_the_two_cards_drawn_after_a_move(
        make: Make) -> None:
    """Rule 56: the coins earned or instead 2 cards, "this includes the rules for drawing
    Gold Cards": the whole gold deck (3 coins a card) is one of the two draws, and the
    coins earned on the move are not paid."""
    s = _mover(make, {"dragon": 1}, {"r22": {"counters": ["dragon"]}}, "feodor",
               gold_deck=2, supply={"raft": 4})
    run(s, "go dagamura", "end")
    assert s.earned == 4 and legal(s) == {"collect", "cards"}
    run(s, "cards", "take gold")
    assert s.coins[0] == 12 + 6 and s.current == 0 and s.phase.value == "move-draw"
    run(s, "draw blind")
    assert s.hands[0][RAFT] == 1 and s.coins[0] == 18 and s.current == 1


# ----- 1.10 end of the game --------------------------------------------------------------
def _all_towns(s: ElfengoldState) -> list[str]:
    return [t.id for t in s.board.towns if t.index != s.board.capital]


def test_early_end_the_round_is_played_out_and_most_coins_break_a_tie_of_20(
        make: Make) -> None:
    """Rule 67: a player with all 20 town pieces ends the game after the current round
    (the others still move); "If several players reach 20 in the same round, the one
    with the most coins wins"."""
    towns = _all_towns(position(2))
    s = make(2, phase="move", round=2, step=0, starting_player=1, current_player=1,
             towns=[towns, towns[:5]], supply={"raft": 9})
    run(s, "end", "draw blind", "draw blind")
    assert not s.is_terminal() and s.current == 0 and s.phase.value == "move"
    run(s, "end", "draw blind", "draw blind")
    assert s.is_terminal() and s.winners() == [0] and s.round == 2
    both = make(2, phase="move", round=3, step=1, starting_player=0, current_player=1,
                towns=[towns, towns], coins=[5, 9], supply={"raft": 9})
    run(both, "end", "draw blind", "draw blind")
    assert both.is_terminal() and both.winners() == [1]


# ----- 1.12 the witch ------------------------------------------------------------------
def test_a_flight_is_a_move_it_earns_nothing_and_may_land_in_elvenhold(make: Make) -> None:
    """Rules 74 and Q6: a flight to any other town (Elvenhold too) for 3 coins and the
    witch card, no gold for that town; it counts as moving (rule 57), so the player then
    chooses between the (zero) coins earned and two cards."""
    s = _mover(make, {"witch": 2}, {}, "feodor", rules={"witch": True}, coins=[12, 12])
    acts = legal(s)
    assert "fly elvenhold" in acts and "fly feodor" not in acts
    assert len([a for a in acts if a.startswith("fly")]) == 20
    run(s, "fly elvenhold")
    assert s.coins[0] == 9 and s.earned == 0 and s.markers(0) == 0
    assert s.hands[0][WITCH] == 1 and s.discard[WITCH] == 1
    run(s, "fly albaran")
    assert s.coins[0] == 6 and s.earned == 0 and s.markers(0) == 1
    run(s, "end")
    assert legal(s) == {"collect", "cards"}
    run(s, "collect")
    assert s.coins[0] == 6 and s.current == 1


def test_a_witch_bypass_needs_the_card_of_the_transport_and_one_coin(make: Make) -> None:
    """Rule 73: the witch replaces only the extra card an obstacle demands, for 1 coin;
    the transport's own cards are still paid."""
    roads = {"r22": {"counters": ["dragon"], "obstacle": "tree"}}
    none = _mover(make, {"witch": 1}, roads, "feodor", rules={"witch": True})
    assert not any(a.startswith("move feodor-dagamura dragon") for a in legal(none))
    s = _mover(make, {"witch": 1, "dragon": 1}, roads, "feodor", rules={"witch": True})
    s.apply_action("move feodor-dagamura dragon witch")
    assert s.coins[0] == 11 and sum(s.hands[0]) == 0 and s.earned == 4


def test_a_witch_may_be_one_of_the_four_cards_of_an_obstructed_caravan(make: Make) -> None:
    """Q9 (default yes): a witch card is "treated like the Travel Cards", so it may be one
    of a caravan's cards, over an obstacle too; `eg_witch_in_caravan` false refuses it."""
    roads = {"r22": {"counters": ["dragon"], "obstacle": "tree"}}
    s = _mover(make, {"witch": 1, "raft": 3}, roads, "feodor", rules={"witch": True})
    assert "move feodor-dagamura caravan:raft+raft+raft+witch" in legal(s)
    no = _mover(make, {"witch": 1, "raft": 3}, roads, "feodor",
                rules={"witch": True, "eg_witch_in_caravan": False})
    assert not any("caravan" in a for a in legal(no))


# ----- 1.12 town cards ------------------------------------------------------------------
def test_town_cards_only_in_the_variant_one_secret_distinct_card_each(engine: str) -> None:
    """Rules 15 and 70: town cards are not used except in the variant, which deals one
    secret card each ("the same rules apply … as in the basic game")."""
    cls = fast.FastElfengoldState if engine == "compiled" else ElfengoldState
    plain = cls(players=4, seed=2)
    assert all(c == -1 for c in plain.town_cards)
    assert all("town_card" not in e for e in plain.view(0)["players"])
    s = cls(players=6, seed=2, town_cards=True)
    cards = list(s.town_cards)
    assert len(set(cards)) == 6 and all(c in s.board.town_cards for c in cards)
    for viewer in range(6):
        shown = [e.get("town_card") for e in s.view(viewer)["players"]]
        assert shown == [s.board.towns[cards[p]].id if p == viewer else None
                         for p in range(6)]
