"""Elfengold's fixed-size observation vector (the third game of ``envs.observation``).

The blocks carry what ``view(player)`` shows and nothing else, under the view's own
rules: the observer's hand, face-down items and just-drawn items; every player's coins
only while ``eg_public_gold`` holds (else the observer's own, and everyone's once the game
is over); the other players' face-down items as a count; town cards of others only at the
end.  The board (counters, Doubles, obstacles, gold pieces), the gold value of every town
and the auction (the item up, the rest of the row, the high bid and bidder, who passed and
who is out after failing to pay) are public.  Seats are relative to the observer, as in
the other games, so one policy serves every seat.

The layout's shape depends only on the number of players: blocks a rule option leaves
empty (town cards, witches) stay in place as zeros, so a policy trained under one option
set reads another's vectors.  Whether the ``coins`` block is observer-only follows
``eg_public_gold``.

Like the other encoders it reads the state's attributes rather than calling ``view()``
(which builds the game log, and every legal action's text in an auction); the tests check
each block against ``view(player)`` and that re-dealing every hidden thing
(``resample_from_infostate``) leaves the vector unchanged.  There is no compiled Elfengold
encoder yet, so this Python one is also the fast path.
"""

from __future__ import annotations

from array import array
from typing import Final

import numpy as np

from ..games.elfengold.items import (
    COINS_PER_GOLD_CARD,
    DISPLAY,
    GOLD_CARDS,
    GOLD_TOKENS,
    HAND_KINDS,
    INCOME,
    ITEM_COUNTS,
    ITEMS_DRAWN,
    MAX_BID,
    NUM_CARDS,
    NUM_COUNTERS,
    NUM_ITEMS,
    SEA_MONSTER,
    START_COINS,
    TOTAL_ITEMS,
    TRAVEL_CARDS,
    TRAVEL_PER_KIND,
    TREE,
    WITCH_CARDS,
)
from ..games.elfengold.options import Rules
from ..games.elfengold.state import NONE, ElfengoldState, Phase
from ..games.elfenland.board import load_board
from .observation import FloatArray, Layout, _Encoder

#: The engine's phases in the order of the ``phase`` block.
PHASES: Final = tuple(Phase)
_PHASE_INDEX: Final = {ph: i for i, ph in enumerate(PHASES)}
#: Cards a hand can hold at most (no gold card is ever held), so also the most steps
#: one move can take: every step spends at least one card.
MAX_HAND: Final = TRAVEL_CARDS + WITCH_CARDS
#: The most gold one arrival earns: the highest token, doubled by a gold piece.
MAX_ARRIVAL_GOLD: Final = 2 * max(GOLD_TOKENS)
#: Draws a player makes in a round that may take the gold card deck (3 in phase 1, 2
#: after the move).
_TAKES_PER_ROUND: Final = 5

#: The rule options in the ``rules`` block, each as one number (1.0 for the named
#: choice, the value for a count), in this order.
RULE_FEATURES: Final = (
    ("eg_card_draw", "three-at-once"), ("eg_gold_in_display", "stays-face-up"),
    ("eg_overbid", "capped"), ("eg_defaulter_rebids", True), ("eg_public_gold", True),
    ("eg_hand_limit", None), ("eg_hand_limit_when", "after-draw"),
    ("eg_used_obstacles", "remove"), ("eg_flight_collects_piece", True),
    ("eg_exchange_same_kind", True), ("eg_tiebreak", "coins-cards"),
    ("eg_witch_in_caravan", True), ("caravan", "only-if-needed"), ("random_gold", True),
    ("witch", True), ("town_cards", True),
)

def coin_bound(rules: Rules) -> int:
    """An upper bound on any player's coins: the 12 to start, then per round the income,
    the most one move can earn and five takes of the whole gold card deck."""
    per_round = INCOME + MAX_HAND * MAX_ARRIVAL_GOLD + \
        _TAKES_PER_ROUND * COINS_PER_GOLD_CARD * GOLD_CARDS
    return START_COINS + rules.rounds * per_round


def _rule_values(rules: Rules) -> list[float]:
    out = []
    for name, on in RULE_FEATURES:
        value = getattr(rules, name)
        out.append(float(value) if on is None else float(value == on))
    return out


def elfengold_layout(n: int, rules: Rules) -> Layout:
    board = load_board()
    towns, roads, routes = len(board.towns), len(board.roads), len(board.routes)
    diameter = max(max(row) for row in board.distances)
    cards_total = TRAVEL_CARDS + WITCH_CARDS + GOLD_CARDS
    most = max(ITEM_COUNTS)
    lay = Layout()
    lay.add("phase", len(PHASES), 1)
    lay.add("round", 1, rules.rounds)
    lay.add("rounds", 1, rules.rounds)
    lay.add("current_player", n, 1)
    lay.add("starting_player", n, 1)
    lay.add("rules", len(RULE_FEATURES), max(rules.eg_hand_limit, 1))
    lay.add("gold_values", towns, max(GOLD_TOKENS))
    lay.add("display", NUM_CARDS, DISPLAY)
    lay.add("gold_deck", 1, GOLD_CARDS)
    lay.add("supply", 1, cards_total)
    lay.add("discard", 1, cards_total)
    lay.add("item_pile", 1, TOTAL_ITEMS)
    lay.add("road_counters", roads * NUM_COUNTERS, 2)
    lay.add("road_double", roads, 1)
    lay.add("road_gold_piece", roads, 1)
    lay.add("route_obstacle", routes * 2, 1)
    lay.add("auction_item", NUM_ITEMS, 1)
    lay.add("auction_row", NUM_ITEMS, 2 * n)
    lay.add("auction_high_bid", 1, MAX_BID)
    lay.add("auction_high_bidder", n, 1)
    lay.add("auction_passed", n, 1)
    lay.add("auction_excluded", n, 1)
    lay.add("earned", 1, MAX_HAND * MAX_ARRIVAL_GOLD)
    lay.add("draws_left", 1, 2)
    coins_hidden = not rules.eg_public_gold
    for seat in range(n):
        lay.add("boot", towns, 1, seat)
        lay.add("towns", towns, 1, seat)
        lay.add("markers", 1, towns - 1, seat)
        lay.add("cards", 1, MAX_HAND, seat)
        lay.add("coins", 1, coin_bound(rules), seat, private=coins_hidden)
        lay.add("items", NUM_ITEMS, most, seat)
        lay.add("kept_items", NUM_ITEMS, most, seat)
        lay.add("face_down_items", 1, TOTAL_ITEMS, seat)
        lay.add("hand", HAND_KINDS, TRAVEL_PER_KIND, seat, private=True)
        lay.add("face_down", NUM_ITEMS, most, seat, private=True)
        lay.add("kept_face_down", NUM_ITEMS, most, seat, private=True)
        lay.add("drawn", NUM_ITEMS, ITEMS_DRAWN, seat, private=True)
        lay.add("town_card", towns, 1, seat, private=True)
        lay.add("distance", 1, diameter, seat, private=True)
    return lay


_SEAT_BLOCKS: Final = ("boot", "towns", "markers", "cards", "coins", "items", "kept_items",
                       "face_down_items", "hand", "face_down", "kept_face_down", "drawn",
                       "town_card", "distance")
_OBSTACLE_COLUMN: Final = {TREE: 0, SEA_MONSTER: 1}
_P_OVER: Final = Phase.OVER
_P_AUCTION: Final = Phase.AUCTION
_P_DRAW_ITEMS: Final = Phase.DRAW_ITEMS
#: The set bits of every 7-bit number (towns visited are a 21-bit mask).
_BITS: Final = tuple(tuple(b for b in range(7) if m >> b & 1) for m in range(128))
_EARNING: Final = frozenset({Phase.MOVE, Phase.SETTLE, Phase.DISCARD, Phase.MOVE_DRAW})


class ElfengoldEncoder(_Encoder):
    """Writes Elfengold vectors for one player count and rule set."""

    def __init__(self, n: int, rules: Rules) -> None:
        self.n = n
        self.rules = rules
        self.layout = elfengold_layout(n, rules)
        lay = self.layout
        board = load_board()
        self.board = board
        self.roads = board.roads
        self.num_routes = len(board.routes)
        self.num_towns = len(board.towns)
        self.o = {b.name: b.offset for b in lay.blocks if b.seat is None}
        self.o_seat = [lay.offset("boot", s) for s in range(n)]
        base = self.o_seat[0]
        self.d = tuple(lay.offset(name, 0) - base for name in _SEAT_BLOCKS)
        self.public_gold = rules.eg_public_gold
        #: The zero vector with what never changes in a game (the rules, the number of
        #: rounds) filled in; each encoding starts from a copy.
        self.template = array("f", bytes(4 * lay.size))
        o_rules = self.o["rules"]
        self.template[o_rules:o_rules + len(RULE_FEATURES)] = array("f", _rule_values(rules))
        self.template[self.o["rounds"]] = rules.rounds

    def encode_python(self, s: ElfengoldState, player: int) -> FloatArray:
        n, o = self.n, self.o
        v = self.template[:]
        over = s.phase is _P_OVER
        v[o["phase"] + _PHASE_INDEX[s.phase]] = 1.0
        v[o["round"]] = s.round
        if not over:
            v[o["current_player"] + (s.current - player) % n] = 1.0
        v[o["starting_player"] + (s.starting - player) % n] = 1.0
        og = o["gold_values"]
        v[og:og + self.num_towns] = array("f", s.gold_values)
        od = o["display"]
        v[od:od + NUM_CARDS] = array("f", s.display)
        v[o["gold_deck"]] = s.gold_deck
        v[o["supply"]] = sum(s.supply)
        v[o["discard"]] = sum(s.discard)
        v[o["item_pile"]] = sum(s.item_pile)
        counters = s.counters
        if any(counters):
            oc = o["road_counters"]
            for j, r in enumerate(self.roads):
                for k in counters[r]:
                    v[oc + j * NUM_COUNTERS + k] += 1.0
        if any(s.double):
            odb = o["road_double"]
            for j, r in enumerate(self.roads):
                if s.double[r]:
                    v[odb + j] = 1.0
        if any(s.gold_piece):
            ogp = o["road_gold_piece"]
            for j, r in enumerate(self.roads):
                if s.gold_piece[r]:
                    v[ogp + j] = 1.0
        if max(s.obstacle) != NONE:
            oo = o["route_obstacle"]
            for r, ob in enumerate(s.obstacle):
                if ob != NONE:
                    v[oo + 2 * r + _OBSTACLE_COLUMN[ob]] = 1.0
        if s.phase is _P_AUCTION and s.row:
            v[o["auction_item"] + s.row[0]] = 1.0
            orow = o["auction_row"]
            for k in s.row:
                v[orow + k] += 1.0
            v[o["auction_high_bid"]] = s.high_bid
            if s.high_bidder != NONE:
                v[o["auction_high_bidder"] + (s.high_bidder - player) % n] = 1.0
            if s.passed or s.excluded:
                op, oe = o["auction_passed"], o["auction_excluded"]
                for q in range(n):
                    if s.passed >> q & 1:
                        v[op + (q - player) % n] = 1.0
                    if s.excluded >> q & 1:
                        v[oe + (q - player) % n] = 1.0
        if s.phase in _EARNING:
            v[o["earned"]] = s.earned
            v[o["draws_left"]] = s.draws_left
        (d_boot, d_towns, d_markers, d_cards, d_coins, d_items, d_kept, d_down_n, d_hand,
         d_down, d_kept_down, d_drawn, d_card, d_distance) = self.d
        show_coins = self.public_gold or over
        for rel in range(n):
            p = (player + rel) % n
            base = self.o_seat[rel]
            mine = p == player
            v[base + d_boot + s.boots[p]] = 1.0
            visited = s.visited[p]
            if visited:
                ot = base + d_towns
                for t in _BITS[visited & 0x7F]:
                    v[ot + t] = 1.0
                for t in _BITS[visited >> 7 & 0x7F]:
                    v[ot + 7 + t] = 1.0
                for t in _BITS[visited >> 14 & 0x7F]:
                    v[ot + 14 + t] = 1.0
                v[base + d_markers] = visited.bit_count()
            v[base + d_cards] = sum(s.hands[p])
            if show_coins or mine:
                v[base + d_coins] = s.coins[p]
            oi = base + d_items
            v[oi:oi + NUM_ITEMS] = array("f", s.items_up[p])
            ok = base + d_kept
            v[ok:ok + NUM_ITEMS] = array("f", s.kept_up[p])
            v[base + d_down_n] = sum(s.items_down[p]) + sum(s.kept_down[p])
            if mine:
                oh = base + d_hand
                v[oh:oh + HAND_KINDS] = array("f", s.hands[p])
                o1 = base + d_down
                v[o1:o1 + NUM_ITEMS] = array("f", s.items_down[p])
                o2 = base + d_kept_down
                v[o2:o2 + NUM_ITEMS] = array("f", s.kept_down[p])
                if s.phase is _P_DRAW_ITEMS and s.current == player:
                    odr = base + d_drawn
                    for k in s.drawn:
                        v[odr + k] += 1.0
            if (mine or over) and s.town_cards[p] != NONE:
                v[base + d_card + s.town_cards[p]] = 1.0
                v[base + d_distance] = s.distance_to_card(p)
        return np.frombuffer(v, dtype=np.float32)
