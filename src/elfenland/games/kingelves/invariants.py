"""What every King of the Elves state must satisfy, whether it was reached by play or
loaded from a position document.  One set of checks serves the position loader (which
turns a failure into a ``PositionError``), the property tests and ``bench/soak.py``."""

from __future__ import annotations

from functools import cache

from ...core.errors import InvariantError
from ...core.game import TERMINAL
from .cards import NUM_KINDS, TOWN_KINDS, Card, full_deck
from .rules import BANNERS, BUY_PRICES, kingdom_size
from .state import (
    CLOCKWISE,
    GOLD,
    NO_ONE,
    TERRAIN,
    KingOfTheElvesState,
    Pending,
    Phase,
    TownRef,
    town_bit,
)

_FIRST_NON_TOWN = len(TOWN_KINDS)
_TOWNS = frozenset(int(t) for t in TOWN_KINDS)
#: Gold set aside after buying 0, 1, 2, 3 cards in a round.
_PRICES = tuple(sum(BUY_PRICES[:b]) for b in range(len(BUY_PRICES) + 1))
#: ``new_game`` options covering every variant and reading, for tests and
#: ``bench/soak.py``.
CONFIGURATIONS: tuple[dict[str, object], ...] = (
    {}, {"magic_spell": True}, {"weak_gold": True}, {"gold_for_all": True},
    {"magic_spell": True, "weak_gold": True, "gold_for_all": True},
    {"escort_two_towns": True, "no_town_card_from_discard": True},
    {"magic_spell": True, "escort_two_towns": True, "no_town_card_from_discard": True,
     "weak_gold": True},
)


def _fail(message: str) -> None:
    raise InvariantError(message)


def check_state(s: KingOfTheElvesState) -> None:
    """Raise ``InvariantError`` saying what is wrong, if anything is."""
    check_material(s)
    check_turn(s)


def check_material(s: KingOfTheElvesState) -> None:
    """All the game's cards and all its gold are somewhere, none twice; the table holds
    what it may."""
    total = _total(s.rules.land_transport_cards, s.rules.raft_cards, s.rules.action_cards)
    where = [sum(column) for column in zip(s.deck, s.discard, s.table_cards(), *s.hands,
                                            strict=True)]
    if where != total or min(s.deck) < 0 or min(s.discard) < 0 or \
            min(map(min, s.hands)) < 0:
        for c in range(NUM_KINDS):
            if where[c] != total[c] or s.deck[c] < 0 or s.discard[c] < 0 or \
                    any(h[c] < 0 for h in s.hands):
                _fail(f"{Card(c).slug} cards: {where[c]} in the game (deck {s.deck[c]}, "
                      f"discard {s.discard[c]}, hands {[h[c] for h in s.hands]}), but it "
                      f"has {total[c]}")
    gold = sum(s.gold) + sum(s.set_aside) + s.bank
    if gold != s.rules.gold_supply or min(s.gold) < 0 or s.bank < 0:
        _fail(f"gold: {gold} in the game, but it has {s.rules.gold_supply}")
    building = s.phase is Phase.BUILDING
    banners = [0] * s.n
    cap = kingdom_size(s.n)
    weak_gold = s.rules.weak_gold
    for k, kingdom in enumerate(s.kingdoms):
        if len(kingdom) > cap:
            _fail(f"kingdom {k} holds more than {cap} towns")
        for town in kingdom:
            if town[TERRAIN] not in _TOWNS:
                _fail(f"kingdom {k} holds a {Card(town[TERRAIN]).slug}, not a town card")
            for owner in town[1:]:
                if owner != NO_ONE:
                    banners[owner] += 1
            if weak_gold and town[GOLD] == k:
                _fail("the weaker gold card is never in its owner's kingdom")
    for p in range(s.n):
        if banners[p] > BANNERS:
            _fail(f"player {p} has more than {BANNERS} banners on the table")
        aside = _PRICES[s.bought[p]] if building else 0
        if s.set_aside[p] != aside:
            _fail(f"player {p} set aside {s.set_aside[p]} gold for {s.bought[p]} cards bought")


@cache
def _total(land: int, rafts: int, actions: int) -> list[int]:
    return full_deck(land, rafts, actions)


def check_turn(s: KingOfTheElvesState) -> None:
    """Whose turn it is and where they stand agree with the phase, and that player has
    something to do."""
    n, p = s.n, s.current
    if not 1 <= s.round <= s.rounds or not 0 <= s.dragon < n:
        _fail(f"round {s.round} of {s.rounds}, dragon at seat {s.dragon}")
    if s.phase is Phase.OVER:
        best = max(s.gold)
        if p != TERMINAL or any(s.kingdoms) or \
                s.result != [q for q in range(n) if s.gold[q] == best]:
            _fail("a finished game has no towns on the table, the richest as its winners "
                  "and nobody to act")
        return
    if not 0 <= p < n or s.result is not None:
        _fail(f"player {p} cannot act in a game in progress")
    if s.phase is Phase.BUILDING:
        _check_building(s, p)
    else:
        _check_journey(s, p)


def _check_building(s: KingOfTheElvesState, p: int) -> None:
    if not 0 <= s.passes < s.n:
        _fail(f"{s.passes} passes in a row would have ended the building phase")
    if s.at[0] != NO_ONE or s.visited or s.escort != NO_ONE or s.turned:
        _fail("the journeys start when the building phase is over")
    hand = s.hands[p]
    discarding = s.pending in (Pending.DISCARD, Pending.DISCARD_OTHER)
    if discarding != (s.pending_count > 0) or s.pending_count > min(4, sum(hand)) or (
            s.pending is Pending.DISCARD_OTHER and s.pending_count != 1):
        _fail("pending_count counts the cards still to discard")
    if s.pending is Pending.DISCARD_OTHER and not any(hand[_FIRST_NON_TOWN:]):
        _fail(f"player {p} must discard a card other than a town card but holds only "
              "town cards")
    if s.pending is Pending.TAKE:
        if any(hand[t] for t in TOWN_KINDS) or s.kingdoms[p]:
            _fail("only a player with no town card in hand or kingdom declares no town card")
        if not any(s.deck[t] for t in TOWN_KINDS):
            _fail("no town card is left in the deck to take")


def _check_journey(s: KingOfTheElvesState, p: int) -> None:
    if s.pending is not Pending.NONE or s.passes:
        _fail("a pending step belongs to the building phase")
    if any(s.set_aside):
        _fail("the gold set aside goes to the bank when the building phase ends")
    ring = s.ring()
    bits = 0
    for ref in ring:
        bits |= town_bit(ref)
    if s.visited & ~bits:
        _fail("the journey visited a town that is not on the table")
    if s.at[0] == NO_ONE:
        if s.visited or s.turned or s.direction != CLOCKWISE or s.own_visited:
            _fail("a traveller still in their castle has visited no town and not turned "
                  "round")
    else:
        if not s.visited & town_bit(s.at):
            _fail("the traveller stands in a town they have not visited")
        _check_walk(s, p, ring)
    own = any(s.visited & town_bit((p, i)) for i in range(len(s.kingdoms[p])))
    if s.own_visited != own:
        _fail("own_visited must say whether a town of the traveller's own kingdom is among "
              "the visited towns")
    if (s.turned or s.direction != CLOCKWISE) and not own:
        _fail("a change of direction needs a town of the traveller's own kingdom visited "
              "first")
    if s.bonus_paid != (bool(ring) and s.visited == bits):
        _fail("the 10-gold bonus is paid exactly when every town on the table has been "
              "visited")
    if s.escort != NO_ONE:
        # Played on entering the next town's kingdom; a change of direction played after
        # it may leave it on a neighbour's kingdom until the next visit discards it.
        nxt = s.next_town()
        near = {nxt[0]} if nxt is not None else set()
        if s.at[0] != NO_ONE:
            near.add(s.at[0])
            if s.turned:  # the town that was next before the change of direction
                near.add(ring[(ring.index(s.at) - s.direction) % len(ring)][0])
        if s.escort not in near:
            _fail("the escort protects the kingdom the traveller is in or is entering")
    if s.escort_towns:
        if not s.rules.escort_two_towns or s.escort_towns.bit_count() > 2:
            _fail("an escort keeps count of the towns it protects only with "
                  "escort_two_towns, and protects at most two")
        kingdom = sum(town_bit((s.escort, i)) for i in range(len(s.kingdoms[s.escort]))) \
            if s.escort != NO_ONE else 0
        if s.escort_towns & ~(s.visited & kingdom):
            _fail("the escort protected only visited towns of its kingdom")


def _check_walk(s: KingOfTheElvesState, p: int, ring: list[TownRef]) -> None:
    """A journey goes town by town round the ring from the traveller's first town, so
    the towns visited are one unbroken stretch of the ring holding that town."""
    start = min(ring, key=lambda ref: ((ref[0] - p) % s.n, ref[1]))
    inside = [bool(s.visited & town_bit(r)) for r in ring]
    ends = sum(1 for i, v in enumerate(inside) if v and not inside[(i + 1) % len(ring)])
    if not s.visited & town_bit(start) or ends > 1:
        _fail("a journey visits the towns one after another from the traveller's first "
              "town, never skipping one")
