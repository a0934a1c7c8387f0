"""The compiled King of the Elves engine against the pure one, the reference.

Both play the same random games from the same seeds under every variant and setting:
after every step the legal-action lists and the positions must be identical, and every
few steps (and at the end) the whole state with its random state and history, the saved
game, the position document and every player's view.  Resampling, clones, text and id
actions and illegal actions are compared on the way.  Over 100,000 steps in all.

On CI (``CI`` set) a missing compiled engine is a failure, not a skip: CI builds it.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from tests._compiled_harness import (
    EnginePair,
    assert_copies_are_the_game,
    random_steps,
    require_compiled,
)

import elfenland
from elfenland.games.kingelves import KingOfTheElvesState, fast, num_actions

require_compiled(fast)

FastState = fast.FastKingOfTheElvesState

#: The three variants alone and together, and the settings no source fixes.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"magic_spell": True},
    {"weak_gold": True},
    {"gold_for_all": True},
    {"magic_spell": True, "weak_gold": True, "gold_for_all": True},
    {"rebuild_deck": False},
    {"action_cards": 9, "land_transport_cards": 6, "raft_cards": 6},
    {"starting_gold": 3, "magic_spell": True, "gold_supply": 60},
    {"action_cards": 0, "rebuild_deck": False},
    {"escort_two_towns": True},
    {"escort_two_towns": True, "weak_gold": True, "action_cards": 9},
    {"no_town_card_from_discard": True},
    {"no_town_card_from_discard": True, "rebuild_deck": False},
    {"no_town_card_from_discard": True, "escort_two_towns": True, "rebuild_deck": False,
     "land_transport_cards": 6, "raft_cards": 6},
]
PLAYERS = (2, 3, 4, 5, 6)
STEPS_WANTED = 100_000


def brief(s: KingOfTheElvesState) -> tuple[Any, ...]:
    """The position without the random state and the history (cheap, every step)."""
    return (s.round, s.phase, s.dragon, s.current_player(), s.passes, s.pending,
            s.pending_count, s.hands, s.gold, s.set_aside, s.bought, s.deck, s.discard,
            s.bank, s.kingdoms, s.at, s.direction, s.turned, s.own_visited, s.escort,
            s.escort_towns, s.visited, s.bonus_paid, s.earned, s.paid, s.result, s.is_terminal())


def full_check(a: KingOfTheElvesState, b: KingOfTheElvesState) -> None:
    assert a == b  # every field, the random state and the history
    assert a.log == b.log
    assert a.serialize() == b.serialize()
    assert a.to_position() == b.to_position()
    for p in (None, *range(a.n)):
        assert a.view(p) == b.view(p)
    assert a.scores() == b.scores() and a.winners() == b.winners()
    assert a.returns() == b.returns()


PAIR = EnginePair(KingOfTheElvesState, FastState, brief, full_check, num_actions(), "stop",
                  full_every=223, resample_every=151)


def test_compiled_engine_plays_exactly_like_the_pure_one() -> None:
    assert PAIR.play_all(CONFIGS, PLAYERS, STEPS_WANTED) >= STEPS_WANTED


def test_saved_games_and_positions_load_on_either_engine() -> None:
    b = random_steps(FastState(players=3, seed=5, magic_spell=True), 150, random.Random(1))
    text = b.serialize()
    again = fast.deserialize_fast(text)
    assert isinstance(again, FastState)
    assert again == b == elfenland.games.kingelves.state.deserialize(text)
    pure = b.to_pure()
    assert type(pure) is KingOfTheElvesState and pure == b and pure.log == b.log
    back = FastState.from_state(pure)
    assert back == b and back.log == pure.log
    position = b.to_position()
    loaded = fast.from_pure(elfenland.games.kingelves.from_position(position))
    assert loaded.to_position() == position


def test_pickles_and_deep_copies_are_the_same_game() -> None:
    b = random_steps(FastState(players=3, seed=8), 70, random.Random(8))
    assert_copies_are_the_game(b)


def test_clones_are_independent() -> None:
    r = random.Random(2)
    b = random_steps(FastState(players=4, seed=2), 40, r)
    before = b.to_pure()
    c = random_steps(b.clone(), 80, r)
    assert b == before and c != b and len(c.history) == 120 and len(b.history) == 40


def test_clones_share_history_entries_and_each_keeps_the_pure_log() -> None:
    """The compiled history is a buffer of entries (id, player, fact; a tuple fact held
    by reference) that clones share until one of them appends: the clone appending
    first makes the original copy its entries, a clone dropped lets the original append
    in place over the dead clone's.  Every branch's log (the facts, tuples included) and
    state stay the pure engine's, played with the same ids."""
    a, p = FastState(players=3, seed=5), KingOfTheElvesState(players=3, seed=5)
    r = random.Random(5)

    def play(x: KingOfTheElvesState, y: KingOfTheElvesState, steps: int) -> None:
        for _ in range(steps):
            if x.is_terminal():
                return
            ids = x.legal_action_ids()
            i = ids[r.randrange(len(ids))]
            x.apply_action(i)
            y.apply_action(i)

    clones = []
    for branch in range(12):
        play(a, p, 37)
        c, q = a.clone(), p.clone()
        play(c, q, 23)
        assert c.log == q.log and c == q
        if branch % 3 == 0:
            clones.append((c, q))  # kept alive: the original copies when it appends
        del c, q
        play(a, p, 11)
        assert a.log == p.log and a == p
    for c, q in clones:
        play(c, q, 5)
        assert c.log == q.log and c == q
    link, tuples = a._chain, 0
    while link is not None:
        tuples += isinstance(link[3], tuple)
        link = link[0]
    assert tuples >= 3  # declarations and stops went through the entries too


def test_engine_backend_follows_the_build_and_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert elfenland.engine_backend("king-of-the-elves") == "compiled"
    game = elfenland.new_game("king-of-the-elves", players=2, seed=1)
    assert type(game) is FastState
    monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
    assert elfenland.engine_backend("king-of-the-elves") == "pure"
    pure = elfenland.new_game("king-of-the-elves", players=2, seed=1)
    assert type(pure) is KingOfTheElvesState and pure == game
    assert type(elfenland.deserialize(game.serialize())) is KingOfTheElvesState


def test_an_escort_for_two_towns_plays_alike() -> None:
    """``escort_two_towns`` matters only when an escort's kingdom holds three towns and the
    traveller visits all three, which random play almost never reaches: here the
    traveller is handed an escort and travel cards from the deck at the castle, plays the
    escort and visits on; both engines must agree, and the third town must come up."""
    from elfenland.games.kingelves.actions import Kind
    from elfenland.games.kingelves.cards import TRANSPORT_KINDS, Card
    from elfenland.games.kingelves.state import Phase

    unprotected = 0
    for seed in range(12):
        options = {"escort_two_towns": True, "gold_for_all": seed % 2 == 1}
        a = KingOfTheElvesState(players=2, seed=seed, **options)
        b = FastState(players=2, seed=seed, **options)
        r = random.Random(seed)
        while not a.is_terminal():
            if a.phase is Phase.JOURNEY and a.at == (-1, -1) and a.escort == -1:
                hands, deck = copy.deepcopy(a.hands), a.deck[:]
                for card in (Card.ESCORT, *TRANSPORT_KINDS, *TRANSPORT_KINDS):
                    if deck[card]:
                        deck[card] -= 1
                        hands[a.current][card] += 1
                for s in (a, b):
                    s.hands, s.deck = copy.deepcopy(hands), deck[:]
            legal = a.legal_actions()
            assert [x.id for x in legal] == b.legal_action_ids()
            if a.phase is Phase.JOURNEY:
                town = a.next_town()
                if town is not None and a.escort == town[0] and not a._protected(town):
                    unprotected += 1
                pick = ([x for x in legal if x.kind is Kind.ESCORT]
                        or [x for x in legal if x.kind in (Kind.VISIT, Kind.SPELL)] or legal)
            else:
                pick = legal
            x = pick[r.randrange(len(pick))]
            a.apply_action(x)
            b.apply_action(x)
            assert brief(a) == brief(b)
        full_check(a, b)
    assert unprotected > 0
