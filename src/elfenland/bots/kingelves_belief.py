"""What a King of the Elves player knows of the others' hands, from the public record,
and deals that agree with it.

``resample_from_infostate`` deals the hidden cards again at random, each hand keeping
its size: a hand shown on declaring "no town card" stays known only while its player
finishes the declaration.  A player at the table remembers more.  The hand shown is
public; so is the town card then taken, and every card that later leaves that hand
(a town played, a card placed, discarded, spent on a journey).  So until they are
played, the shown cards are still in that hand, whatever unseen cards were drawn or
bought since.  ``known_cards`` reads the game's public log (never its private facts)
for these lower bounds, and ``agreeing_deal`` deals a resampled state's hidden cards
again so that every hand holds at least what its player is known to hold; the other
cards of the hand stay dealt at random from what is left unseen.

Why a bot wants this (issue #25): a search bot that knew the rival's real hand won
13 points more of its head-to-head games (``docs/bots.md``): what the rival can pay
for and harm with is most of what a deal gets wrong.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..games.kingelves.actions import Kind, from_id
from ..games.kingelves.cards import NUM_KINDS, TRANSPORT_KINDS, Card
from ..games.kingelves.rules import LATER_DEAL
from ..games.kingelves.state import TERRAIN, KingOfTheElvesState, Pending, Phase
from .kingelves_greedy import CARD_WORTH
from .kingelves_search import reachable

Counts = list[int]

_SLUG_INDEX = {c.slug: int(c) for c in Card}
#: The discard rule the rivals are modelled by: the card of least worth goes first
#: (``kingelves_greedy.discard_choice``, which ``search`` and ``greedy`` play), so after
#: "draw 3, discard 4" the cards kept are all worth at least the last one discarded.
#: Worths without the discount for a third card of a kind (which the record cannot see).
_WORTH = {int(c): w for c, w in CARD_WORTH.items()}
#: The worth of the last card discarded is taken this much lower: a third or fourth
#: card of its kind was worth less than its kind (``card_worth``'s discount).
SLACK = 0.85


@dataclass
class Belief:
    """Per player: ``known`` cards still in hand (lower bounds); and, modelling the
    discard rule, the kinds (``allowed``, None: any) the rest of the hand may hold as of
    the player's last "draw 3, discard 4", but for ``free`` unseen cards gained since
    (bought, drawn, dealt), which may be anything."""

    known: list[Counts]
    allowed: list[frozenset[int] | None]
    free: list[int]

    def leave(self, p: int, card: int, n: int = 1) -> None:
        """``n`` cards of a kind seen leaving ``p``'s hand: known ones first, then, if
        the constrained part may not hold the kind, free ones."""
        for _ in range(n):
            if self.known[p][card]:
                self.known[p][card] -= 1
            elif (kinds := self.allowed[p]) is not None and card not in kinds \
                    and self.free[p]:
                self.free[p] -= 1


def _kept_after(last: int) -> frozenset[int] | None:
    """The kinds a hand may still hold after discarding ``last`` as its least worth
    (the town cards always: their worth depends on the kingdom and the hand)."""
    if Card(last).is_town:
        return None
    floor = _WORTH[last] * SLACK
    return frozenset(c for c in range(NUM_KINDS)
                     if Card(c).is_town or _WORTH[c] >= floor)


def read_belief(log: Iterable[tuple[int, int, Any, Any]], players: int,
                discards: bool = True) -> Belief:
    """``Belief`` from the public record, reading only each entry's player, action and
    public facts: a hand shown on "no town card" and the town card then taken are known,
    every card played, placed, discarded or spent leaves it; with ``discards``, each
    player's last run of discards after "draw 3" is read with the discard rule."""
    b = Belief([[0] * NUM_KINDS for _ in range(players)], [None] * players, [0] * players)
    stops = 0
    drawing = -1
    running: tuple[int, int] | None = None  # (player, last card) of a run of discards

    def close(run: tuple[int, int]) -> None:
        b.allowed[run[0]] = _kept_after(run[1])
        b.free[run[0]] = 0

    for entry in log:
        p, action_id, public = entry[0], entry[1], entry[2]
        a = from_id(action_id)
        k = a.kind
        if running is not None and not (k is Kind.DISCARD and p == running[0]):
            close(running)
            running = None
        if k is Kind.NO_TOWN_CARD:
            shown = [0] * NUM_KINDS
            for slug in public["hand"]:
                shown[_SLUG_INDEX[slug]] += 1
            b.known[p] = shown
            b.allowed[p] = None
            b.free[p] = 0
        elif k is Kind.TAKE:
            assert a.card is not None
            b.known[p][a.card] += 1
        elif k is Kind.DISCARD:
            assert a.card is not None
            if discards and (running is not None or drawing == p):
                running = (p, int(a.card))
            b.leave(p, int(a.card))
        elif k in (Kind.PLAY, Kind.PLACE):
            assert a.card is not None
            b.leave(p, int(a.card))
        elif k is Kind.VISIT:
            assert a.card is not None
            b.leave(p, int(a.card), a.count)
        elif k is Kind.SPELL:
            assert a.cards is not None
            for card, n in zip(TRANSPORT_KINDS, a.cards, strict=True):
                b.leave(p, int(card), n)
        elif k is Kind.ESCORT:
            b.leave(p, Card.ESCORT)
        elif k is Kind.REVERSE:
            b.leave(p, Card.CHANGE_OF_DIRECTION)
        elif k is Kind.BUY:
            b.free[p] += 1
        elif k is Kind.DRAW:
            b.free[p] += int(public.get("drew", 0))
        elif k is Kind.STOP:
            stops += 1
            if stops % players == 0:  # a round's journeys are over: a new deal
                b.free = [f + LATER_DEAL for f in b.free]
        drawing = p if k is Kind.DRAW else -1
    if running is not None:
        close(running)
    return b


def known_from(log: Iterable[tuple[int, int, Any, Any]], players: int) -> list[Counts]:
    """Per player, the cards of each kind the public ``log`` shows still in their hand
    (lower bounds): the hand shown on "no town card", the town card taken, less every
    card played, placed, discarded or spent since."""
    return read_belief(log, players, discards=False).known


def known_cards(s: KingOfTheElvesState) -> list[Counts]:
    """``known_from`` the state's own log."""
    return known_from(s.log, s.n)


def belief_of(s: KingOfTheElvesState, discards: bool = True) -> Belief:
    """``read_belief`` of the state's own log."""
    return read_belief(s.log, s.n, discards)


def agreeing_deal(det: KingOfTheElvesState, me: int, belief: Belief,
                  rng: random.Random, tries: int = 8, reach: bool = False) -> bool:
    """Deal ``det``'s cards hidden from ``me`` (the deck and the others' hands) again,
    in place, each hand keeping its size: its known cards, then as many of the rest as
    the discard rule constrains from the kinds it allows (as far as the unseen cards
    go), the others at random from what is left.  When ``me`` is to act, the deal must
    leave their legal actions as they were (whether the deck still holds a town card
    decides "no town card"): up to ``tries`` deals.  False, and ``det`` untouched, where
    no deal fits: known cards a hand cannot hold (which a consistent record never
    gives), ``me`` choosing the town card to take (the deck's town cards are then seen),
    or every try changing ``me``'s legal actions.

    ``reach`` (while building) also asks that every rival's hand can pay for each town
    of its own kingdom, as a player who meant to travel them would have made sure when
    playing them: of the tries that keep ``me``'s legal actions, the first that does,
    else the first of them."""
    if det.phase is not Phase.BUILDING and det.phase is not Phase.JOURNEY:
        return False
    acting = det.current == me
    if acting and det.pending is Pending.TAKE:
        return False
    known = belief.known
    others = [q for q in range(det.n) if q != me]
    hands = det.hands
    deck = det.deck
    pool = list(deck)
    unknown = {}
    for q in others:
        hand = hands[q]
        unknown[q] = sum(hand) - sum(known[q])
        if unknown[q] < 0:
            return False
        for c in range(NUM_KINDS):
            pool[c] += hand[c] - known[q][c]
    if min(pool) < 0:
        return False
    legal = det.legal_action_ids() if acting else None
    reach = reach and det.phase is Phase.BUILDING
    fallback: tuple[list[Counts], Counts] | None = None
    for _ in range(tries):
        cards = [c for c in range(NUM_KINDS) for _ in range(pool[c])]
        rng.shuffle(cards)
        new_hands = [h[:] for h in hands]
        for q in others:
            dealt = list(known[q])
            need = unknown[q]
            kinds = belief.allowed[q]
            if kinds is not None:
                bound = max(0, need - belief.free[q])
                keep = []
                for c in cards:
                    if bound and c in kinds:
                        dealt[c] += 1
                        bound -= 1
                        need -= 1
                    else:
                        keep.append(c)
                cards = keep
            for c in cards[:need]:
                dealt[c] += 1
            cards = cards[need:]
            new_hands[q] = dealt
        rest = [0] * NUM_KINDS
        for c in cards:
            rest[c] += 1
        _set(det, new_hands, rest)
        if legal is not None and det.legal_action_ids() != legal:
            continue
        if not reach or all(reachable(new_hands[q], town[TERRAIN])
                            for q in others for town in det.kingdoms[q]):
            return True
        if fallback is None:
            fallback = (new_hands, rest)
    if fallback is not None:
        _set(det, *fallback)
        return True
    _set(det, hands, deck)
    return False


def _set(det: KingOfTheElvesState, hands: list[Counts], deck: Counts) -> None:
    """Hands and deck assigned whole (the compiled engine's lists are copies), and the
    pure engine's cached legal actions forgotten."""
    det.hands = hands
    det.deck = deck
    if type(det) is KingOfTheElvesState:
        det._legal = None
        det._legal_ids = None
