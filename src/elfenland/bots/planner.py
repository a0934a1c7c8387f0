"""The Elfenland movement planner: the best journey for the player to move.

"Best" is lexicographic, in the order a player at the table thinks:

1. the most *new* towns (markers not yet collected; Elvenhold has none);
2. with town cards in play, ending closest to the card's town;
3. the most useful cards kept.

"Useful" is deliberately simple.  At the end of the move the hand is cut to the hand
limit, keeping the cards the player prefers, so what survives the move is the
``hand_limit`` most-preferred cards left.  Their value is, per card, ``100 + preference``:
more cards always beat fewer, and between equally many, the preferred kinds win.  The
default preference (``PREFERENCE``) ranks rafts first (they need no counter, a river is
always there), then the transports that are cheap on the most terrains (dragon, unicorn,
elfcycle, giant pig, troll wagon, magic cloud).  Bots may pass their own preference.

The search is exhaustive, so the answer is exact: a depth-first search over
(town, hand, towns collected), memoised, trying every step the engine would allow from
each town — the normal payment from ``state.step_cost``, every multiset of cards a
caravan (``state.caravan_size``) or the boatmen could take.  Every step costs at least
one card, so the search ends; hands are seven counts, so it stays small.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from ..core.errors import ElfenlandError
from ..core.transport import COST_TABLE, Terrain, Transport
from ..games.elfenland.actions import Action, CardCounts, Pay, cards_to_text
from ..games.elfenland.state import NO_PIECE, ElfenlandState, Phase

#: Default preference of card kinds (index = ``Transport`` value), higher is kept first.
PREFERENCE: Final[tuple[int, ...]] = (
    3,  # giant pig
    4,  # elfcycle
    1,  # magic cloud
    5,  # unicorn
    2,  # troll wagon
    6,  # dragon
    7,  # raft
)
CARD_VALUE: Final = 100
NUM_KINDS: Final = 7


@dataclass(frozen=True, slots=True)
class Edge:
    """One way to take one step from a town: the route, its direction and its price."""

    route: int
    direction: int
    to: int
    #: Normal payment: card kind and number, or kind -1 when there is none.
    kind: int
    n: int
    #: Any-cards payment (caravan on a road, boatmen on Mare Nebulae): its size, or 0.
    any_cards: int
    pay: Pay
    #: A step over an empty road assuming the player places a counter there (greedy's
    #: look-ahead); never part of a journey the engine is asked to play.
    wild: bool = False


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a journey: the engine action and the cards it pays."""

    action: Action
    to: int
    paid: CardCounts

    @property
    def text(self) -> str:
        return str(self.action)


@dataclass(frozen=True, slots=True)
class Journey:
    player: int
    steps: tuple[Step, ...]
    #: New towns collected.
    new_towns: int
    #: Links from the final town to the town card, or None without town cards.
    distance: int | None
    #: The hand left after the last step (before any discard).
    hand: CardCounts
    usefulness: int

    @property
    def key(self) -> tuple[int, int, int]:
        """What the planner maximises, in order."""
        return (self.new_towns, -(self.distance or 0), self.usefulness)

    @property
    def actions(self) -> list[Action]:
        """The engine actions to play: the steps, then ``end``."""
        return [s.action for s in self.steps] + [Action.end()]

    @property
    def texts(self) -> list[str]:
        return [str(a) for a in self.actions]

    @property
    def towns(self) -> list[int]:
        return [s.to for s in self.steps]

    def describe(self, state: ElfenlandState) -> list[dict[str, object]]:
        """JSON-safe steps for a preview: notation, destination, cards paid."""
        return [
            {"action": s.text, "to": state.board.towns[s.to].id,
             "paid": cards_to_text(s.paid)}
            for s in self.steps
        ]


def usefulness(hand: Sequence[int], limit: int,
               preference: Sequence[int] = PREFERENCE) -> int:
    """The value of the cards that survive the end-of-move discard (see module doc)."""
    left = limit
    total = 0
    for k in sorted(range(NUM_KINDS), key=lambda k: -preference[k]):
        take = min(left, hand[k])
        total += take * (CARD_VALUE + preference[k])
        left -= take
        if left == 0:
            break
    return total


@lru_cache(maxsize=65536)
def sub_multisets(hand: CardCounts, size: int) -> tuple[CardCounts, ...]:
    """Every multiset of ``size`` cards the hand can give (caravans, boatmen)."""
    out: list[CardCounts] = []
    chosen = [0] * NUM_KINDS

    def rec(k: int, left: int) -> None:
        if k == NUM_KINDS - 1:
            if left <= hand[k]:
                chosen[k] = left
                out.append(tuple(chosen))
            return
        for n in range(min(left, hand[k]), -1, -1):
            chosen[k] = n
            rec(k + 1, left - n)
        chosen[k] = 0

    if sum(hand) >= size:
        rec(0, size)
    return tuple(out)


def edges_of(state: ElfenlandState, wild_kinds: Sequence[int] = (),
             any_cards: bool = True) -> list[list[Edge]]:
    """The steps possible from every town with the counters now on the board, priced by
    the engine.  ``wild_kinds``: counter kinds the player could still place on empty
    roads (adds ``wild`` edges, for look-ahead only)."""
    board = state.board
    rules = state.rules
    boatmen = rules.caravan_cards if rules.boatmen and any_cards else 0
    out: list[list[Edge]] = []
    for town in range(len(board.towns)):
        edges: list[Edge] = []
        for r, to in board.adjacent[town]:
            route = board.routes[r]
            direction = 0 if route.a == town else 1
            cost = state.step_cost(r, direction)
            if cost is None:
                if route.is_road and state.route_counter[r] == NO_PIECE:
                    for k in wild_kinds:
                        n = COST_TABLE[Transport(k)][route.terrain]
                        if n is not None:
                            edges.append(Edge(r, direction, to, k, n, 0, Pay.NORMAL, True))
                continue
            kind, n = cost
            if route.is_road:
                caravan = state.caravan_size(r) if any_cards else 0
                edges.append(Edge(r, direction, to, kind, n, caravan, Pay.CARAVAN))
            elif route.terrain is Terrain.LAKE and route.lake == "mare-nebulae":
                edges.append(Edge(r, direction, to, kind, n, boatmen, Pay.BOATMEN))
            else:
                edges.append(Edge(r, direction, to, kind, n, 0, Pay.NORMAL))
        out.append(edges)
    return out


class _Search:
    """One planning problem: fixed edges and scoring, a memo over (town, hand, visited)."""

    def __init__(self, edges: list[list[Edge]], capital: int, target: int | None,
                 distances: Sequence[Sequence[int]], limit: int,
                 preference: Sequence[int], max_cards: int) -> None:
        self.edges = edges
        self.capital = capital
        self.target = target
        self.distances = distances
        self.limit = limit
        self.preference = preference
        self.u_span = max_cards * (CARD_VALUE + max(preference)) + 1
        self.d_span = 1000
        self.town_unit = self.u_span * self.d_span
        self.memo: dict[tuple[int, CardCounts, int],
                        tuple[int, Edge | None, CardCounts, bool]] = {}
        self._useful: dict[CardCounts, int] = {}
        self._payments: dict[tuple[CardCounts, int], list[tuple[CardCounts, CardCounts]]] = {}
        self.all_towns = ((1 << len(distances)) - 1) & ~(1 << capital)
        #: within[t][c]: the towns that t's boot could reach with c cards at most.
        #: nearest[t]: (cheapest cost, town) from t, cheapest first.
        self.within, self.nearest = _within(edges, max_cards)
        #: ceil[t][c]: the most the distance part can be worth from t with c cards left
        #: (each card takes the boot at most one link nearer the town card).
        self.ceil = [[(self.d_span - 1 - (0 if target is None
                                          else max(0, distances[t][target] - c))) * self.u_span
                      for c in range(max_cards + 1)] for t in range(len(distances))]

    def end_value(self, town: int, hand: CardCounts) -> int:
        u = self.useful(hand)
        d = 0 if self.target is None else self.distances[town][self.target]
        return (self.d_span - 1 - d) * self.u_span + u

    def useful(self, hand: CardCounts) -> int:
        u = self._useful.get(hand)
        if u is None:
            u = usefulness(hand, self.limit, self.preference)
            self._useful[hand] = u
        return u

    def more_towns(self, to: int, left: int, open_towns: int) -> int:
        """At most how many new towns a journey from ``to`` with ``left`` cards can add:
        the first costs at least the cheapest way to any uncollected town, each further
        one at least a card more, and only towns within reach count."""
        for c, u in self.nearest[to]:
            if c > left:
                return 0
            if open_towns >> u & 1:
                return min(left - c + 1, (self.within[to][left] & open_towns).bit_count())
        return 0

    def payments(self, hand: CardCounts, size: int) -> list[tuple[CardCounts, CardCounts]]:
        """Any-cards payments, those leaving the most useful hand first."""
        key = (hand, size)
        hit = self._payments.get(key)
        if hit is None:
            hit = sorted(_payments(hand, size), key=lambda pc: -self.useful(pc[1]))
            self._payments[key] = hit
        return hit

    def best(self, town: int, hand: CardCounts, visited: int, alpha: int = -1) -> int:
        """The best value from here if it is above ``alpha``; otherwise ``alpha``, meaning
        "no better than alpha" (a fail-low, as in alpha-beta search).

        Children that cannot beat the threshold (even collecting a new town with every
        card left, ending on the town card and keeping every card) are not searched.
        Exact values and fail-lows are memoised apart, so the root, searched with no
        threshold, gets the exact best and its journey."""
        key = (town, hand, visited)
        hit = self.memo.get(key)
        if hit is not None:
            value, exact = hit[0], hit[3]
            if exact or value <= alpha:
                return value
        top = self.end_value(town, hand)
        choice: Edge | None = None
        paid_best: CardCounts = ()
        total = sum(hand)
        capital = self.capital
        unit = self.town_unit
        ceil = self.ceil
        open_towns = self.all_towns & ~visited
        edges = self.edges[town]
        # New towns first: a good journey found early prunes the rest.
        ordered = ([e for e in edges if open_towns >> e.to & 1]
                   + [e for e in edges if not open_towns >> e.to & 1])
        for e in ordered:
            if hand[e.kind] < e.n:
                continue
            to = e.to
            bit = 0 if to == capital else 1 << to
            gain = unit if bit and not visited & bit else 0
            h = list(hand)
            h[e.kind] -= e.n
            child = tuple(h)
            left = total - e.n
            more = self.more_towns(to, left, open_towns & ~bit)
            threshold = top if top > alpha else alpha
            if gain + more * unit + ceil[to][left] + self.useful(child) <= threshold:
                continue
            v = self.best(to, child, visited | bit, threshold - gain) + gain
            if v > threshold:
                top, choice = v, e
                paid_best = _normal_paid(e)
        for e in ordered:
            size = e.any_cards
            if not size or total < size:
                continue
            to = e.to
            bit = 0 if to == capital else 1 << to
            gain = unit if bit and not visited & bit else 0
            left = total - size
            more = self.more_towns(to, left, open_towns & ~bit)
            reach = gain + more * unit + ceil[to][left]
            if reach + self.useful(hand) <= (top if top > alpha else alpha):
                continue
            nvis = visited | bit
            for pay, child in self.payments(hand, size):
                threshold = top if top > alpha else alpha
                if reach + self.useful(child) <= threshold:
                    continue
                v = self.best(to, child, nvis, threshold - gain) + gain
                if v > threshold:
                    top, choice, paid_best = v, e, pay
        if top > alpha:
            self.memo[key] = (top, choice, paid_best, True)
            return top
        self.memo[key] = (alpha, None, (), False)
        return alpha


def _within(edges: list[list[Edge]], max_cards: int
            ) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
    """For each town: the towns a journey could reach with c cards at most, for every c,
    and the other towns by how many steps they are (fewest first).  Every step costs at
    least one card and roads without a counter do not count: a bound on any journey."""
    n = len(edges)
    within: list[list[int]] = []
    nearest: list[list[tuple[int, int]]] = []
    for start in range(n):
        steps = [-1] * n
        steps[start] = 0
        frontier = [start]
        masks = [1 << start]
        order: list[tuple[int, int]] = []
        d = 0
        while frontier and d < max_cards:
            d += 1
            nxt = []
            for t in frontier:
                for e in edges[t]:
                    if steps[e.to] < 0:
                        steps[e.to] = d
                        nxt.append(e.to)
                        order.append((d, e.to))
            mask = masks[-1]
            for u in nxt:
                mask |= 1 << u
            masks.append(mask)
            frontier = nxt
        masks += [masks[-1]] * (max_cards + 1 - len(masks))
        within.append(masks)
        nearest.append(order)
    return within, nearest


@lru_cache(maxsize=65536)
def _payments(hand: CardCounts, size: int) -> tuple[tuple[CardCounts, CardCounts], ...]:
    """(cards given, hand left) for every any-cards payment of ``size``."""
    return tuple((pay, tuple(a - b for a, b in zip(hand, pay, strict=True)))
                 for pay in sub_multisets(hand, size))


def _normal_paid(e: Edge) -> CardCounts:
    paid = [0] * NUM_KINDS
    paid[e.kind] = e.n
    return tuple(paid)


def plan_journey(state: ElfenlandState, player: int | None = None,
                 preference: Sequence[int] = PREFERENCE,
                 use_destination: bool | None = None,
                 wild_kinds: Sequence[int] = (), any_cards: bool = True) -> Journey:
    """The best journey (see the module doc) for ``player`` (default: the one to act)
    from where their boot stands, with their hand and the counters on the board.

    Without ``wild_kinds`` every step is an engine action legal in turn from ``state``
    (when ``state`` is in the move phase and it is that player's turn).  With them, the
    journey may also cross empty roads as if the player had placed a counter of one of
    those kinds there: an estimate of what the player's counters are worth.
    ``any_cards=False`` leaves out caravans and the boatmen (a faster estimate)."""
    p = state.current if player is None else player
    if not 0 <= p < state.num_players:
        raise ElfenlandError(f"no player {player}")
    if len(preference) != NUM_KINDS:
        raise ElfenlandError("a preference gives one number per card kind (7)")
    if use_destination is None:
        use_destination = state.rules.town_cards
    target = state.town_cards[p] if use_destination and state.town_cards[p] != NO_PIECE else None
    hand: CardCounts = tuple(state.hands[p])
    board = state.board
    edges = edges_of(state, wild_kinds, any_cards)
    if sum(hand) + 50 > sys.getrecursionlimit():
        sys.setrecursionlimit(sum(hand) + 100)
    town, visited = state.boots[p], state.visited[p]
    floor = -1
    if any(e.any_cards for es in edges for e in es):
        # The best journey without caravans or boatmen is quick to find and can be
        # played, so the full search need only look for journeys at least as good.
        plain = [[replace(e, any_cards=0) for e in es] for es in edges]
        first = _Search(plain, board.capital, target, board.distances, state.rules.hand_limit,
                        preference, sum(hand))
        floor = first.best(town, hand, visited) - 1
    search = _Search(edges, board.capital, target, board.distances,
                     state.rules.hand_limit, preference, sum(hand))
    search.best(town, hand, visited, floor)
    steps: list[Step] = []
    new = 0
    while True:
        _, e, paid, _ = search.memo[(town, hand, visited)]
        if e is None:
            break
        bit = 0 if e.to == board.capital else 1 << e.to
        if bit and not visited & bit:
            new += 1
        if e.wild:
            action = _wild_action(e)
        elif paid == _normal_paid(e):
            action = Action.move(e.route, e.direction)
        else:
            action = Action.move(e.route, e.direction, e.pay, paid)
        steps.append(Step(action, e.to, paid))
        hand = tuple(a - b for a, b in zip(hand, paid, strict=True))
        town, visited = e.to, visited | bit
    distance = None if target is None else board.distances[town][target]
    return Journey(p, tuple(steps), new, distance, hand,
                   usefulness(hand, state.rules.hand_limit, preference))


def _wild_action(e: Edge) -> Action:
    """A wild step is described by the placement it assumes (never played as a move)."""
    return Action.place(Transport(e.kind), e.route)


def best_move_action(state: ElfenlandState, preference: Sequence[int] = PREFERENCE) -> Action:
    """The first action of the best journey for the player to move (``end`` if none)."""
    if state.phase is not Phase.MOVE or state.discarding:
        raise ElfenlandError("the planner plans the move phase, before any discard")
    journey = plan_journey(state, preference=preference)
    return journey.actions[0]


def discard_choice(hand: Sequence[int], preference: Sequence[int] = PREFERENCE) -> int:
    """The card kind to discard: the least preferred one held."""
    held = [k for k in range(NUM_KINDS) if hand[k] > 0]
    if not held:
        raise ElfenlandError("no card to discard")
    return min(held, key=lambda k: (preference[k], k))
