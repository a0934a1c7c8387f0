"""The greedy Elfenland bot: the exact planner for movement, one-look heuristics elsewhere.

Its idea of the future is the *wish journey*: the planner run as if the player could also
cross every empty road with a counter of a kind they hold (``wild_kinds``).  Drawing
takes the face-up counter that most improves that journey, placing lays the counters the
journey needs, and the obstacle goes on a road a rival's own best journey uses.
Rivals' hands are never read: their journeys are planned on a resampled state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Container, Sequence

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..core.transport import COST_TABLE, Transport
from ..games.elfenland.actions import Action, Kind
from ..games.elfenland.state import ElfenlandState, Phase
from .planner import PREFERENCE, Journey, discard_choice, plan_journey

#: Extra preference for card kinds matching a counter the player holds or keeps.
HELD_COUNTER_BONUS = 10


def owned_kinds(state: ElfenlandState, p: int) -> list[int]:
    """Counter kinds the player holds now (face up, secret or set aside to keep)."""
    up, secret = state.counters_up[p], state.counters_secret[p]
    kept_up, kept_secret = state.kept_up[p], state.kept_secret[p]
    return [k for k in range(6) if up[k] or secret[k] or kept_up[k] or kept_secret[k]]


def wish(state: ElfenlandState, p: int, kinds: Sequence[int] | None = None) -> Journey:
    """The best journey if the player could lay their counters on any empty road
    (caravans left out: this is an estimate, and it is asked for often)."""
    return plan_journey(state, p, wild_kinds=owned_kinds(state, p) if kinds is None else kinds,
                        any_cards=False)


def preference_for(state: ElfenlandState, p: int) -> tuple[int, ...]:
    held = owned_kinds(state, p)
    return tuple(v + (HELD_COUNTER_BONUS if k in held else 0)
                 for k, v in enumerate(PREFERENCE))


def obstacle_road(s: ElfenlandState, p: int, my_roads: Container[int | None],
                  journey_of: Callable[[int], Journey],
                  allowed: Callable[[int], bool]) -> int | None:
    """Where ``p``'s obstacle hurts most: the first road, off ``p``'s own journey
    (``my_roads``), of the journey (``journey_of``) of a rival level with ``p`` or ahead
    that collects two towns or more, the rival with the most towns in sight first
    (ties: the lower road); None if there is none.  The greedy bot asks it on a deal of
    its own, the quick bot's rollouts on theirs."""
    markers = s.markers(p)
    routes = s.board.routes
    best: tuple[int, int] | None = None
    choice: int | None = None
    for q in range(s.n):
        if q == p or s.markers(q) + 1 < markers:
            continue
        theirs = journey_of(q)
        if theirs.new_towns < 2:
            continue
        for st in theirs.steps:
            r = st.action.route
            if r is None or not routes[r].is_road or r in my_roads or not allowed(r):
                continue
            value = (s.markers(q) + theirs.new_towns, -r)
            if best is None or value > best:
                best, choice = value, r
            break
    return choice


class ElfenlandGreedyBot:
    """Plays every phase with the heuristics in the module doc; deterministic per seed."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, ElfenlandState):
            raise ElfenlandError("this bot plays Elfenland")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1:
            return legal[0]
        action = self._pick(state, legal)
        return action if action in legal else legal[0]

    def _pick(self, s: ElfenlandState, legal: list[Action]) -> Action:
        phase = s.phase
        if phase is Phase.DRAW_COUNTERS:
            return self.draw(s, legal)
        if phase is Phase.PLACE:
            return self.place(s, legal)
        if phase is Phase.KEEP:
            return self.keep(s, legal)
        if phase is Phase.MOVE:
            p = s.current
            if s.discarding:
                return Action.discard(Transport(discard_choice(s.hands[p],
                                                               preference_for(s, p))))
            return plan_journey(s, p, preference=preference_for(s, p)).actions[0]
        return legal[0]

    # ------------------------------------------------------------------ drawing
    def draw(self, s: ElfenlandState, legal: list[Action]) -> Action:
        p = s.current
        held = owned_kinds(s, p)
        current = wish(s, p, held)
        deficit = _deficits(current, held, s, p)
        best: tuple[tuple[int, int, int], int, int] | None = None
        choice: Action | None = None
        for a in legal:
            if a.kind is not Kind.DRAW or a.transport is None:
                continue
            k = int(a.transport)
            kinds = held if k in held else [*held, k]
            value = (wish(s, p, kinds).key, deficit.get(k, 0), s.hands[p][k])
            if best is None or value > best:
                best, choice = value, a
        blind = Action.draw(None)
        if choice is None or best is None:
            return blind
        improves = best[0] > current.key or best[1] > 0
        if not improves and blind in legal:
            return blind
        return choice

    # ------------------------------------------------------------------ placing
    def place(self, s: ElfenlandState, legal: list[Action]) -> Action:
        p = s.current
        journey = wish(s, p)
        legal_set = set(legal)
        candidates: list[tuple[int, Action]] = []
        seen: set[Action] = set()
        for i, step in enumerate(journey.steps):
            a = step.action
            if a.kind is Kind.PLACE and a in legal_set and a not in seen:
                seen.add(a)
                candidates.append((i, a))
        best: tuple[tuple[int, int, int], int] | None = None
        choice: Action | None = None
        for i, a in candidates:
            after = s.clone()
            after.apply_action(a)
            value = (wish(after, p).key, -i)
            if best is None or value > best:
                best, choice = value, a
        if choice is not None:
            return choice
        obstacle = self.obstacle(s, legal_set, journey)
        if obstacle is not None:
            return obstacle
        return Action.pass_()

    def obstacle(self, s: ElfenlandState, legal: set[Action],
                 mine: Journey) -> Action | None:
        p = s.current
        if not s.obstacle_in_hand[p]:
            return None
        det = s.resample_from_infostate(p, Rng(self.rng.randrange(2**63)))
        road = obstacle_road(s, p, {st.action.route for st in mine.steps},
                             lambda q: plan_journey(det, q),
                             lambda r: Action.obstacle(r) in legal)
        return None if road is None else Action.obstacle(road)

    # ------------------------------------------------------------------ keeping
    def keep(self, s: ElfenlandState, legal: list[Action]) -> Action:
        p = s.current
        board = s.board
        here = s.boots[p]
        near = [r for r in board.roads
                if min(board.distances[here][board.routes[r].a],
                       board.distances[here][board.routes[r].b]) <= 1
                and not (s.visited[p] >> board.routes[r].a & 1
                         and s.visited[p] >> board.routes[r].b & 1)]

        def score(a: Action) -> tuple[int, int, bool]:
            assert a.transport is not None
            k = int(a.transport)
            cheap = sum(1 for r in near if COST_TABLE[Transport(k)][board.routes[r].terrain] == 1)
            return (cheap + s.hands[p][k], s.hands[p][k], a.secret)

        return max(legal, key=score)


def _deficits(journey: Journey, held: Sequence[int], s: ElfenlandState,
              p: int) -> dict[int, int]:
    """Counter kinds the wish journey uses on more roads than the player has counters."""
    need: dict[int, set[int]] = {}
    for st in journey.steps:
        a = st.action
        if a.kind is Kind.PLACE and a.transport is not None and a.route is not None:
            need.setdefault(int(a.transport), set()).add(a.route)
    out = {}
    for k, roads in need.items():
        have = (s.counters_up[p][k] + s.counters_secret[p][k] + s.kept_up[p][k]
                + s.kept_secret[p][k]) if k in held else 0
        if len(roads) > have:
            out[k] = len(roads) - have
    return out

