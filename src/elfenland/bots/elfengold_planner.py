"""The Elfengold movement planner: the best move for the player to act, for towns *and*
gold.

It is the Elfenland planner's idea (``planner.py``) carried over to Elfengold's board
and payments, in pure Python (the compiled ``_planner.c`` stays Elfenland's): an
exhaustive depth-first search, memoised, over every step the engine allows from a town
(the counters' normal payment with a tree or sea monster's extra card, the witch's
bypass for one coin, a caravan of any cards), so the answer is exact for the move it
models.  "Best" is lexicographic:

1. the most new towns (town pieces not yet collected);
2. with town cards, ending closest to the card's town;
3. the *worth* of the move: the gold earned at every arrival (doubled over a gold
   piece), less the coins the witch costs, plus ``CARD_COINS`` per card left in hand —
   coins buy items and break ties, cards are next round's steps.

A caravan's cards are chosen only once the journey is known, exactly as in Elfenland's
planner: a search state is (town, hand less the normal payments so far, cards owed to
caravans, coins, towns collected), and the owed cards are the least preferred of what
the journey's normal payments leave.  The witch's magic flight is tried from the town
the boot stands in (the bot plans again after every step, so a flight later in the move
is found then).  Moves are searched up to ``max_steps`` steps (``MAX_STEPS``): Elfengold
has no hand limit by default, and twenty cards over a full board make the exhaustive
search exponential; within that length the answer is exact.

``wild_kinds`` adds a step over every empty road with a counter of those kinds, as if
the player could lay one there: the *wish* move that drawing, bidding and placing aim
at.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..core.transport import COST_TABLE, Transport
from ..games.elfengold.actions import Action, Kind, Pay, make, tables
from ..games.elfengold.items import (
    FLIGHT_COINS,
    HAND_KINDS,
    NUM_COUNTERS,
    RAFT,
    WITCH,
    WITCH_BYPASS_COINS,
)
from ..games.elfengold.state import NONE, ElfengoldState

#: What a card left in hand is worth, in coins, against gold earned.
CARD_COINS: Final = 2
#: Card kinds kept first (higher first) when a caravan takes "any" cards: rafts and the
#: transports cheap on most terrains, the witch above all (it saves a card and a block).
PREFERENCE: Final[tuple[int, ...]] = (3, 4, 1, 5, 2, 6, 7, 8)
#: The longest move searched: the search is exact among moves of at most this many
#: steps (a hand of many cards on a board of many counters is otherwise exponential).
MAX_STEPS: Final = 10
#: States the search may hold: past it, the deepest length searched in full stands.
BUDGET: Final = 30_000

Hand = tuple[int, ...]
Value = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Edge:
    route: int
    direction: int
    to: int
    #: Normal payment: card kind and how many (kind -1: a caravan of ``any_cards``).
    kind: int
    n: int
    any_cards: int
    witch: bool
    gold: int
    wild: bool = False


@dataclass(frozen=True, slots=True)
class GoldJourney:
    player: int
    #: The engine actions of the move in order (a flight, steps); ``end`` is not listed.
    actions: tuple[Action, ...]
    towns: tuple[int, ...]
    new_towns: int
    gold: int
    coins_spent: int
    distance: int | None
    cards_left: int
    #: Whether a step needs a counter the player has still to lay (a wish move).
    wild_steps: tuple[tuple[int, int], ...]

    @property
    def worth(self) -> int:
        return self.gold - self.coins_spent + CARD_COINS * self.cards_left

    @property
    def key(self) -> Value:
        return (self.new_towns, -(self.distance or 0), self.worth)

    @property
    def first(self) -> Action:
        return self.actions[0] if self.actions else tables().end


def edges_of(s: ElfengoldState, wild_kinds: Sequence[int] = ()) -> list[list[Edge]]:
    """Every step from every town with the items now on the board, priced as the engine
    prices it."""
    board = s.board
    witch = s.rules.witch
    out: list[list[Edge]] = [[] for _ in board.towns]
    for route in board.routes:
        r = route.index
        blocked = s.obstacle[r] != NONE
        doubled = 2 if s.gold_piece[r] else 1
        for d in (0, 1):
            frm, to = (route.a, route.b) if d == 0 else (route.b, route.a)
            gold = s.gold_values[to] * doubled
            row = out[frm]
            if route.is_road:
                kinds = sorted(set(s.counters[r]))
                for k in kinds:
                    base = s.step_base(r, d, k)
                    if base is None:
                        continue
                    row.append(Edge(r, d, to, k, base + blocked, 0, False, gold))
                    if witch and blocked:
                        row.append(Edge(r, d, to, k, base, 0, True, gold))
                if kinds:
                    row.append(Edge(r, d, to, -1, 0, s.caravan_size(r), False, gold))
                else:
                    for k in wild_kinds:
                        cost = COST_TABLE[Transport(k)][route.terrain]
                        if cost is not None:
                            row.append(Edge(r, d, to, k, cost, 0, False, gold, True))
            else:
                base = s.step_base(r, d, RAFT)
                assert base is not None
                row.append(Edge(r, d, to, RAFT, base + blocked, 0, False, gold))
                if witch and blocked:
                    row.append(Edge(r, d, to, RAFT, base, 0, True, gold))
    return out


class _OverBudget(Exception):
    """The search met its budget of states or its deadline: the last depth searched in
    full stands."""


#: New states between two looks at the clock (a look costs about as much as a state).
CLOCK_EVERY: Final = 256


class _Search:
    def __init__(self, s: ElfengoldState, p: int, edges: list[list[Edge]],
                 budget: int, deadline: float | None = None,
                 end_bonus: Sequence[int] | None = None,
                 card_coins: int = CARD_COINS) -> None:
        self.edges = edges
        #: What a card left in hand is worth (``plan_move``'s ``card_coins``).
        self.card_coins = card_coins
        #: Added to a move's worth for ending in each town (``plan_move``'s ``end_bonus``).
        self.end_bonus = end_bonus
        #: The same edges as plain tuples, read in the hot loop (attribute access on a
        #: dataclass per edge and state is most of the search's time otherwise).
        self.flat = [[(e.kind, e.n, e.any_cards, e.witch, e.to, e.gold, e.route,
                       e.direction, e) for e in row] for row in edges]
        self.capital = s.board.capital
        self.target = s.town_cards[p] if s.rules.town_cards and s.town_cards[p] != NONE \
            else None
        self.distances = s.board.distances
        self.witch_in_caravan = s.rules.eg_witch_in_caravan
        self.only_if_needed = s.rules.caravan == "only-if-needed"
        self.budget = budget
        self.deadline = deadline
        self.memo: dict[tuple[int, Hand, int, int, int, int],
                        tuple[Value, Edge | None] | None] = {}

    def best(self, town: int, hand: Hand, owed: int, coins: int, visited: int,
             depth: int) -> tuple[Value, Edge | None] | None:
        key = (town, hand, owed, coins, visited, depth)
        memo = self.memo
        if key in memo:
            return memo[key]
        size = len(memo)
        if size > self.budget:
            raise _OverBudget
        if self.deadline is not None and not size % CLOCK_EVERY \
                and time.perf_counter() > self.deadline:
            raise _OverBudget
        total = sum(hand)
        usable = total if self.witch_in_caravan else total - hand[WITCH]
        if usable < owed:
            # Payments only take cards away and caravans only add to what is owed: no
            # later stop can settle the caravans either.
            memo[key] = None
            return None
        dist = 0 if self.target is None else self.distances[town][self.target]
        left = self.card_coins * (total - owed)
        if self.end_bonus is not None:
            left += self.end_bonus[town]
        best: tuple[Value, Edge | None] = ((0, -dist, left), None)
        bv = best[0]
        if depth:
            capital = self.capital
            for kind, n, any_cards, witch, to, gold, route, direction, e in self.flat[town]:
                c = coins
                o = owed
                if kind < 0:
                    if usable < owed + any_cards:
                        continue
                    if self.only_if_needed and any(
                            f.route == route and f.direction == direction and f.kind >= 0
                            and not f.witch and hand[f.kind] >= f.n
                            for f in self.edges[town]):
                        continue
                    o = owed + any_cards
                    h = hand
                else:
                    if hand[kind] < n:
                        continue
                    lst = list(hand)
                    lst[kind] -= n
                    if witch:
                        if lst[WITCH] < 1 or coins < WITCH_BYPASS_COINS:
                            continue
                        lst[WITCH] -= 1
                        c = coins - WITCH_BYPASS_COINS
                    h = tuple(lst)
                if to == capital:
                    new, vis = 0, visited
                else:
                    new = 0 if visited >> to & 1 else 1
                    vis = visited | 1 << to
                child = self.best(to, h, o, c, vis, depth - 1)
                if child is None:
                    continue
                cv = child[0]
                v = (cv[0] + new, cv[1], cv[2] + gold - (coins - c))
                if v > bv:
                    best, bv = (v, e), v
        memo[key] = best
        return best

    def path(self, town: int, hand: Hand, owed: int, coins: int, visited: int,
             depth: int) -> list[tuple[Edge, Hand, int]]:
        """The best edges in order, each with the hand and owed cards after it."""
        out: list[tuple[Edge, Hand, int]] = []
        while True:
            got = self.best(town, hand, owed, coins, visited, depth)
            if got is None or got[1] is None:
                return out
            e = got[1]
            if e.kind < 0:
                owed += e.any_cards
            else:
                lst = list(hand)
                lst[e.kind] -= e.n
                if e.witch:
                    lst[WITCH] -= 1
                    coins -= WITCH_BYPASS_COINS
                hand = tuple(lst)
            out.append((e, hand, owed))
            depth -= 1
            town = e.to
            visited |= 0 if town == self.capital else 1 << town


def _caravan_cards(left: Hand, size: int, witch_ok: bool,
                   preference: Sequence[int]) -> tuple[int, ...] | None:
    """The ``size`` least preferred cards of ``left`` (the witch only if allowed)."""
    counts = [0] * HAND_KINDS
    need = size
    for k in sorted(range(HAND_KINDS), key=lambda k: preference[k]):
        if k == WITCH and not witch_ok:
            continue
        take = min(need, left[k])
        counts[k] += take
        need -= take
        if need == 0:
            return tuple(counts)
    return None


def _options(s: ElfengoldState, search: _Search, town0: int, h0: Hand, coins0: int,
             vis0: int, max_steps: int, fly: bool
             ) -> list[tuple[Value, int, Hand, int, int, int | None]]:
    """The best move from the boot's town and after each magic flight, at one depth."""
    options: list[tuple[Value, int, Hand, int, int, int | None]] = []
    first = search.best(town0, h0, 0, coins0, vis0, max_steps)
    if first is not None:
        options.append((first[0], town0, h0, coins0, vis0, None))
    if fly and s.rules.witch and h0[WITCH] and coins0 >= FLIGHT_COINS:
        hf = list(h0)
        hf[WITCH] -= 1
        hfly = tuple(hf)
        collects = s.rules.eg_flight_collects_piece
        for t in range(len(s.board.towns)):
            if t == town0:
                continue
            gain = collects and t != s.board.capital and not vis0 >> t & 1
            vis = vis0 | (1 << t) if collects and t != s.board.capital else vis0
            got = search.best(t, hfly, 0, coins0 - FLIGHT_COINS, vis, max_steps)
            if got is None:
                continue
            v = (got[0][0] + int(gain), got[0][1], got[0][2] - FLIGHT_COINS)
            options.append((v, t, hfly, coins0 - FLIGHT_COINS, vis, t))
    return options


def plan_move(s: ElfengoldState, p: int | None = None, wild_kinds: Sequence[int] = (),
              preference: Sequence[int] = PREFERENCE, fly: bool = True,
              hand: Sequence[int] | None = None, start: int | None = None,
              visited: int | None = None, max_steps: int = MAX_STEPS,
              budget: int = BUDGET, deadline: float | None = None,
              end_bonus: Sequence[int] | None = None,
              card_coins: int = CARD_COINS) -> GoldJourney:
    """The best move for player ``p`` (default: the player to act) from the board as it
    is; ``hand``, ``start`` and ``visited`` replace the state's (look-ahead).
    ``deadline`` (a ``time.perf_counter()`` value) stops the deepening like the budget
    does, checked inside the search every ``CLOCK_EVERY`` states; without it the answer
    depends on the state alone, never on the machine's load.  ``end_bonus`` (per town)
    is added to the worth of a move ending there: it ranks after the towns (and the town
    card), and the journey's own ``worth`` leaves it out.  ``card_coins`` is what a card
    left in hand is worth against gold: 0 in the last round, when cards score nothing."""
    if p is None:
        p = s.current
    edges = edges_of(s, wild_kinds)
    search = _Search(s, p, edges, budget, deadline, end_bonus, card_coins)
    h0: Hand = tuple(s.hands[p] if hand is None else hand)
    town0 = s.boots[p] if start is None else start
    vis0 = s.visited[p] if visited is None else visited
    coins0 = s.coins[p] if s.rules.witch else 0
    chosen: tuple[Value, int, Hand, int, int, int | None] | None = None
    depth = 0
    for d in range(1, max_steps + 1):
        try:
            found = _options(s, search, town0, h0, coins0, vis0, d, fly)
        except _OverBudget:
            break
        if not found:
            break
        chosen, depth = max(found, key=lambda o: o[0]), d
    if chosen is None:  # not even one step within the budget: stop here
        return GoldJourney(p, (), (), 0, 0, 0, None, sum(h0), ())
    value, town, hand1, coins1, vis1, flown = chosen
    path = search.path(town, hand1, 0, coins1, vis1, depth)
    owed_total = path[-1][2] if path else 0
    left_after = path[-1][1] if path else hand1
    # The cards left for caravans: the hand less every normal payment of the journey.
    actions: list[Action] = []
    towns: list[int] = []
    wild: list[tuple[int, int]] = []
    gold = 0
    spent = 0
    if flown is not None:
        actions.append(make(Kind.FLY, amount=flown))
        towns.append(flown)
        spent += FLIGHT_COINS
    pool = list(left_after)
    for e, _, _ in path:
        if e.kind < 0:
            cards = _caravan_cards(tuple(pool), e.any_cards, s.rules.eg_witch_in_caravan,
                                   preference)
            if cards is None:
                break
            for k, n in enumerate(cards):
                pool[k] -= n
            actions.append(make(Kind.MOVE, route=e.route, direction=e.direction,
                                pay=Pay.CARAVAN, cards=cards))
        else:
            actions.append(make(Kind.MOVE, e.kind, e.route, e.direction,
                                pay=Pay.WITCH if e.witch else Pay.NORMAL))
            if e.witch:
                spent += WITCH_BYPASS_COINS
            if e.wild:
                wild.append((e.kind, e.route))
        towns.append(e.to)
        gold += e.gold
    end_town = towns[-1] if towns else town0
    distance = (s.board.distances[end_town][s.town_cards[p]]
                if s.rules.town_cards and s.town_cards[p] != NONE else None)
    return GoldJourney(p, tuple(actions), tuple(towns), value[0], gold, spent, distance,
                       sum(left_after) - owed_total, tuple(wild))


def held_counter_kinds(s: ElfengoldState, p: int) -> list[int]:
    """Counter kinds the player holds in their play area (face up or down)."""
    return [k for k in range(NUM_COUNTERS) if s.holds(p, k)]


__all__ = ["CARD_COINS", "PREFERENCE", "Edge", "GoldJourney", "edges_of",
           "held_counter_kinds", "plan_move"]
