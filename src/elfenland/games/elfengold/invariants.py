"""What every Elfengold state must satisfy, reached by play or loaded from a position:
the 48 items, the 63 travel cards, 7 gold cards (and 6 witches) and every coin accounted
for; the limits on roads, hands and kept items; the turn bookkeeping.  The position
loader, the property tests and ``bench/soak.py`` share these checks.
"""

from __future__ import annotations

from ...core.errors import InvariantError
from ...core.game import TERMINAL
from ...core.transport import COST_TABLE, Transport
from .items import (
    DISPLAY,
    DOUBLE,
    GOLD_CARD,
    GOLD_PIECE,
    HAND_KINDS,
    ITEM_COUNTS,
    ITEM_SLUGS,
    ITEMS_DRAWN,
    ITEMS_KEPT,
    NUM_ITEMS,
    SEA_MONSTER,
    TREE,
    card_counts,
)
from .state import NONE, ElfengoldState, Phase

#: ``new_game`` options covering every option and variant, for tests and the soak.
CONFIGURATIONS: tuple[dict[str, object], ...] = (
    {},
    {"witch": True, "random_gold": True, "town_cards": True},
    {"eg_card_draw": "three-at-once", "eg_gold_in_display": "stays-face-up",
     "eg_overbid": "capped", "eg_public_gold": False, "witch": True},
    {"eg_defaulter_rebids": True, "eg_hand_limit": 4, "eg_used_obstacles": "remove",
     "eg_exchange_same_kind": True, "witch": True, "eg_witch_in_caravan": False},
    {"eg_hand_limit": 4, "eg_hand_limit_when": "after-draw", "eg_tiebreak": "coins-cards",
     "caravan": "only-if-needed", "witch": True, "eg_flight_collects_piece": False,
     "town_cards": True},
    {"rounds": 3, "eg_overbid": "capped", "random_gold": True},
)


def _fail(message: str) -> None:
    raise InvariantError(message)


def check_state(s: ElfengoldState) -> None:
    """Raise ``InvariantError`` saying what is wrong, if anything is."""
    check_material(s)
    check_board(s)
    check_turn(s)


def _occupied(s: ElfengoldState) -> list[int]:
    """The routes that hold anything (few: the checks look only at these)."""
    return [r for r in range(len(s.counters))
            if s.counters[r] or s.obstacle[r] != NONE or s.gold_piece[r] or s.double[r]]


def check_material(s: ElfengoldState) -> None:
    totals = card_counts(s.rules.witch)
    if min(map(min, s.hands)) < 0:
        _fail("a hand holds a negative number of cards")
    held = [sum(col) for col in zip(*s.hands, strict=True)] + [s.gold_deck]
    for k in range(HAND_KINDS + 1):
        places = (held[k], s.supply[k], s.display[k], s.discard[k])
        if min(places) < 0 or sum(places) != totals[k]:
            _fail(f"{k}: cards in hands/supply/display/discard {places}, "
                  f"but the game has {totals[k]}")
    if sum(s.display) > DISPLAY:
        _fail(f"{sum(s.display)} cards lie face up; the display holds {DISPLAY}")
    if s.rules.eg_gold_in_display == "to-gold-deck" and s.display[GOLD_CARD]:
        _fail("a gold card lies in the display")
    rows = (s.item_pile, s.removed, *s.items_up, *s.items_down, *s.kept_up, *s.kept_down)
    if min(map(min, rows)) < 0:
        _fail("a play area or pile holds a negative number of items")
    items = [sum(col) for col in zip(*rows, strict=True)]
    for k in (*s.drawn, *s.row):
        items[k] += 1
    for r in _occupied(s):
        for k in s.counters[r]:
            items[k] += 1
        items[DOUBLE] += s.double[r]
        items[GOLD_PIECE] += s.gold_piece[r]
        if s.obstacle[r] != NONE:
            items[s.obstacle[r]] += 1
    if items != list(ITEM_COUNTS):
        k = next(k for k in range(NUM_ITEMS) if items[k] != ITEM_COUNTS[k])
        _fail(f"{ITEM_SLUGS[k]}: {items[k]} in the game, but it has {ITEM_COUNTS[k]}")
    if any(s.removed) and (s.rules.eg_used_obstacles == "return" or any(
            s.removed[k] for k in range(NUM_ITEMS) if k not in (TREE, SEA_MONSTER))):
        _fail("only used obstacles leave the game, and only with eg_used_obstacles=remove")
    if min(s.coins) < 0 or sum(s.coins) + s.paid_in != s.paid_out:
        _fail(f"coins: players hold {s.coins}, the bank paid out {s.paid_out} and took "
              f"in {s.paid_in}")
    capital = 1 << s.board.capital
    if any(v & capital for v in s.visited):
        _fail("Elvenhold has no town pieces to collect")
    limit = s.rules.eg_hand_limit
    if limit and s.phase in (Phase.MOVE, Phase.SETTLE, Phase.MOVE_DRAW, Phase.DISCARD):
        # After their own move, a player holds at most the limit (plus the two cards
        # drawn after discarding, when the limit applies before the draw).
        most = limit + (2 if s.rules.eg_hand_limit_when == "before-draw" else 0)
        for q in range(s.n):
            if (q - s.starting) % s.n < s.step and sum(s.hands[q]) > most:
                _fail(f"player {q} ended their move with {sum(s.hands[q])} cards")


def check_board(s: ElfengoldState) -> None:
    """Rules 40–49: what may lie on each road, river and lake."""
    occupied = _occupied(s)
    for r in occupied:
        route = s.board.routes[r]
        on = s.counters[r]
        if not route.is_road:
            if on or s.double[r] or s.gold_piece[r] or s.obstacle[r] == TREE:
                _fail(f"{route.id} is water: only a sea monster may lie on it")
            continue
        if s.obstacle[r] == SEA_MONSTER:
            _fail(f"a sea monster lies on the road {route.id}")
        if len(on) > (2 if s.double[r] else 1) or (s.double[r] and len(on) != 2):
            _fail(f"{route.id} holds {len(on)} counters (Double: {s.double[r]})")
        for k in on:
            if COST_TABLE[Transport(k)][route.terrain] is None:
                _fail(f"a {ITEM_SLUGS[k]} counter cannot lie on {route.id}")
        if (s.obstacle[r] != NONE or s.gold_piece[r]) and not on:
            _fail(f"an item on {route.id} has no counter beside it")
        if s.obstacle[r] != NONE and s.gold_piece[r]:
            _fail(f"{route.id} holds both an obstacle and a gold piece")
    if occupied and s.phase not in (Phase.PLACE, Phase.MOVE, Phase.SETTLE, Phase.MOVE_DRAW,
                                    Phase.DISCARD):
        _fail(f"items lie on the board in the {s.phase.value} phase")


def check_turn(s: ElfengoldState) -> None:
    n, p = s.n, s.current
    if not 1 <= s.round <= s.rules.rounds:
        _fail(f"round {s.round} of {s.rules.rounds}")
    if s.phase is not Phase.KEEP and (any(map(any, s.kept_up)) or any(map(any, s.kept_down))):
        _fail("items are set aside as kept only in the keep phase")
    if s.phase is not Phase.DRAW_ITEMS and s.drawn:
        _fail("drawn items wait only in phase 3")
    if s.phase is not Phase.AUCTION and s.row:
        _fail("an auction row lies out only in the auction")
    if s.phase is Phase.OVER:
        if p != TERMINAL or not s.result:
            _fail("a finished game has winners and nobody to act")
        return
    if not 0 <= p < n or s.result is not None:
        _fail(f"player {p} cannot act in a game in progress")
    if s.phase in (Phase.DRAW_CARDS, Phase.DRAW_ITEMS):
        # Rule 61: a round starts with at most two items each; phase 3 adds two.
        for q in range(n):
            drawn = s.phase is Phase.DRAW_ITEMS and (q - s.starting) % n < s.step
            if s._held(q) > ITEMS_KEPT + (ITEMS_DRAWN if drawn else 0):
                _fail(f"player {q} holds {s._held(q)} items before the auction")
    if s.phase is Phase.DRAW_CARDS:
        if s.round == 1:
            _fail("no cards are drawn in round 1")
        if not 0 <= s.step < 3 * n or p != s._card_player(s.step):
            _fail(f"step {s.step} of the card draw is not player {p}'s")
    elif s.phase is Phase.DRAW_ITEMS:
        if len(s.drawn) != ITEMS_DRAWN or p != (s.starting + s.step) % n:
            _fail(f"player {p} must hold two drawn items at step {s.step}")
    elif s.phase is Phase.AUCTION:
        if not s.row or (s.passed | s.excluded) >> p & 1 or p == s.high_bidder:
            _fail(f"player {p} cannot bid on this item")
        if len(s.row) > 2 * n:
            _fail("the auction row holds more than two items per player")
        if s.high_bidder == NONE and s.high_bid:
            _fail("a high bid without a bidder")
    elif s.phase is Phase.PLACE:
        if not 0 <= s.passes < n:
            _fail(f"{s.passes} passes in a row would have ended the placement")
    elif s.phase is Phase.KEEP:
        kept = sum(s.kept_up[p]) + sum(s.kept_down[p])
        if kept >= ITEMS_KEPT or kept + s._held(p) <= ITEMS_KEPT:
            _fail(f"player {p} has no choice of items to keep")
    else:
        if p != (s.starting + s.step) % n:
            _fail(f"the move phase's step {s.step} is not player {p}'s")
        if s.phase is Phase.DISCARD and sum(s.hands[p]) <= s.rules.eg_hand_limit:
            _fail(f"player {p} need not discard")
        if s.phase is Phase.MOVE_DRAW and not 1 <= s.draws_left <= 2:
            _fail("the end-of-move draw has one or two cards left")


class Watcher:
    """Follows a game and checks what only the sequence shows: town pieces come only
    from towns a boot reached and are never lost, and every round starts with at most
    two items per player."""

    def __init__(self, s: ElfengoldState) -> None:
        self.visited = s.visited[:]
        self.been = [{s.boots[p]} for p in range(s.n)]
        self.round = s.round

    def after(self, s: ElfengoldState) -> None:
        for p in range(s.n):
            self.been[p].add(s.boots[p])
            new = s.visited[p] & ~self.visited[p]
            if new & ~sum(1 << t for t in self.been[p]):
                _fail(f"player {p} collected a town piece from a town no boot reached")
            if self.visited[p] & ~s.visited[p]:
                _fail(f"player {p} lost a town piece")
        self.visited = s.visited[:]
        if s.round != self.round and not s.is_terminal():
            self.round = s.round
            for p in range(s.n):
                carried = s._held(p) if s.phase is Phase.DRAW_CARDS else None
                if carried is not None and carried > ITEMS_KEPT:
                    _fail(f"player {p} carried {carried} items into round {s.round}")
