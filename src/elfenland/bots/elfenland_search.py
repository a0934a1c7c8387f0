"""The search Elfenland bot: Information-Set Monte Carlo Tree Search for the placement
phase, where players interact most; the greedy bot's draws, keeps and discards; and for
moving, the exact planner told where it is good to stand for the next round (``move``).

Each iteration deals the hidden parts again (``resample_from_infostate``: other hands,
secret counters, the face-down pile, other town cards), so the bot never reads what its
seat cannot see.  The tree holds the searching player's own decisions, keyed by their
actions; the other players' choices are played by a fast policy built on the same wish
journeys as the greedy bot.  A simulation runs to the start of the move phase, where a
cheap evaluation plans every player's journey with the hand they hold in that deal
(markers collected plus new towns); the bot's margin over the best rival is the reward.
Root actions are few and come from the greedy ideas (the greedy choice, the counters of
its own wish journey, a blocking counter on a road beside a rival, an obstacle, pass),
and every deal is tried with each of them, so that the comparison is fair even with the
dozen or so deals a second the pure planner allows (about ten times as many with the
compiled one, ``planner_backend()``).  The greedy choice stands unless another
action is clearly better on those deals.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..core.transport import COST_TABLE, Transport
from ..games.elfenland.actions import Action, Kind
from ..games.elfenland.state import NO_PIECE, ElfenlandState, Phase
from .elfenland_greedy import ElfenlandGreedyBot, owned_kinds, preference_for, wish
from .outlook import look_ahead_move
from .planner import Journey, plan_journey

#: Phases the tree searches; the others are played by the greedy bot and the planner.
SEARCHED = (Phase.PLACE,)
#: Evaluation margins are squashed into [0, 1] over this many towns.
MARGIN_SCALE = 4.0
EXPLORATION = 0.7
MAX_CANDIDATES = 5
#: What ending a journey beside a town still to collect is worth, by links away (1, 2),
#: on the planner's scale where a card kept is worth about 100.
STANDING_BONUS = (120, 40)
#: How much better on average (reward in [0, 1]) a root action must do than the greedy
#: choice to be played instead: search noise must not undo the greedy bot's sense.
DEVIATION = 0.03


@dataclass
class _Node:
    visits: int = 0
    total: float = 0.0
    #: action id -> (child, times it was available)
    children: dict[int, _Node] = field(default_factory=dict)
    available: dict[int, int] = field(default_factory=dict)


class _FastPolicy:
    """The rollout policy: every player lays the counters of their wish journey, as
    planned once at the start of the simulation; draws what that journey lacks."""

    def __init__(self) -> None:
        self.plans: dict[int, Journey] = {}
        self.keeper = ElfenlandGreedyBot(0)

    def plan(self, s: ElfenlandState, p: int) -> Journey:
        j = self.plans.get(p)
        if j is None:
            j = wish(s, p)
            self.plans[p] = j
        return j

    def choose(self, s: ElfenlandState, rng: random.Random) -> Action:
        legal = s.legal_actions()
        if len(legal) == 1:
            return legal[0]
        p = s.current
        if s.phase is Phase.PLACE:
            legal_set = set(legal)
            for st in self.plan(s, p).steps:
                if st.action.kind is Kind.PLACE and st.action in legal_set:
                    return st.action
            return Action.pass_()
        if s.phase is Phase.DRAW_COUNTERS:
            wanted = {int(st.action.transport) for st in self.plan(s, p).steps
                      if st.action.kind is Kind.PLACE and st.action.transport is not None}
            held = set(owned_kinds(s, p))
            for a in legal:
                if a.transport is not None and int(a.transport) in wanted - held:
                    self.plans.pop(p, None)
                    return a
            blind = Action.draw(None)
            return blind if blind in legal else legal[rng.randrange(len(legal))]
        if s.phase is Phase.KEEP:
            return self.keeper.keep(s, legal)
        return legal[rng.randrange(len(legal))]


def standing(s: ElfenlandState, p: int) -> list[int]:
    """Per town, what ending the move there is worth for the next round: the towns
    still to collect one or two links away.  (Towns the journey itself collects still
    count: a cheap estimate the planner can use as a fixed table.)"""
    board = s.board
    d = board.distances
    todo = [u for u in range(len(board.towns))
            if u != board.capital and not s.visited[p] >> u & 1]
    near, far = STANDING_BONUS
    return [sum(near if d[t][u] == 1 else far if d[t][u] == 2 else 0 for u in todo)
            for t in range(len(board.towns))]


def move(s: ElfenlandState) -> Action:
    """The planner's journey, and of the journeys collecting as many towns (and ending
    as near the town card), the one leaving the shortest walk over the towns still to
    collect (``outlook``; the ``standing`` bonus breaks its ties); in the last round
    only the cards kept break ties, as the greedy bot does."""
    p = s.current
    bonus = standing(s, p) if s.round < s.rules.rounds else None
    return look_ahead_move(s, preference_for(s, p), bonus)


def evaluate(s: ElfenlandState, me: int) -> float:
    """The bot's margin over the best rival, in [0, 1]: markers plus the towns each
    player's best journey collects with the counters now on the board."""
    if s.is_terminal():
        won = s.winners()
        return 1.0 if me in won and len(won) == 1 else 0.5 if me in won else 0.0
    final = s.round >= s.rules.rounds
    values = []
    for q in range(s.n):
        j = plan_journey(s, q)
        v = s.markers(q) + j.new_towns
        if final and j.distance is not None:
            v -= j.distance
        values.append(v + j.usefulness / 10_000)
    best_rival = max(v for q, v in enumerate(values) if q != me)
    margin = values[me] - best_rival
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE * 4))


def candidates(s: ElfenlandState, greedy: ElfenlandGreedyBot | None,
               plan: Callable[[ElfenlandState, int], Journey] = wish,
               blocking: int = 1) -> list[Action]:
    """The few actions worth searching, from what the player to act can see.  ``plan``
    gives the wish journey (``wish``; the quick level passes its memoised one);
    ``blocking`` > 1: the next costliest blocking counters after those (a bench's
    screen)."""
    legal = s.legal_actions()
    if s.phase is not Phase.PLACE:
        return list(legal)
    p = s.current
    legal_set = set(legal)
    out: list[Action] = []

    def add(a: Action) -> None:
        if a in legal_set and a not in out:
            out.append(a)

    if greedy is not None:
        add(greedy.place(s, legal))
    for st in plan(s, p).steps:
        if st.action.kind is Kind.PLACE and len(out) < 3:
            add(st.action)
    add(Action.pass_())
    board = s.board
    rival_towns = {s.boots[q] for q in range(s.n) if q != p}
    held = owned_kinds(s, p)
    blocks: list[tuple[int, Action]] = []
    obstacles: list[tuple[int, Action]] = []
    for r in board.roads:
        route = board.routes[r]
        if route.a not in rival_towns and route.b not in rival_towns:
            continue
        if s.route_counter[r] == NO_PIECE:
            costs = [(COST_TABLE[Transport(k)][route.terrain] or 0, k) for k in held]
            costs = [c for c in costs if c[0] > 0]
            if costs:
                c, k = max(costs)
                blocks.append((c, Action.place(Transport(k), r)))
        elif s.obstacle_in_hand[p] and s.route_obstacle[r] == NO_PIECE:
            owners = [q for q in range(s.n) if q != p and s.boots[q] in (route.a, route.b)]
            obstacles.append((max(s.markers(q) for q in owners), Action.obstacle(r)))
    ranked = [a for _, a in sorted(blocks, key=lambda x: (-x[0], x[1].id))]
    for a in ranked[:1]:
        add(a)
    for _, a in sorted(obstacles, key=lambda x: (-x[0], x[1].id))[:1]:
        add(a)
    out = out[:MAX_CANDIDATES]
    for a in ranked[1:blocking]:
        add(a)
    return out


class ElfenlandSearchBot:
    """ISMCTS within a time and iteration budget (whichever ends first)."""

    name = "search"

    def __init__(self, seed: int | None = None, iterations: int = 200,
                 seconds: float = 0.8) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        #: What ``seconds`` are measured on: wall time by default; a bench sets
        #: ``time.thread_time`` (CPU seconds, the same on a loaded machine).
        self.clock: Callable[[], float] = time.perf_counter
        self.greedy = ElfenlandGreedyBot(self.rng.randrange(2**32))
        #: Searches run and their iterations in all (what a time budget buys: benches).
        self.searches = 0
        self.iterations_done = 0

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
        if state.phase not in SEARCHED:
            return self.greedy.choose(state)
        roots = candidates(state, self.greedy)
        if len(roots) == 1:
            return roots[0]
        return self.search(state, roots)

    def search(self, state: ElfenlandState, roots: Sequence[Action]) -> Action:
        """Each determinisation is tried with every root action in turn (common random
        numbers: the candidates are compared on the same deals), the searcher's later
        decisions in the phase being chosen in the tree by UCB.  The greedy choice (the
        first root) is kept unless another beats it by ``DEVIATION`` on average."""
        me = state.current
        root = _Node()
        deadline = self.clock() + self.seconds
        done = 0
        sums = [0.0] * len(roots)
        counts = [0] * len(roots)
        while done < self.iterations and (done == 0 or self.clock() < deadline):
            det = state.resample_from_infostate(me, Rng(self.rng.randrange(2**63)))
            seed = self.rng.randrange(2**32)
            for i, a in enumerate(roots):
                sim = det.clone()
                sim.rng = Rng(seed)
                sums[i] += self._iterate(sim, me, root, [a])
                counts[i] += 1
            done += 1
        self.searches += 1
        self.iterations_done += done
        means = [sums[i] / counts[i] if counts[i] else 0.0 for i in range(len(roots))]
        best = max(range(len(roots)), key=lambda i: means[i])
        if means[best] > means[0] + DEVIATION:
            return roots[best]
        return roots[0]

    def _iterate(self, s: ElfenlandState, me: int, root: _Node,
                 first: list[Action] | None) -> float:
        policy = _FastPolicy()
        path = [root]
        node = root
        start_round = s.round
        options: list[Action] | None = first
        # Selection and expansion along the searcher's own decisions.
        while not s.is_terminal() and s.phase in SEARCHED and s.round == start_round:
            if s.current != me:
                s.apply_action(policy.choose(s, self.rng))
                continue
            acts = options if options is not None else candidates(s, None)
            options = None
            for a in acts:
                node.available[a.id] = node.available.get(a.id, 0) + 1
            untried = [a for a in acts if a.id not in node.children]
            if untried:
                a = untried[self.rng.randrange(len(untried))]
                child = _Node()
                node.children[a.id] = child
                s.apply_action(a)
                path.append(child)
                break
            a = max(acts, key=lambda x: _ucb(node, node.children[x.id], x.id))
            node = node.children[a.id]
            s.apply_action(a)
            path.append(node)
        # Simulation to the move phase (or the end), then the evaluation.
        while (not s.is_terminal() and s.round == start_round
               and s.phase is not Phase.MOVE):
            s.apply_action(policy.choose(s, self.rng))
        reward = evaluate(s, me)
        for n in path:
            n.visits += 1
            n.total += reward
        return reward


def _ucb(parent: _Node, child: _Node, action_id: int, against: bool = False) -> float:
    """UCB over the times the action was available; ``against``: for a rival's node,
    whose reward is one less the searcher's."""
    avail = parent.available.get(action_id, 1)
    mean = child.total / child.visits
    return ((1.0 - mean if against else mean)
            + EXPLORATION * math.sqrt(math.log(max(avail, 1)) / child.visits))
