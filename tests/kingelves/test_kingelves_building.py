"""The building phase: every action's limits and costs, the end of the phase, and the game's
shape (rounds, deals, the dragon marker, the end)."""

from __future__ import annotations

import random

import pytest
from ke_support import check_accounts, legal, load, play

import elfenland
from elfenland import GameOverError, IllegalActionError
from elfenland.games.kingelves.cards import Card
from elfenland.games.kingelves.state import KingOfTheElvesState, Phase


def building(hand: dict[str, int], players: int = 4, **doc: object) -> KingOfTheElvesState:
    hands = doc.pop("hands", [{} for _ in range(players)])
    assert isinstance(hands, list)
    hands[0] = hand
    return load(players=players, hands=hands, **doc)


def refused(s: KingOfTheElvesState, action: str, reason: str) -> None:
    before = s.to_position()
    with pytest.raises(IllegalActionError, match=reason):
        s.apply_action(action)
    assert s.to_position() == before


def test_new_game_deals_ten_and_gives_twelve_gold() -> None:
    s = elfenland.new_game(game="king-of-the-elves", players=3, seed=1, magic_spell=True)
    assert isinstance(s, KingOfTheElvesState)
    assert [sum(h) for h in s.hands] == [10, 10, 10]
    assert s.gold == [12, 12, 12] and s.rules.magic_spell
    assert sum(s.all_cards()) == 120 and s.current == 0 and s.dragon == 0
    check_accounts(s)
    for alias in ("kingelves", "koenig-der-elfen", "roi-des-elfes", "King of the Elves"):
        assert elfenland.new_game(game=alias, players=2, seed=1).game_name == s.game_name
    with pytest.raises(ValueError, match="unknown"):
        elfenland.new_game(game="king-of-the-elves", players=3, flying_carpet=True)
    listed = elfenland.new_game(game="kingelves", players=2, variants=["weak-gold"])
    assert isinstance(listed, KingOfTheElvesState) and listed.rules.weak_gold
    with pytest.raises(ValueError, match="2 to 6"):
        elfenland.new_game(game="king-of-the-elves", players=7)


def test_play_town_cards_into_any_kingdom_up_to_the_limit() -> None:
    s = building({"plains": 2, "lake": 1, "forest": 1})
    play(s, "play plains kingdom 2")
    assert s.kingdoms[2] == [[0, -1, -1, -1]] and s.current == 1
    s.current = 0
    play(s, "play lake-7 kingdom 2")  # placed to the left of the first
    assert [t[0] for t in s.kingdoms[2]] == [Card.PLAINS, Card.LAKE]
    s.current = 0
    s._legal = None
    assert not any(a.endswith("kingdom 2") for a in legal(s))
    refused(s, "play plains kingdom 2", "already has 2 towns")
    refused(s, "play desert kingdom 0", "no desert")
    refused(s, "play plains kingdom 5", "no kingdom 5")


def test_three_towns_a_kingdom_with_two_players() -> None:
    s = building({"plains": 3}, players=2, kingdoms=[["river", "river"], []])
    assert "play plains kingdom 0" in legal(s)
    play(s, "play plains kingdom 0")
    assert len(s.kingdoms[0]) == 3


def test_no_town_card_shows_the_hand_takes_a_town_and_discards_another() -> None:
    s = building({"dragon": 1, "escort": 1})
    play(s, "no-town-card")
    entry = s.view(3)["log"][-1]
    assert sorted(entry["hand"]) == ["dragon", "escort"]  # shown to everyone
    assert legal(s) == {f"take {t.slug}" for t in Card if t.is_town}
    play(s, "take lake")
    assert legal(s) == {"discard dragon", "discard escort"}  # not the town just taken
    refused(s, "discard lake", "another one")
    play(s, "discard escort")
    assert s.hands[0][Card.LAKE] == 1 and s.discard[Card.ESCORT] == 1 and s.current == 1
    check_accounts(s)


def test_no_town_card_limits() -> None:
    refused(building({"plains": 1}), "no-town-card", "holds a town card")
    refused(building({}, kingdoms=[["plains"], [], [], []]), "no-town-card", "kingdom")
    all_towns = {"plains": 6, "forest": 5, "desert": 3, "mountain": 4, "river": 6, "lake": 2}
    s = building({}, hands=[{}, all_towns, {}, {}])
    refused(s, "no-town-card", "no town card left")
    s = building({})
    play(s, "no-town-card", "take river")  # nothing else to discard
    assert s.current == 1 and s.hands[0][Card.RIVER] == 1


def test_draw_three_discard_four() -> None:
    s = building({"dragon": 2})
    play(s, "draw")
    assert sum(s.hands[0]) == 5 and s.pending_count == 4
    assert len(s.view(0)["log"][-1]["cards"]) == 3 and s.view(1)["log"][-1]["drew"] == 3
    assert "cards" not in s.view(1)["log"][-1]
    refused(s, "pass", "discard 4 more")
    for _ in range(4):
        s.apply_action(next(iter(s.legal_actions())))
    assert sum(s.hands[0]) == 1 and s.current == 1 and sum(s.discard) == 4
    s = building({})
    play(s, "draw")  # 3 cards, all discarded
    assert s.pending_count == 3
    check_accounts(s)


def test_buy_costs_one_two_three_at_most_three_paid_after_building() -> None:
    s = building({"plains": 1}, gold=[6, 12, 12, 12], kingdoms=[["plains"], [], [], []])
    for price in (1, 2, 3):
        s.current = 0
        s._legal = None
        play(s, "buy")
        assert s.view(2)["log"][-1]["price"] == price
    assert s.gold[0] == 0 and s.set_aside[0] == 6 and s.bought[0] == 3
    assert sum(s.hands[0]) == 4
    assert s.view(1)["players"][0]["bought"] == 3 and "gold" not in s.view(1)["players"][0]
    s.current = 0
    s._legal = None
    refused(s, "buy", "already bought 3")
    bank = s.bank
    # Fields are assigned whole: a compiled state's lists are copies.
    s.kingdoms = [k or [[0, -1, -1, -1]] for k in s.kingdoms]
    s.current = 0
    play(s, "pass", "pass", "pass", "pass")
    assert s.phase is Phase.JOURNEY and s.set_aside == [0] * 4 and s.bank == bank + 6
    poor = building({}, gold=[1, 12, 12, 12], bought=[1, 0, 0, 0])
    refused(poor, "buy", "costs 2 gold")


def test_gold_thief_and_obstacles_with_banners() -> None:
    kingdoms = [["forest"], ["river"], [], []]
    s = building({"gold": 1, "thief": 2, "tree": 1, "sea-monster": 1}, kingdoms=kingdoms)
    options = legal(s)
    assert {"gold 0.0", "gold 1.0", "thief 0.0", "tree 0.0", "sea-monster 1.0"} <= options
    assert "tree 1.0" not in options and "sea-monster 0.0" not in options
    refused(s, "tree 1.0", "land towns")
    refused(s, "sea-monster 0.0", "river and lake")
    refused(s, "gold 3.0", "no town 3.0")
    play(s, "thief 1.0")
    assert s.kingdoms[1][0][2] == 0 and s.banners_left(0) == 3
    s.current = 0
    s._legal = None
    refused(s, "thief 1.0", "already has a thief")


def test_no_banner_left_no_action_card() -> None:
    kingdoms = [[{"town": "forest", "gold": 0, "thief": 0, "tree": 0}],
                [{"town": "river", "thief": 0}], [], []]
    s = building({"gold": 1}, kingdoms=kingdoms)
    assert s.banners_left(0) == 0
    refused(s, "gold 1.0", "no banner left")


def test_remove_own_town_costs_two_plus_one_per_card_banners_back() -> None:
    kingdoms = [[{"town": "forest", "gold": 0, "thief": 1}, "plains"], ["river"], [], []]
    s = building({}, kingdoms=kingdoms)
    assert {"remove 0", "remove 1"} <= legal(s)
    assert not any(a.startswith("remove 2") for a in legal(s))
    play(s, "remove 0")
    assert s.gold[0] == 12 - 4 and s.view(1)["log"][-1]["cost"] == 4
    assert [t[0] for t in s.kingdoms[0]] == [Card.PLAINS]
    assert s.banners_left(0) == 4 and s.banners_left(1) == 4
    assert s.discard[Card.FOREST] == s.discard[Card.GOLD] == s.discard[Card.THIEF] == 1
    check_accounts(s)
    poor = building({}, kingdoms=kingdoms, gold=[3, 12, 12, 12])
    assert "remove 0" not in legal(poor) and "remove 1" in legal(poor)
    refused(poor, "remove 0", "costs 4 gold")
    refused(poor, "remove 2", "no town 2")


def test_pass_only_with_a_town_and_the_phase_ends_after_all_pass_in_a_row() -> None:
    s = building({"plains": 1})
    refused(s, "pass", "town in their kingdom")
    kingdoms = [["plains"], ["plains"], ["plains"], ["plains"]]
    s = load(players=4, kingdoms=kingdoms, hands=[{"dragon": 1}] * 4)
    play(s, "pass", "pass", "pass")
    play(s, "draw")
    for _ in range(4):
        s.apply_action(s.legal_actions()[0])
    assert s.phase is Phase.BUILDING and s.passes == 0
    play(s, "pass", "pass", "pass")
    assert s.phase is Phase.BUILDING
    play(s, "pass")
    assert s.phase.value == "journey" and s.current == s.dragon


def test_stuck_player_passes_anyway() -> None:
    everything = {"plains": 6, "forest": 5, "desert": 3, "mountain": 4, "river": 6, "lake": 2}
    s = building({}, gold=[0, 12, 12, 12], hands=[{}, everything, {}, {}])
    s.deck = [0] * len(s.deck)
    s.discard = [0] * len(s.deck)
    hands = s.hands
    hands[2] = [0] * 6 + s.all_cards()[6:]
    s.hands = hands
    s._legal = None
    assert legal(s) == {"pass"}


@pytest.mark.parametrize(("players", "rounds"), [(2, 2), (3, 3), (4, 4), (5, 5), (6, 5)])
def test_rounds_dragon_and_deals(players: int, rounds: int) -> None:
    s = elfenland.new_game(game="king-of-the-elves", players=players, seed=players)
    assert isinstance(s, KingOfTheElvesState)
    rng = random.Random(players)
    dragons = [s.dragon]
    seen_round = 1
    while not s.is_terminal():
        legal_now = s.legal_actions()
        # Lean towards passing and stopping so that rounds go by quickly.
        quiet = [a for a in legal_now if str(a) in ("pass", "stop")]
        s.apply_action(rng.choice(quiet) if quiet and rng.random() < 0.7
                       else rng.choice(legal_now))
        if s.round != seen_round and not s.is_terminal():
            seen_round = s.round
            dragons.append(s.dragon)
            assert s.kingdoms == [[] for _ in range(players)] and sum(s.discard) == 0
            assert all(s.banners_left(p) == 4 for p in range(players))
        check_accounts(s)
    assert s.round == rounds
    assert dragons == [r % players for r in range(rounds)]
    best = max(s.gold)
    assert s.winners() == [p for p in range(players) if s.gold[p] == best]
    assert s.scores() == s.gold
    with pytest.raises(GameOverError):
        s.apply_action("pass")


def test_later_deals_are_eight_on_top_of_kept_hands() -> None:
    s = load(players=2, phase="journey", current_player=1, dragon=0,
             hands=[{"dragon": 3}, {"raft": 1}])
    play(s, "stop")
    assert [sum(h) for h in s.hands] == [3 + 8, 1 + 8]
    assert s.hands[0][Card.DRAGON] >= 3 and s.dragon == 1 and s.current == 1


def test_tie_is_a_shared_win() -> None:
    s = load(players=3, phase="journey", round=3, current_player=2, dragon=0,
             gold=[20, 20, 5])
    play(s, "stop")
    assert s.is_terminal() and s.winners() == [0, 1]
    assert s.returns() == [0.5, 0.5, 0.0]
    view = s.view(2)
    assert view["scores"] == [20, 20, 5] and view["players"][0]["gold"] == 20
