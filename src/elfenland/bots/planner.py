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

The search is exhaustive, so the answer is exact: a depth-first search, memoised,
trying every step the engine would allow from each town — the normal payment from
``state.step_cost``, and any cards for a caravan (``state.caravan_size``) or the
boatmen.  Every step costs at least one card, so the search ends.

Which cards a caravan or the boatmen take is decided only once the journey is known.
For a fixed sequence of steps, let N be what its normal payments take (per kind) and A
how many cards its any-cards steps take.  It can be paid from hand H exactly when
N <= H kind by kind and |N| + A <= |H| (cards are never gained during a move; giving, at
each any-cards step, cards of R, the A least preferred cards of H - N, leaves every
later payment payable).  And H - N less R is the best hand it can leave: any other
hand left is H - N less some A cards, and position by position in order of preference
its cards are no more preferred, so keeping the ``hand_limit`` best is worth no more.
So a search state is (town, H - N so far, A so far, towns collected): one child per
caravan instead of one per multiset of cards, with exactly the same best journeys.

The search runs compiled (``_planner.c``, issue #16) when that extension was built and
``ELFENLAND_ENGINE`` is not ``pure``: the bots spend nearly all their time here, so a
faster engine alone does not make them faster.  The C code is a port of ``_reach`` and
``_Search`` below, which stay the reference and the fallback; the differential test
holds the two to the same journeys.  ``planner_backend()`` says which one runs.
"""

from __future__ import annotations

import heapq
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from ..core.errors import ElfenlandError
from ..core.transport import COST_TABLE, Terrain, Transport
from ..games.elfenland.actions import Action, CardCounts, Pay, cards_to_text
from ..games.elfenland.board import Board
from ..games.elfenland.state import NO_PIECE, ElfenlandState, Phase

try:
    from . import _planner
except ImportError:  # built without a C compiler: the pure search runs
    _planner = None  # type: ignore[assignment]

#: Whether the compiled search was built and imports.
AVAILABLE: Final = _planner is not None


def planner_backend() -> str:
    """``"compiled"`` when ``plan_journey`` searches in C, else ``"pure"``; read at every
    call, like the engines' ``ELFENLAND_ENGINE=pure`` switch it follows."""
    if _planner is None or os.environ.get("ELFENLAND_ENGINE", "").strip().lower() == "pure":
        return "pure"
    return "compiled"

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


#: Per town, its links: (route, direction, to, terrain, style, rafts), style 0 for a
#: road, 1 a river (rafts: its fixed price), 2 Mare Magnum, 3 Mare Nebulae.
_Links = list[list[tuple[int, int, int, int, int, int]]]
_BOARDS: dict[int, tuple[Board, _Links, tuple[int, ...]]] = {}
_COST: Final = tuple(tuple(COST_TABLE[t]) for t in Transport)


def _board_tables(board: Board) -> tuple[_Links, tuple[int, ...]]:
    """What the compiled planner needs of a board (``_compiled_tables``), worked out
    once."""
    hit = _BOARDS.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1], hit[2]
    links: _Links = []
    for town in range(len(board.towns)):
        row = []
        for r, to in board.adjacent[town]:
            route = board.routes[r]
            direction = 0 if route.a == town else 1
            if route.is_road:
                style, rafts = 0, 0
            elif route.terrain is Terrain.RIVER:
                style, rafts = 1, 1 if to == route.downstream else 2
            else:
                style, rafts = (3 if route.lake == "mare-nebulae" else 2), 0
            row.append((r, direction, to, int(route.terrain), style, rafts))
        links.append(row)
    flat = tuple(d for row in board.distances for d in row)
    _BOARDS[id(board)] = (board, links, flat)
    return links, flat


_TABLES: dict[int, tuple[Board, object]] = {}


def _compiled_tables(board: Board) -> object:
    """The compiled planner's copy of ``_board_tables`` and the cost table, made once a
    board."""
    hit = _TABLES.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1]
    assert _planner is not None
    links, flat = _board_tables(board)
    tables = _planner.tables(links, flat, board.capital, _COST)
    _TABLES[id(board)] = (board, tables)
    return tables


def compiled_module() -> Any:
    """The compiled planner's module (``_planner``: its search, the quick level's
    compiled rollouts), or None where it is not built or a test has set it aside."""
    return _planner


def compiled_tables(board: Board) -> object:
    """The compiled planner's tables of ``board`` (made once a board), for the quick
    level's compiled rollouts (``elfenland_quick.compiled_rollouts``)."""
    return _compiled_tables(board)


#: A compiled plan's steps as ``Step``s, by the facts ``_planner.plan`` gives: a game
#: meets a few thousand (routes, directions, payments), so they are built once.
_STEPS: dict[tuple[object, ...], Step] = {}
#: How many steps ``_STEPS`` holds before it starts again.  Each one held is an object
#: the cyclic garbage collector walks at every full collection, and a collection lands
#: inside some bot's decision, on its clock: with 200,000 (the first bound), over 1,600
#: four-player games in one process, the quick level's worst decision grew from 54 to
#: 95 ms of CPU against its 20 ms budget (session 32, ``bench/gc_pause.py``).  Games meet
#: new steps slowly (14,000 held after 10 games, 38,000 after 160), so the bound costs a
#: few thousand steps built again every couple of hundred four-player games.
STEP_CACHE = 20_000
_NORMAL_PAID: dict[tuple[int, int], CardCounts] = {}


def _compiled_step(fact: tuple[int, int, int, int, int, int, int, CardCounts | None]
                   ) -> Step:
    route, direction, to, kind, n, pay, wild, paid = fact
    if paid is None:
        paid = _NORMAL_PAID.get((kind, n))
        if paid is None:
            cards = [0] * NUM_KINDS
            cards[kind] = n
            paid = _NORMAL_PAID[kind, n] = tuple(cards)
        if wild:
            action = Action.place(Transport(kind), route)
        else:
            action = _MOVES.get((route, direction)) or _move(route, direction)
    else:
        action = Action.move(route, direction, Pay(pay), paid)
    step = Step(action, to, paid)
    if len(_STEPS) >= STEP_CACHE:
        _STEPS.clear()
    _STEPS[fact] = step
    return step


def _compiled_journey(board: Board, p: int,
                      got: tuple[tuple[tuple[int, int, int, int, int, int, int,
                                             CardCounts | None], ...],
                                 int, int, CardCounts, int],
                      target: int | None) -> Journey:
    """The ``Journey`` of ``_planner.plan``'s answer: ``_journey``'s, built from the facts
    the C code worked out."""
    facts, new, end, hand, useful = got
    steps = tuple(_STEPS.get(f) or _compiled_step(f) for f in facts)
    distance = None if target is None else board.distances[end][target]
    return Journey(p, steps, new, distance, hand, useful)


def _kept(hand: CardCounts, owed: int, cheapest_first: Sequence[int]) -> CardCounts:
    """The hand once its ``owed`` least preferred cards are given."""
    h = list(hand)
    for k in cheapest_first:
        if not owed:
            break
        take = min(owed, h[k])
        h[k] -= take
        owed -= take
    return tuple(h)


def _cheapest_first(preference: Sequence[int]) -> list[int]:
    return sorted(range(NUM_KINDS), key=lambda k: (preference[k], k))


class _Search:
    """One planning problem: fixed edges and scoring, a memo over the search states.

    A state is (town, hand, owed, visited).  Caravans and the boatmen take *any* cards,
    and which ones is decided only once the journey is complete (see ``plan_journey``):
    ``hand`` is the starting hand less the normal payments so far, ``owed`` the number
    of cards the any-cards steps so far will take from it.  The cards kept at the end
    are then ``hand`` less its ``owed`` least preferred cards."""

    #: ``Rules.caravan == "only-if-needed"``: a caravan only where the hand cannot pay the
    #: counter.  Tested on the hand before the owed cards are taken, so every caravan
    #: planned is legal (a journey that needs the owed cards to make one legal is missed).
    needed_only = False

    def __init__(self, edges: list[list[Edge]], capital: int, target: int | None,
                 distances: Sequence[Sequence[int]], limit: int,
                 preference: Sequence[int], max_cards: int,
                 end_bonus: Sequence[int] | None = None) -> None:
        self.edges = edges
        self.capital = capital
        self.target = target
        self.distances = distances
        self.limit = limit
        self.preference = preference
        #: Card kinds, least preferred first: the ones owed cards are taken from.
        self.cheapest_first = _cheapest_first(preference)
        bonus = [0] * len(distances) if end_bonus is None else list(end_bonus)
        self.u_span = max_cards * (CARD_VALUE + max(preference)) + max(bonus) + 1
        self.d_span = 1000
        self.town_unit = self.u_span * self.d_span
        self.memo: dict[tuple[int, CardCounts, int, int],
                        tuple[int, Edge | None, bool, bool]] = {}
        self._useful: dict[tuple[CardCounts, int], int] = {}
        self.all_towns = ((1 << len(distances)) - 1) & ~(1 << capital)
        #: within[t][c]: the towns that t's boot could reach with c cards at most.
        #: nearest[t]: (cheapest cost, town) from t, cheapest first.
        #: entry: (cost, the towns no step enters for less), cheapest first.
        self.within, self.nearest, self.entry = _reach(edges, max_cards)
        #: place[t]: what ending in t is worth, above the cards kept.
        self.place = [(self.d_span - 1 - (0 if target is None else distances[t][target]))
                      * self.u_span + bonus[t] for t in range(len(distances))]
        #: ceil[t][c]: the most the place can be worth from t with c cards left (each
        #: card takes the boot at most one link on).
        if end_bonus is None:
            self.ceil = [[(self.d_span - 1 - (0 if target is None
                                              else max(0, distances[t][target] - c)))
                          * self.u_span for c in range(max_cards + 1)]
                         for t in range(len(distances))]
        else:
            towns = range(len(distances))
            self.ceil = [[max(self.place[u] for u in towns if distances[t][u] <= c)
                          for c in range(max_cards + 1)] for t in towns]

    def kept(self, hand: CardCounts, owed: int) -> CardCounts:
        """The hand once its ``owed`` least preferred cards are given."""
        return _kept(hand, owed, self.cheapest_first)

    def useful(self, hand: CardCounts, owed: int) -> int:
        """Usefulness of the best hand left after giving ``owed`` cards: also a bound on
        what any journey from here keeps, as its cards are among those."""
        key = (hand, owed)
        u = self._useful.get(key)
        if u is None:
            u = usefulness(self.kept(hand, owed), self.limit, self.preference)
            self._useful[key] = u
        return u

    def more_towns(self, to: int, left: int, open_towns: int) -> int:
        """At most how many new towns a journey from ``to`` with ``left`` cards can add.
        Only towns within reach count; the first costs at least the way to the nearest,
        each further one at least a card more; and each is entered by a step costing at
        least the cheapest step into it, so those cheapest entries must fit the cards."""
        cand = self.within[to][left] & open_towns
        if not cand:
            return 0
        first = 0
        for c, u in self.nearest[to]:
            if cand >> u & 1:
                first = c
                break
        m = 0
        budget = left
        for c, mask in self.entry:
            k = (cand & mask).bit_count()
            if k:
                take = min(k, budget // c)
                m += take
                budget -= take * c
                if take < k:
                    break
        return min(m, left - first + 1)

    def key(self, town: int, hand: CardCounts, owed: int,
            visited: int) -> tuple[int, CardCounts, int, int]:
        """The memo key: collected towns out of reach cannot change what is left to
        gain, so they are left out (more states share an answer)."""
        return (town, hand, owed, visited & self.within[town][sum(hand) - owed])

    def best(self, town: int, hand: CardCounts, owed: int, visited: int,
             alpha: int = -1) -> int:
        """The best value from here if it is above ``alpha``; otherwise ``alpha``, meaning
        "no better than alpha" (a fail-low, as in alpha-beta search).

        Children are searched best bound first, and not at all once their bound (a new
        town for every reachable one the cards left can pay for, ending on the town
        card, keeping the best cards) cannot beat the threshold.  Exact values and
        fail-lows are memoised apart, so the root, searched with no threshold, gets the
        exact best and its journey."""
        left = sum(hand) - owed
        key = (town, hand, owed, visited & self.within[town][left])
        hit = self.memo.get(key)
        if hit is not None:
            value, exact = hit[0], hit[3]
            if exact or value <= alpha:
                return value
        top = self.place[town] + self.useful(hand, owed)
        floor = top if top > alpha else alpha
        choice: Edge | None = None
        choice_any = False
        capital = self.capital
        unit = self.town_unit
        ceil = self.ceil
        open_towns = self.all_towns & ~visited
        children: list[tuple[int, int, int, Edge, bool, CardCounts, int]] = []
        for i, e in enumerate(self.edges[town]):
            to = e.to
            bit = 0 if to == capital else 1 << to
            gain = unit if open_towns & bit else 0
            rest = open_towns & ~bit
            k, n = e.kind, e.n
            if hand[k] >= n and left >= n:
                h = list(hand)
                h[k] -= n
                child = tuple(h)
                bound = (gain + self.more_towns(to, left - n, rest) * unit
                         + ceil[to][left - n] + self.useful(child, owed))
                if bound > floor:
                    children.append((bound, i, gain, e, False, child, owed))
            size = e.any_cards
            if size and left >= size and not (
                    self.needed_only and e.pay is Pay.CARAVAN and hand[k] >= n):
                bound = (gain + self.more_towns(to, left - size, rest) * unit
                         + ceil[to][left - size] + self.useful(hand, owed + size))
                if bound > floor:
                    children.append((bound, i, gain, e, True, hand, owed + size))
        # New towns first (of equal journeys, the one collecting soonest is kept), then
        # the most promising.
        children.sort(key=lambda c: (-c[2], -c[0], c[1], c[4]))
        for bound, _, gain, e, any_cards, child, child_owed in children:
            threshold = top if top > alpha else alpha
            if bound <= threshold:
                continue
            bit = 0 if e.to == capital else 1 << e.to
            v = self.best(e.to, child, child_owed, visited | bit, threshold - gain) + gain
            if v > threshold:
                top, choice, choice_any = v, e, any_cards
        if top > alpha:
            self.memo[key] = (top, choice, choice_any, True)
            return top
        self.memo[key] = (alpha, None, False, False)
        return alpha


def _reach(edges: list[list[Edge]], max_cards: int) -> tuple[
        list[list[int]], list[list[tuple[int, int]]], list[tuple[int, int]]]:
    """Bounds on any journey, from the cheapest price of every step (normal or any
    cards): for each town, the towns reachable with c cards at most for every c, and the
    other towns by their cheapest cost; and the towns grouped by the cheapest step
    entering them.  Roads without a counter have no step, so they do not count."""
    n = len(edges)
    price = [[min(e.n, e.any_cards or e.n) for e in es] for es in edges]
    within: list[list[int]] = []
    nearest: list[list[tuple[int, int]]] = []
    for start in range(n):
        cost = [max_cards + 1] * n
        cost[start] = 0
        heap = [(0, start)]
        while heap:
            c, t = heapq.heappop(heap)
            if c > cost[t]:
                continue
            for e, p in zip(edges[t], price[t], strict=True):
                if c + p < cost[e.to]:
                    cost[e.to] = c + p
                    heapq.heappush(heap, (c + p, e.to))
        masks = [0] * (max_cards + 1)
        order = sorted((cost[t], t) for t in range(n) if t != start and cost[t] <= max_cards)
        for c, t in order:
            masks[c] |= 1 << t
        acc = 1 << start
        for c in range(max_cards + 1):
            acc |= masks[c]
            masks[c] = acc
        within.append(masks)
        nearest.append(order)
    cheapest_in = [0] * n
    for t, es in enumerate(edges):
        for e, p in zip(es, price[t], strict=True):
            if not cheapest_in[e.to] or p < cheapest_in[e.to]:
                cheapest_in[e.to] = p
    groups: dict[int, int] = {}
    for t, c in enumerate(cheapest_in):
        if c:
            groups[c] = groups.get(c, 0) | 1 << t
    return within, nearest, sorted(groups.items())


def _normal_paid(e: Edge) -> CardCounts:
    paid = [0] * NUM_KINDS
    paid[e.kind] = e.n
    return tuple(paid)


def plan_journey(state: ElfenlandState, player: int | None = None,
                 preference: Sequence[int] = PREFERENCE,
                 use_destination: bool | None = None,
                 wild_kinds: Sequence[int] = (), any_cards: bool = True,
                 end_bonus: Sequence[int] | None = None) -> Journey:
    """The best journey (see the module doc) for ``player`` (default: the one to act)
    from where their boot stands, with their hand and the counters on the board.

    Without ``wild_kinds`` every step is an engine action legal in turn from ``state``
    (when ``state`` is in the move phase and it is that player's turn).  With them, the
    journey may also cross empty roads as if the player had placed a counter of one of
    those kinds there: an estimate of what the player's counters are worth.
    ``any_cards=False`` leaves out caravans and the boatmen (a faster estimate).
    ``end_bonus``: a value (0 or more, per town) for ending the journey there, between
    the town card and the cards kept: a bot's sense of where to stand for the next
    round (on a scale where a card kept is worth about ``CARD_VALUE``)."""
    if end_bonus is not None and (len(end_bonus) != len(state.board.towns)
                                  or min(end_bonus) < 0):
        raise ElfenlandError("an end bonus gives one number (0 or more) per town")
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
    town, visited = state.boots[p], state.visited[p]
    needed_only = state.rules.caravan == "only-if-needed"
    path: list[tuple[Edge, bool]] | None = None
    if planner_backend() == "compiled":
        got = compiled_plan(state, p, hand, town, visited, target, state.route_counter,
                            state.route_obstacle, wild_kinds, any_cards, end_bonus,
                            preference)
        if got is not None:  # None: too big for the C code, which says so
            return got
    if path is None:
        path = _pure_path(state, board, hand, town, visited, target, preference,
                          wild_kinds, any_cards, end_bonus, needed_only)
    return _journey(state, p, path, hand, visited, target, preference)


def compiled_plan(state: ElfenlandState, p: int, hand: CardCounts, town: int, visited: int,
                  target: int | None, counters: Sequence[int], obstacles: Sequence[int],
                  wild_kinds: Sequence[int] = (), any_cards: bool = True,
                  end_bonus: Sequence[int] | None = None,
                  preference: Sequence[int] = PREFERENCE) -> Journey | None:
    """``plan_journey``'s compiled search on what the caller already read of the state
    (player ``p``'s hand, town, towns collected, the target town, the counters and
    obstacles on the routes), unchecked: for a bot's rollouts, which read those once for
    their memo's key.  None when the C code declines (or is not built); then
    ``plan_journey`` is the way."""
    if _planner is None:
        return None
    rules = state.rules
    board = state.board
    caravan = rules.caravan_cards if any_cards else 0
    got = _planner.plan(_compiled_tables(board), counters, obstacles, wild_kinds, caravan,
                        caravan + 1 if any_cards else 0, caravan if rules.boatmen else 0,
                        rules.mare_magnum_rafts, rules.mare_nebulae_rafts,
                        -1 if target is None else target, end_bonus, rules.hand_limit,
                        preference, hand, town, visited,
                        rules.caravan == "only-if-needed")
    return None if got is None else _compiled_journey(board, p, got, target)


def _pure_path(state: ElfenlandState, board: Board, hand: CardCounts, town: int,
               visited: int, target: int | None, preference: Sequence[int],
               wild_kinds: Sequence[int], any_cards: bool,
               end_bonus: Sequence[int] | None,
               needed_only: bool) -> list[tuple[Edge, bool]]:
    """The reference search: the best journey's steps, each with whether it pays any
    cards (a caravan or the boatmen)."""
    edges = edges_of(state, wild_kinds, any_cards)
    if sum(hand) + 50 > sys.getrecursionlimit():
        sys.setrecursionlimit(sum(hand) + 100)
    search = _Search(edges, board.capital, target, board.distances,
                     state.rules.hand_limit, preference, sum(hand), end_bonus)
    search.needed_only = needed_only
    search.best(town, hand, 0, visited)
    path: list[tuple[Edge, bool]] = []
    owed = 0
    here, left, seen = town, hand, visited
    while True:
        _, e, any_step, _ = search.memo[search.key(here, left, owed, seen)]
        if e is None:
            break
        path.append((e, any_step))
        if any_step:
            owed += e.any_cards
        else:
            left = tuple(c - e.n if k == e.kind else c for k, c in enumerate(left))
        bit = 0 if e.to == board.capital else 1 << e.to
        here, seen = e.to, seen | bit
    return path


def _journey(state: ElfenlandState, p: int, path: list[tuple[Edge, bool]],
             hand: CardCounts, visited: int, target: int | None,
             preference: Sequence[int]) -> Journey:
    """The journey of a path the search found: then choose the cards its any-cards
    steps give, the least preferred of what its normal payments leave.  Giving them in
    the journey's order is legal, as every later normal payment is made from the other
    cards."""
    board = state.board
    cheapest_first = _cheapest_first(preference)
    owed = 0
    new = 0
    here, left, seen = state.boots[p], hand, visited
    for e, any_step in path:
        if any_step:
            owed += e.any_cards
        else:
            left = tuple(c - e.n if k == e.kind else c for k, c in enumerate(left))
        bit = 0 if e.to == board.capital else 1 << e.to
        if bit and not seen & bit:
            new += 1
        here, seen = e.to, seen | bit
    final = _kept(left, owed, cheapest_first)
    given = [a - b for a, b in zip(left, final, strict=True)]
    steps: list[Step] = []
    for e, any_step in path:
        paid = _normal_paid(e)
        if any_step:
            chosen = [0] * NUM_KINDS
            size = e.any_cards
            for k in cheapest_first:
                take = min(size, given[k])
                chosen[k] = take
                given[k] -= take
                size -= take
            paid = tuple(chosen)
        if e.wild:
            action = _wild_action(e)
        elif paid == _normal_paid(e):
            action = _MOVES.get((e.route, e.direction)) or _move(e.route, e.direction)
        else:
            action = Action.move(e.route, e.direction, e.pay, paid)
        steps.append(Step(action, e.to, paid))
    distance = None if target is None else board.distances[here][target]
    return Journey(p, tuple(steps), new, distance, final,
                   usefulness(final, state.rules.hand_limit, preference))


#: The canonical normal-payment step per (route, direction): building it is a good part
#: of a compiled plan's time.
_MOVES: dict[tuple[int, int], Action] = {}


def _move(route: int, direction: int) -> Action:
    action = _MOVES[route, direction] = Action.move(route, direction)
    return action


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
