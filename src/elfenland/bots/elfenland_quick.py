"""The quick Elfenland bot: the search bot's plan (ISMCTS over the placement phase,
the greedy bot's draws and keeps, the planner's moves) with a cheaper inner loop and a
budget that holds on a loaded machine.

Where the search bot's time went (a profile of four search bots, ``docs/bots.md``):
two thirds in the journey planner, seven plans a rollout (each player's wish journey
at their first turn, each player's journey at the end), and a sixth in hashing
actions to build sets of the legal ones.  Here

- the wish journeys are planned once per deal, shared by the rollouts of every root
  action, and memoised by what the planner reads (``_Policy``, ``_Plans``); a player's
  wish is planned again in a rollout only when what was laid since the deal may change
  it (``still_best``), so rivals react to the root action as in the search bot's
  rollouts (the level's first version let them ignore it, and lost for it);
- the searcher's own later placements in a rollout are chosen in a tree, one a root
  action, as the search bot chooses them (``own_tree``);
- the evaluation plans all players with the roads read once (``_Plans.every``);
- rollouts compare action ids (the compiled engine's ``legal_action_ids``), never
  action objects;
- the budget (``Budget``) is asked before every rollout, not before every deal of all
  the root actions, so a decision ends within one rollout of its deadline.

Beyond the search bot's plan, as switches for a bench to screen (``docs/bots.md``,
Quick): the decisions it leaves to fixed rules searched with rollouts that cross into
the next round (its deal, draws and placements by the rollout policy, evaluated where
its move phase starts), because what they are worth shows only there: the counter
kept at a round's end and the cards discarded down to the hand limit
(``search_keeps``, ``search_discards``), and the move among the journeys collecting as
many towns, which end elsewhere or keep other cards (``search_moves``,
``journey_roots``; in the last round the rollouts play to the end of the game); and
the evaluation at the rollout horizon (``evaluate``): the last round ranked as the
engine ranks the game's end, ties of towns by the cards kept (``exact``), before it
the towns within reach of a journey's end in the rounds left (``horizon``, its weight
from ``bench/elfenland_horizon.py``), the margin weighed by the rounds to come
(``calibrated``, ``ROUND_WEIGHT``), or learned from the level's own games
(``learned``, ``elfenland_value``); the rollouts' players placing as the greedy bot,
so as ``search`` does unless its search beats it, obstacle included
(``rival_greedy``); the blocking root laid beside the leading rival (``block_leader``).
Of these ``horizon`` gained with three players or more (its default by players:
``HORIZON``), and ``exact`` at one half with two (session 25: a quarter of the games end
level on towns, where the margin alone is blind to the cards kept; ``EXACT``); the
others are off.  With two players (session 31) the level also reads the margin over 6
towns, leaves the greedy choice for a lead of 0.05 and deals with ``belief=1`` (below)
(``MARGIN_SCALES``, ``DEVIATIONS``, ``BELIEFS``).  ``belief`` (session 15): deals whose
rival hands pay for the counters each rival laid this round (``elfenland_belief``),
which the true hands do in 87% of placement decisions and the engine's deals in 42%;
it moved the level by +2.1 ± 4.5 points head to head and −0.1 ± 5.4 with four players;
and ``belief=3`` (session 24): deals weighted by the greedy bot's model of each rival's
draws and placements of the round (``elfenland_reading``), +1.9 ± 4.7 head to head even
with its upkeep outside the budget.  And ``wide`` (session 27): placements beyond
``search``'s five roots (``wider``), which a long search values above them in most
positions, but which won nothing in games; and ``rival_tree`` (session 27): the rivals'
replies as nodes of the rollouts' tree, each the worst for the searcher, −0.4 ± 3.2.

The clock is a parameter: wall time in a game, ``time.thread_time`` in a bench (CPU
seconds, which a loaded machine does not shrink), a hand-driven clock in tests.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.transport import COST_TABLE, Transport
from ..games.elfenland.actions import Action, Kind, from_id
from ..games.elfenland.board import Board
from ..games.elfenland.state import NO_PIECE, ElfenlandState, Phase
from .budget import Budget, Clock, RootSearch, by_players, resampled
from .elfenland_belief import EPS, claims, paying_deal
from .elfenland_greedy import (
    ElfenlandGreedyBot,
    obstacle_road,
    owned_kinds,
    preference_for,
    wish,
)
from .elfenland_reading import SIZE as READING_SIZE
from .elfenland_reading import Reading
from .elfenland_search import (
    DEVIATION,
    EXPLORATION,
    MARGIN_SCALE,
    MAX_CANDIDATES,
    _Node,
    _ucb,
    candidates,
    move,
    standing,
)
from .elfenland_value import value as learned_value
from .outlook import journey_outlook, outlook
from .planner import (
    PREFERENCE,
    Journey,
    compiled_module,
    compiled_plan,
    compiled_tables,
    discard_choice,
    plan_journey,
    planner_backend,
)

if TYPE_CHECKING:
    from ._planner import QuickRollouts

#: Journeys searched at a step of the move: the level's own (``move``'s) and at most
#: this many others collecting as many towns (``journey_roots``).
MOVE_WIDTH = 3


_MASK64 = (1 << 64) - 1


class _Draws:
    """A rollout's own random choices (the tree's untried candidate, a policy's rare
    random pick): splitmix64 from the deal's seed, so that every root's rollout on a
    deal draws alike.  Seeding a Mersenne Twister for them was a twentieth of a
    rollout's CPU; these draws need only be uniform and repeatable."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def randrange(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randrange of an empty range")
        z = self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return ((z ^ (z >> 31)) * n) >> 64


class _Plans:
    """One decision's journeys.  The wish journeys are memoised, keyed by everything
    the planner reads (the player's town, hand, towns collected, town card, counter
    kinds, and the counters and obstacles on the roads); ``every`` plans all players."""

    def __init__(self) -> None:
        #: Whether the compiled planner serves (asked once a decision).
        self.compiled = planner_backend() == "compiled"
        self.memo: dict[tuple[object, ...], Journey] = {}
        #: ``outlook``'s towns reached, keyed by (end, towns collected, rounds left).
        self.reach: dict[tuple[int, int, int], int] = {}

    def reached(self, s: ElfenlandState, end: int, seen: int) -> int:
        """``outlook``'s towns reached from ``end`` within the rounds left, of those not
        in ``seen`` (a mask; the capital holds no marker), memoised: the rollouts of a
        decision end in few such places."""
        left = s.rules.rounds - s.round
        key = (end, seen, left)
        got = self.reach.get(key)
        if got is None:
            board = s.board
            todo = [u for u in range(len(board.towns))
                    if u != board.capital and not seen >> u & 1]
            got = self.reach[key] = outlook(board.distances, end, todo, left)[0]
        return got

    def wish(self, s: ElfenlandState, p: int,
             extra: int | None = None) -> Journey:
        """``elfenland_greedy.wish``: counters on any empty road, no caravans; with
        ``extra``, as if the player held a counter of that kind too."""
        held = owned_kinds(s, p)
        kinds = tuple(held if extra is None or extra in held else sorted([*held, extra]))
        return self._plan(s, p, kinds)

    def journey(self, s: ElfenlandState, q: int) -> Journey:
        """``plan_journey(s, q)``, memoised by what it reads (as ``wish``)."""
        return self._plan(s, q, None)

    def _plan(self, s: ElfenlandState, p: int, kinds: tuple[int, ...] | None) -> Journey:
        """A wish (``kinds``: the counter kinds laid on any empty road, no caravans) or
        the journey on the laid counters (None), memoised by what the planner reads,
        each read once from the state (a compiled state builds a list at every read)."""
        hand, boot, seen = tuple(s.hands[p]), s.boots[p], s.visited[p]
        card = s.town_cards[p]
        counters, obstacles = s.route_counter, s.route_obstacle
        key = (p, boot, hand, seen, card, kinds, tuple(counters), tuple(obstacles))
        j = self.memo.get(key)
        if j is None:
            target = card if s.rules.town_cards and card != NO_PIECE else None
            got = None
            if self.compiled:
                got = compiled_plan(s, p, hand, boot, seen, target, counters, obstacles,
                                    kinds or (), kinds is None)
            if got is None:
                got = (plan_journey(s, p) if kinds is None
                       else plan_journey(s, p, wild_kinds=kinds, any_cards=False))
            j = self.memo[key] = got
        return j

    def every(self, s: ElfenlandState) -> list[Journey]:
        """``[plan_journey(s, q) for q in range(s.n)]``, the same journeys."""
        if not self.compiled:
            return [plan_journey(s, q) for q in range(s.n)]
        rules = s.rules
        counters, obstacles = s.route_counter, s.route_obstacle
        hands, boots, visited, cards = s.hands, s.boots, s.visited, s.town_cards
        out = []
        for q in range(s.n):
            card = cards[q]
            target = card if rules.town_cards and card != NO_PIECE else None
            hand = tuple(hands[q])
            j = compiled_plan(s, q, hand, boots[q], visited[q], target, counters, obstacles)
            out.append(plan_journey(s, q) if j is None else j)
        return out


class _Policy:
    """The search bot's rollout policy (``elfenland_search._FastPolicy``) on action ids:
    every player lays the counters of their wish journey and draws what it lacks.  The
    search bot plans a player's wish at their first turn in each rollout; here it is
    planned once per deal, on the deal before the root action (``deal``, shared by the
    rollouts of every root action), and kept at the player's first turn if nothing laid
    since can change it (``still_best``: an obstacle or a counter of a kind they hold,
    off their journey), planned again otherwise; and again after each counter drawn, as
    there.  Without ``react`` (the level's first version) a rival never replanned around
    the root action's counter (its policy skipped a road taken and went on), which made
    a blocking counter look better than it is."""

    def __init__(self, plans: _Plans, keeper: ElfenlandGreedyBot, det: ElfenlandState,
                 deal: dict[int, Journey], react: bool = True,
                 greedy_place: bool = False) -> None:
        self.plans = plans
        #: Whether a player places as the greedy bot (and so ``search``, which keeps the
        #: greedy choice unless beaten) does (``place``): of the wish journey's counters
        #: the one whose laying leaves the best wish, else the obstacle on a rival's way,
        #: else pass; off, the first counter of the wish journey, never the obstacle.
        self.greedy_place = greedy_place
        #: Whether a player's wish is planned again when what was laid since the deal
        #: (the root action, earlier players' counters) may change it (``still_best``).
        self.react = react
        self.keeper = keeper
        self.det = det
        self.deal = deal
        self.wishes: dict[int, Journey] = {}
        self.replan: set[int] = set()
        #: The move phase (rollouts that cross into the next round): each player's
        #: journey, planned at their first step, then followed.
        self.journeys: dict[int, list[int]] = {}
        #: Whether counters are drawn as the greedy bot draws them (``look``): the
        #: face-up counter that most improves the wish journey, else a blind draw.
        #: The placement rollouts leave it off (their draws are over, or searched).
        self.looking = False

    def look(self, s: ElfenlandState, p: int, ids: list[int]) -> int:
        """``ElfenlandGreedyBot.draw`` on memoised plans, less its tie-break by the
        counters the wish lacks: whichever face-up counter makes the wish journey best,
        if it makes it better, else a blind draw."""
        best = self.plans.wish(s, p).key
        choice = BLIND_ID if BLIND_ID in ids else ids[0]
        for i in ids:
            a = from_id(i)
            if a.transport is None:
                continue
            key = self.plans.wish(s, p, int(a.transport)).key
            if key > best:
                best, choice = key, i
        return choice

    def place(self, s: ElfenlandState, p: int, ids: list[int]) -> int:
        """``ElfenlandGreedyBot.place`` on memoised plans: the counter of the wish journey
        whose laying leaves the best wish (the earliest of equals), else the obstacle
        (``obstacle``), else pass.  This is what ``search`` plays unless its search
        beats it by the margin; the wish policy (the first counter of the journey, no
        obstacle) agreed with ``search``'s placements in about two thirds of them, and
        never laid the obstacle, which ``search`` lays about once a game."""
        legal = set(ids)
        j = self.wish(s, p)
        found: list[int] = []
        for st in j.steps:
            a = st.action
            if a.kind is Kind.PLACE and a.id in legal and a.id not in found:
                found.append(a.id)
        if len(found) == 1:
            return found[0]
        best: tuple[tuple[int, int, int], int] | None = None
        choice = PASS_ID
        for i, a_id in enumerate(found):
            after = s.clone()
            after.apply_action(a_id)
            then = self.plans.wish(after, p)
            value = (then.key, -i)
            if best is None or value > best:
                best, choice = value, a_id
                self.wishes[p] = then  # the wish its next turn starts from
        if found:
            return choice
        if s.obstacle_in_hand[p]:
            return obstacle(s, p, legal, j, self.plans)
        return PASS_ID

    def wish(self, s: ElfenlandState, p: int) -> Journey:
        j = self.wishes.get(p)
        if j is None:
            if p in self.replan:
                j = self.plans.wish(s, p)
            else:
                j = self.deal.get(p)
                if j is None:
                    j = self.deal[p] = self.plans.wish(self.det, p)
                if self.react and not still_best(j, self.det, s, p):
                    j = self.plans.wish(s, p)
            self.wishes[p] = j
        return j

    def choose(self, s: ElfenlandState, rng: random.Random | _Draws) -> int:
        ids = s.legal_action_ids()
        if len(ids) == 1:
            return ids[0]
        p = s.current
        phase = s.phase
        if phase is Phase.PLACE and self.greedy_place:
            return self.place(s, p, ids)
        if phase is Phase.PLACE:
            legal = set(ids)
            for st in self.wish(s, p).steps:
                a = st.action
                if a.kind is Kind.PLACE and a.id in legal:
                    return a.id
            return PASS_ID
        if phase is Phase.DRAW_COUNTERS and self.looking:
            return self.look(s, p, ids)
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
                        self.replan.add(p)
                        return i
            return BLIND_ID if BLIND_ID in ids else ids[rng.randrange(len(ids))]
        if phase is Phase.KEEP:
            return self.keeper.keep(s, s.legal_actions()).id
        if phase is Phase.MOVE:
            if s.discarding:
                return Action.discard(Transport(discard_choice(
                    s.hands[p], preference_for(s, p)))).id
            steps = self.journeys.get(p)
            if steps is None:
                steps = self.journeys[p] = [a.id for a in plan_journey(s, p).actions]
            while steps:
                step = steps.pop(0)
                if step in ids:
                    return step
            return END_ID
        return ids[rng.randrange(len(ids))]


def compiled_rollouts(s: ElfenlandState) -> QuickRollouts | None:
    """A ``_planner.QuickRollouts`` for this game's board (the compiled rollout policy and
    evaluation, ``_quick_rollout.h``), or None where either extension is missing or the
    state is the pure engine's."""
    from ..games.elfenland import fast

    compiled = compiled_module()
    api = fast.c_api()
    if (planner_backend() != "compiled" or compiled is None or api is None
            or not isinstance(s, fast.FastElfenlandState)):
        return None
    board = s.board
    routes = board.routes
    places = [[_place_id(k, r) if routes[r].is_road else -1 for k in range(6)]
              for r in range(len(routes))]
    obstacles = [_obstacle_id(r) if routes[r].is_road else -1 for r in range(len(routes))]
    ends = [(routes[r].a, routes[r].b) if routes[r].is_road else (-1, -1)
            for r in range(len(routes))]
    made: QuickRollouts = compiled.QuickRollouts(compiled_tables(board), api, places,
                                                 PASS_ID, PREFERENCE, obstacles, ends,
                                                 MAX_CANDIDATES)
    return made


def obstacle(s: ElfenlandState, p: int, legal: set[int], mine: Journey,
             plans: _Plans) -> int:
    """``ElfenlandGreedyBot.obstacle`` on a deal (a rollout sees every hand, so no deal
    of its own) with memoised journeys (``obstacle_road``); pass if there is none."""
    road = obstacle_road(s, p, {st.action.route for st in mine.steps},
                         lambda q: plans.journey(s, q),
                         lambda r: Action.obstacle(r).id in legal)
    return PASS_ID if road is None else Action.obstacle(road).id


#: Placement action ids by (counter kind, route) and obstacle ids by route: built once.
_PLACE_IDS: dict[tuple[int, int], int] = {}
_OBSTACLE_IDS: dict[int, int] = {}


def _place_id(kind: int, route: int) -> int:
    i = _PLACE_IDS.get((kind, route))
    if i is None:
        i = _PLACE_IDS[kind, route] = Action.place(Transport(kind), route).id
    return i


def _obstacle_id(route: int) -> int:
    i = _OBSTACLE_IDS.get(route)
    if i is None:
        i = _OBSTACLE_IDS[route] = Action.obstacle(route).id
    return i


def candidate_ids(s: ElfenlandState, plan: Callable[[ElfenlandState, int], Journey]
                  ) -> list[int]:
    """``[a.id for a in candidates(s, None, plan)]`` in the placement phase, on ids: the
    rollouts' own tree asks it at every one of the searcher's turns, and building and
    hashing the legal actions took half a rollout's CPU.  ``test_quick_elfenland``
    holds the two equal."""
    legal = set(s.legal_action_ids())
    p = s.current
    out: list[int] = []
    for st in plan(s, p).steps:
        a = st.action
        if a.kind is Kind.PLACE and len(out) < 3 and a.id in legal and a.id not in out:
            out.append(a.id)
    if PASS_ID in legal and PASS_ID not in out:
        out.append(PASS_ID)
    board = s.board
    boots = s.boots
    rival_towns = {boots[q] for q in range(s.n) if q != p}
    held = owned_kinds(s, p)
    counters, obstacles = s.route_counter, s.route_obstacle
    has_obstacle = s.obstacle_in_hand[p]
    block: tuple[int, int] | None = None  # (-cost, id), the least wins
    blocker: tuple[int, int] | None = None  # (-markers, id)
    roads = _roads_at(board)
    # The roads beside a rival (each once; the least key wins, whatever the order).
    for r in {r for t in rival_towns for r in roads[t]}:
        route = board.routes[r]
        if counters[r] == NO_PIECE:
            best: tuple[int, int] | None = None
            for k in held:
                c = _COSTS[k][route.terrain] or 0
                if c > 0 and (best is None or (c, k) > best):
                    best = (c, k)
            if best is not None:
                key = (-best[0], _place_id(best[1], r))
                if block is None or key < block:
                    block = key
        elif has_obstacle and obstacles[r] == NO_PIECE:
            most = max(s.markers(q) for q in range(s.n)
                       if q != p and boots[q] in (route.a, route.b))
            key = (-most, _obstacle_id(r))
            if blocker is None or key < blocker:
                blocker = key
    for found in (block, blocker):
        if found is not None and found[1] in legal and found[1] not in out:
            out.append(found[1])
    return out[:MAX_CANDIDATES]


_COSTS = tuple(COST_TABLE[t] for t in Transport)
_ROADS_AT: dict[int, tuple[object, list[list[int]]]] = {}


def _roads_at(board: Board) -> list[list[int]]:
    """Per town, the roads (not rivers or lakes) that end there."""
    hit = _ROADS_AT.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1]
    at: list[list[int]] = [[] for _ in board.towns]
    for r in board.roads:
        route = board.routes[r]
        at[route.a].append(r)
        at[route.b].append(r)
    _ROADS_AT[id(board)] = (board, at)
    return at


def wider(s: ElfenlandState, roots: Sequence[Action], mode: int) -> list[Action]:
    """Placements ``candidates`` leaves out (``mode``, the bot's ``wide``): 1 every
    counter the player may lay on a road from the town it stands in; 2 every legal
    placement and obstacle; 3 every obstacle and every counter on a road of its wish
    journey, whatever its kind; 4 in the last round only, every obstacle (the one
    placement the level keeps for it, ``OBSTACLE``).  A long search
    (``bench/search_strength.py --only roots``: every legal placement a root, 150 deals
    a root on 80 two-player positions, 100 on 50 four-player ones; the best chosen on
    one search and valued on another)
    finds one outside ``search``'s five in 53 of 80 and 37 of 50 positions, worth +0.038
    and +0.022 of reward over their best; the roads from the player's own town +0.011
    of it with two players, the obstacles and the wish's roads +0.019 with four.  In
    games neither gained (``docs/bots.md``, session 27)."""
    if mode == 4 and s.round < s.rules.rounds:
        return []
    p = s.current
    here = s.boots[p]
    routes = s.board.routes
    mine = ({st.action.route for st in wish(s, p).steps if st.action.kind is Kind.PLACE}
            if mode == 3 else set())
    out = []
    for a in s.legal_actions():
        if a in roots or a.kind is Kind.PASS:
            continue
        road = a.route
        if (mode == 2
                or (mode == 1 and a.kind is Kind.PLACE and road is not None
                    and here in (routes[road].a, routes[road].b))
                or (mode == 3 and (a.kind is Kind.OBSTACLE or road in mine))
                or (mode == 4 and a.kind is Kind.OBSTACLE)):
            out.append(a)
    return out


def leave_out(roots: Sequence[Action], leave: int) -> list[Action]:
    """``candidates``' roots without the kinds ``leave`` names (the bot's ``leave``).
    Their order tells the kinds apart: the greedy counter, the wish's, pass, then the
    blocking counter and the obstacle."""
    after = roots.index(Action.pass_()) if Action.pass_() in roots else len(roots)
    out: list[Action] = []
    for i, a in enumerate(roots):
        if i < after:
            drop = i > 0 and bool(leave & 1)
        elif i == after:
            drop = bool(leave & 2)
        elif a.kind is Kind.OBSTACLE:
            drop = bool(leave & 8)
        else:
            drop = bool(leave & 4)
        if not drop:
            out.append(a)
    return out or list(roots[:1])


def lead_block(s: ElfenlandState, leaders: bool = True) -> Action | None:
    """``candidates``' blocking counter: the empty road beside a rival where a kind the
    player holds costs most, the lowest id of equals (None if there is none); with
    ``leaders``, beside the rivals with the most markers only (what the player to act
    can see: markers and where each stands)."""
    p = s.current
    board = s.board
    rivals = [q for q in range(s.n) if q != p]
    most = max(s.markers(q) for q in rivals)
    towns = {s.boots[q] for q in rivals if not leaders or s.markers(q) == most}
    held = owned_kinds(s, p)
    legal = set(s.legal_action_ids())
    found: list[tuple[int, int, Action]] = []
    for r in board.roads:
        route = board.routes[r]
        if s.route_counter[r] != NO_PIECE or (route.a not in towns and route.b not in towns):
            continue
        costs = [(COST_TABLE[Transport(k)][route.terrain] or 0, k) for k in held]
        costs = [c for c in costs if c[0] > 0]
        if costs:
            c, k = max(costs)
            a = Action.place(Transport(k), r)
            if a.id in legal:
                found.append((-c, a.id, a))
    return min(found)[2] if found else None


def _move_key(s: ElfenlandState) -> tuple[object, ...]:
    """What a committed step is checked against: the same game, round, mover, boot,
    hand and towns as when the journey was chosen."""
    p = s.current
    return (s.round, p, s.boots[p], tuple(s.hands[p]), s.visited[p], s.discarding)


def still_best(j: Journey, before: ElfenlandState, after: ElfenlandState, p: int) -> bool:
    """Whether ``j``, player ``p``'s wish journey on ``before``, is still worth what their
    wish on ``after`` is worth (the same deal, counters or obstacles laid since), without
    planning again.

    The wish crosses an empty road by any kind ``p`` holds (``wild_kinds``), a road with
    a counter by that counter only, paying its cards (no caravans).  So these leave ``j``
    the best, as they only take options away from roads ``j`` does not use, or add one
    ``p`` cannot pay for, while ``j`` stays possible at its price:

    - a counter of a kind ``p`` holds, on an empty road off ``j``;
    - a counter of a kind ``p`` does not hold, on an empty road off ``j``, that ``p``'s
      hand cannot pay to cross (fewer cards of its kind than the terrain asks);
    - an obstacle on a road off ``j``;
    - a counter of the very kind ``j`` assumed on an empty road it crosses (each step of
      ``j`` on that road assumed that kind).

    Anything else may change it: another change to a road of ``j``, a counter ``p`` can
    use, or ``p``'s own pieces changed (the searcher after its root action).  This is
    what the search bot's rollouts see by planning every wish again after the root
    action, at the cost of one plan in a few."""
    if (after.hands[p] != before.hands[p] or after.boots[p] != before.boots[p]
            or after.counters_up[p] != before.counters_up[p]
            or after.counters_secret[p] != before.counters_secret[p]):
        return False
    counters, was = after.route_counter, before.route_counter
    obstacles, had = after.route_obstacle, before.route_obstacle
    if counters == was and obstacles == had:
        return True
    held: set[int] | None = None
    hand: list[int] | None = None
    used: dict[int, set[int]] | None = None  # road -> the kinds j's wild steps assume
    routes = before.board.routes
    for r in range(len(counters)):
        if counters[r] == was[r] and obstacles[r] == had[r]:
            continue
        if used is None:
            used = {}
            for st in j.steps:
                a = st.action
                if a.route is not None:
                    used.setdefault(a.route, set()).add(
                        int(a.transport) if a.kind is Kind.PLACE and a.transport is not None
                        else -1)
        if r in used:
            if (obstacles[r] == had[r] and was[r] == NO_PIECE
                    and used[r] == {counters[r]}):
                continue
            return False
        if counters[r] == was[r]:
            continue  # an obstacle off j
        if was[r] != NO_PIECE:
            return False
        if held is None:
            held = set(owned_kinds(before, p))
            hand = before.hands[p]
        k = counters[r]
        if k in held:
            continue
        price = _COSTS[k][routes[r].terrain]
        assert hand is not None
        if price is None or hand[k] < price:
            continue
        return False
    return True


def journey_roots(s: ElfenlandState, width: int = MOVE_WIDTH) -> list[Journey]:
    """The journeys worth searching for the player to move: first the one ``move``
    plays (of the planner's journeys collecting the most towns, one per town it can end
    in, the one with the best ``outlook``; in the last round the planner's own), then
    up to ``width`` of the others, best outlook first.  They differ in where they end
    and which cards they keep, which the planner and the outlook judge by fixed rules
    and rollouts into the next round can judge by what follows."""
    p = s.current
    pref = preference_for(s, p)
    final = s.round >= s.rules.rounds
    bonus = None if final else standing(s, p)
    first = plan_journey(s, p, preference=pref, end_bonus=bonus)
    board = s.board
    n = len(board.towns)
    here = s.boots[p]
    cards = sum(s.hands[p])
    found = [first]
    ends = {first.steps[-1].to if first.steps else here}
    for t in range(n):  # as ``outlook.look_ahead_journey`` visits them
        if t in ends or board.distances[here][t] > cards:
            continue
        force = [0] * n
        force[t] = 1_000_000
        j = plan_journey(s, p, preference=pref, end_bonus=force)
        end = j.steps[-1].to if j.steps else here
        if end in ends or j.key[:2] != first.key[:2]:
            continue
        ends.add(end)
        found.append(j)
    if final:
        values = [(0, 0, j.usefulness) if j is not first else (1, 0, 0) for j in found]
    else:
        values = [(*journey_outlook(s, p, j), j.usefulness) for j in found]
    # ``look_ahead_journey``'s choice: the best value, the earliest found of equals.
    order = sorted(range(len(found)), key=lambda i: (values[i], -i), reverse=True)
    return [found[i] for i in order[:width + 1]]


#: The margin's weight by rounds still to come after this one (``evaluate``'s
#: ``calibrated``; 1 for rounds not listed): the sigmoid that best predicts the game's
#: winner from the margin at a round's move phase, over 300 two-player and 150
#: four-player games of greedy bots (Brier score, weights 0.25-1.5 tried): 0.5 in
#: rounds 1 and 2 (the margin then over-confident), 1 in round 3, 1.5 or more in the
#: last round (left at 1: ``exact`` is that and gave nothing).
ROUND_WEIGHT = {3: 0.5, 2: 0.5}

PASS_ID = Action.pass_().id
BLIND_ID = Action.draw(None).id
END_ID = Action.end().id

#: The ``horizon`` weight by number of players (the last entry for more), what a town
#: within reach of a journey's end is worth before the last round: 0.55 from the fit of
#: ``bench/elfenland_horizon.py``.  With three or more players it won 6.5 ± 5.7 points
#: against three ``search`` bots (400 paired games, 200 of them on fresh deals: +8.8 ±
#: 7.4); head to head it lost 6.2 ± 8.8 on 200, so two players keep the margin alone.
HORIZON = (0.0, 0.0, 0.0, 0.55)

#: The ``exact`` weight by number of players (the last entry for more): the last round
#: scored half by the game's outcome (ties of towns broken by the cards kept), half by
#: the margin.  A quarter of the games between ``quick`` and ``search`` end level on
#: towns, and the margin alone gives such a tie 0.5 whoever keeps more cards; with two
#: players it won 2.9 ± 3.0 points more over 1,600 paired games (session 25), the
#: ties' share from 0.49 to 0.60.
EXACT = (0.0, 0.0, 0.5, 0.0)

#: The ``obstacle`` weight by number of players (the last entry for more): what an
#: obstacle still in hand is worth before the last round, in towns.  Without it the
#: margin sees only what the obstacle takes from a rival this round, so both ``search``
#: and the level laid it in the first round in more than half their games (336 and 348
#: of 600, two players) and in the last in 3%; valued at a town, the level keeps it for
#: the last round, where the game is decided.  Against ``search`` as at the goal (session
#: 28): two players +3.7 ± 2.3 points over 3,200 paired games (+3.5 ± 3.2 on the 1,600 on
#: fresh deals), four players +5.6 ± 3.0 over 1,600 (+5.4 ± 4.4 on the 800 fresh).
OBSTACLE = (0.0, 0.0, 1.0, 1.0)

#: The ``counter`` weight by number of players (the last entry for more): what a
#: transportation counter held when the move phase starts, which the player may keep
#: for the next round, is worth before the last round, in towns.  The margin counts a
#: counter only where it is laid, so a counter kept back is worth nothing to it.
#: Against ``search`` as at the goal (session 29), a quarter of a town: two players
#: +2.4 ± 2.1 points over 3,200 paired games (+2.1 ± 3.0 on the 1,600 on fresh deals);
#: four players +0.2 ± 2.9 over 1,600, so 0 there.
COUNTER = (0.0, 0.0, 0.25, 0.0)

#: How far (reward) another root's mean must beat the first root's, the greedy bot's
#: choice, for the level to leave it, by the number of players (the search bot's
#: ``DEVIATION`` unless screened otherwise): the rollouts' rewards are biased, not only
#: noisy, so a lead of a few hundredths is not enough to leave the greedy choice.
#: Two players: 0.05, screened with ``MARGIN_SCALES`` and ``BELIEFS`` below (session
#: 31): the three together against ``search`` as at the goal, +2.2 ± 2.3 points over
#: 3,200 paired games on fresh deals, each alone +0.7 to +2.8 on its screen; with four
#: players 0.05 made +0.4 ± 2.5 over 2,400, so ``search``'s there.
DEVIATIONS = (DEVIATION, DEVIATION, 0.05, DEVIATION)

#: The margin's scale in the evaluation (``Scoring.scale``), by the number of players:
#: 6 towns with two (session 30's screen +1.4 ± 2.7; with the two beside it, above).
MARGIN_SCALES = (MARGIN_SCALE, MARGIN_SCALE, 6.0, MARGIN_SCALE)

#: The deals' belief (the bot's ``belief``), by the number of players: with two, deals
#: whose rival pays for the counters it laid this round (``belief=1``; session 31's
#: screen +0.7 ± 2.7; with the two beside it, above); with four, the engine's (session
#: 15: −0.1 ± 5.4).
BELIEFS = (0, 0, 1, 0)


@dataclass(frozen=True, slots=True)
class Scoring:
    """How ``evaluate`` scores a rollout's end: the search bot's margin by default, and
    the settings the screens tried on it (``evaluate`` says what each does)."""

    standing: float = 0.0
    exact: float = 0.0
    horizon: float = 0.0
    calibrated: bool = False
    learned: bool = False
    every_rival: bool = False
    tie_cards: float = 0.0
    obstacle: float = 0.0
    cards: float = 0.0
    counter: float = 0.0
    scale: float = MARGIN_SCALE
    horizon_late: float | None = None


#: The search bot's margin.
MARGIN = Scoring()


def horizon_at(scoring: Scoring, s: ElfenlandState) -> float:
    """The ``horizon`` weight the evaluation gives ``s``: ``horizon_late`` in the round
    before the last, where it is set."""
    if scoring.horizon_late is not None and s.round == s.rules.rounds - 1:
        return scoring.horizon_late
    return scoring.horizon


def evaluate(s: ElfenlandState, me: int, plans: _Plans, scoring: Scoring = MARGIN) -> float:
    """``elfenland_search.evaluate`` with memoised plans: the bot's margin over the best
    rival (markers plus the towns each player's journey collects), in [0, 1].
    ``scoring`` (its fields):

    ``standing``: what each town still to collect one link from the journey's end is
    worth, before the last round (where the next round starts counts; 0: not at all,
    as in the search bot).

    ``exact`` (0 to 1): in the last round, the weight of the game's outcome as the
    engine ranks it at the journeys' end (towns, then the travel cards kept after the
    discard to the hand limit), ``1/k`` for a tie of ``k``, against the margin's: the
    last round's journeys decide the game, and a margin of one town or of the cards
    in hand is as good as ten (the margin also ignores the tie-break on cards, which
    decided a tenth of the games ``quick`` lost).  ``horizon``: before the last round,
    what each town ``outlook`` reaches from the journey's end within the rounds left
    is worth, so that the margin reads as towns at the game's end, not at this
    round's (0: not at all).  ``calibrated``: the margin weighed by the rounds still
    to come (``ROUND_WEIGHT``), so that a lead early in the game, which predicts the
    winner less well, moves the reward less.  ``learned``: before the last round, each
    player's value is the markers at the game's end predicted by the table of
    ``elfenland_value`` (fitted on the quick level's own games), in place of the
    margin's towns and the horizon's, where the table has the round.  ``every_rival``:
    the product of the margin's sigmoid against each rival (the chance of beating them
    all were they independent), not against the best one alone; the same with two.
    ``tie_cards``: in the last round, where the player is level on towns with the best
    rival, what each travel card it keeps after the discard to the hand limit more than
    that rival is worth in the margin: the game's tie-break (a quarter of the games
    between ``quick`` and ``search`` end level on town pieces), which the margin
    ignores; a margin in towns is left as it is.  ``obstacle``: before the last round,
    what a player's obstacle still in hand is worth, in towns (0: nothing, as in the
    search bot, which lays it in the first round in more than half its games, where
    the margin sees only what it takes from the rival this round).  ``cards``: before
    the last round, what each travel card a player keeps after the journey (to the
    hand limit) is worth, in towns.  ``counter``: before the last round, what each
    transportation counter a player holds when the move phase starts (and so may keep
    for the next round, to the rules' ``counters_kept``) is worth, in towns.  ``scale``:
    the margin, in towns, that the sigmoid takes to about 0.98 (the search bot's
    ``MARGIN_SCALE``); smaller plays for the win, larger for the towns.
    ``horizon_late``: the ``horizon`` weight in the round before the last, where the
    towns within reach are those of the last round alone (None: ``horizon``)."""
    if s.is_terminal():
        won = s.winners()
        return 1.0 if me in won and len(won) == 1 else 0.5 if me in won else 0.0
    standing, exact, horizon = scoring.standing, scoring.exact, horizon_at(scoring, s)
    learned, tie_cards = scoring.learned, scoring.tie_cards
    final = s.round >= s.rules.rounds
    board = s.board
    rules = s.rules
    values = []
    keys: list[tuple[int, int, int]] = []
    towns: list[float] = []
    kept: list[int] = []
    for q, j in enumerate(plans.every(s)):
        v: float = s.markers(q) + j.new_towns
        fitted = None if final or not learned else learned_value(s, q, j, plans)
        if fitted is not None:
            values.append(fitted + j.usefulness / 10_000)
            continue
        if final:
            if j.distance is not None:
                v -= j.distance
        else:
            if scoring.obstacle and s.obstacle_in_hand[q]:
                v += scoring.obstacle
            if scoring.cards:
                v += scoring.cards * min(sum(j.hand), rules.hand_limit)
            if scoring.counter:
                held = sum(s.counters_up[q]) + sum(s.counters_secret[q])
                v += scoring.counter * min(held, rules.counters_kept)
        if (standing or horizon) and not final:
            seen = s.visited[q] | 1 << board.capital
            end = s.boots[q]
            for st in j.steps:
                end = st.to
                seen |= 1 << end
            if standing:
                near = board.distances[end]
                v += standing * sum(1 for u, d in enumerate(near)
                                    if d == 1 and not seen >> u & 1)
            if horizon:
                v += horizon * plans.reached(s, end, seen)
        if final and tie_cards:
            towns.append(v)
            kept.append(min(sum(j.hand), rules.hand_limit))
        if final and exact:
            score = s.markers(q) + j.new_towns
            close = 0
            if rules.town_cards and j.distance is not None:
                score -= j.distance
                close = -j.distance if rules.closest_breaks_ties else 0
            keys.append((score, close, min(sum(j.hand), rules.hand_limit)))
        values.append(v + j.usefulness / 10_000)
    weight = ROUND_WEIGHT.get(rules.rounds - s.round, 1.0) if scoring.calibrated else 1.0
    scale = scoring.scale
    if scoring.every_rival:
        reward = 1.0
        for q, v in enumerate(values):
            if q != me:
                reward /= 1.0 + math.exp(-(values[me] - v) * weight / scale * 4)
    else:
        margin = (values[me] - max(v for q, v in enumerate(values) if q != me)) * weight
        if towns:
            level = max(v for q, v in enumerate(towns) if q != me)
            if towns[me] == level:  # level on towns: the cards kept decide
                margin += tie_cards * (kept[me] - max(
                    c for q, c in enumerate(kept) if q != me and towns[q] == level))
        reward = 1.0 / (1.0 + math.exp(-margin / scale * 4))
    if keys:
        best = max(keys)
        share = 1.0 / keys.count(best) if keys[me] == best else 0.0
        reward = exact * share + (1.0 - exact) * reward
    return reward


class ElfenlandQuickBot:
    """ISMCTS over the placement phase, with memoised plans, rollouts on action ids and
    a budget asked before every rollout."""

    name = "quick"

    def __init__(self, seed: int | None = None, iterations: int = 2_000,
                 seconds: float = 0.3, clock: Clock = time.perf_counter,
                 workers: int = 1) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.clock = clock
        #: Whether the counters drawn are searched (the greedy bot's wish otherwise):
        #: 1 in every round, 2 in the last round only (where the move phase the
        #: rollouts reach decides the game).
        self.search_draws = 0
        #: Whether a rival's wish is planned again in a rollout when the root action (or
        #: a counter laid before its turn) may change it (``still_best``), as the search
        #: bot's rollouts do; off, the wish planned on the deal stands for every root.
        self.react_wishes = True
        #: Whether the players the rollouts play place as the greedy bot, so ``search``,
        #: does (``_Policy.place``: the best counter of the wish, the obstacle); off,
        #: the search bot's rollout policy (the wish's first counter, no obstacle).
        self.rival_greedy = False
        #: Whether the blocking root is laid beside the leading rival (``lead_block``)
        #: rather than beside whichever rival's road costs most (three players or more).
        self.block_leader = False
        #: Root actions beyond ``search``'s (``roots``, ``wider``): 0 none; 1 every
        #: counter it may lay on a road from the town it stands in; 2 every legal
        #: placement; 3 every obstacle and every counter on a road of its wish; 4 every
        #: obstacle in the last round.
        self.wide = 0
        #: Kinds of ``search``'s roots left out (a sum; ``leave_out``): 1 the wish
        #: journey's counters after the greedy one, 2 pass, 4 the blocking counter,
        #: 8 the obstacle; 0 none.
        self.leave = 0
        #: Counters of the wish journey searched beyond ``candidates``' (which stop at
        #: three placements with the greedy bot's); 0 none.
        self.more_wish = 0
        #: Blocking counters searched (``candidates``' ``blocking``; ``search``'s one).
        self.blocking = 1
        #: Whether a placement's rollouts play the placement phase's policy turns and
        #: score their end in C (``compiled_rollouts``, the same rewards bit for bit)
        #: where the settings are those ported (``compiled_for``) and both extensions
        #: are built; off, always the Python rollouts.
        self.compiled = True
        self._rollouts: tuple[Board, QuickRollouts] | None = None
        #: Whether the searcher's own later placements in a rollout are chosen in a tree
        #: (UCB over the search bot's candidates, one tree a root action), as the search
        #: bot chooses them; off, its wish journey's policy lays them.
        self.own_tree = True
        #: Whether the rivals' placements in that tree are nodes too, each rival
        #: choosing among its ``candidates`` the reply worst for the searcher (UCB on
        #: one less the reward); off, the rollout policy lays them.
        self.rival_tree = False
        #: What a town still to collect beside the end of a player's journey is worth in
        #: the evaluation before the last round (``evaluate``).
        self.standing = 0.0
        #: The weight of the game's exact outcome in the last round's evaluation, and
        #: what a town ``outlook`` reaches in the rounds left is worth before it
        #: (``evaluate``; 0: the search bot's margin).  None: by the number of players
        #: (``EXACT``, ``HORIZON``).
        self.exact: float | None = None
        self.horizon: float | None = None
        #: Whether the margin is weighed by the rounds to come (``ROUND_WEIGHT``).
        self.calibrated = False
        #: Whether the reward is the chance of beating every rival (the product of a
        #: margin's sigmoid against each), not of beating the best one: with three
        #: rivals a close second and third are threats the best rival's margin ignores.
        self.every_rival = False
        #: What a travel card kept at the game's end is worth in the last round's
        #: margin (``evaluate``'s ``tie_cards``; 0: nothing, as in the search bot).
        self.tie_cards = 0.0
        #: What an obstacle still in hand, and each travel card kept, are worth before
        #: the last round (``evaluate``'s ``obstacle`` and ``cards``; 0: nothing).
        #: (``None``: ``OBSTACLE`` by the number of players.)
        self.obstacle: float | None = None
        self.cards = 0.0
        #: What a counter held into the move phase, to keep, is worth before the last
        #: round (``evaluate``'s ``counter``; 0: nothing; ``None``: ``COUNTER`` by the
        #: number of players).
        self.counter: float | None = None
        #: The margin's scale in the evaluation (``evaluate``'s ``scale``; ``None``: the
        #: search bot's ``MARGIN_SCALE``).
        self.margin_scale: float | None = None
        #: The ``horizon`` weight in the round before the last (``evaluate``'s
        #: ``horizon_late``; ``None``: the same as in the rounds before it).
        self.horizon_late: float | None = None
        #: Whether a player's value before the last round is the learned one
        #: (``elfenland_value.VALUE``, predicted markers at the game's end).
        self.learned = False
        #: Whether the counter kept at the end of a round is searched, with rollouts
        #: into the next round (``search_ahead``); the greedy bot's keep otherwise.
        self.search_keeps = False
        #: Whether a placement's rollouts play on past this round's placements: its
        #: move phase, keeps and discards, the next round's deal, draws and placements,
        #: and are evaluated where that round's move phase starts (as ``search_ahead``);
        #: 1 in every round but the last, 2 in the round before the last only; 0 (off):
        #: evaluated where this round's move phase starts.
        self.place_ahead = 0
        #: Whether the travel cards discarded down to the hand limit are searched so.
        self.search_discards = False
        #: Whether a step of the move is searched among ``journey_roots`` with rollouts
        #: into the next round (to the end of the game in the last round); ``move``
        #: otherwise.
        self.search_moves = False
        #: 1: the deals give each rival a hand that pays for the counters it laid this
        #: round (``elfenland_belief.paying_deal``: one unpaid is kept at the odds
        #: ``belief_eps``); 2: also a card of each kind of face-up counter it holds;
        #: 3: the deals of a pool weighted by how well the greedy bot explains each
        #: rival's draws and placements of the round (``elfenland_reading``);
        #: 0: the engine's deals (``resample_from_infostate``).  ``None``: ``BELIEFS``
        #: by the number of players.
        self.belief: int | None = None
        self.belief_eps = EPS
        #: With ``belief=3``: the pool's size, and whether its upkeep is left out of the
        #: decision's budget (a bench's upper bound on what the reading is worth).
        self.reading_size = READING_SIZE
        self.reading_free = False
        self.reading: Reading | None = None
        #: The rest of a journey the search chose over ``move``'s: (the state's key
        #: where each step is to be played, its action id).
        self.committed: list[tuple[tuple[object, ...], int]] = []
        #: The margin a root must beat the first by (``None``: ``DEVIATIONS`` by the
        #: number of players); the root loop's ``deviation`` for each decision.
        self.deviation: float | None = None
        #: The root loop and its constants (an attribute: a bench may try others).
        #: ``workers`` > 1: each decision's deals split over as many processes, each
        #: with this budget on its own clock and its own deals drawn from ``rng``
        #: (``budget.RootSearch``, ``parallel``).
        self.loop = RootSearch(DEVIATION, workers, self.rng)
        #: The CPU a search leaves when it ends early (the loop's ``sure``: the first
        #: root sure to stand) is banked for a later search of the same game, which may
        #: borrow up to ``bank`` times ``seconds`` from it (0: no bank).  ``banked``:
        #: the seconds saved and not yet spent (what a search overran is paid back).
        #: Screened in session 38 (``sure=3``, ``bank=3``): the searches sure early
        #: lose nothing by stopping (``sure=3`` alone: +0.6 ± 3.0 points head to head
        #: on 65% of the CPU a game), but the time moved to the others gains nothing
        #: measurable (0.0 ± 3.1 head to head, +0.6 ± 4.4 against three), so both
        #: stay off.
        self.bank = 0.0
        self.banked = 0.0
        #: What the bank holds at a game's start, in ``seconds``: the seconds saved
        #: late in a game have no search left to spend them, so a game may spend that
        #: much of them ahead (with ``bank`` only).
        self.credit = 0.0
        #: The length of the game's history at the last decision (-1 before the first):
        #: a shorter one is a new game, whose bank starts at the ``credit``.
        self._length = -1
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
        reading = self.reading_for(state)
        length = state.history_length()
        if length < self._length or self._length < 0:
            self.banked = self.credit * self.seconds
        self._length = length
        self.loop.deviation = by_players(DEVIATIONS, self.deviation, state.num_players)
        moving = state.phase is Phase.MOVE and not state.discarding
        if moving and self.committed:
            key, step = self.committed.pop(0)
            if key == _move_key(state):
                return from_id(step)
            self.committed.clear()
        if len(legal) == 1:
            return legal[0]
        if moving and self.search_moves:
            return self.search_move(state)
        if moving:
            return move(state)
        if self.ahead(state):
            budget = self.budget()
            roots = self.round_end_roots(state, legal)
            if len(roots) == 1:
                return roots[0]
            return self.search_ahead(state, roots, budget)
        drawing = state.phase is Phase.DRAW_COUNTERS and (
            self.search_draws == 1
            or (self.search_draws == 2 and state.round >= state.rules.rounds))
        if state.phase is not Phase.PLACE and not drawing:
            return self.greedy.choose(state)
        if reading is not None and self.reading_free:
            reading.update(state)
        budget = self.budget()  # from here: choosing the roots is part of the decision
        if reading is not None and not self.reading_free:
            reading.update(state)
        roots = self.draws(state, legal) if drawing else self.roots(state)
        if len(roots) == 1:
            return roots[0]
        return self.search(state, roots, budget)

    def roots(self, s: ElfenlandState) -> list[Action]:
        """The placement's root actions: ``search``'s (``candidates``), and with
        ``block_leader`` the blocking counter beside the leading rival (``lead_block``)
        in place of ``search``'s, which blocks beside whichever rival's road costs most
        (with two players the same rival: no change)."""
        roots = candidates(s, self.greedy, blocking=self.blocking)
        if self.leave:
            roots = leave_out(roots, self.leave)
        if self.more_wish:
            legal = set(s.legal_action_ids())
            extra = [st.action for st in wish(s, s.current).steps
                     if st.action.kind is Kind.PLACE and st.action.id in legal
                     and st.action not in roots]
            roots += list(dict.fromkeys(extra))[:self.more_wish]
        if self.wide:
            roots += wider(s, roots, self.wide)
        if not self.block_leader or s.n < 3:
            return roots
        lead = lead_block(s)
        anyone = lead_block(s, leaders=False)
        after = roots.index(Action.pass_()) if Action.pass_() in roots else len(roots)
        if anyone is not None and anyone != lead and anyone in roots[after + 1:]:
            at = roots.index(anyone)  # search's blocking root (added after pass): out
            roots = roots[:at] + roots[at + 1:]
        if lead is not None and lead not in roots:
            roots.append(lead)
        return roots

    def ahead(self, s: ElfenlandState) -> bool:
        """Whether this decision is one of the round's end searched with rollouts into
        the next round: the counter kept, a card discarded (not in the last round,
        where neither matters but for ties)."""
        if s.round >= s.rules.rounds:
            return False
        if s.phase is Phase.KEEP:
            return bool(self.search_keeps)
        return s.phase is Phase.MOVE and s.discarding and bool(self.search_discards)

    def round_end_roots(self, s: ElfenlandState, legal: list[Action]) -> list[Action]:
        """The greedy bot's keep or discard first, then one action for every other
        counter or card kind (a counter kept face down when it may be: the rivals do
        not see it, and the rules treat both alike)."""
        first = self.greedy.choose(s)
        assert isinstance(first, Action)
        out = [first]
        kinds = {first.transport}
        for a in sorted(legal, key=lambda a: not a.secret):
            if a.transport not in kinds:
                kinds.add(a.transport)
                out.append(a)
        return out

    def search_ahead(self, state: ElfenlandState, roots: Sequence[Action],
                     budget: Budget | None = None) -> Action:
        """``search`` for the round's end: every rollout plays the root action, the
        rest of the round (the others' journeys, discards and keeps by the greedy
        rules), the next round's deal, draws and placements by the rollout policy,
        and is evaluated where that round's move phase starts: what a counter or
        card kept is worth shows only there."""
        chosen = self._search_paths(state, [[a.id] for a in roots],
                                    self.budget() if budget is None else budget)
        return roots[chosen]

    def _search_paths(self, state: ElfenlandState, paths: Sequence[Sequence[int]],
                      budget: Budget) -> int:
        """The root loop over sequences of actions (a keep, a discard, a journey),
        each deal's rollouts played on from there by ``_rollout_ahead``: the index of
        the one to play."""
        me = state.current
        plans = _Plans()
        deal = resampled(state, me, self.rng, lambda det, seed: lambda sim, i:
                         self._rollout_ahead(sim, me, paths[i], plans, seed))
        chosen = self.loop.choose(len(paths), budget, deal)
        self._spent(budget)
        return chosen

    def _rollout_ahead(self, s: ElfenlandState, me: int, first: Sequence[int],
                       plans: _Plans, seed: int) -> float:
        """The root actions, the round played out by the policy, the next round to
        its move phase (or the end of the game), then the evaluation."""
        rng = random.Random(seed)
        start_round = s.round
        for a in first:
            s.apply_action(a)
        self._next_round(s, plans, rng, start_round)
        return evaluate(s, me, plans, self.scoring(s))

    def _next_round(self, s: ElfenlandState, plans: _Plans,
                    rng: random.Random | _Draws, start_round: int) -> None:
        """The rest of round ``start_round`` by the policy (the journeys as planned at
        each player's first step, the discards and keeps by the greedy rules), then the
        next round's deal, draws and placements, to its move phase (or the game's end)."""
        react = bool(self.react_wishes)
        place = bool(self.rival_greedy)
        policy = _Policy(plans, self.greedy, s, {}, react, place)
        while not s.is_terminal() and s.round == start_round:
            s.apply_action(policy.choose(s, rng))
        policy = _Policy(plans, self.greedy, s, {}, react, place)
        policy.looking = True
        while not s.is_terminal() and s.phase not in (Phase.PLACE, Phase.MOVE):
            s.apply_action(policy.choose(s, rng))
        # The wishes the placements follow, planned on the counters drawn.
        policy = _Policy(plans, self.greedy, s.clone(), {}, react, place)
        while not s.is_terminal() and s.phase is not Phase.MOVE:
            s.apply_action(policy.choose(s, rng))

    def goes_ahead(self, s: ElfenlandState, start_round: int) -> bool:
        """Whether a placement's rollout, at the move phase of round ``start_round``,
        plays on to the next round's (``place_ahead``)."""
        rounds = s.rules.rounds
        if not self.place_ahead or s.is_terminal() or start_round >= rounds:
            return False
        return self.place_ahead == 1 or start_round == rounds - 1

    def scoring(self, s: ElfenlandState) -> Scoring:
        """The evaluation's settings for this game (the bot's, which a bench may set)."""
        n = s.num_players
        return Scoring(float(self.standing), by_players(EXACT, self.exact, n),
                       self.horizon_for(s), bool(self.calibrated), bool(self.learned),
                       bool(self.every_rival), float(self.tie_cards),
                       by_players(OBSTACLE, self.obstacle, n), float(self.cards),
                       by_players(COUNTER, self.counter, n),
                       by_players(MARGIN_SCALES, self.margin_scale, n),
                       None if self.horizon_late is None else float(self.horizon_late))

    def horizon_for(self, s: ElfenlandState) -> float:
        """The ``horizon`` weight of this game: the setting, or ``HORIZON`` by players."""
        return by_players(HORIZON, self.horizon, s.num_players)

    def search_move(self, state: ElfenlandState) -> Action:
        """A step of the move: the journeys of ``journey_roots`` searched whole (each
        rollout plays the journey, then as ``search_ahead``); ``move``'s journey stands
        unless another beats it by the margin, and a journey chosen over it is followed
        to its end (``committed``)."""
        budget = self.budget()
        journeys = journey_roots(state)
        if len(journeys) == 1:
            return journeys[0].actions[0]
        paths = [[a.id for a in j.actions] for j in journeys]
        chosen = self._search_paths(state, paths, budget)
        if chosen:
            sim = state.clone()
            for step in paths[chosen]:
                self.committed.append((_move_key(sim), step))
                sim.apply_action(step)
            self.committed.pop(0)
        return journeys[chosen].actions[0]

    def draws(self, s: ElfenlandState, legal: list[Action]) -> list[Action]:
        """The counters it may draw (face up, or blind), the greedy bot's choice first."""
        first = self.greedy.draw(s, legal)
        if first not in legal:  # the greedy bot's blind draw from an empty pile
            first = legal[0]
        return [first, *(a for a in legal if a != first)]

    def budget(self) -> Budget:
        """A decision's budget, started, with what it may borrow from the bank (at most
        ``bank`` times ``seconds``)."""
        extra = min(self.banked, self.bank * self.seconds) if self.bank else 0.0
        return Budget(self.iterations, self.seconds + max(0.0, extra), self.clock).start()

    def _spent(self, budget: Budget) -> None:
        """A search over: its rollouts counted, and with a bank, the seconds it left
        of its own budget banked (less what it borrowed or overran)."""
        self.searches += 1
        self.rollouts += budget.used
        if self.bank:
            self.banked += budget.deadline - self.clock() - (budget.seconds - self.seconds)

    def search(self, state: ElfenlandState, roots: Sequence[Action],
               budget: Budget | None = None) -> Action:
        """Deals in turn, each tried with every root action still in play (common random
        numbers, ``RootSearch``); the greedy choice (the first root) stands unless
        another beats it by ``DEVIATION`` on average."""
        me = state.current
        if budget is None:
            budget = self.budget()
        plans = _Plans()
        scoring = self.scoring(state)  # one game, one round: the same for every rollout
        fast = self.compiled_for(state, scoring)
        trees = [_Node() if self.own_tree and fast is None else None for _ in roots]

        tree_ids = ([] if fast is None else fast.trees(len(roots), EXPLORATION)
                    if self.own_tree else [-1] * len(roots))

        def on_deal(det: ElfenlandState, seed: int) -> Callable[[ElfenlandState, int], float]:
            wishes: dict[int, Journey] = {}

            def policy() -> _Policy:
                return _Policy(plans, self.greedy, det, wishes, bool(self.react_wishes),
                               bool(self.rival_greedy))

            if fast is not None:
                fast.deal(det)

                def compiled(sim: ElfenlandState, i: int) -> float:
                    return self._compiled_rollout(sim, me, roots[i].id, plans, policy, seed,
                                                  tree_ids[i], scoring, fast)
                return compiled

            def play(sim: ElfenlandState, i: int) -> float:
                return self._rollout(sim, me, roots[i].id, plans, policy(), seed, trees[i],
                                     scoring)
            return play

        deal = resampled(state, me, self.rng, on_deal, self.refine(state, me))
        chosen = self.loop.choose(len(roots), budget, deal)
        self._spent(budget)
        return roots[chosen]

    def compiled_for(self, state: ElfenlandState, scoring: Scoring) -> QuickRollouts | None:
        """The compiled rollouts for a search of ``state`` (``compiled_rollouts``, made
        once a board and told of the search), or None where the Python rollouts must
        play: the setting off, an extension missing, a setting the C code does not
        have (rivals placing as the greedy bot or in the tree, rollouts into the next
        round, an evaluation setting other than the exact outcome, the horizon, the
        obstacle, cards and counters held and the scale), or a game beyond its bounds."""
        if (not self.compiled or not self.react_wishes or self.rival_greedy
                or self.rival_tree or self.place_ahead or scoring.standing
                or scoring.calibrated or scoring.learned or scoring.every_rival
                or scoring.tie_cards):
            return None
        held = self._rollouts
        if held is None or held[0] is not state.board:
            made = compiled_rollouts(state)
            if made is None:
                return None
            held = self._rollouts = (state.board, made)
        fast = held[1]
        return fast if fast.reset(state) else None

    def belief_for(self, state: ElfenlandState) -> int:
        """The ``belief`` of this game: the setting, or ``BELIEFS`` by players."""
        return int(by_players(BELIEFS, self.belief, state.num_players))

    def reading_for(self, state: ElfenlandState) -> Reading | None:
        """With ``belief=3``, the pool of deals of the player to move (a new one for a
        new game or seat), told of this position."""
        if self.belief_for(state) < 3:
            return None
        me = state.current
        r = self.reading
        if r is None or r.me != me or len(state.log) < max(r.memory, default=0):
            r = self.reading = Reading(me, random.Random(self.rng.randrange(2**32)),
                                       self.reading_size)
        r.observe(state)
        return r

    def refine(self, state: ElfenlandState,
               me: int) -> Callable[[ElfenlandState], object] | None:
        """With ``belief``, what makes a deal pay for the counters the rivals laid, or
        (``belief=3``) a deal of the reading's pool."""
        belief = self.belief_for(state)
        if not belief:
            return None
        if belief >= 3:
            return None if self.reading is None else self.reading.refine
        need = claims(state, me, held=belief >= 2)
        if not need:
            return None
        rng, eps = self.rng, self.belief_eps
        return lambda det: paying_deal(det, me, need, rng, eps)

    def _compiled_rollout(self, s: ElfenlandState, me: int, first: int, plans: _Plans,
                          policy: Callable[[], _Policy], seed: int, tree: int,
                          scoring: Scoring, fast: QuickRollouts) -> float:
        """``_rollout`` on the compiled rollouts, which keep the searcher's trees
        (``tree``: the root's, -1 for none) and play the whole rollout in C: the root,
        the tree's placements, the policy's, the evaluation.  Where a rollout does not
        end in its round's move phase (never, with the settings ``compiled_for``
        allows), the policy plays on here and the reward goes back to the tree."""
        rng = _Draws(seed)
        start_round = s.round
        horizon = horizon_at(scoring, s)  # the round it is scored in, if in C
        reward = fast.rollout(s, me, first, tree, rng, scoring.exact, horizon,
                              scoring.obstacle, scoring.cards, scoring.counter,
                              scoring.scale)
        if reward >= 0.0:
            return reward
        chooser = policy()
        while (not s.is_terminal() and s.round == start_round
               and s.phase is not Phase.MOVE):
            s.apply_action(chooser.choose(s, rng))
        reward = fast.evaluate(s, me, scoring.exact, horizon_at(scoring, s), scoring.obstacle,
                               scoring.cards, scoring.counter, scoring.scale)
        if reward < 0.0:
            reward = evaluate(s, me, plans, scoring)
        fast.backup(reward)
        return reward

    def _rollout(self, s: ElfenlandState, me: int, first: int, plans: _Plans,
                 policy: _Policy, seed: int, tree: _Node | None = None,
                 scoring: Scoring | None = None) -> float:
        """The root action, then every player's policy to the move phase (or the end
        of the game), then the evaluation.  With a ``tree`` (the root action's), the
        searcher's own later placements are chosen in it first, as the search bot's
        tree chooses them (UCB, one new node a rollout), and with ``rival_tree`` the
        rivals' too, each the reply worst for the searcher; without, by its policy.
        ``scoring``: the evaluation's settings, which ``search`` works out once for all
        its rollouts (the bot's own for this game if not given).  The reference of
        the compiled rollouts (``_compiled_rollout``), and the rollouts of the
        settings they lack."""
        rng = _Draws(seed)
        start_round = s.round
        s.apply_action(first)
        path = [] if tree is None else [tree]
        node = tree
        while (node is not None and not s.is_terminal() and s.phase is Phase.PLACE
               and s.round == start_round):
            rival = s.current != me
            if rival and not self.rival_tree:
                s.apply_action(policy.choose(s, rng))
                continue
            acts = candidate_ids(s, plans.wish)
            for a in acts:
                node.available[a] = node.available.get(a, 0) + 1
            untried = [a for a in acts if a not in node.children]
            if untried:
                a = untried[rng.randrange(len(untried))]
                node.children[a] = child = _Node()
                s.apply_action(a)
                path.append(child)
                break
            parent = node
            # A rival's reply: the one worst for the searcher.
            a = max(acts, key=lambda x: _ucb(parent, parent.children[x], x, rival))
            node = node.children[a]
            s.apply_action(a)
            path.append(node)
        while (not s.is_terminal() and s.round == start_round
               and s.phase is not Phase.MOVE):
            s.apply_action(policy.choose(s, rng))
        if self.goes_ahead(s, start_round):
            self._next_round(s, plans, rng, start_round)
            scoring = None
        if scoring is None:
            scoring = self.scoring(s)
        reward = evaluate(s, me, plans, scoring)
        for n in path:
            n.visits += 1
            n.total += reward
        return reward
