"""The King of the Elves journey planner: the best rest of a journey for one traveller.

A journey has no chance in it: the table is fixed once building ends and only the
traveller's cards and gold change.  So the best journey is found exactly, by a
depth-first search over the journey's own little state (where the traveller stands,
the direction, a change of direction just played, whether a town of their own kingdom
has been visited, the escort, the towns visited while the bonus is still open, the
transport, escort and change-of-direction cards left, and the gold as far as thieves and
the spell can tell it apart), memoised on that state.  Every step spends a card, so the
search ends.  It is a branch and bound: a position is left unexplored when an upper
bound on what it can still bring shows it cannot beat the best journey found.  The
bounds relax the journey: each card at its best rate, and a walk round the ring (the
way a journey must go, with its changes of direction and escorts) where every town is
paid for with its fewest cards and the kinds of the cards are forgotten.

"Best" is one number: ``GOLD_UNIT`` per gold of net gain (towns, doubled towns, the
bonus, less thieves and spells) plus, for every card still in hand at the end, its
``values`` entry.  The default values are 1 per card: the most gold first, then the
fewest cards spent.  A bot that wants cards for later rounds passes larger values, so
a poor town is left when the cards it costs are worth more.

The planner reads the table and the traveller's hand and gold, and nothing else: asked
about a rival, it must be given a state whose hidden parts were resampled.  Outside the
journeys (while building) it plans the journey the player would make from their castle
if the table stayed as it is, which is how the bots value a town card or a thief.

The search runs compiled (``_kingelves_planner.c``, issue #25) when that extension was
built and ``ELFENLAND_ENGINE`` is not ``pure`` (or ``backend="pure"`` pins one call to
Python): the quick bot's rollouts spend most of their time here.  The C code is a port of
``_Search`` (the search, its bounds and its memo, so the same ``budget`` count), which
stays the reference and the fallback; ``_table``, the greedy fallback and the ``Plan``
stay here.  The differential test holds the two to the same plans.
``planner_backend()`` says which one runs.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from operator import itemgetter
from typing import Final

from ..core.errors import ElfenlandError
from ..core.transport import COST_TABLE, Terrain, Transport
from ..games.kingelves.actions import Action, Kind
from ..games.kingelves.cards import TRANSPORT_BASE, Card, town_value
from ..games.kingelves.rules import ALL_TOWNS_BONUS, SPELL_CARDS, SPELL_GOLD, THIEF_TOLL
from ..games.kingelves.state import (
    CLOCKWISE,
    GOLD,
    NO_ONE,
    OBSTACLE,
    TERRAIN,
    THIEF,
    KingOfTheElvesState,
    Phase,
    town_bit,
)

try:
    from . import _kingelves_planner
except ImportError:  # built without a C compiler: the pure search runs
    _kingelves_planner = None  # type: ignore[assignment]

#: Objective units for one gold; card values are in the same units.
GOLD_UNIT: Final = 100
#: The cards a journey can spend: the seven transports, then escort and change of direction.
JOURNEY_CARDS: Final = (*(Card(TRANSPORT_BASE + t) for t in Transport), Card.ESCORT,
                        Card.CHANGE_OF_DIRECTION)
ESCORT_SLOT: Final = 7
REVERSE_SLOT: Final = 8
NUM_TRANSPORTS: Final = 7
#: Gold above this changes nothing the next visit may do (a thief and a spell: 2 + 3).
GOLD_CAP: Final = THIEF_TOLL + SPELL_GOLD
#: Default value of a card kept: the tie-break "fewest cards spent".
TIE_BREAK_VALUES: Final = (1,) * len(JOURNEY_CARDS)
#: Journey positions the search remembers before its bounds walk the ring (see
#: ``_Search.bound``): a smaller search is over before that would pay.
WALKS_AFTER: Final = 32
#: Journey positions the exact search may remember before it gives way to a fallback
#: (a second or so, met only with hands of 20 cards and more; the bench's games need
#: at most a few hundred).
BUDGET: Final = 25_000

Hand = tuple[int, ...]

#: Whether the compiled search was built, imports and was written for these rules.
AVAILABLE: Final = _kingelves_planner is not None and _kingelves_planner.CONSTANTS == (
    GOLD_UNIT, THIEF_TOLL, SPELL_GOLD, SPELL_CARDS, ALL_TOWNS_BONUS, WALKS_AFTER, NO_ONE,
    ESCORT_SLOT, REVERSE_SLOT)
#: Whether ``sum`` of floats compensates (Python 3.12 and later): the C bound adds the
#: rates as the running Python does.
_NEUMAIER: Final = sys.version_info >= (3, 12)
BACKENDS: Final = ("compiled", "pure")


#: The backend of the calls that name none (``use_backend``).
_PINNED: ContextVar[str | None] = ContextVar("kingelves_planner_backend", default=None)


def planner_backend(backend: str | None = None) -> str:
    """``"compiled"`` when ``plan_journey`` searches in C, else ``"pure"``: ``backend``
    (or, when None, the one ``use_backend`` pinned) ``"pure"`` pins Python; otherwise
    it follows ``ELFENLAND_ENGINE`` (read at every call, like the engines'
    ``ELFENLAND_ENGINE=pure`` switch)."""
    if backend is None:
        backend = _PINNED.get()
    if backend is not None and backend not in BACKENDS:
        raise ElfenlandError(f"a journey planner backend is one of {BACKENDS}, not {backend!r}")
    if (backend == "pure" or not AVAILABLE
            or os.environ.get("ELFENLAND_ENGINE", "").strip().lower() == "pure"):
        return "pure"
    return "compiled"


@contextmanager
def use_backend(backend: str | None) -> Iterator[None]:
    """Within the block, ``plan_journey`` calls that name no backend use ``backend``
    (this thread or task only): how a bench pins one bot, say today's search bot, to
    the pure planner while its rival plans compiled, without touching the bot."""
    if backend is not None and backend not in BACKENDS:
        raise ElfenlandError(f"a journey planner backend is one of {BACKENDS}, not {backend!r}")
    token = _PINNED.set(backend)
    try:
        yield
    finally:
        _PINNED.reset(token)


@dataclass(frozen=True, slots=True)
class Step:
    """One journey action with what it pays and earns (net, for the traveller)."""

    action: Action
    #: Ring index of the town visited, or -1 for an escort, reverse or stop.
    town: int
    gain: int


@dataclass(frozen=True, slots=True)
class Plan:
    steps: tuple[Step, ...]
    #: Net gold the plan earns.
    gold: int
    #: The objective: GOLD_UNIT per gold plus the values of the cards kept.
    value: int
    #: The journey cards left at the end (JOURNEY_CARDS order).
    hand: Hand
    #: The table's towns in ring order, as (kingdom, town) refs.
    ring: tuple[tuple[int, int], ...]
    #: False when the search ran out of budget and a fallback answered.
    exact: bool = True

    @property
    def actions(self) -> list[Action]:
        return [s.action for s in self.steps]

    @property
    def first(self) -> Action:
        return self.steps[0].action

    def visits(self) -> list[tuple[int, int]]:
        """The towns visited, in order, as refs (a town twice if visited twice)."""
        return [self.ring[s.town] for s in self.steps if s.town >= 0]

    def thieves_paid(self, table: KingOfTheElvesState, traveller: int) -> dict[int, int]:
        """Gold the plan's thieves take, by the thief's owner (escorts counted)."""
        out: dict[int, int] = {}
        escort = NO_ONE
        for s in self.steps:
            if s.action.kind is Kind.ESCORT:
                escort = -2  # the next visit's kingdom, set below
                continue
            if s.town < 0:
                continue
            k, i = self.ring[s.town]
            if escort == -2:
                escort = k
            elif escort != k:
                escort = NO_ONE
            owner = table.kingdoms[k][i][THIEF]
            if owner not in (NO_ONE, traveller) and escort != k:
                out[owner] = out.get(owner, 0) + THIEF_TOLL
        return out


@dataclass(frozen=True, slots=True)
class _Table:
    """The fixed facts of the journeys, per ring index."""

    kingdom: tuple[int, ...]
    value: tuple[int, ...]
    #: Transport slot -> cards needed without an obstacle (0: impossible).
    costs: tuple[tuple[int, ...], ...]
    obstacle: tuple[bool, ...]
    thief: tuple[bool, ...]
    doubles: tuple[bool, ...]
    start: int
    all_bits: int
    traveller: int
    magic_spell: bool
    weak_gold: bool
    #: Kingdoms with a thief or obstacle that hinders the traveller (where an escort helps).
    hazards: frozenset[int]


@cache
def _spells(hand7: Hand) -> tuple[tuple[Hand, Action], ...]:
    """Every way to pay a spell's 4 transport cards from these counts, with its action."""
    kinds = [k for k in range(NUM_TRANSPORTS) if hand7[k]]
    out = []
    for combo in combinations_with_replacement(kinds, SPELL_CARDS):
        counts = [0] * NUM_TRANSPORTS
        for c in combo:
            counts[c] += 1
        if all(counts[k] <= hand7[k] for k in range(NUM_TRANSPORTS)):
            out.append((tuple(counts), Action.spell(tuple(counts))))
    return tuple(out)


def _capped(gold: int, transports: int) -> int:
    """Gold as far as the rest of the journey can tell, with ``transports`` transport
    cards left: only a spell loses gold (at most 3 net, for 4 cards), so beyond this
    much every later toll and spell is affordable."""
    return min(gold, GOLD_CAP + SPELL_GOLD * (transports // SPELL_CARDS))


_ESCORT = Action.simple(Kind.ESCORT)
_REVERSE = Action.simple(Kind.REVERSE)
_STOP = Action.simple(Kind.STOP)
_VISITS = {(k, n): Action.visit(Card(TRANSPORT_BASE + k), n)
           for k in range(NUM_TRANSPORTS) for n in (1, 2, 3)}


#: Per terrain, the cards each transport needs there (0: it cannot go).
_COSTS: Final[dict[int, tuple[int, ...]]] = {
    terrain: tuple(COST_TABLE[t][terrain] or 0 for t in Transport) for terrain in Terrain}


def _table(state: KingOfTheElvesState, p: int) -> tuple[_Table, list[tuple[int, int]]]:
    ring = [(k, i) for k in range(state.n) for i in range(len(state.kingdoms[k]))]
    rules = state.rules
    kingdom, value, costs, obstacle, thief, doubles = [], [], [], [], [], []
    for k, i in ring:
        town = state.kingdoms[k][i]
        terrain = town[TERRAIN]
        kingdom.append(k)
        value.append(town_value(terrain))
        costs.append(_COSTS[terrain])
        obstacle.append(town[OBSTACLE] not in (NO_ONE, p))
        thief.append(town[THIEF] not in (NO_ONE, p))
        doubles.append(town[GOLD] != NO_ONE and (rules.gold_for_all or town[GOLD] == p))
    hazards = frozenset(kingdom[j] for j in range(len(ring)) if obstacle[j] or thief[j])
    start = -1
    if ring:
        start = min(range(len(ring)),
                    key=lambda j: ((ring[j][0] - p) % state.n, ring[j][1]))
    return _Table(tuple(kingdom), tuple(value), tuple(costs), tuple(obstacle), tuple(thief),
                  tuple(doubles), start, (1 << len(ring)) - 1, p, rules.magic_spell,
                  rules.weak_gold, hazards), ring


def _rates(t: _Table, values: Sequence[int]) -> list[float]:
    """Per journey card: the most one card of its kind can add to the objective."""
    rates = [0.0] * len(JOURNEY_CARDS)
    best_town = max((v * (2 if d else 1) for v, d in zip(t.value, t.doubles, strict=True)),
                    default=0)
    for k in range(NUM_TRANSPORTS):
        per_card = [GOLD_UNIT * v * (2 if d else 1) / c[k]
                    for v, d, c in zip(t.value, t.doubles, t.costs, strict=True) if c[k]]
        if t.magic_spell:
            per_card.append(GOLD_UNIT * (best_town - SPELL_GOLD) / SPELL_CARDS)
        rates[k] = max(0.0, max(per_card, default=0.0) - values[k])
    return rates


# A ring walk's start: (cards, at, direction, turned, reverses, escorts, escort).
_Walk = tuple[int, int, int, bool, int, int, int]


@dataclass(frozen=True, slots=True)
class _Ring:
    """What a visit to each town could still cost and add, as far as one outline of the
    hand tells (see ``_Search.ring``): per town the fewest transport cards (0: no way at
    all) and the most objective for them, escorted (``safe_*``) or not."""

    costs: tuple[int, ...]
    gains: tuple[int, ...]
    safe_costs: tuple[int, ...]
    safe_gains: tuple[int, ...]
    #: Per transport: whether a card of it could pay for anything.
    usable: tuple[bool, ...]
    #: ring_walk's memo.
    walks: dict[_Walk, int]


# A journey position: (at, direction, turned, own_visited, escort, visited, bonus_paid,
# hand, gold capped).  ``at`` is a ring index or -1 (the castle); ``visited`` is a
# ring-index bit set, dropped (0) once the bonus is paid.
_Pos = tuple[int, int, bool, bool, int, int, bool, Hand, int]


class _OutOfBudget(Exception):
    pass


class _Search:
    def __init__(self, table: _Table, values: Sequence[int], budget: int | None = None,
                 extras: bool = True) -> None:
        self.t = table
        self.values = tuple(values)
        self.budget = budget
        #: Whether escorts and changes of direction are tried.
        self.extras = extras
        #: pos -> (value, best first move, exact); not exact: an upper bound.
        self.memo: dict[_Pos, tuple[int, tuple[object, ...] | None, bool]] = {}
        #: Hand outline -> the ring as it sees it (see ``ring``).
        self.rings: dict[tuple[Hand, bool], _Ring] = {}
        #: Transport counts -> every way to pay a spell: (cards, action, their worth).
        self.spells: dict[Hand, list[tuple[Hand, Action, int]]] = {}
        #: Per town costs and gains (as in ``_Ring``) -> ring_walk's memo.
        self.walks: dict[tuple[tuple[int, ...], ...], dict[_Walk, int]] = {}
        #: Hand -> the ring as it sees it and how many of its cards could pay for a visit.
        self.outlines: dict[Hand, tuple[_Ring, int]] = {}
        #: The hand ``solve`` starts from; the ring as it sees it (good for every later
        #: hand: they hold fewer cards), and the rest of what ``bound`` needs, made when
        #: first needed (small journeys never need it).
        self.first: Hand = ()
        self.loose: _Ring | None = None
        self.rates: list[float] = []
        #: Per town: (transport, cards) for each transport that goes there, fewest first.
        self.options: list[tuple[tuple[int, int], ...]] = []
        #: Per transport: the fewest of its cards that pay for a visit (99: none do), and
        #: how many of them pay for every visit they can.
        self.needs: list[int] = []
        self.caps: list[int] = []

    def solve(self, pos: _Pos) -> int:
        """The best objective from ``pos``, where the journey stands now."""
        self.first = pos[7]
        return self.best(pos)

    def prepare(self) -> list[float]:
        """The rates (see ``_rates``), made when a bound first needs them."""
        self.rates = _rates(self.t, self.values)
        return self.rates

    def prepare_walks(self) -> _Ring:
        """What the ring walks need, made when a bound first needs it: in the end the
        ring as the first hand sees it."""
        t = self.t
        self.options = [tuple(sorted(((k, x) for k, x in enumerate(c) if x),
                                     key=lambda kx: kx[1])) for c in t.costs]
        self.needs = [min((c[k] for c in t.costs if c[k]), default=99)
                      for k in range(NUM_TRANSPORTS)]
        # (At least one: any card may pay for a spell.)
        self.caps = [max((c[k] + o for c, o in zip(t.costs, t.obstacle, strict=True) if c[k]),
                         default=1) for k in range(NUM_TRANSPORTS)]
        self.loose = self.ring(self.first)[0]
        return self.loose

    def moves(self, pos: _Pos) -> list[tuple[Action, int, int, _Pos, int]]:
        """(action, town index or -1, net gold, next position, worth of the cards
        spent) for every legal action but stop, exactly as the engine allows them."""
        t = self.t
        at, direction, turned, own, escort, visited, bonus, hand, gold = pos
        values = self.values
        out: list[tuple[Action, int, int, _Pos, int]] = []
        size = len(t.value)
        if size == 0:
            target = -1
        elif at < 0:
            target = t.start
        elif turned:
            target = at
        else:
            target = (at + direction) % size
        if target >= 0:
            kingdom = t.kingdom[target]
            protected = escort == kingdom
            toll = THIEF_TOLL if t.thief[target] and not protected else 0
            obstacle = 1 if t.obstacle[target] and not protected else 0
            double = t.doubles[target] and not (t.weak_gold and protected)
            earned = t.value[target] * (2 if double else 1)
            new_escort = escort if escort == kingdom else NO_ONE
            if gold >= toll:
                cards = sum(hand[:NUM_TRANSPORTS])
                payments: list[tuple[int, Action, Hand, int, int, int]] = []
                for k, base in enumerate(t.costs[target]):
                    n = base + obstacle
                    if base and hand[k] >= n:
                        paid = list(hand)
                        paid[k] -= n
                        payments.append((n * values[k] + n, _VISITS[k, n], tuple(paid), 0,
                                         n * values[k], n))
                # Cheapest payment first: good journeys found early prune the rest.
                payments.sort(key=lambda p: p[0])
                if not payments and t.magic_spell and gold >= toll + SPELL_GOLD:
                    hand7 = hand[:NUM_TRANSPORTS]
                    spells = self.spells.get(hand7)
                    if spells is None:
                        spells = self.spells[hand7] = [
                            (m, action, sum(x * v for x, v in zip(m, values, strict=False)))
                            for m, action in _spells(hand7)]
                    for m, action, worth in spells:
                        left = tuple([n - x for n, x in zip(hand7, m, strict=True)]) + hand[7:]
                        payments.append((0, action, left, SPELL_GOLD, worth, SPELL_CARDS))
                bits = visited | (1 << target)
                own_now = own or kingdom == t.traveller
                for _, action, left, spell, spent, used in payments:
                    gain = earned - toll - spell
                    paid_bonus = bonus
                    after = bits
                    if not bonus:
                        if bits == t.all_bits:
                            gain += ALL_TOWNS_BONUS
                            paid_bonus = True
                        elif (t.all_bits & ~bits).bit_count() > cards - used:
                            paid_bonus = True  # out of reach: every visit takes a card
                        if paid_bonus:
                            after = 0
                    else:
                        after = 0
                    nxt = (target, direction, False, own_now, new_escort, after, paid_bonus,
                           left, _capped(gold + gain, cards - used))
                    out.append((action, target, gain, nxt, spent))
            entering = at < 0 or t.kingdom[at] != kingdom
            # An escort where no thief or obstacle hinders the traveller can only lose.
            if self.extras and hand[ESCORT_SLOT] and entering and escort != kingdom \
                    and kingdom in t.hazards:
                h = list(hand)
                h[ESCORT_SLOT] -= 1
                out.append((_ESCORT, -1, 0, (at, direction, turned, own, kingdom, visited,
                                             bonus, tuple(h), gold), values[ESCORT_SLOT]))
        if self.extras and hand[REVERSE_SLOT] and own and not turned:
            h = list(hand)
            h[REVERSE_SLOT] -= 1
            out.append((_REVERSE, -1, 0, (at, -direction, True, own, escort, visited, bonus,
                                          tuple(h), gold), values[REVERSE_SLOT]))
        return out

    def bound(self, pos: _Pos, keep: int, alpha: float) -> int:
        """At most what ``pos`` can still reach: every card kept plus the lesser of two
        relaxations (``rates``, then ``ring_walk`` if still needed), plus the bonus unless
        it is out of reach.  It stops refining once at or below ``alpha``."""
        at, direction, turned, _, escort, visited, bonus, hand, _ = pos
        rates = self.rates or self.prepare()
        extra = math.ceil(sum(n * r for n, r in zip(hand, rates, strict=False) if n))
        prize = 0 if bonus else ALL_TOWNS_BONUS * GOLD_UNIT
        out = keep + extra
        if out + prize <= alpha or len(self.memo) < WALKS_AFTER or not self.first:
            return out + prize
        loose = self.loose or self.prepare_walks()
        reverses, escorts = (hand[REVERSE_SLOT], hand[ESCORT_SLOT]) if self.extras else (0, 0)
        unvisited = self.t.all_bits & ~visited
        # First the ring as the journey's first hand saw it (shared, so cheap), then as
        # this hand sees it.
        ring = loose
        cards = sum(n for n, use in zip(hand, ring.usable, strict=False) if use)
        for last in (False, True):
            walk = self.ring_walk(ring, cards, at, direction, turned, reverses, escorts, escort)
            out = min(out, keep + walk)
            if prize and out <= alpha < out + prize and not self.bonus_in_reach(
                    ring, cards, at, direction, turned, reverses, escorts, escort, unvisited):
                prize = 0
            if last or out + prize <= alpha:
                break
            sharper, cards = self.ring(hand)
            if sharper is ring:
                break
            ring = sharper
        return out + prize

    def ring(self, hand: Hand) -> tuple[_Ring, int]:
        """The ring as ``hand`` sees it (per town the fewest cards a visit could take
        from now on and the most it could add for them, as far as the kinds and numbers
        of cards tell: cards are only ever spent), and how many of its cards could pay
        for any visit at all."""
        hit = self.outlines.get(hand)
        if hit is not None:
            return hit
        t = self.t
        counts = tuple(min(n, cap) for n, cap in zip(hand, self.caps, strict=False))
        spell = t.magic_spell and sum(hand[:NUM_TRANSPORTS]) >= SPELL_CARDS
        ring = self.rings.get((counts, spell))
        if ring is None:
            usable = tuple(spell or n >= need for n, need in zip(counts, self.needs,
                                                                  strict=True))
            cheapest = min((self.values[k] for k in range(NUM_TRANSPORTS)
                            if usable[k] and counts[k]), default=0)
            costs, gains = self.visits(counts, spell, cheapest, True)
            safe_costs, safe_gains = self.visits(counts, spell, cheapest, False)
            # Outlines that see the ring alike share their walks.
            walks = self.walks.setdefault((costs, gains, safe_costs, safe_gains), {})
            ring = _Ring(costs, gains, safe_costs, safe_gains, usable, walks)
            self.rings[counts, spell] = ring
        out = ring, sum(n for n, use in zip(hand, ring.usable, strict=False) if use)
        self.outlines[hand] = out
        return out

    def visits(self, counts: Hand, spell: bool, cheapest: int,
               hindered: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Per town the fewest cards and the most objective of a visit (hindered: the
        thief and the obstacle count; else escorted), less the least the cards it takes
        are worth (a spell's: ``cheapest`` each)."""
        t = self.t
        values = self.values
        costs: list[int] = []
        gains: list[int] = []
        for j, options in enumerate(self.options):
            extra = 1 if hindered and t.obstacle[j] else 0
            if hindered:
                earned = t.value[j] * (2 if t.doubles[j] else 1)
                earned -= THIEF_TOLL if t.thief[j] else 0
            else:
                earned = t.value[j] * (2 if t.doubles[j] and not t.weak_gold else 1)
            n = worth = 0
            for k, x in options:  # fewest cards first
                if counts[k] >= x + extra:
                    if not n:
                        n, worth = x + extra, (x + extra) * values[k]
                    else:
                        worth = min(worth, (x + extra) * values[k])
            if n:
                costs.append(n)
                # A later, smaller hand may have to pay by spell instead.
                gains.append(max(GOLD_UNIT * earned - worth, GOLD_UNIT * (earned - SPELL_GOLD)
                                 - cheapest * SPELL_CARDS) if spell else GOLD_UNIT * earned - worth)
            elif spell:
                costs.append(SPELL_CARDS)
                gains.append(GOLD_UNIT * (earned - SPELL_GOLD) - cheapest * SPELL_CARDS)
            else:
                costs.append(0)
                gains.append(0)
        return tuple(costs), tuple(gains)

    def ring_walk(self, ring: _Ring, cards: int, at: int, direction: int, turned: bool,
                  reverses: int, escorts: int, escort: int) -> int:
        """The most a walk round the ring could add with ``cards`` transport cards,
        ``reverses`` changes of direction and ``escorts`` escorts (``escort`` the kingdom
        escorted now), as the journey goes: every town on the way is visited in turn, at
        ``ring``'s cost and gain (so one that cannot be paid blocks the way)."""
        key = (cards, at, direction, turned, reverses, escorts, escort)
        hit = ring.walks.get(key)
        if hit is not None:
            return hit
        t = self.t
        kingdom = t.kingdom
        size = len(kingdom)
        best = gained = 0
        here = at
        while size:
            if reverses and not turned:
                value = self.ring_walk(ring, cards, here, -direction, True, reverses - 1,
                                       escorts, escort)
                best = max(best, gained - self.values[REVERSE_SLOT] + value)
            target = t.start if here < 0 else here if turned else (here + direction) % size
            k = kingdom[target]
            if escorts and escort != k and k in t.hazards and (here < 0 or kingdom[here] != k):
                value = self.ring_walk(ring, cards, here, direction, turned, reverses,
                                       escorts - 1, k)
                best = max(best, gained - self.values[ESCORT_SLOT] + value)
            if escort == k:
                n, gain = ring.safe_costs[target], ring.safe_gains[target]
            else:
                n, gain = ring.costs[target], ring.gains[target]
                escort = NO_ONE
            if not n or n > cards:
                break
            cards -= n
            gained += gain
            best = max(best, gained)
            here, turned = target, False
        ring.walks[key] = best
        return best

    def bonus_in_reach(self, ring: _Ring, cards: int, at: int, direction: int,
                       turned: bool, reverses: int, escorts: int, escort: int,
                       unvisited: int) -> bool:
        """Whether the towns not yet visited could all still be, with ``cards`` cards:
        every town on the way is visited, each for at least its fewest cards (escorted
        only where an escort can still be had).  Without a change of direction the way
        is known; with one, it covers at least an arc of the ring from here that holds
        them all."""
        t = self.t
        size = len(t.kingdom)
        if not unvisited or not size:
            return True
        costs = [safe if escorts or escort == k else n
                 for safe, n, k in zip(ring.safe_costs, ring.costs, t.kingdom, strict=True)]
        if not reverses:
            target = t.start if at < 0 else at if turned else (at + direction) % size
            while True:
                n = costs[target]
                if not n or n > cards:
                    return False
                cards -= n
                unvisited &= ~(1 << target)
                if not unvisited:
                    return True
                target = (target + direction) % size
        origin = t.start if at < 0 else at
        need = costs[origin] if at < 0 or turned else 0  # visited first, whatever else
        if (at < 0 or turned) and not need:
            return False
        unvisited &= ~(1 << origin)
        # Cards to walk d towns on from the origin either way (a town no card pays for
        # bars the way).
        ahead = [0] * size
        behind = [0] * size
        for d in range(1, size):
            ahead[d] = ahead[d - 1] + (costs[(origin + d) % size] or cards + 1)
            behind[d] = behind[d - 1] + (costs[(origin - d) % size] or cards + 1)
        reach = [((j - origin) % size, (origin - j) % size) for j in range(size)
                 if unvisited >> j & 1]
        least = ahead[size - 1] if reach else 0
        for left in [0, *(back for _, back in reach)]:
            right = max((on for on, back in reach if back > left), default=0)
            if left + right < size:
                least = min(least, ahead[right] + behind[left])
        return need + least <= cards

    def best(self, pos: _Pos, alpha: float = -math.inf, keep: int | None = None) -> int:
        """The best objective from ``pos`` on (stopping counts the cards kept, worth
        ``keep`` if given).  Only values above ``alpha`` matter to the caller: a result at
        or below it is just an upper bound (as in alpha-beta), memoised as such."""
        hit = self.memo.get(pos)
        if hit is not None and (hit[2] or hit[0] <= alpha):
            return hit[0]
        best = self.keep(pos[7]) if keep is None else keep
        if best <= alpha:
            ceiling = self.bound(pos, best, alpha)
            if ceiling <= alpha:
                self.memo[pos] = (ceiling, None, False)
                return ceiling
        floor = max(alpha, best)
        keep = best
        choice: tuple[object, ...] | None = None
        for action, town, gain, nxt, spent in self.moves(pos):
            value = gain * GOLD_UNIT + self.best(nxt, floor - gain * GOLD_UNIT, keep - spent)
            if value > best:
                best = value
                if value > floor:
                    floor = value
                    choice = (action, town, gain, nxt)
        exact = best > alpha
        self.memo[pos] = (best, choice if exact else None, exact)
        if self.budget is not None and len(self.memo) > self.budget:
            raise _OutOfBudget
        return best

    def walk(self, pos: _Pos) -> tuple[list[Step], _Pos]:
        """The plan the memo holds from ``pos``."""
        steps: list[Step] = []
        while True:
            entry = self.memo[pos]
            if entry[1] is None:
                return steps, pos
            action, town, gain, nxt = entry[1]
            assert isinstance(action, Action) and isinstance(town, int)
            assert isinstance(gain, int)
            steps.append(Step(action, town, gain))
            pos = nxt  # type: ignore[assignment]

    def greedy(self, pos: _Pos) -> tuple[list[Step], _Pos]:
        """A journey one step at a time, each the visit that adds most to the objective
        at once: the fallback when the exact search is over budget."""
        steps: list[Step] = []
        while True:
            keep = self.keep(pos[7])
            best: tuple[int, Step, _Pos] | None = None
            for action, town, gain, nxt, _ in self.moves(pos):
                value = gain * GOLD_UNIT + self.keep(nxt[7]) - keep
                if value > 0 and (best is None or value > best[0]):
                    best = (value, Step(action, town, gain), nxt)
            if best is None:
                return steps, pos
            steps.append(best[1])
            pos = best[2]

    def keep(self, hand: Hand) -> int:
        return sum(v * n for v, n in zip(self.values, hand, strict=True))


_JOURNEY_HAND: Final = itemgetter(*(int(c) for c in JOURNEY_CARDS))


def journey_hand(state: KingOfTheElvesState, p: int) -> Hand:
    hand: Hand = _JOURNEY_HAND(state.hands[p])
    return hand


def plan_journey(state: KingOfTheElvesState, player: int | None = None,
                 values: Sequence[int] | None = None,
                 hand: Sequence[int] | None = None, budget: int | None = BUDGET,
                 extras: bool = True, backend: str | None = None) -> Plan:
    """The best journey for ``player`` (default: the player to move).  During the
    journeys, for the traveller, it continues the journey under way; otherwise it is the
    journey from the castle over the table as it stands.  ``hand`` replaces the
    player's journey cards (JOURNEY_CARDS order) for what-if questions.

    ``extras=False`` leaves out escorts and changes of direction: a quicker estimate
    for the building phase.  Beyond ``budget`` journey positions (very large hands with
    changes of direction) the exact search gives way to one without escorts and changes
    of direction, then to a step-by-step walk; ``Plan.exact`` says which answered.
    ``backend`` (see ``planner_backend``) only chooses who searches: the plan is the same."""
    if not isinstance(state, KingOfTheElvesState):
        raise ElfenlandError("the journey planner plans King of the Elves journeys")
    compiled = planner_backend(backend) == "compiled"
    p = state.current_player() if player is None else player
    if not isinstance(p, int) or not 0 <= p < state.n:
        raise ElfenlandError(f"no player {player!r} to plan a journey for")
    vals = TIE_BREAK_VALUES if values is None else tuple(values)
    if len(vals) != len(JOURNEY_CARDS) or min(vals) < 0:
        raise ElfenlandError(f"card values are {len(JOURNEY_CARDS)} numbers, none negative")
    # The compiled search reads the table flat (``_flat_table``); the pure one, and the
    # greedy fallback, as a ``_Table`` (made only if they run).
    table: _Table | None = None
    flat: tuple[int, ...] | None = None
    if compiled:
        flat, ring = _flat_table(state, p)
    else:
        table, ring = _table(state, p)
    cards = journey_hand(state, p) if hand is None else tuple(hand)
    if len(cards) != len(JOURNEY_CARDS) or min(cards, default=0) < 0:
        raise ElfenlandError(f"a journey hand is {len(JOURNEY_CARDS)} counts")
    gold = _capped(state.gold[p], sum(cards[:NUM_TRANSPORTS]))
    if state.phase is Phase.JOURNEY and state.current == p:
        at = ring.index(state.at) if state.at[0] != NO_ONE else -1
        bits = 0
        if not state.bonus_paid:
            for j, (k, i) in enumerate(ring):
                if state.visited & town_bit((k, i)):
                    bits |= 1 << j
        pos: _Pos = (at, state.direction, state.turned, state.own_visited, state.escort,
                     bits, state.bonus_paid, cards, gold)
    else:
        pos = (-1, CLOCKWISE, False, False, NO_ONE, 0, False, cards, gold)
    if not compiled or not ring:  # (no towns yet: nothing to search, pure answers at once)
        flat = None
    steps: list[Step] = []
    left: Hand = cards
    for full in (True, False) if extras else (False,):
        if flat is not None:
            assert _kingelves_planner is not None
            got = _kingelves_planner.solve(flat, vals, pos, budget, full, _NEUMAIER)
            if got is False:  # over budget, as _OutOfBudget
                continue
            if isinstance(got, tuple):  # None: beyond the C code's limits
                codes, left = got
                steps = [Step(_decode(code), town, gain) for code, town, gain in codes]
                exact = full or not extras
                break
        table = table or _table(state, p)[0]
        search = _Search(table, vals, budget, full)
        try:
            search.solve(pos)
        except _OutOfBudget:
            continue
        steps, end = search.walk(pos)
        left = end[7]
        exact = full or not extras
        break
    else:
        table = table or _table(state, p)[0]
        steps, end = _Search(table, vals, None, extras).greedy(pos)
        left = end[7]
        exact = False
    if not exact:
        # The restricted search may be beaten by the step-by-step walk.
        table = table or _table(state, p)[0]
        other, other_end = _Search(table, vals, None, extras).greedy(pos)
        if _objective(other, other_end[7], vals) > _objective(steps, left, vals):
            steps, left = other, other_end[7]
    steps.append(Step(_STOP, -1, 0))
    total = sum(s.gain for s in steps)
    return Plan(tuple(steps), total, total * GOLD_UNIT + _keep(left, vals), left,
                tuple(ring), exact)


def _keep(hand: Hand, values: Sequence[int]) -> int:
    return sum(v * n for v, n in zip(values, hand, strict=True))


def _objective(steps: list[Step], hand: Hand, values: Sequence[int]) -> int:
    return sum(s.gain for s in steps) * GOLD_UNIT + _keep(hand, values)


#: Per terrain (as an int), a town's value.
_TOWN_VALUES: Final = {int(terrain): town_value(terrain) for terrain in Terrain}


def _flat_table(state: KingOfTheElvesState,
                p: int) -> tuple[tuple[int, ...], list[tuple[int, int]]]:
    """``_flat(_table(state, p)[0])`` and the ring, in one pass (the rollouts plan
    thousands of journeys: this is most of a compiled plan's Python)."""
    ring: list[tuple[int, int]] = []
    kingdom: list[int] = []
    value: list[int] = []
    costs: list[int] = []
    obstacle: list[int] = []
    thief: list[int] = []
    doubles: list[int] = []
    firsts: list[int] = []
    hazards = 0
    rules = state.rules
    gold_for_all = rules.gold_for_all
    for k, towns in enumerate(state.kingdoms):
        firsts.append(len(ring) if towns else -1)
        for i, town in enumerate(towns):
            terrain = town[TERRAIN]
            ring.append((k, i))
            kingdom.append(k)
            value.append(_TOWN_VALUES[terrain])
            costs += _COSTS[terrain]
            owner = town[OBSTACLE]
            hinders = 0 if owner in (NO_ONE, p) else 1
            obstacle.append(hinders)
            owner = town[THIEF]
            steals = 0 if owner in (NO_ONE, p) else 1
            thief.append(steals)
            owner = town[GOLD]
            doubles.append(1 if owner != NO_ONE and (gold_for_all or owner == p) else 0)
            if hinders or steals:
                hazards |= 1 << k
    # The first town of the first kingdom with towns from the traveller's on (``_table``).
    n = len(firsts)
    start = next((firsts[(p + d) % n] for d in range(n) if firsts[(p + d) % n] >= 0), -1)
    return (len(ring), start, p, int(rules.magic_spell), int(rules.weak_gold), hazards,
            *kingdom, *value, *costs, *obstacle, *thief, *doubles), ring


def _flat(t: _Table) -> tuple[int, ...]:
    """The table as the C search reads it (see ``_kingelves_planner.c``)."""
    hazards = 0
    for k in t.hazards:
        hazards |= 1 << k
    return (len(t.kingdom), t.start, t.traveller, int(t.magic_spell), int(t.weak_gold),
            hazards, *t.kingdom, *t.value, *(x for c in t.costs for x in c),
            *map(int, t.obstacle), *map(int, t.thief), *map(int, t.doubles))


#: The C search's action codes (see ``_kingelves_planner.c``), decoded once each.
_CODES: dict[int, Action] = {4 * k + n: a for (k, n), a in _VISITS.items()}
_CODES[28] = _ESCORT
_CODES[29] = _REVERSE
_SPELL_CODE: Final = 32


def _decode(code: int) -> Action:
    action = _CODES.get(code)
    if action is None:
        packed, counts = code - _SPELL_CODE, []
        for _ in range(NUM_TRANSPORTS):
            counts.append(packed % 5)
            packed //= 5
        action = _CODES[code] = Action.spell(tuple(counts))
    return action
