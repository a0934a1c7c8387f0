"""The journey: the rulebook's examples, the order of visits, thieves, obstacles, escorts,
changes of direction, going round again, the bonus and the variants."""

from __future__ import annotations

import pytest
from ke_support import ANNE, BOB, CARL, DORIS, check_accounts, journey, legal, play

from elfenland import IllegalActionError
from elfenland.games.kingelves.cards import Card
from elfenland.games.kingelves.state import Phase

# The table of the rulebook's examples: Anne, Bob, Carl and Doris sit clockwise.
EXAMPLE_TABLE = [
    [{"town": "river", "sea-monster": DORIS}],
    [{"town": "forest", "tree": CARL, "gold": ANNE}],
    [{"town": "desert", "thief": BOB}, {"town": "plains"}],
    [{"town": "mountain"}],
]


def test_example_anne_earns_34_and_pays_2() -> None:
    s = journey(EXAMPLE_TABLE, {"raft": 2, "unicorn": 2, "dragon": 1, "elfcycle": 1,
                                "magic-cloud": 1})
    steps = [("visit raft+raft", 2), ("visit unicorn+unicorn", 8), ("visit dragon", 6 - 2),
             ("visit elfcycle", 3), ("visit magic-cloud", 5 + 10)]
    for action, net in steps:
        before = s.gold[ANNE]
        s.apply_action(action)
        assert s.gold[ANNE] - before == net, action
    assert (s.earned, s.paid) == (34, 2)
    assert s.gold == [12 + 32, 12 + 2, 12, 12]
    assert sum(s.hands[ANNE]) == 0
    check_accounts(s)


def test_example_anne_without_the_cloud_stops_before_doris() -> None:
    s = journey(EXAMPLE_TABLE, {"raft": 2, "unicorn": 2, "dragon": 1, "elfcycle": 1})
    play(s, "visit raft+raft", "visit unicorn+unicorn", "visit dragon", "visit elfcycle")
    assert legal(s) == {"stop"}
    assert (s.earned, s.paid) == (19, 2)


def test_example_escorts_and_change_of_direction_earn_44_pay_2() -> None:
    s = journey(EXAMPLE_TABLE, {"escort": 2, "raft": 3, "unicorn": 2,
                                "change-of-direction": 1, "magic-cloud": 1, "elfcycle": 1,
                                "dragon": 1})
    play(s, "escort", "visit raft")                 # the escort beats Doris's sea monster
    assert s.gold[ANNE] == 14
    play(s, "escort", "visit unicorn")              # a new escort beats Carl's tree
    assert s.gold[ANNE] == 22                       # 4 doubled by her gold card
    play(s, "reverse", "visit unicorn")             # back to Bob's forest, still escorted
    assert s.gold[ANNE] == 30
    play(s, "visit raft+raft")                      # escort gone: the sea monster counts
    play(s, "visit magic-cloud")                    # Doris's mountain
    play(s, "visit elfcycle")                       # Carl's plains, which the text forgets
    play(s, "visit dragon")                         # Carl's desert, Bob's thief, the bonus
    assert (s.earned, s.paid) == (44, 2)
    assert s.gold[ANNE] == 12 + 42 and s.gold[BOB] == 14
    assert s.discard[Card.ESCORT] == 2  # both escorts discarded
    check_accounts(s)


def _next(s: object) -> str | None:
    view = s.view(None)  # type: ignore[attr-defined]
    nxt: str | None = view["journey"]["next"]
    return nxt


@pytest.mark.parametrize("towns", [1, 2, 3])
def test_journey_order_own_towns_right_to_left_then_clockwise(towns: int) -> None:
    kingdoms = [["plains"] * towns, ["plains"] * towns]
    s = journey(kingdoms, {"giant-pig": 2 * towns + 1}, traveller=1, players=2)
    order = []
    for _ in range(2 * towns + 1):
        order.append(_next(s))
        s.apply_action("visit giant-pig")
    own = [f"1.{i}" for i in range(towns)]
    other = [f"0.{i}" for i in range(towns)]
    assert order == own + other + own[:1]  # and round again, castle skipped
    assert s.bonus_paid and s.earned == 3 * (2 * towns + 1) + 10


def test_two_player_kingdom_holds_three_towns_four_player_two() -> None:
    with pytest.raises(ValueError):
        journey([["plains"] * 3, [], [], []], {})
    s = journey([["plains"] * 3, []], {}, players=2)
    assert len(s.kingdoms[0]) == 3


def test_no_skipping_a_town_you_cannot_reach() -> None:
    s = journey([["plains", "lake"], ["plains"]], {"giant-pig": 3}, players=2)
    play(s, "visit giant-pig")
    assert legal(s) == {"stop"}  # the lake needs rafts; Bob's plains beyond is out of reach


def test_thief_you_cannot_pay_bars_the_town() -> None:
    kingdoms = [[{"town": "plains", "thief": 1}], ["plains"], []]
    s = journey(kingdoms, {"giant-pig": 3}, traveller=2, gold=[12, 12, 1])
    assert legal(s) == {"stop"}  # Carl's kingdom is empty: Anne's town comes first
    with pytest.raises(IllegalActionError, match="thief"):
        s.apply_action("visit giant-pig")
    assert s.gold == [12, 12, 1]
    s = journey(kingdoms, {"giant-pig": 3}, traveller=2, gold=[12, 12, 2])
    play(s, "visit giant-pig")
    assert s.gold == [12, 14, 3]


def test_own_thief_and_own_obstacle_do_not_hinder_their_owner() -> None:
    kingdoms = [[{"town": "forest", "thief": 0, "tree": 0}], [{"town": "forest", "tree": 0}]]
    s = journey(kingdoms, {"unicorn": 2}, players=2)
    play(s, "visit unicorn", "visit unicorn")
    assert s.gold[0] == 12 + 4 + 4 + 10
    other = journey(kingdoms, {"unicorn": 4}, traveller=1, players=2)
    assert "visit unicorn" not in legal(other)
    play(other, "visit unicorn+unicorn", "visit unicorn+unicorn")
    assert other.gold == [14, 12 - 2 + 8 + 10]


def test_obstacle_adds_a_card_of_the_same_transport_and_a_raft_on_water() -> None:
    kingdoms = [[{"town": "desert", "tree": 1}], [{"town": "lake", "sea-monster": 0}]]
    s = journey(kingdoms, {"troll-wagon": 3, "raft": 3}, players=2)
    assert legal(s) == {"visit troll-wagon+troll-wagon+troll-wagon", "stop"}
    play(s, "visit troll-wagon+troll-wagon+troll-wagon")
    assert legal(s) == {"visit raft+raft", "stop"}  # the sea monster is Anne's own


def test_escort_protects_until_the_kingdom_is_left() -> None:
    kingdoms = [["plains"], [{"town": "plains", "thief": 2}, {"town": "plains", "tree": 2}],
                [{"town": "plains", "thief": 1}]]
    s = journey(kingdoms, {"giant-pig": 5, "escort": 1})
    play(s, "visit giant-pig")
    assert "escort" in legal(s)
    play(s, "escort", "visit giant-pig")
    assert "escort" not in legal(s)  # inside Bob's kingdom: not entering it
    play(s, "visit giant-pig")       # the tree is ignored too
    assert s.paid == 0 and s.escort == 1
    play(s, "visit giant-pig")       # leaving Bob's kingdom: escort discarded, thief pays
    assert s.escort == -1 and s.paid == 2
    check_accounts(s)


def test_escort_only_on_entering_a_kingdom() -> None:
    kingdoms = [["plains", "plains"], ["plains"]]
    s = journey(kingdoms, {"giant-pig": 3, "escort": 2}, players=2)
    assert "escort" in legal(s)      # at the castle, entering her own kingdom
    play(s, "visit giant-pig")
    assert "escort" not in legal(s)
    with pytest.raises(IllegalActionError, match="entering"):
        s.apply_action("escort")


def test_change_of_direction_needs_an_own_town_and_revisits() -> None:
    kingdoms = [["plains"], [{"town": "forest", "gold": 0}], ["desert"]]
    s = journey(kingdoms, {"giant-pig": 4, "change-of-direction": 2})
    assert "reverse" not in legal(s)
    with pytest.raises(IllegalActionError, match="own kingdom"):
        s.apply_action("reverse")
    play(s, "visit giant-pig", "visit giant-pig")
    assert s.gold[0] == 12 + 3 + 8
    play(s, "reverse")
    assert "reverse" not in legal(s)     # a second one would undo the first
    assert _next(s) == "1.0"
    play(s, "visit giant-pig")           # Bob's forest again, paid again
    assert s.gold[0] == 12 + 3 + 8 + 8
    assert _next(s) == "0.0"
    play(s, "visit giant-pig")
    assert _next(s) == "2.0"             # counterclockwise: Carl's desert
    assert "reverse" in legal(s)


def test_reverse_right_after_the_first_own_town() -> None:
    kingdoms = [["plains", "forest"], ["plains"]]
    s = journey(kingdoms, {"giant-pig": 3, "change-of-direction": 1}, players=2)
    play(s, "visit giant-pig", "reverse", "visit giant-pig")
    assert s.gold[0] == 12 + 3 + 3
    assert _next(s) == "1.0"             # from her right town, counterclockwise to Bob


def test_bonus_once_for_every_town_and_round_again() -> None:
    kingdoms = [["plains"], ["plains"]]
    s = journey(kingdoms, {"giant-pig": 5}, players=2)
    play(s, "visit giant-pig")
    assert not s.bonus_paid
    play(s, "visit giant-pig")
    assert s.bonus_paid and s.gold[0] == 12 + 6 + 10
    play(s, "visit giant-pig", "visit giant-pig", "visit giant-pig")
    assert s.gold[0] == 12 + 15 + 10


def test_stop_passes_the_journey_and_the_last_ends_the_round() -> None:
    kingdoms = [["plains"], ["plains"]]
    s = journey(kingdoms, {"escort": 1}, players=2, dragon=0)
    play(s, "escort", "stop")
    assert s.current == 1 and s.phase is Phase.JOURNEY and s.discard[Card.ESCORT] == 1
    hand_before = s.hands[1][:]
    play(s, "stop")
    assert s.round == 2 and s.phase.value == "building" and s.dragon == 1
    assert s.kingdoms == [[], []] and sum(s.discard) == 0
    assert sum(s.hands[1]) == sum(hand_before) + 8  # hands kept, 8 dealt
    check_accounts(s)


def test_magic_spell_only_when_the_cards_cannot_reach() -> None:
    kingdoms = [[{"town": "mountain", "tree": 1, "thief": 1}], ["plains"]]
    hand = {"giant-pig": 3, "raft": 1, "dragon": 0}
    s = journey(kingdoms, hand, players=2, options={"magic_spell": True})
    assert legal(s) == {"spell giant-pig+giant-pig+giant-pig+raft", "stop"}
    play(s, "spell giant-pig+giant-pig+giant-pig+raft")
    assert s.gold == [12 - 3 - 2 + 5, 14]  # 3 to the bank, the thief still takes 2
    check_accounts(s)
    plain = journey(kingdoms, hand, players=2)
    assert legal(plain) == {"stop"}
    s = journey(kingdoms, {"giant-pig": 4, "dragon": 2}, players=2,
                options={"magic_spell": True})
    assert not any(a.startswith("spell") for a in legal(s))  # dragons reach it
    s = journey(kingdoms, {"giant-pig": 4}, players=2, gold=[4, 12],
                options={"magic_spell": True})
    assert legal(s) == {"stop"}  # 3 for the spell and 2 for the thief


def test_weak_gold_cancelled_by_escort_and_not_in_own_kingdom() -> None:
    kingdoms = [["plains"], [{"town": "forest", "gold": 0}]]
    hand = {"giant-pig": 2, "escort": 1}
    s = journey(kingdoms, hand, players=2, options={"weak_gold": True})
    play(s, "visit giant-pig", "escort", "visit giant-pig")
    assert s.gold[0] == 12 + 3 + 4 + 10
    s = journey(kingdoms, hand, players=2, options={"weak_gold": True})
    play(s, "visit giant-pig", "visit giant-pig")
    assert s.gold[0] == 12 + 3 + 8 + 10
    with pytest.raises(ValueError, match="owner's kingdom"):
        journey([[{"town": "forest", "gold": 0}], []], hand, players=2,
                options={"weak_gold": True})


def test_gold_for_all_doubles_for_every_visitor() -> None:
    kingdoms = [["plains"], [{"town": "forest", "gold": 1}]]
    s = journey(kingdoms, {"giant-pig": 2}, players=2, options={"gold_for_all": True})
    play(s, "visit giant-pig", "visit giant-pig")
    assert s.gold[0] == 12 + 3 + 8 + 10
    s = journey(kingdoms, {"giant-pig": 2}, players=2)
    play(s, "visit giant-pig", "visit giant-pig")
    assert s.gold[0] == 12 + 3 + 4 + 10


def test_illegal_visit_payments_are_refused_with_a_reason() -> None:
    s = journey(EXAMPLE_TABLE, {"raft": 2, "dragon": 2})
    before = s.to_position()
    for action, reason in [("visit raft", "takes 2 raft"), ("visit dragon", "cannot reach"),
                           ("visit raft+raft+raft", "takes 2 raft"),
                           ("spell raft+raft+dragon+dragon", "variant"),
                           ("buy", "journey")]:
        with pytest.raises(IllegalActionError, match=reason):
            s.apply_action(action)
    assert s.to_position() == before
