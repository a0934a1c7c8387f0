"""The Elfengold game state and its rules (``shared/rules/elfengold.md``).

As in Elfenland, the state holds counts, not objects: a hand is eight numbers (seven
travel kinds and the witch), the face-down item pile eleven.  Shuffled piles are drawn
from at random with the state's own seeded ``Rng`` when a card or item is taken, which is
the same as drawing the top of a shuffled pile that nobody has seen.  Chance events (the
deal, the draws, the refills, the auction row) are never actions: only players act.

A round: phase 1 card draws (from round 2), phase 2 income (automatic), phase 3 two items
each (``hide``: which lies face down), phase 4 the auction, phase 5 placement, phase 6
movement (each move ends with ``collect`` or ``cards``, the two-card draw, and the hand
limit if an option sets one), phase 7 the two items kept.
"""

from __future__ import annotations

import secrets
from enum import Enum
from itertools import repeat
from operator import is_
from typing import Any, Final

from ...core.errors import ActionParseError, ElfenlandError, GameOverError, IllegalActionError
from ...core.game import TERMINAL, GameState, JSONDict, PlayerId, chain_tail
from ...core.game import Action as CoreAction
from ...core.rng import Rng
from ...core.saving import dump_game, load_game
from ...core.transport import COST_TABLE, Terrain
from ..elfenland.board import Board, load_board
from ..elfenland.state import _sub_multisets
from .actions import Action, Kind, Pay, canonical, parse, tables
from .items import (
    CARD_SLUGS,
    COINS_PER_GOLD_CARD,
    DEAL,
    DISPLAY,
    DOUBLE,
    EXCHANGE,
    FIXED_GOLD,
    FLIGHT_COINS,
    GOLD_CARD,
    GOLD_CARDS,
    GOLD_PIECE,
    GOLD_TOKENS,
    HAND_KINDS,
    INCOME,
    ITEM_COUNTS,
    ITEM_SLUGS,
    ITEMS_DRAWN,
    ITEMS_KEPT,
    MAX_BID,
    NUM_COUNTERS,
    NUM_ITEMS,
    RAFT,
    SEA_MONSTER,
    START_COINS,
    TOWNS_TO_END,
    TRAVEL_PER_KIND,
    TREE,
    WITCH,
    WITCH_BYPASS_COINS,
    WITCH_CARDS,
)
from .options import Rules, make_rules

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
NONE: Final = -1
CARAVAN_CARDS: Final = 3
LAKE_RAFTS: Final = 2
_COST: Final = tuple(tuple(row) for row in COST_TABLE.values())
_RIVER: Final = Terrain.RIVER


class Phase(Enum):
    DRAW_CARDS = "draw-cards"
    DRAW_ITEMS = "draw-items"
    AUCTION = "auction"
    PLACE = "place"
    MOVE = "move"
    SETTLE = "settle"
    MOVE_DRAW = "move-draw"
    DISCARD = "discard"
    KEEP = "keep"
    OVER = "over"


LogLink = tuple[Any, int, Action, JSONDict, JSONDict]


class ElfengoldState(GameState):
    game_name = "elfengold"

    def __init__(self, players: int = 4, seed: int | None = None,
                 rules: str | Rules = "elfengold", destination: bool = False,
                 **options: Any) -> None:
        if not isinstance(players, int) or isinstance(players, bool) \
                or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ElfenlandError(
                f"Elfengold is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ElfenlandError(f"a seed is an integer, not {seed!r}")
        self.rules: Rules = make_rules(rules, destination, **options)
        self.board: Board = load_board()
        self.seed: int = seed
        self.origin: JSONDict | None = None
        self.rng = Rng(seed)
        self._init_empty(players)
        self._setup()

    # ------------------------------------------------------------------ structure
    def _init_empty(self, n: int) -> None:
        nroutes = len(self.board.routes)
        self.n = n
        self.round = 1
        self.phase = Phase.DRAW_ITEMS
        self.starting = 0
        self.current = 0
        self.step = 0
        self.passes = 0
        self.gold_values: list[int] = [FIXED_GOLD.get(t.id, 0) for t in self.board.towns]
        self.hands: list[list[int]] = [[0] * HAND_KINDS for _ in range(n)]
        #: Card counts by kind (travel, witch, gold): the face-down supply, the three
        #: face-up cards and the face-up discard pile; ``gold_deck`` counts gold cards.
        self.supply: list[int] = [0] * (HAND_KINDS + 1)
        self.display: list[int] = [0] * (HAND_KINDS + 1)
        self.discard: list[int] = [0] * (HAND_KINDS + 1)
        self.gold_deck = 0
        self.item_pile: list[int] = list(ITEM_COUNTS)
        self.items_up: list[list[int]] = [[0] * NUM_ITEMS for _ in range(n)]
        self.items_down: list[list[int]] = [[0] * NUM_ITEMS for _ in range(n)]
        self.kept_up: list[list[int]] = [[0] * NUM_ITEMS for _ in range(n)]
        self.kept_down: list[list[int]] = [[0] * NUM_ITEMS for _ in range(n)]
        #: Items used obstacles leave the game into (``eg_used_obstacles="remove"``).
        self.removed: list[int] = [0] * NUM_ITEMS
        #: The two items the player to act in phase 3 has drawn and not yet laid down.
        self.drawn: list[int] = []
        #: The auction: the row still to sell (first: on sale now), the high bid and
        #: bidder, and bitmasks of who passed and who is out after failing to pay.
        self.row: list[int] = []
        self.high_bid = 0
        self.high_bidder = NONE
        self.passed = 0
        self.excluded = 0
        #: Per route: the counters on it (two only under a Double), the Double, the
        #: obstacle (TREE, SEA_MONSTER or NONE) and the gold piece.
        self.counters: list[list[int]] = [[] for _ in range(nroutes)]
        self.double: list[bool] = [False] * nroutes
        self.obstacle: list[int] = [NONE] * nroutes
        self.gold_piece: list[bool] = [False] * nroutes
        self.coins: list[int] = [0] * n
        #: The bank is unlimited (rule 2): it keeps a ledger instead of a stock, so that
        #: "every coin accounted for" is ``sum(coins) + paid_in == paid_out``.
        self.paid_out = 0
        self.paid_in = 0
        self.boots: list[int] = [self.board.capital] * n
        self.visited: list[int] = [0] * n
        self.town_cards: list[int] = [NONE] * n
        #: The mover's turn: whether the boot moved, the gold earned, draws left, and
        #: where a forced discard leads ("settle" or "next").
        self.moved = False
        self.earned = 0
        self.draws_left = 0
        self.after_discard = "next"
        self.result: list[PlayerId] | None = None
        self._chain: LogLink | None = None
        self._length = 0
        self._rng_shared = False
        #: Whether the last action (or the set-up) drew at random: the take-back rule
        #: (``take_back_seat``).  Set by ``_random``, cleared before each action.
        self._drew = False
        self._legal: list[Action] | None = None

    def _setup(self) -> None:
        rules = self.rules
        rng = self._random()
        if rules.random_gold:
            tokens = list(GOLD_TOKENS)
            rng.shuffle(tokens)
            towns = [t.index for t in self.board.towns if t.index != self.board.capital]
            for t, v in zip(towns, tokens, strict=True):
                self.gold_values[t] = v
        if rules.town_cards:
            pool = list(self.board.town_cards)
            rng.shuffle(pool)
            self.town_cards = pool[: self.n]
        self.supply = [TRAVEL_PER_KIND] * 7 + [WITCH_CARDS if rules.witch else 0, 0]
        for i in range(self.n):
            for _ in range(DEAL):
                self.hands[i][rng.draw_from_counts(self.supply)] += 1
        self._refill_display()
        self.supply[GOLD_CARD] += GOLD_CARDS
        for p in range(self.n):
            self._pay_out(p, START_COINS)
        self._start_round()

    # ------------------------------------------------------------------ interface
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def history(self) -> list[Action]:
        return [link[2] for link in chain_tail(self._chain, self._length)]

    def history_length(self) -> int:
        return self._length

    def log_entries(self, after: int = 0) -> list[tuple[int, int, JSONDict, JSONDict]]:
        return [(link[1], link[2]._id, link[3], link[4])
                for link in chain_tail(self._chain, self._length - after)]

    def _random(self) -> Rng:
        self._drew = True
        if self._rng_shared:
            self.rng = self.rng.copy()
            self._rng_shared = False
        return self.rng

    def current_player(self) -> PlayerId:
        return TERMINAL if self.phase is Phase.OVER else self.current

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def parse_action(self, text: str | int) -> Action:
        """An action from its notation or id.  ``move a-b`` on a road with one counter
        means that counter; ``go <town>`` is a step from where the boot stands."""
        from .actions import from_id, make

        if isinstance(text, int) and not isinstance(text, bool):
            return from_id(text)
        if not isinstance(text, str):
            raise ActionParseError(f"an action is text or an id, not {type(text).__name__}")
        words = text.strip().lower().split()
        if words and words[0] == "go" and len(words) >= 2:
            if self.phase is Phase.OVER:
                raise GameOverError("the game is over")
            here = self.board.towns[self.boots[self.current]].id
            words = ["move", f"{here}-{words[1]}", *words[2:]]
        if len(words) == 2 and words[0] == "move":
            from .actions import parse_route

            r, d = parse_route(self.board, words[1], "any")
            kinds = sorted(set(self.counters[r]))
            if self.board.routes[r].is_road and len(kinds) == 1:
                return make(Kind.MOVE, kinds[0], r, d)
            if not kinds:  # a road without a counter: the river or lake beside it
                try:
                    r, d = parse_route(self.board, words[1], "water")
                except ActionParseError:
                    pass
                else:
                    return make(Kind.MOVE, RAFT, r, d)
            raise ActionParseError(f"{text!r}: name the counter to travel with")
        return parse(" ".join(words), self.board)

    def legal_actions(self) -> list[Action]:
        return self._own_legal()[:]

    def _own_legal(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate_legal()
        return legal

    def legal_action_ids(self) -> list[int]:
        return [a._id for a in self._own_legal()]

    def apply_action(self, action: CoreAction | str | int) -> None:
        if not isinstance(action, Action):
            action = self.parse_action(action if isinstance(action, str | int) else str(action))
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if action._id < 0:
            action = canonical(action)
        if not any(map(is_, self._own_legal(), repeat(action))):
            raise IllegalActionError(self.why_illegal(action))
        player = self.current
        self._legal = None
        self._drew = False
        public, private = self._do(action)
        self._chain = (self._chain, player, action, public, private)
        self._length += 1

    # ------------------------------------------------------------------ coins and cards
    def _pay_out(self, p: int, amount: int) -> None:
        self.coins[p] += amount
        self.paid_out += amount

    def _pay_in(self, p: int, amount: int) -> None:
        self.coins[p] -= amount
        self.paid_in += amount

    def _draw_supply(self) -> int | None:
        """The top card of the supply; an empty supply is first rebuilt from the
        discard pile (rule 25).  ``None`` when both are empty (Q10: the draw is skipped)."""
        if not any(self.supply):
            if not any(self.discard):
                return None
            self.supply, self.discard = self.discard, [0] * (HAND_KINDS + 1)
        return self._random().draw_from_counts(self.supply)

    def _refill_display(self) -> None:
        while sum(self.display) < DISPLAY:
            card = self._draw_supply()
            if card is None:
                return
            if card == GOLD_CARD and self.rules.eg_gold_in_display == "to-gold-deck":
                self.gold_deck += 1
            else:
                self.display[card] += 1

    def _gold_available(self) -> int:
        return self.gold_deck + self.display[GOLD_CARD]

    def _can_draw(self) -> bool:
        return (any(self.display[:HAND_KINDS]) or any(self.supply) or any(self.discard)
                or self._gold_available() > 0)

    def _legal_draws(self) -> list[Action]:
        tab = tables()
        out = [tab.draw[k] for k in range(HAND_KINDS) if self.display[k]]
        if any(self.supply) or any(self.discard):
            out.append(tab.draw_blind)
        if self._gold_available():
            out.append(tab.take_gold)
        return out

    def _do_draw(self, p: int, a: Action, public: JSONDict, private: JSONDict) -> bool:
        """One draw; False when it does not count (a gold card drawn from the supply
        goes to the gold deck and the player draws again, rule 22)."""
        if a.kind is Kind.TAKE_GOLD:
            n = self._gold_available()
            self._pay_out(p, COINS_PER_GOLD_CARD * n)
            self.discard[GOLD_CARD] += n
            from_display = self.display[GOLD_CARD]
            self.gold_deck = 0
            self.display[GOLD_CARD] = 0
            if from_display:
                self._refill_display()
            public["gold_cards"] = n
            public["coins"] = COINS_PER_GOLD_CARD * n
            return True
        if a.kind is Kind.DRAW:
            self.display[a.item] -= 1
            self.hands[p][a.item] += 1
            self._refill_display()
            return True
        card = self._draw_supply()
        assert card is not None
        if card == GOLD_CARD:
            self.gold_deck += 1
            public["gold_card"] = True
            return False
        self.hands[p][card] += 1
        private["card"] = CARD_SLUGS[card]
        return True

    # ------------------------------------------------------------------ flow
    def _start_round(self) -> None:
        if self.round == 1:
            self._begin_items()
        else:
            self.phase = Phase.DRAW_CARDS
            self.step = 0
            self._next_card_turn()

    def _card_turns(self) -> int:
        return 3 * self.n

    def _card_player(self, step: int) -> int:
        if self.rules.eg_card_draw == "round-robin":
            return (self.starting + step % self.n) % self.n
        return (self.starting + step // 3) % self.n

    def _next_card_turn(self) -> None:
        while self.step < self._card_turns() and not self._can_draw():
            self.step += 1
        if self.step >= self._card_turns():
            for p in range(self.n):  # phase 2
                self._pay_out(p, INCOME)
            self._begin_items()
        else:
            self.current = self._card_player(self.step)

    def _begin_items(self) -> None:
        self.phase = Phase.DRAW_ITEMS
        self.step = 0
        self._next_item_turn()

    def _next_item_turn(self) -> None:
        rng = self._random()
        while self.step < self.n:
            p = (self.starting + self.step) % self.n
            self.drawn = [rng.draw_from_counts(self.item_pile)
                          for _ in range(min(ITEMS_DRAWN, sum(self.item_pile)))]
            if len(self.drawn) == ITEMS_DRAWN:
                self.current = p
                return
            for k in self.drawn:  # a single item lies face down: never worse for its owner
                self.items_down[p][k] += 1
            self.drawn = []
            self.step += 1
        self._begin_auction()

    def _begin_auction(self) -> None:
        self.phase = Phase.AUCTION
        rng = self._random()
        self.row = [rng.draw_from_counts(self.item_pile)
                    for _ in range(min(2 * self.n, sum(self.item_pile)))]
        self._open_item(fresh=True)

    def _open_item(self, fresh: bool) -> None:
        """Start (or restart, after a winner could not pay) the sale of ``row[0]``."""
        while self.row:
            if fresh:
                self.excluded = 0
            self.high_bid, self.high_bidder, self.passed = 0, NONE, 0
            first = self._next_bidder(self.starting - 1)
            if first != NONE:
                self.current = first
                return
            self.item_pile[self.row.pop(0)] += 1  # nobody may bid: back into the pile
            fresh = True
        self._begin_place()

    def _active(self, q: int) -> bool:
        return not (self.passed | self.excluded) >> q & 1

    def _next_bidder(self, after: int) -> int:
        for i in range(1, self.n + 1):
            q = (after + i) % self.n
            if self._active(q) and q != self.high_bidder:
                return q
        return NONE

    def _auction_next(self, public: JSONDict) -> None:
        nxt = self._next_bidder(self.current)
        if nxt != NONE:
            self.current = nxt
            return
        item = self.row[0]
        w = self.high_bidder
        if w == NONE:
            self.item_pile[self.row.pop(0)] += 1
            public["returned"] = ITEM_SLUGS[item]
            self._open_item(fresh=True)
            return
        price = self.high_bid
        if self.coins[w] >= price:
            self._pay_in(w, price)
            self.items_up[w][item] += 1
            self.row.pop(0)
            public["sold"] = {"item": ITEM_SLUGS[item], "to": w, "price": price}
            self._open_item(fresh=True)
            return
        held = self.coins[w]
        self._pay_in(w, held)
        public["default"] = {"item": ITEM_SLUGS[item], "player": w, "paid": held}
        if not self.rules.eg_defaulter_rebids or held == 0:
            self.excluded |= 1 << w
        self._open_item(fresh=False)

    def _begin_place(self) -> None:
        self.phase = Phase.PLACE
        self.passes = 0
        self.current = self.starting

    def _begin_moves(self) -> None:
        self.phase = Phase.MOVE
        self.step = 0
        self.passes = 0
        self.current = self.starting
        self.moved = False
        self.earned = 0

    def _end_of_steps(self) -> None:
        p = self.current
        limit = self.rules.eg_hand_limit
        if limit and self.rules.eg_hand_limit_when == "before-draw" \
                and sum(self.hands[p]) > limit:
            self.phase = Phase.DISCARD
            self.after_discard = "settle"
        else:
            self._settle()

    def _settle(self) -> None:
        if self.moved:
            self.phase = Phase.SETTLE
        else:  # rule 57: no move, two cards
            self._begin_move_draws()

    def _begin_move_draws(self) -> None:
        self.phase = Phase.MOVE_DRAW
        self.draws_left = 2
        if not self._can_draw():
            self._after_draws()

    def _after_draws(self) -> None:
        p = self.current
        self.draws_left = 0
        limit = self.rules.eg_hand_limit
        if limit and self.rules.eg_hand_limit_when == "after-draw" \
                and sum(self.hands[p]) > limit:
            self.phase = Phase.DISCARD
            self.after_discard = "next"
        else:
            self._next_mover()

    def _next_mover(self) -> None:
        self.step += 1
        self.moved = False
        self.earned = 0
        if self.step >= self.n:
            self._end_moves()
        else:
            self.phase = Phase.MOVE
            self.current = (self.starting + self.step) % self.n

    def _end_moves(self) -> None:
        """Phase 7's board part: every item on the board goes back into the pile (used
        obstacles leave the game with ``eg_used_obstacles="remove"``)."""
        remove = self.rules.eg_used_obstacles == "remove"
        for r in range(len(self.board.routes)):
            for k in self.counters[r]:
                self.item_pile[k] += 1
            self.counters[r] = []
            if self.double[r]:
                self.item_pile[DOUBLE] += 1
                self.double[r] = False
            if self.gold_piece[r]:
                self.item_pile[GOLD_PIECE] += 1
                self.gold_piece[r] = False
            if self.obstacle[r] != NONE:
                (self.removed if remove else self.item_pile)[self.obstacle[r]] += 1
                self.obstacle[r] = NONE
        if self.round >= self.rules.rounds or self._complete_players():
            self._finish()
            return
        self.phase = Phase.KEEP
        self.step = 0
        self._next_keeper()

    def _held(self, p: int) -> int:
        return sum(self.items_up[p]) + sum(self.items_down[p])

    def _next_keeper(self) -> None:
        while self.step < self.n:
            p = (self.starting + self.step) % self.n
            if self._held(p) + sum(self.kept_up[p]) + sum(self.kept_down[p]) > ITEMS_KEPT:
                self.current = p
                return
            self.step += 1
        self.round += 1
        self.starting = (self.starting + 1) % self.n
        self._start_round()

    def _complete_players(self) -> list[int]:
        return [p for p in range(self.n) if self.visited[p].bit_count() >= TOWNS_TO_END]

    def _finish(self) -> None:
        self.phase = Phase.OVER
        self.current = TERMINAL
        keys = [self._rank_key(p) for p in range(self.n)]
        best = max(keys)
        self.result = [p for p in range(self.n) if keys[p] == best]

    def _rank_key(self, p: int) -> tuple[int, ...]:
        key = [self.scores()[p]]
        if self.rules.town_cards:
            key.append(-self.distance_to_card(p))
        key.append(self.coins[p])
        if self.rules.eg_tiebreak == "coins-cards":
            key.append(sum(self.hands[p]))
        return tuple(key)

    # ------------------------------------------------------------------ scoring
    def markers(self, p: PlayerId) -> int:
        return self.visited[p].bit_count()

    def distance_to_card(self, p: PlayerId) -> int:
        if self.town_cards[p] == NONE:
            return 0
        return self.board.distance(self.boots[p], self.town_cards[p])

    def scores(self) -> list[int]:
        if not self.rules.town_cards:
            return [self.markers(p) for p in range(self.n)]
        return [self.markers(p) - self.distance_to_card(p) for p in range(self.n)]

    def winners(self) -> list[PlayerId]:
        return list(self.result) if self.result is not None else []

    # ------------------------------------------------------------------ legality
    def _generate_legal(self) -> list[Action]:
        ph = self.phase
        p = self.current
        tab = tables()
        if ph is Phase.DRAW_CARDS or ph is Phase.MOVE_DRAW:
            return self._legal_draws()
        if ph is Phase.DRAW_ITEMS:
            return [tab.hide[k] for k in sorted(set(self.drawn))]
        if ph is Phase.AUCTION:
            top = MAX_BID if self.rules.eg_overbid == "allowed" \
                else min(MAX_BID, self.coins[p])
            return [tab.pass_, *tab.bid[self.high_bid + 1: top + 1]]
        if ph is Phase.PLACE:
            return self._legal_placements(p)
        if ph is Phase.MOVE:
            return [*self._legal_steps(p), *self._legal_flights(p), tab.end]
        if ph is Phase.SETTLE:
            return [tab.collect, tab.cards]
        if ph is Phase.DISCARD:
            return [tab.discard[k] for k in range(HAND_KINDS) if self.hands[p][k]]
        if ph is Phase.KEEP:
            return ([tab.keep[0][k] for k in range(NUM_ITEMS) if self.items_up[p][k]]
                    + [tab.keep[1][k] for k in range(NUM_ITEMS) if self.items_down[p][k]])
        return []

    def holds(self, p: int, item: int) -> int:
        return self.items_up[p][item] + self.items_down[p][item]

    def _legal_placements(self, p: int) -> list[Action]:
        tab = tables()
        get = tab.by_key.get
        out = [tab.pass_]
        have = [self.holds(p, k) for k in range(NUM_ITEMS)]
        for r in self.board.roads:
            on = self.counters[r]
            for k in range(NUM_COUNTERS):
                if not have[k]:
                    continue
                if not on:
                    a = get((Kind.PLACE, k, r, 0, 0, -1, -1, False, Pay.NORMAL, None))
                elif len(on) == 1 and have[DOUBLE]:
                    a = get((Kind.DOUBLE, k, r, 0, 0, -1, -1, False, Pay.NORMAL, None))
                else:
                    a = None
                if a is not None:
                    out.append(a)
            if on and self.obstacle[r] == NONE and not self.gold_piece[r]:
                if have[TREE]:
                    out.append(tab.get(Kind.TREE, route=r))
                if have[GOLD_PIECE]:
                    out.append(tab.get(Kind.GOLD, route=r))
        if have[SEA_MONSTER]:
            out += [tab.get(Kind.MONSTER, route=r.index) for r in self.board.routes
                    if not r.is_road and self.obstacle[r.index] == NONE]
        if have[EXCHANGE]:
            out += self._legal_exchanges()
        return out

    def _legal_exchanges(self) -> list[Action]:
        get = tables().by_key.get
        same_ok = self.rules.eg_exchange_same_kind
        roads = [r for r in self.board.roads if self.counters[r]]
        out = []
        for i, ra in enumerate(roads):
            for rb in roads[i + 1:]:
                for ka in sorted(set(self.counters[ra])):
                    for kb in sorted(set(self.counters[rb])):
                        if ka == kb and not same_ok:
                            continue
                        a = get((Kind.EXCHANGE, ka, ra, 0, 0, kb, rb, False, Pay.NORMAL, None))
                        if a is not None:
                            out.append(a)
        return out

    def step_base(self, route: int, direction: int, kind: int) -> int | None:
        """Cards of ``kind`` one step costs before obstacles; ``None`` if impossible."""
        r = self.board.routes[route]
        if r.is_road:
            return _COST[kind][r.terrain] if kind in self.counters[route] else None
        if kind != RAFT:
            return None
        if r.terrain is _RIVER:
            to = r.b if direction == 0 else r.a
            return 1 if to == r.downstream else 2
        return LAKE_RAFTS

    def step_cost(self, route: int, direction: int, kind: int) -> int | None:
        """Cards of ``kind`` for a normal step: a tree adds one card of the transport,
        a sea monster one raft (rules 52–53)."""
        base = self.step_base(route, direction, kind)
        if base is None:
            return None
        return base + (self.obstacle[route] != NONE)

    def caravan_size(self, route: int) -> int:
        return CARAVAN_CARDS + (self.obstacle[route] != NONE)

    def _legal_steps(self, p: int) -> list[Action]:
        out: list[Action] = []
        tab = tables()
        get = tab.by_key.get
        hand = self.hands[p]
        here = self.boots[p]
        witch = self.rules.witch and hand[WITCH] > 0 and self.coins[p] >= WITCH_BYPASS_COINS
        for r, _ in self.board.adjacent[here]:
            route = self.board.routes[r]
            d = 0 if route.a == here else 1
            kinds = sorted(set(self.counters[r])) if route.is_road else [RAFT]
            blocked = self.obstacle[r] != NONE
            payable = False
            for k in kinds:
                base = self.step_base(r, d, k)
                if base is None:
                    continue
                if hand[k] >= base + blocked:
                    out.append(tab.get(Kind.MOVE, k, r, d))
                    payable = True
                if witch and blocked and hand[k] >= base:
                    out.append(tab.get(Kind.MOVE, k, r, d, Pay.WITCH))
            if not route.is_road or not kinds:
                continue
            if payable and self.rules.caravan == "only-if-needed":
                continue
            usable = tuple(hand) if self.rules.eg_witch_in_caravan else (*hand[:WITCH], 0)
            for cards in _sub_multisets(usable, self.caravan_size(r)):
                a = get((Kind.MOVE, -1, r, d, 0, -1, -1, False, Pay.CARAVAN, cards))
                assert a is not None
                out.append(a)
        return out

    def _legal_flights(self, p: int) -> list[Action]:
        if not (self.rules.witch and self.hands[p][WITCH] and self.coins[p] >= FLIGHT_COINS):
            return []
        tab = tables()
        return [tab.get(Kind.FLY, amount=t.index) for t in self.board.towns
                if t.index != self.boots[p]]

    def why_illegal(self, action: Action) -> str:
        """A plain reason why ``action`` is not legal now."""
        expected = {
            Phase.DRAW_CARDS: "draw a travel card", Phase.MOVE_DRAW: "draw a travel card",
            Phase.DRAW_ITEMS: "choose which drawn item lies face down",
            Phase.AUCTION: "bid or pass", Phase.PLACE: "place an item or pass",
            Phase.MOVE: "move, fly or end the move",
            Phase.SETTLE: "take the coins earned (collect) or two cards (cards)",
            Phase.DISCARD: "discard down to the hand limit",
            Phase.KEEP: "choose an item to keep",
        }.get(self.phase, "wait")
        k = action.kind
        p = self.current
        if k is Kind.BID and self.phase is Phase.AUCTION:
            if action.amount <= self.high_bid:
                return f"{action}: a bid must exceed the high bid of {self.high_bid}"
            return f"{action}: player {p} holds {self.coins[p]} coins and bids are capped"
        if k in (Kind.PLACE, Kind.DOUBLE, Kind.TREE, Kind.MONSTER, Kind.GOLD,
                 Kind.EXCHANGE) and self.phase is Phase.PLACE:
            return f"{action}: player {p} lacks that item or the road does not allow it"
        if k is Kind.MOVE and self.phase is Phase.MOVE:
            return f"{action}: not a step player {p} can take and pay for from here"
        return f"{action} is not possible now: player {p} must {expected}"

    # ------------------------------------------------------------------ effects
    def _use_item(self, p: int, item: int, public: JSONDict) -> None:
        """Take an item from the play area: a face-up one first (keeping the face-down
        one hidden is never worse)."""
        if self.items_up[p][item]:
            self.items_up[p][item] -= 1
        else:
            self.items_down[p][item] -= 1
            public.setdefault("from_face_down", []).append(ITEM_SLUGS[item])

    def _do(self, a: Action) -> tuple[JSONDict, JSONDict]:
        p = self.current
        k = a.kind
        public: JSONDict = {}
        private: JSONDict = {}
        ph = self.phase
        if ph is Phase.DRAW_CARDS:
            if self._do_draw(p, a, public, private):
                self.step += 1
            self._next_card_turn()
        elif ph is Phase.MOVE_DRAW:
            if self._do_draw(p, a, public, private):
                self.draws_left -= 1
            if self.draws_left == 0 or not self._can_draw():
                self._after_draws()
        elif k is Kind.HIDE:
            self.drawn.remove(a.item)
            self.items_down[p][a.item] += 1
            for item in self.drawn:
                self.items_up[p][item] += 1
            public["face_up"] = [ITEM_SLUGS[i] for i in self.drawn]
            private["face_down"] = ITEM_SLUGS[a.item]
            self.drawn = []
            self.step += 1
            self._next_item_turn()
        elif k is Kind.BID:
            self.high_bid, self.high_bidder = a.amount, p
            self._auction_next(public)
        elif k is Kind.PASS and ph is Phase.AUCTION:
            self.passed |= 1 << p
            self._auction_next(public)
        elif ph is Phase.PLACE:
            self._place(p, a, public)
        elif k is Kind.MOVE:
            self._step(p, a, public)
        elif k is Kind.FLY:
            self.hands[p][WITCH] -= 1
            self.discard[WITCH] += 1
            self._pay_in(p, FLIGHT_COINS)
            self.boots[p] = a.amount
            if self.rules.eg_flight_collects_piece and a.amount != self.board.capital:
                self.visited[p] |= 1 << a.amount
            self.moved = True
        elif k is Kind.END:
            self._end_of_steps()
        elif k is Kind.COLLECT:
            self._pay_out(p, self.earned)
            public["coins"] = self.earned
            self._after_draws()
        elif k is Kind.CARDS:
            self._begin_move_draws()
        elif k is Kind.DISCARD:
            self.hands[p][a.item] -= 1
            self.discard[a.item] += 1
            if sum(self.hands[p]) <= self.rules.eg_hand_limit:
                if self.after_discard == "settle":
                    self._settle()
                else:
                    self._next_mover()
        elif k is Kind.KEEP:
            src, dst = ((self.items_down, self.kept_down) if a.secret
                        else (self.items_up, self.kept_up))
            src[p][a.item] -= 1
            dst[p][a.item] += 1
            if sum(self.kept_up[p]) + sum(self.kept_down[p]) >= ITEMS_KEPT:
                for i in range(NUM_ITEMS):
                    self.item_pile[i] += self.items_up[p][i] + self.items_down[p][i]
                self.items_up[p], self.kept_up[p] = self.kept_up[p], [0] * NUM_ITEMS
                self.items_down[p], self.kept_down[p] = self.kept_down[p], [0] * NUM_ITEMS
                self.step += 1
                self._next_keeper()
        return public, private

    def _place(self, p: int, a: Action, public: JSONDict) -> None:
        k = a.kind
        if k is Kind.PASS:
            self.passes += 1
        else:
            self.passes = 0
            if k is Kind.PLACE or k is Kind.DOUBLE:
                if k is Kind.DOUBLE:
                    self._use_item(p, DOUBLE, public)
                    self.double[a.route] = True
                self._use_item(p, a.item, public)
                self.counters[a.route] = sorted([*self.counters[a.route], a.item])
            elif k is Kind.TREE or k is Kind.MONSTER:
                item = TREE if k is Kind.TREE else SEA_MONSTER
                self._use_item(p, item, public)
                self.obstacle[a.route] = item
            elif k is Kind.GOLD:
                self._use_item(p, GOLD_PIECE, public)
                self.gold_piece[a.route] = True
            else:  # the Exchange: swap, then the spell goes back into the pile
                self._use_item(p, EXCHANGE, public)
                self.item_pile[EXCHANGE] += 1
                ra, rb = self.counters[a.route][:], self.counters[a.route2][:]
                ra.remove(a.item)
                rb.remove(a.item2)
                self.counters[a.route] = sorted([*ra, a.item2])
                self.counters[a.route2] = sorted([*rb, a.item])
        if self.passes >= self.n:
            self._begin_moves()
        else:
            self.current = (self.current + 1) % self.n

    def _step(self, p: int, a: Action, public: JSONDict) -> None:
        hand = self.hands[p]
        paid = [0] * HAND_KINDS
        r = a.route
        if a.pay is Pay.CARAVAN:
            assert a.cards is not None
            paid = list(a.cards)
        else:
            base = self.step_base(r, a.direction, a.item)
            assert base is not None
            if a.pay is Pay.WITCH:
                paid[a.item] = base
                paid[WITCH] = 1
                self._pay_in(p, WITCH_BYPASS_COINS)
                public["coins_paid"] = WITCH_BYPASS_COINS
            else:
                paid[a.item] = base + (self.obstacle[r] != NONE)
        for kind, n in enumerate(paid):
            hand[kind] -= n
            self.discard[kind] += n
        route = self.board.routes[r]
        to = route.b if a.direction == 0 else route.a
        self.boots[p] = to
        gold = self.gold_values[to] * (2 if self.gold_piece[r] else 1)
        self.earned += gold
        if to != self.board.capital:
            self.visited[p] |= 1 << to
        self.moved = True
        public["paid"] = [CARD_SLUGS[i] for i, n in enumerate(paid) for _ in range(n)]
        public["gold"] = gold

    # ------------------------------------------------------------------ copies
    def clone(self) -> ElfengoldState:
        new = ElfengoldState.__new__(ElfengoldState)
        new.__dict__.update(self.__dict__)
        new._rng_shared = self._rng_shared = True
        for name in _LISTS:
            setattr(new, name, getattr(self, name)[:])
        for name in _TABLES:
            setattr(new, name, [row[:] for row in getattr(self, name)])
        new.result = None if self.result is None else self.result[:]
        return new

    def _key(self) -> tuple[Any, ...]:
        return (tuple(getattr(self, name) for name in _COMPARED), self.rng.getstate(),
                [a._id for a in self.history])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ElfengoldState) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<ElfengoldState {self.n} players, round {self.round}, {self.phase.value}, "
                f"player {self.current} to act, {self._length} actions>")

    # ------------------------------------------------------------------ saving
    def serialize(self) -> str:
        start = {"players": self.n, "seed": self.seed, "rules": self.rules.to_json()}
        return dump_game(self.game_name, start, self.origin, self.history)

    def to_position(self) -> JSONDict:
        from .position import to_position

        return to_position(self)

    def take_back_seat(self) -> PlayerId | None:
        """The seat that may take back the game's last action, or None.

        As in the other games: only the last action, by the seat that played it, and only
        if it showed nobody anything new.  In Elfengold everything a player does not know
        comes from a draw at random (a card, the refilled display, the next player's two
        items, the auction row), and an action that led to none showed nothing: the
        state notes (``_random``) whether the last action made one."""
        link = self._chain
        if link is None or self._drew or self.phase is Phase.OVER:
            return None
        return int(link[1])

    def view(self, player: PlayerId | None, log_after: int = 0) -> JSONDict:
        from .view import make_view

        return make_view(self, player, log_after)

    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> ElfengoldState:
        from .position import resample

        return resample(self, player, rng)


#: The state's flat lists and lists of lists: what a clone copies.
_LISTS: Final = ("gold_values", "supply", "display", "discard", "item_pile", "removed",
                 "drawn", "row", "double", "obstacle", "gold_piece", "coins", "boots",
                 "visited", "town_cards")
_TABLES: Final = ("hands", "items_up", "items_down", "kept_up", "kept_down", "counters")
_COMPARED: Final = ("rules", "n", "round", "phase", "starting", "current", "step", "passes",
                    "gold_deck", "high_bid", "high_bidder", "passed", "excluded",
                    "paid_out", "paid_in", "moved", "earned", "draws_left",
                    "after_discard", "result", *_LISTS, *_TABLES)


def deserialize(text: str) -> ElfengoldState:
    """A game saved by ``serialize``, replayed action by action."""
    from .position import from_position

    def new_state(doc: JSONDict) -> ElfengoldState:
        return ElfengoldState(players=doc["players"], seed=doc["seed"],
                              rules=Rules.from_json(doc["rules"]))

    return load_game(text, "elfengold", "Elfengold", new_state, from_position)
