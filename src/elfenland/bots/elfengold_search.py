"""The search Elfengold bot: the greedy bot's sense where it holds, a thriftier auction,
a last-round move for gold, determinized search where the players' items meet on the
board, and a budget that holds on a loaded machine.

Half of the games between greedy bots end with the leaders level in towns, and then
coins decide; the greedy bot pays for denial and ends with about as many coins as each
rival.  So:

* **The auction**: the bot raises by one while the next bid is within ``BID_SHARE`` of
  what the item adds to its own wish move (the greedy valuation without the denial
  share) and its coins less the reserve.  Measured on paired 40-game samples against
  three greedy bots (docs/bots.md): share 0.5, 0.75, 1.0, 1.25 won 27.5%, 40%, 33.8%,
  20%, the greedy auction 25%; the coins kept buy later items and break the ties.
  In the last round the share is ``LAST_SHARE`` (3): its coins are worth only the
  tie-break at the end, and the bot ended with 50 coins against 20 for each rival,
  so it turns them into towns (paired samples, seeds 1-20: 28.5 of 80 against 24 of 80
  for 3/4; 1.5 won 13 of 40 on seeds 1-10, 3 only where the item adds a town 26 of 80).
* **Moving**: the planner's move; in the last round planned with cards worth nothing
  (``card_coins=0``: cards score nothing at the end, gold breaks ties); earlier, while
  the bot leads the richest rival in coins, with cards worth ``LEAD_CARD_COINS``
  (twice the planner's own): coins past that lead buy nothing, cards kept buy towns.
  ``look=True`` moves by ``look_ahead`` before the last round while not leading (below).
* **Placing**: determinized Monte Carlo search.  Each iteration deals the hidden parts
  again (``resample_from_infostate`` on the compiled engine: the other hands, face-down
  items, the item pile, the supply, other town cards), so the bot never reads what its
  seat cannot see, and tries every candidate action on that same deal (common random
  numbers).  A simulation plays the rest of the placement with a fast greedy policy
  (every player lays the counters of its wish move, planned once), then plans every
  player's real move on the board that results: towns held and new towns, with the
  gold the move earns and the coins held as a fraction of a town, give the bot's margin
  over the best rival.  The candidates are the greedy choice, pass, the wish move's next
  counters, the gold piece where the bot's own move earns most from it, the obstacle on
  the leading rival's road; the greedy choice stands unless another does better by
  ``DEVIATION`` on average.  ``place_search=False`` places as the greedy bot does.
* **Drawing cards**: the greedy bot's draw, but not the gold deck while the bot's coins
  lead the richest rival's by ``COIN_LEAD`` or more: three losses in five against greedy
  bots were on towns (by about three), few on the tie-break, so a travel card, which
  may add a town, is worth more then than coins that only widen a winning lead.
* **Coins or two cards** after a move: two cards while the bot leads the richest
  rival in coins by ``COIN_LEAD`` or more (before the last round), for the same reason.
* Everything else (the face-down item, keeping) is the greedy bot's.

``look_ahead`` (``look=True`` only): of the moves that collect as many towns as the
planner's best, one per town it can end in (the planner asked again with a large end
bonus on that town), the one whose ``standing`` is best: the *outlook* (``outlook.py``)
weighed in coins against the move's worth.  It is the Elfenland search bot's move, but
in Elfengold it did not help in the games measured (docs/bots.md), so it is off.

Budgets.  ``iterations`` bounds the search's work, so a match with ``seconds=None`` plays
the same on a quiet and on a loaded machine (benches).  ``seconds`` adds a wall-clock
deadline for play against people: it is passed into every planner call (which checks
the clock every few hundred states and keeps the deepest length searched in full), the
greedy parts (candidates, bids) may use half of it, and an iteration it cuts short is
thrown away.
"""

from __future__ import annotations

import math
import random
import time

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..games.elfengold.actions import Action, Kind
from ..games.elfengold.state import ElfengoldState, Phase
from .elfengold_greedy import (
    RESERVE,
    TOWN_COINS,
    WISH_BUDGET,
    ElfengoldGreedyBot,
    PlanCache,
    held_kinds,
)
from .elfengold_planner import BUDGET, GoldJourney, plan_move
from .outlook import outlook

MAX_CANDIDATES = 5
#: Margins (towns) squashed into [0, 1] over this scale.
MARGIN_SCALE = 3.0
#: How much better on average (reward in [0, 1]) a candidate must do than the greedy
#: choice to be played instead.
DEVIATION = 0.03
#: States each planner call of a simulation may search (see ``plan_move``).
SIM_BUDGET = 3_000
#: States a rollout's wish move may search.
ROLLOUT_BUDGET = WISH_BUDGET
#: States each forced-end plan of the look-ahead move may search.
LOOK_BUDGET = 4_000
#: What a link of the walk after the move costs, in coins (a link takes one or two
#: cards, a card is worth ``CARD_COINS``).
LINK_COINS = 3
#: Share of an item's worth to its own wish move the bot bids up to: coins left
#: over buy later items and break ties in towns (half of the games between greedy bots
#: end with the top players level in towns).
BID_SHARE = 0.75
#: The share in the last round: its coins are worth only the tie-break at the end, so
#: the bot turns them into towns (still within its coins less the reserve).
LAST_SHARE = 3.0
#: The lead in coins over the richest rival from which the bot leaves the gold deck and
#: draws travel cards (0: as many coins as every rival): more coins break no tie the
#: bot would not win anyway, and it lost three games in five on towns, by about three.
#: A lead of 0 beat a lead of 5 on the same 459 games (docs/bots.md).
COIN_LEAD = 0
#: What a card left in hand is worth to the move (``plan_move``'s ``card_coins``)
#: while the bot leads the richest rival in coins by ``COIN_LEAD`` or more, before the
#: last round (the planner's own: ``CARD_COINS``, 2): of the moves collecting the most
#: towns it then keeps cards for the next round rather than earn coins it has no use
#: for.
LEAD_CARD_COINS = 4
#: An end bonus large enough to make the planner end in one town whenever it can do so
#: without collecting fewer towns (it ranks after the towns collected).
_FORCE = 1_000_000


def _end(s: ElfengoldState, p: int, j: GoldJourney) -> int:
    return j.towns[-1] if j.towns else s.boots[p]


def journey_outlook(s: ElfengoldState, p: int, j: GoldJourney) -> tuple[int, int]:
    """``outlook`` from where the move ends, over the towns it leaves to collect."""
    board = s.board
    mask = s.visited[p]
    for t in j.towns:
        if t != board.capital:
            mask |= 1 << t
    todo = [u for u in range(len(board.towns)) if u != board.capital and not mask >> u & 1]
    return outlook(board.distances, _end(s, p, j), todo, s.rules.rounds - s.round)


def standing(s: ElfengoldState, p: int, j: GoldJourney) -> tuple[int, int]:
    """A move's worth with its outlook, in coins: ``TOWN_COINS`` for every town the
    walk after it reaches within the rounds left, ``LINK_COINS`` less for every link of
    that walk, and the move's own worth (gold, cards kept).  Gold counts here as it
    does not in Elfenland: coins buy the next round's items and break ties."""
    reached, minus_length = journey_outlook(s, p, j)
    return (TOWN_COINS * reached + LINK_COINS * minus_length + j.worth, -_end(s, p, j))


def look_ahead(s: ElfengoldState, p: int, cache: PlanCache,
               deadline: float | None = None) -> GoldJourney:
    """The move (module doc): as many towns as the planner's best, the best outlook."""
    first = cache.plan(s, p, (), True, BUDGET, deadline)
    if s.round >= s.rules.rounds:
        return first
    board = s.board
    n = len(board.towns)
    here = s.boots[p]
    cards = sum(s.hands[p])
    best = standing(s, p, first)
    choice = first
    ends = {_end(s, p, first)}
    for t in range(n):
        if deadline is not None and time.perf_counter() > deadline:
            break
        if t in ends or board.distances[here][t] > cards:
            continue
        bonus = [0] * n
        bonus[t] = _FORCE
        j = plan_move(s, p, budget=LOOK_BUDGET, deadline=deadline, end_bonus=bonus)
        end = _end(s, p, j)
        if end in ends or j.key[:2] != first.key[:2]:
            continue
        ends.add(end)
        value = standing(s, p, j)
        if value > best:
            best, choice = value, j
    return choice


class _FastPlacer:
    """The rollout policy of the placement phase: lay the wish move's counters, in
    order, as planned once at the start of the simulation; else pass."""

    def __init__(self, deadline: float | None) -> None:
        self.plans: dict[int, GoldJourney] = {}
        self.deadline = deadline

    def choose(self, s: ElfengoldState) -> Action:
        p = s.current
        plan = self.plans.get(p)
        if plan is None:
            plan = self.plans[p] = plan_move(s, p, wild_kinds=held_kinds(s, p), fly=False,
                                             budget=ROLLOUT_BUDGET, deadline=self.deadline)
        legal = s.legal_actions()
        places = {(a.item, a.route): a for a in legal if a.kind is Kind.PLACE}
        for step in plan.wild_steps:
            a = places.get(step)
            if a is not None:
                return a
        return next(a for a in legal if a.kind is Kind.PASS)


def evaluate(s: ElfengoldState, me: int, deadline: float | None = None) -> float:
    """The bot's margin over the best rival, in [0, 1]: towns held plus the new towns of
    each player's best move on this board, and the gold it earns and the coins held as
    a fraction of a town."""
    values = []
    for q in range(s.n):
        j = plan_move(s, q, fly=True, budget=SIM_BUDGET, deadline=deadline)
        coins = j.gold - j.coins_spent + s.coins[q]
        values.append(s.markers(q) + j.new_towns + coins / (2 * TOWN_COINS))
    margin = values[me] - max(v for q, v in enumerate(values) if q != me)
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE * 4))


def simulate(s: ElfengoldState, me: int, deadline: float | None = None) -> float:
    policy = _FastPlacer(deadline)
    while not s.is_terminal() and s.phase is Phase.PLACE:
        s.apply_action(policy.choose(s))
    return evaluate(s, me, deadline)


class ElfengoldSearchBot:
    """Look-ahead moves, averaged auction values and determinized search of the
    placement, within an iteration budget and (optionally) a time budget."""

    name = "search"

    def __init__(self, seed: int | None = None, iterations: int = 8,
                 seconds: float | None = 0.8, look: bool = False,
                 place_search: bool = False) -> None:
        self.rng = random.Random(seed)
        #: Placements by the determinized search (else the greedy bot's).
        self.place_search = place_search
        #: Moves by ``look_ahead`` (else the planner's move, as the greedy bot's).
        self.look = look
        self.iterations = iterations
        self.seconds = seconds
        self.greedy = ElfengoldGreedyBot(self.rng.randrange(2**32))
        #: Searches run and their iterations in all (what a budget buys: benches).
        self.searches = 0
        self.iterations_done = 0

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, ElfengoldState):
            raise ElfenlandError("this bot plays Elfengold")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1:
            return legal[0]
        started = time.perf_counter()
        deadline = None if self.seconds is None else started + self.seconds
        # The greedy parts (candidates, bids) may use half the budget, leaving the rest
        # to the search.
        self.greedy.deadline = (None if self.seconds is None
                                else started + self.seconds / 2)
        if state.phase is Phase.AUCTION:
            action = self.bid(state, legal)
        elif state.phase is Phase.MOVE:
            action = self.move(state, deadline)
        elif state.phase is Phase.DRAW_CARDS or state.phase is Phase.MOVE_DRAW:
            action = self.draw(state, legal)
        elif state.phase is Phase.SETTLE:
            action = self.settle(state, legal)
        elif state.phase is Phase.PLACE and self.place_search:
            roots = self.candidates(state, legal)
            action = roots[0] if len(roots) == 1 else self.search(state, roots, deadline)
        else:
            action = self.greedy.pick(state, legal)
        if action in legal:
            return action
        return self.greedy.choose(state)

    def bid(self, s: ElfengoldState, legal: list[Action]) -> Action:
        """Raise by one while the next bid is within ``BID_SHARE`` (``LAST_SHARE`` in the
        last round) of what the item adds to this player's own wish move (no denial) and
        its coins less the reserve."""
        p = s.current
        share = LAST_SHARE if s.round >= s.rules.rounds else BID_SHARE
        value = int(share * self.greedy.worth(s, p, s.row[0], denial=False))
        nxt = s.high_bid + 1
        pass_ = next(a for a in legal if a.kind is Kind.PASS)
        if nxt > min(value, s.coins[p] - RESERVE):
            return pass_
        return next((a for a in legal if a.kind is Kind.BID and a.amount == nxt), pass_)

    def draw(self, s: ElfengoldState, legal: list[Action]) -> Action:
        """The greedy bot's draw, but never the gold deck while the bot leads the richest
        rival in coins by ``COIN_LEAD`` or more: a travel card then, which may add a town,
        where the coins would only widen a lead that already wins the ties."""
        if self.leads_in_coins(s, s.current):
            cards = [a for a in legal if a.kind is not Kind.TAKE_GOLD]
            if cards:
                return self.greedy.draw(s, cards)
        return self.greedy.draw(s, legal)

    def leads_in_coins(self, s: ElfengoldState, p: int) -> bool:
        """Whether ``p``'s coins lead the richest rival's by ``COIN_LEAD`` or more."""
        return s.coins[p] - max(c for q, c in enumerate(s.coins) if q != p) >= COIN_LEAD

    def settle(self, s: ElfengoldState, legal: list[Action]) -> Action:
        """After a move: two cards, not the coins earned, while the bot leads the
        richest rival in coins by ``COIN_LEAD`` or more (before the last round, whose
        cards are worth nothing); else the greedy bot's choice.  The drawing rule's
        reason again: coins past a lead buy no tie the bot would not win, two cards may
        add a town (paired samples in docs/bots.md)."""
        cards = [a for a in legal if a.kind is Kind.CARDS]
        if cards and s.round < s.rules.rounds and self.leads_in_coins(s, s.current):
            return cards[0]
        return self.greedy.settle(s, legal)

    def move(self, s: ElfengoldState, deadline: float | None) -> Action:
        """The planner's move; in the last round with cards worth nothing (they score
        nothing at the end, the gold breaks ties); while the bot leads in coins, with
        cards worth ``LEAD_CARD_COINS``; else ``look_ahead`` with ``look=True``."""
        p = s.current
        if s.round >= s.rules.rounds:
            return plan_move(s, p, fly=True, budget=BUDGET, deadline=deadline,
                             card_coins=0).first
        if self.leads_in_coins(s, p):
            return plan_move(s, p, fly=True, budget=BUDGET, deadline=deadline,
                             card_coins=LEAD_CARD_COINS).first
        if self.look:
            return look_ahead(s, p, self.greedy.cache, deadline).first
        return self.greedy.cache.plan(s, p, (), True, BUDGET, deadline).first

    def candidates(self, s: ElfengoldState, legal: list[Action]) -> list[Action]:
        """The greedy choice first, then the few other actions worth comparing."""
        legal_set = set(legal)
        out: list[Action] = []

        def add(a: Action | None) -> None:
            if a is not None and a in legal_set and a not in out:
                out.append(a)

        add(self.greedy.pick(s, legal))
        add(next(a for a in legal if a.kind is Kind.PASS))
        base = self.greedy.wish(s, s.current)
        places = {(a.item, a.route): a for a in legal if a.kind is Kind.PLACE}
        for step in base.wild_steps:
            add(places.get(step))
            if len(out) >= MAX_CANDIDATES - 2:
                break
        my_roads = {a.route for a in base.actions if a.kind is Kind.MOVE}
        add(self.greedy.gold_piece(s, legal, base))
        add(self.greedy.obstacle(s, legal, my_roads))
        return out[:MAX_CANDIDATES]

    def search(self, state: ElfengoldState, roots: list[Action],
               deadline: float | None = None) -> Action:
        """Compare ``roots`` on ``iterations`` deals (fewer if ``deadline`` comes first;
        an iteration it cuts short is not counted)."""
        me = state.current
        sums = [0.0] * len(roots)
        done = 0
        while done < self.iterations:
            if deadline is not None and time.perf_counter() > deadline:
                break
            det = state.resample_from_infostate(me, Rng(self.rng.randrange(2**63)))
            rewards = []
            for a in roots:
                sim = det.clone()
                sim.apply_action(a)
                rewards.append(simulate(sim, me, deadline))
                if deadline is not None and time.perf_counter() > deadline:
                    break
            if len(rewards) < len(roots) or (
                    deadline is not None and time.perf_counter() > deadline):
                break
            for i, r in enumerate(rewards):
                sums[i] += r
            done += 1
        self.searches += 1
        self.iterations_done += done
        if not done:
            return roots[0]
        means = [x / done for x in sums]
        best = max(range(len(roots)), key=lambda i: means[i])
        if means[best] > means[0] + DEVIATION:
            return roots[best]
        return roots[0]
