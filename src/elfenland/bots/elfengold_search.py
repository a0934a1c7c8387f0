"""The search Elfengold bot: determinized Monte Carlo search of the placement phase,
where the players' items meet on the board; the greedy bot everywhere else.

Each iteration deals the hidden parts again (``resample_from_infostate``: the other
hands, face-down items, the item pile, the supply, other town cards), so the bot never
reads what its seat cannot see, and tries every candidate action on that same deal
(common random numbers: the candidates are compared on the same deals).  A simulation
plays the rest of the placement with a fast version of the greedy bot (every player
lays the counters of their wish move, planned once), then plans every player's real
move on the board that results (``elfengold_planner``): towns collected plus new towns,
and a little for the gold the move earns, give the bot's margin over the best rival.
The candidates come from the greedy ideas (the greedy choice, the other counters of the
wish move, a gold piece, an obstacle, pass).  The greedy choice stands unless another
does better by ``DEVIATION`` on average, so the search's noise does not undo the
greedy bot's sense.  A decision takes at most ``seconds`` plus one iteration; an
iteration that would not end within the budget is not started.
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
from .elfengold_greedy import TOWN_COINS, ElfengoldGreedyBot, wish
from .elfengold_planner import GoldJourney, plan_move

MAX_CANDIDATES = 5
#: Margins (towns) squashed into [0, 1] over this scale.
MARGIN_SCALE = 3.0
#: How much better on average (reward in [0, 1]) a candidate must do than the greedy
#: choice to be played instead.
DEVIATION = 0.03
#: States each planner call of a simulation may search (see ``plan_move``).
SIM_BUDGET = 3_000


class _FastPlacer:
    """The rollout policy of the placement phase: lay the wish move's counters, in
    order, as planned once at the start of the simulation; else pass."""

    def __init__(self) -> None:
        self.plans: dict[int, GoldJourney] = {}

    def choose(self, s: ElfengoldState) -> Action:
        p = s.current
        plan = self.plans.get(p)
        if plan is None:
            plan = self.plans[p] = wish(s, p)
        legal = {(a.item, a.route): a for a in s.legal_actions() if a.kind is Kind.PLACE}
        for step in plan.wild_steps:
            a = legal.get(step)
            if a is not None:
                return a
        return next(a for a in s.legal_actions() if a.kind is Kind.PASS)


def evaluate(s: ElfengoldState, me: int) -> float:
    """The bot's margin over the best rival, in [0, 1]: towns held plus the new towns of
    each player's best move on this board, and the gold as a fraction of a town."""
    values = []
    for q in range(s.n):
        j = plan_move(s, q, fly=True, budget=SIM_BUDGET)
        values.append(s.markers(q) + j.new_towns + j.gold / (2 * TOWN_COINS))
    margin = values[me] - max(v for q, v in enumerate(values) if q != me)
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE * 4))


def simulate(s: ElfengoldState, me: int) -> float:
    policy = _FastPlacer()
    while not s.is_terminal() and s.phase is Phase.PLACE:
        s.apply_action(policy.choose(s))
    return evaluate(s, me)


class ElfengoldSearchBot:
    """Determinized search of the placement phase within a time and iteration budget."""

    name = "search"

    def __init__(self, seed: int | None = None, iterations: int = 50,
                 seconds: float = 0.6) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.greedy = ElfengoldGreedyBot(self.rng.randrange(2**32))
        #: Searches run and their iterations in all (what a time budget buys: benches).
        self.searches = 0
        self.iterations_done = 0

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, ElfengoldState):
            raise ElfenlandError("this bot plays Elfengold")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1 or state.phase is not Phase.PLACE:
            return self.greedy.choose(state)
        started = time.perf_counter()
        roots = self.candidates(state, legal)
        if len(roots) == 1:
            return roots[0]
        return self.search(state, roots, started)

    def candidates(self, s: ElfengoldState, legal: list[Action]) -> list[Action]:
        """The greedy choice first, then the few other actions worth comparing."""
        legal_set = set(legal)
        out: list[Action] = []

        def add(a: Action | None) -> None:
            if a is not None and a in legal_set and a not in out:
                out.append(a)

        add(self.greedy.pick(s, legal))
        add(next(a for a in legal if a.kind is Kind.PASS))
        base = wish(s, s.current)
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
               started: float | None = None) -> Action:
        """``started``: when the decision began (the budget covers the candidates too)."""
        me = state.current
        deadline = (time.perf_counter() if started is None else started) + self.seconds
        sums = [0.0] * len(roots)
        done = 0
        last = 0.0
        while done < self.iterations:
            t0 = time.perf_counter()
            if done and t0 + last > deadline:
                break
            det = state.resample_from_infostate(me, Rng(self.rng.randrange(2**63)))
            for i, a in enumerate(roots):
                sim = det.clone()
                sim.apply_action(a)
                sums[i] += simulate(sim, me)
            done += 1
            last = time.perf_counter() - t0
        self.searches += 1
        self.iterations_done += done
        means = [x / done for x in sums]
        best = max(range(len(roots)), key=lambda i: means[i])
        if means[best] > means[0] + DEVIATION:
            return roots[best]
        return roots[0]
