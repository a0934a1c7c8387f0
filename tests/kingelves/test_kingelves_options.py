"""The rule readings offered as options (issue #12): the two-town escort of the first
text, and "no town card" from an empty deck with town cards in the discard pile."""

from __future__ import annotations

import pytest
from ke_support import check_accounts, legal, load, play

import elfenland
from elfenland.games.kingelves.cards import Card, counts_to_dict, full_deck

FORESTS = [{"town": "forest", "tree": 1}] * 3


def escorted(**options: bool):  # type: ignore[no-untyped-def]
    """Two players; Anne has visited her plains town and enters Bob's three forests,
    each with Bob's tree."""
    return load(players=2, phase="journey", dragon=0, current_player=0,
                options=options or None,
                kingdoms=[[{"town": "plains"}], FORESTS],
                hands=[{"escort": 1, "unicorn": 6}, {}],
                journey={"at": "0.0", "visited": ["0.0"]})


def test_by_default_the_escort_protects_every_town_of_the_kingdom() -> None:
    state = play(escorted(), "escort", "visit unicorn", "visit unicorn")
    assert "visit unicorn" in legal(state)
    play(state, "visit unicorn")
    assert state.hands[0][Card.UNICORN] == 3


def test_escort_two_towns_protects_only_two_towns_of_the_kingdom() -> None:
    state = play(escorted(escort_two_towns=True), "escort", "visit unicorn", "visit unicorn")
    assert state.view(0)["journey"]["escort_towns"] == ["1.0", "1.1"]
    assert "visit unicorn" not in legal(state)
    assert "visit unicorn+unicorn" in legal(state)
    with pytest.raises(elfenland.IllegalActionError):
        state.apply_action("visit unicorn")
    play(state, "visit unicorn+unicorn")
    assert state.hands[0][Card.UNICORN] == 2
    check_accounts(state)


def test_escort_two_towns_round_trips_through_a_position() -> None:
    state = play(escorted(escort_two_towns=True), "escort", "visit unicorn")
    again = elfenland.load_position(state.to_position())
    assert again.to_position() == state.to_position()
    assert again.escort_towns == state.escort_towns  # type: ignore[attr-defined]


def empty_deck(**options: bool):  # type: ignore[no-untyped-def]
    """Anne holds no town card and has none in her kingdom; the deck is empty and the
    discard pile holds every other card."""
    hands = [[0] * len(Card) for _ in range(2)]
    hands[0][Card.DRAGON] = 2
    hands[1][Card.PLAINS] = 1
    total = full_deck(9, 10, 5)
    discard = [total[c] - hands[0][c] - hands[1][c] for c in range(len(Card))]
    return load(players=2, phase="building", options=options or None,
                hands=[counts_to_dict(h) for h in hands], deck={},
                discard=counts_to_dict(discard))


def test_by_default_no_town_card_needs_a_town_card_in_the_deck() -> None:
    state = empty_deck()
    assert "no-town-card" not in legal(state)
    with pytest.raises(elfenland.IllegalActionError, match="no town card left in the deck"):
        state.apply_action("no-town-card")


def test_no_town_card_from_discard_rebuilds_the_deck_from_the_discard_pile() -> None:
    state = empty_deck(no_town_card_from_discard=True)
    assert "no-town-card" in legal(state)
    play(state, "no-town-card")
    assert sum(state.discard) == 0 and state.deck[Card.LAKE] == 2
    assert state.view(1)["log"][-1].get("deck_rebuilt") is True
    play(state, "take lake", "discard dragon")
    assert state.hands[0][Card.LAKE] == 1 and state.discard[Card.DRAGON] == 1
    check_accounts(state)


def test_the_options_default_off_and_survive_a_saved_game() -> None:
    rules = elfenland.new_game(game="king-of-the-elves", players=2, seed=1).rules  # type: ignore[attr-defined]
    assert not rules.escort_two_towns and not rules.no_town_card_from_discard
    state = elfenland.new_game(game="king-of-the-elves", players=2, seed=1,
                               escort_two_towns=True, no_town_card_from_discard=True)
    assert elfenland.deserialize(state.serialize()) == state


def test_a_hand_built_action_with_another_actions_id_is_judged_by_what_it_is() -> None:
    from elfenland.games.kingelves.actions import Action, Kind

    state = escorted()
    stop = next(a for a in state.legal_actions() if str(a) == "stop")
    forged = Action(Kind.VISIT, Card.DRAGON, count=1, _id=stop.id)
    with pytest.raises(elfenland.IllegalActionError):
        state.apply_action(forged)
    assert state.hands[0][Card.DRAGON] == 0 and not state.is_terminal()
    state.apply_action(Action(Kind.VISIT, Card.UNICORN, count=2))  # by value, no id
    assert state.hands[0][Card.UNICORN] == 4
