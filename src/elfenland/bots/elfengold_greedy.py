"""The greedy Elfengold bot: the gold-aware planner for movement, one-look heuristics
elsewhere, all aimed at the *wish move* — the planner run as if the player could also lay
a counter of each kind they hold on any empty road (``elfengold_planner``).

* Drawing cards: the face-up card the wish move wants most, the gold deck when it pays
  at least ``GOLD_DECK_MIN`` coins, else the supply.
* Phase 3: the item whose secrecy matters most lies face down (obstacles, spells).
* The auction: an item is worth, in coins, what it adds to this player's wish move
  (``TOWN_COINS`` a town, plus the gold) and a share of what it would add to the rival
  who would gain most (denial), on one resampled deal: rivals' hands are never read.
  The bot raises by one while the high bid is below that worth and its coins.
* Placing: the counter (or Double) that most improves the wish move; a gold piece on
  the road of its own move that earns most; a tree or sea monster on a road the leading
  rival's best move needs and its own does not; an Exchange when it improves its move.
* Moving: the planner's move, step by step; then the coins, or two cards when the coins
  earned are fewer than two cards are worth (never in the last round: coins break ties).
* Keeping: the two items worth most by the same valuation.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..core.transport import COST_TABLE, Transport
from ..games.elfengold.actions import Action, Kind, tables
from ..games.elfengold.items import (
    DOUBLE,
    EXCHANGE,
    GOLD_CARD,
    GOLD_PIECE,
    HAND_KINDS,
    NUM_COUNTERS,
    NUM_ITEMS,
    SEA_MONSTER,
    TREE,
    WITCH,
)
from ..games.elfengold.state import NONE, ElfengoldState, Phase
from .elfengold_planner import BUDGET, CARD_COINS, PREFERENCE, GoldJourney, plan_move

#: A new town's worth in coins, when items are weighed against each other.
TOWN_COINS = 8
#: Share of a rival's gain the bot pays to deny it.
DENIAL = 0.5
#: Fixed worth of items whose use the wish move does not model (coins).
FLAT_WORTH = {TREE: 3, SEA_MONSTER: 3, DOUBLE: 3, EXCHANGE: 2, GOLD_PIECE: 3}
#: States a wish move may search (it is asked for often; see ``plan_move``).
WISH_BUDGET = 5_000
#: Counters (the wish move's next ones) and Double or Exchange placements a bot tries
#: when placing, at most: each try is a planner call, and a decision stays well under 1 s.
MAX_PLACE_TRIES = 3
MAX_SPELL_TRIES = 6
#: Take the gold deck when it pays at least this many coins.
GOLD_DECK_MIN = 6
#: Items hidden first when one of the two drawn must lie face down.
SECRECY = {SEA_MONSTER: 5, TREE: 4, EXCHANGE: 3, DOUBLE: 2, GOLD_PIECE: 1}
#: Coins a bot keeps back in the auction (the witch's bypass and flight).
RESERVE = 1


def held_kinds(s: ElfengoldState, p: int, extra: int | None = None) -> list[int]:
    kinds = [k for k in range(NUM_COUNTERS) if s.holds(p, k)]
    if extra is not None and extra < NUM_COUNTERS and extra not in kinds:
        kinds.append(extra)
    return kinds


def wish(s: ElfengoldState, p: int, extra: int | None = None,
         kinds: Sequence[int] | None = None, deadline: float | None = None) -> GoldJourney:
    """The wish move (module doc); ``kinds`` replaces the counter kinds held."""
    return plan_move(s, p, wild_kinds=held_kinds(s, p, extra) if kinds is None else kinds,
                     fly=False, budget=WISH_BUDGET, deadline=deadline)


def signature(s: ElfengoldState, p: int) -> tuple[object, ...]:
    """Everything a plan of player ``p``'s move reads from the state: two states with
    the same signature get the same plan (the wish cache's key)."""
    return (p, tuple(s.hands[p]), s.boots[p], s.visited[p],
            s.coins[p] if s.rules.witch else 0,
            s.town_cards[p] if s.rules.town_cards else NONE,
            tuple(tuple(c) for c in s.counters), tuple(s.obstacle), tuple(s.gold_piece),
            tuple(s.gold_values))


class PlanCache:
    """Plans already made, by ``signature`` and the planner's arguments: the auction
    asks for the same wish move once per item and rival, the placement once per try.
    A plan cut short by a deadline is not kept (it depends on the clock)."""

    LIMIT = 4096

    def __init__(self) -> None:
        self.plans: dict[tuple[object, ...], GoldJourney] = {}

    def wish(self, s: ElfengoldState, p: int, extra: int | None = None,
             kinds: Sequence[int] | None = None, deadline: float | None = None
             ) -> GoldJourney:
        wild = tuple(held_kinds(s, p, extra) if kinds is None else kinds)
        return self.plan(s, p, wild, False, WISH_BUDGET, deadline)

    def plan(self, s: ElfengoldState, p: int, wild: tuple[int, ...], fly: bool,
             budget: int, deadline: float | None = None) -> GoldJourney:
        key = (signature(s, p), wild, fly, budget)
        got = self.plans.get(key)
        if got is not None:
            return got
        got = plan_move(s, p, wild_kinds=wild, fly=fly, budget=budget, deadline=deadline)
        if deadline is None or time.perf_counter() < deadline:
            if len(self.plans) >= self.LIMIT:
                self.plans.clear()
            self.plans[key] = got
        return got


def score(j: GoldJourney) -> int:
    """A move's worth in coins (towns first, then gold and cards)."""
    return TOWN_COINS * j.new_towns - 2 * (j.distance or 0) + j.gold - j.coins_spent


class ElfengoldGreedyBot:
    """Plays every phase with the heuristics in the module doc; deterministic per seed."""

    name = "greedy"

    def __init__(self, seed: int | None = None, deals: int = 1) -> None:
        self.rng = random.Random(seed)
        #: Resampled deals the rivals' gains (denial, obstacles) are averaged over.
        self.deals = deals
        #: A ``time.perf_counter()`` deadline for the decision in hand, set by a bot
        #: that uses this one under a time budget (the search bot); every plan stops
        #: deepening at it.  ``None`` (alone): the play depends on the seed and the state
        #: alone, never on the machine's load.
        self.deadline: float | None = None
        self.cache = PlanCache()
        self._worth: dict[tuple[object, ...], int] = {}
        self._deal: tuple[tuple[int, int, int], list[ElfengoldState]] | None = None
        tables()  # the action tables, built once per process: not in a decision's time

    def wish(self, s: ElfengoldState, p: int, extra: int | None = None,
             kinds: Sequence[int] | None = None) -> GoldJourney:
        return self.cache.wish(s, p, extra, kinds, self.deadline)

    def late(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, ElfengoldState):
            raise ElfenlandError("this bot plays Elfengold")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1:
            return legal[0]
        action = self.pick(state, legal)
        if action in legal:
            return action
        return legal[-1] if state.phase is Phase.MOVE else legal[0]

    def pick(self, s: ElfengoldState, legal: list[Action]) -> Action:
        ph = s.phase
        if ph is Phase.DRAW_CARDS or ph is Phase.MOVE_DRAW:
            return self.draw(s, legal)
        if ph is Phase.DRAW_ITEMS:
            return max(legal, key=lambda a: (SECRECY.get(a.item, 0), -a.item))
        if ph is Phase.AUCTION:
            return self.bid(s, legal)
        if ph is Phase.PLACE:
            return self.place(s, legal)
        if ph is Phase.MOVE:
            return self.cache.plan(s, s.current, (), True, BUDGET, self.deadline).first
        if ph is Phase.SETTLE:
            return self.settle(s, legal)
        if ph is Phase.DISCARD:
            return min(legal, key=lambda a: (PREFERENCE[a.item], a.item))
        if ph is Phase.KEEP:
            return self.keep(s, legal)
        return legal[0]

    # ------------------------------------------------------------------ cards
    def draw(self, s: ElfengoldState, legal: list[Action]) -> Action:
        p = s.current
        gold = s.gold_deck + s.display[GOLD_CARD]
        take_gold = [a for a in legal if a.kind is Kind.TAKE_GOLD]
        if take_gold and 3 * gold >= GOLD_DECK_MIN:
            return take_gold[0]
        want = self.card_wants(s, p)
        face_up = [a for a in legal if a.kind is Kind.DRAW]
        if face_up:
            best = max(face_up, key=lambda a: (want[a.item], PREFERENCE[a.item]))
            if want[best.item] > 0:
                return best
        blind = [a for a in legal if a.kind is Kind.DRAW_BLIND]
        if blind:
            return blind[0]
        return face_up[0] if face_up else legal[0]

    def card_wants(self, s: ElfengoldState, p: int) -> list[int]:
        """Per card kind: cheap roads of that kind beside the towns still to collect
        near the boot (two links), plus the witch when it is in play."""
        board = s.board
        here = s.boots[p]
        want = [0] * HAND_KINDS
        for route in board.routes:
            ends = (route.a, route.b)
            if min(board.distances[here][t] for t in ends) > 2:
                continue
            if all(s.visited[p] >> t & 1 or t == board.capital for t in ends):
                continue
            for k in range(7):
                cost = COST_TABLE[Transport(k)][route.terrain]
                if cost == 1:
                    want[k] += 2
                elif cost == 2:
                    want[k] += 1
        if s.rules.witch:
            want[WITCH] = max(want) + 1 if s.hands[p][WITCH] == 0 else 0
        held = s.hands[p]
        return [w - held[k] for k, w in enumerate(want)]

    def settle(self, s: ElfengoldState, legal: list[Action]) -> Action:
        collect = [a for a in legal if a.kind is Kind.COLLECT]
        cards = [a for a in legal if a.kind is Kind.CARDS]
        if not cards:
            return collect[0]
        if not collect:
            return cards[0]
        last = s.round >= s.rules.rounds
        if last or s.earned >= 2 * CARD_COINS + 1 or sum(s.hands[s.current]) >= 10:
            return collect[0]
        return cards[0]

    # ------------------------------------------------------------------ worth of items
    def deal(self, s: ElfengoldState) -> ElfengoldState:
        """One resampled deal per round and phase, for the rivals' moves."""
        return self.deal_list(s)[0]

    def deal_list(self, s: ElfengoldState) -> list[ElfengoldState]:
        """``deals`` resampled deals per round, player and phase: the rivals' hands and
        face-down items as this seat may believe them, never as they are."""
        key = (s.round, s.current, s.phase.value.__hash__())
        if self._deal is None or self._deal[0] != key:
            self._deal = (key, [s.resample_from_infostate(
                s.current, Rng(self.rng.randrange(2**63))) for _ in range(self.deals)])
        return self._deal[1]

    def worth(self, s: ElfengoldState, p: int, item: int, denial: bool = True) -> int:
        """What ``item`` is worth to player ``p`` (coins): its gain to ``p``'s wish move,
        and (``denial``) half the gain of the rival it would help most."""
        holdings = tuple(s.holds(p, k) for k in range(NUM_ITEMS))
        key = (s.round, s.phase.value, p, item, holdings, denial)
        got = self._worth.get(key)
        if got is not None:
            return got
        own = self._gain(s, p, item)
        value = own
        if denial and s.n > 1:
            dets = self.deal_list(s)
            rivals = sum(max(self._gain(det, q, item) for q in range(s.n) if q != p)
                         for det in dets) / len(dets)
            value += int(DENIAL * rivals)
        self._worth[key] = value
        return value

    def _gain(self, s: ElfengoldState, p: int, item: int) -> int:
        if item >= NUM_COUNTERS:
            return FLAT_WORTH.get(item, 1)
        kinds = held_kinds(s, p)
        if item in kinds:  # a second counter of a kind: half what the first one adds
            without = [k for k in kinds if k != item]
            return max(1, (score(self.wish(s, p)) - score(self.wish(s, p, kinds=without)))
                       // 2)
        return max(0, score(self.wish(s, p, item)) - score(self.wish(s, p)))

    # ------------------------------------------------------------------ auction
    def bid(self, s: ElfengoldState, legal: list[Action]) -> Action:
        p = s.current
        item = s.row[0]
        value = self.worth(s, p, item)
        budget = s.coins[p] - RESERVE
        nxt = s.high_bid + 1
        pass_ = next(a for a in legal if a.kind is Kind.PASS)
        if nxt > min(value, budget):
            return pass_
        for a in legal:
            if a.kind is Kind.BID and a.amount == nxt:
                return a
        return pass_

    # ------------------------------------------------------------------ placing
    def place(self, s: ElfengoldState, legal: list[Action]) -> Action:
        p = s.current
        base = self.wish(s, p)
        base_score = score(base)
        pass_ = next(a for a in legal if a.kind is Kind.PASS)
        best: tuple[int, int, int] | None = None
        choice: Action | None = None
        #: The roads the wish move still needs a counter on, in the order it takes them.
        wanted = {r: i for i, (_, r) in enumerate(base.wild_steps)}
        my_roads = {a.route for a in base.actions if a.kind is Kind.MOVE}
        wild = set(base.wild_steps)
        hand = s.hands[p]
        spells = 0
        for a in legal:
            if self.late():
                break
            if a.kind is Kind.PLACE:
                if (a.item, a.route) not in wild or wanted[a.route] >= MAX_PLACE_TRIES:
                    continue
                need = 0  # laying a counter the wish move counts on keeps it
                order = -wanted[a.route]
            elif a.kind is Kind.DOUBLE or a.kind is Kind.EXCHANGE:
                # A spell is worth trying only where it brings a kind the bot has cards
                # for onto a road of its move; a few of them (they are many).
                brings = ([(a.route, a.item)] if a.kind is Kind.DOUBLE
                          else [(a.route, a.item2), (a.route2, a.item)])
                if spells >= MAX_SPELL_TRIES or not any(
                        r in my_roads and hand[k] for r, k in brings):
                    continue
                spells += 1
                need, order = 1, -99
            else:
                continue
            after = s.clone()
            after.apply_action(a)
            gain = score(self.wish(after, p)) - base_score
            if gain >= need and (best is None or (gain, order, -a.id) > best):
                best, choice = (gain, order, -a.id), a
        if choice is not None:
            return choice
        gold = self.gold_piece(s, legal, base)
        if gold is not None:
            return gold
        block = self.obstacle(s, legal, my_roads)
        if block is not None:
            return block
        return pass_

    def gold_piece(self, s: ElfengoldState, legal: list[Action],
                   mine: GoldJourney) -> Action | None:
        """The gold piece on the road of the real (not wished) move where it earns most:
        every arrival over it counts double, so a road the move takes twice (gold is
        paid at every arrival) can beat the one into the richest town.  Each road of the
        move is tried and the move planned again with the piece on it."""
        golds = {a.route: a for a in legal if a.kind is Kind.GOLD}
        if not golds:
            return None
        p = s.current
        real = self.cache.plan(s, p, (), False, WISH_BUDGET, self.deadline)
        tried: set[int] = set()
        best: tuple[int, int] | None = None
        choice = None
        for a in real.actions:
            if a.kind is not Kind.MOVE or a.route not in golds or a.route in tried:
                continue
            if best is not None and self.late():
                break
            tried.add(a.route)
            after = s.clone()
            after.apply_action(golds[a.route])
            v = (score(self.cache.plan(after, p, (), False, WISH_BUDGET, self.deadline)),
                 -a.route)
            if best is None or v > best:
                best, choice = v, golds[a.route]
        return choice

    def obstacle(self, s: ElfengoldState, legal: list[Action],
                 my_roads: set[int]) -> Action | None:
        """A tree or sea monster on a road the leading rival's move needs (on a resampled
        deal), never on one of the bot's own."""
        blocks = {a.route: a for a in legal if a.kind in (Kind.TREE, Kind.MONSTER)}
        if not blocks:
            return None
        p = s.current
        det = self.deal(s)
        order = sorted((q for q in range(s.n) if q != p), key=lambda q: -s.markers(q))
        for q in order:
            theirs = self.cache.plan(det, q, (), False, WISH_BUDGET, self.deadline)
            if theirs.new_towns < 1:
                continue
            for a in theirs.actions:
                if a.kind is Kind.MOVE and a.route in blocks and a.route not in my_roads:
                    return blocks[a.route]
        return None

    # ------------------------------------------------------------------ keeping
    def keep(self, s: ElfengoldState, legal: list[Action]) -> Action:
        p = s.current

        def value(a: Action) -> tuple[int, bool, int]:
            return (self.worth(s, p, a.item, denial=False), a.secret, -a.id)

        return max(legal, key=value)


def worth_of(bot: ElfengoldGreedyBot, s: ElfengoldState, items: Sequence[int]) -> list[int]:
    """The bot's worth of each item for the player to act (tests, benches)."""
    return [bot.worth(s, s.current, k) for k in items]
