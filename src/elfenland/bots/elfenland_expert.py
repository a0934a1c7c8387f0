"""The expert Elfenland bot: the search bot's plan (ISMCTS over the placement phase,
the greedy bot's draws and keeps, the planner's moves) with an inner loop several
times cheaper, and a budget that holds on a loaded machine.

Where the search bot's time went (a profile of four search bots, ``docs/bots.md``):
two thirds in the journey planner, asked again and again for the same journey: every
rollout plans each player's wish journey and then each player's journey at the end,
though the deals of one decision mostly leave a player's hand and the board as they
were; and a sixth in hashing actions to build sets of the legal ones.  Here

- a decision's plans are memoised (``_Plans``), keyed by everything the planner reads:
  the player's town, hand, towns collected, town card, counter kinds, and the counters
  and obstacles on the roads;
- rollouts compare action ids (the compiled engine's ``legal_action_ids``), never
  action objects;
- the budget (``Budget``) is asked before every rollout, not before every deal of all
  the root actions, so a decision ends within one rollout of its deadline;
- a root action falling clearly behind (``PRUNE`` below the best, after ``PRUNE_AFTER``
  deals) gets no more rollouts, so the deals left go to the ones still in question.

The clock is a parameter: wall time in a game, ``time.thread_time`` in a bench (CPU
seconds, which a loaded machine does not shrink), a hand-driven clock in tests.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..games.elfenland.actions import Action, Kind, from_id
from ..games.elfenland.state import ElfenlandState, Phase
from .budget import Budget, Clock
from .elfenland_greedy import ElfenlandGreedyBot, owned_kinds
from .elfenland_search import DEVIATION, MARGIN_SCALE, candidates, move
from .planner import Journey, plan_journey

#: Deals every root action gets before any is dropped.
PRUNE_AFTER = 4
#: A root action this far (reward in [0, 1]) below the best mean is dropped.
PRUNE = 0.12


class _Plans:
    """One decision's journeys, memoised by what the planner reads of the state."""

    def __init__(self) -> None:
        self.memo: dict[tuple[object, ...], Journey] = {}
        self.asked = 0

    def _roads(self, s: ElfenlandState) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return tuple(s.route_counter), tuple(s.route_obstacle)

    def wish(self, s: ElfenlandState, p: int) -> Journey:
        """``elfenland_greedy.wish``: counters on any empty road, no caravans."""
        kinds = tuple(owned_kinds(s, p))
        key = (0, p, s.boots[p], tuple(s.hands[p]), s.visited[p], s.town_cards[p], kinds,
               *self._roads(s))
        self.asked += 1
        j = self.memo.get(key)
        if j is None:
            j = plan_journey(s, p, wild_kinds=kinds, any_cards=False)
            self.memo[key] = j
        return j

    def plan(self, s: ElfenlandState, p: int) -> Journey:
        """``plan_journey(s, p)``: the journey the counters on the board allow."""
        key = (1, p, s.boots[p], tuple(s.hands[p]), s.visited[p], s.town_cards[p],
               *self._roads(s))
        self.asked += 1
        j = self.memo.get(key)
        if j is None:
            j = plan_journey(s, p)
            self.memo[key] = j
        return j


class _Policy:
    """The search bot's rollout policy (``elfenland_search._FastPolicy``) on action ids:
    every player lays the counters of their wish journey as planned at their first turn
    in the rollout, and draws what that journey lacks."""

    def __init__(self, plans: _Plans, keeper: ElfenlandGreedyBot) -> None:
        self.plans = plans
        self.keeper = keeper
        self.wishes: dict[int, Journey] = {}

    def wish(self, s: ElfenlandState, p: int) -> Journey:
        j = self.wishes.get(p)
        if j is None:
            j = self.plans.wish(s, p)
            self.wishes[p] = j
        return j

    def choose(self, s: ElfenlandState, rng: random.Random) -> int:
        ids = s.legal_action_ids()
        if len(ids) == 1:
            return ids[0]
        p = s.current
        phase = s.phase
        if phase is Phase.PLACE:
            legal = set(ids)
            for st in self.wish(s, p).steps:
                a = st.action
                if a.kind is Kind.PLACE and a.id in legal:
                    return a.id
            return PASS_ID
        if phase is Phase.DRAW_COUNTERS:
            held = set(owned_kinds(s, p))
            wanted = {int(st.action.transport) for st in self.wish(s, p).steps
                      if st.action.kind is Kind.PLACE and st.action.transport is not None}
            wanted -= held
            if wanted:
                for i in ids:
                    a = from_id(i)
                    if a.transport is not None and int(a.transport) in wanted:
                        self.wishes.pop(p, None)
                        return i
            return BLIND_ID if BLIND_ID in ids else ids[rng.randrange(len(ids))]
        if phase is Phase.KEEP:
            return self.keeper.keep(s, s.legal_actions()).id
        return ids[rng.randrange(len(ids))]


PASS_ID = Action.pass_().id
BLIND_ID = Action.draw(None).id


def evaluate(s: ElfenlandState, me: int, plans: _Plans) -> float:
    """``elfenland_search.evaluate`` with memoised plans: the bot's margin over the best
    rival (markers plus the towns each player's journey collects), in [0, 1]."""
    if s.is_terminal():
        won = s.winners()
        return 1.0 if me in won and len(won) == 1 else 0.5 if me in won else 0.0
    final = s.round >= s.rules.rounds
    values = []
    for q in range(s.n):
        j = plans.plan(s, q)
        v = s.markers(q) + j.new_towns
        if final and j.distance is not None:
            v -= j.distance
        values.append(v + j.usefulness / 10_000)
    margin = values[me] - max(v for q, v in enumerate(values) if q != me)
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE * 4))


class ElfenlandExpertBot:
    """ISMCTS at the root over the placement phase, with memoised plans, rollouts on
    action ids, root pruning and a budget asked before every rollout."""

    name = "expert"

    def __init__(self, seed: int | None = None, iterations: int = 2_000,
                 seconds: float = 0.3, clock: Clock = time.perf_counter) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.clock = clock
        self.greedy = ElfenlandGreedyBot(self.rng.randrange(2**32))
        #: Searches run and their rollouts in all (what a budget buys: benches, tests).
        self.searches = 0
        self.rollouts = 0

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, ElfenlandState):
            raise ElfenlandError("this bot plays Elfenland")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1:
            return legal[0]
        if state.phase is Phase.MOVE and not state.discarding:
            return move(state)
        if state.phase is not Phase.PLACE:
            return self.greedy.choose(state)
        roots = candidates(state, self.greedy)
        if len(roots) == 1:
            return roots[0]
        return self.search(state, roots)

    def search(self, state: ElfenlandState, roots: Sequence[Action]) -> Action:
        """Deals in turn, each tried with every root action still in play (common random
        numbers); the greedy choice (the first root) stands unless another beats it by
        ``DEVIATION`` on the deals both were tried on."""
        me = state.current
        budget = Budget(self.iterations, self.seconds, self.clock)
        budget.start()
        plans = _Plans()
        n = len(roots)
        sums = [0.0] * n
        counts = [0] * n
        alive = list(range(n))
        deals = 0
        while budget.left():
            det = state.resample_from_infostate(me, Rng(self.rng.randrange(2**63)))
            seed = self.rng.randrange(2**32)
            for i in alive:
                if not budget.left():
                    break
                sim = det.clone()
                sim.rng = Rng(seed)
                sums[i] += self._rollout(sim, me, roots[i].id, plans, seed)
                counts[i] += 1
                budget.spend()
            deals += 1
            if deals >= PRUNE_AFTER and len(alive) > 2:
                best = max(sums[i] / counts[i] for i in alive)
                alive = [i for i in alive
                         if i == 0 or sums[i] / counts[i] >= best - PRUNE]
        self.searches += 1
        self.rollouts += budget.used
        means = [sums[i] / counts[i] if counts[i] else 0.0 for i in range(n)]
        best_i = max(range(n), key=lambda i: (means[i], -i))
        if counts[best_i] and means[best_i] > means[0] + DEVIATION:
            return roots[best_i]
        return roots[0]

    def _rollout(self, s: ElfenlandState, me: int, first: int, plans: _Plans,
                 seed: int) -> float:
        """The root action, then every player's policy to the move phase (or the end
        of the game), then the evaluation.  The searcher's own later placements are
        its policy's too: one level of tree, as deep as the deals allow to compare."""
        rng = random.Random(seed)
        policy = _Policy(plans, self.greedy)
        start_round = s.round
        s.apply_action(first)
        while (not s.is_terminal() and s.round == start_round
               and s.phase is not Phase.MOVE):
            s.apply_action(policy.choose(s, rng))
        return evaluate(s, me, plans)
