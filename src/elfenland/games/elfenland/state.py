"""The Elfenland game state and its rules.

The state holds counts, not card objects: cards and counters of one kind are
interchangeable, so a hand is seven numbers and a pile six.  That keeps copies cheap
(search bots clone states thousands of times) and makes "every card accounted for" a sum.
The deal, the hidden draws and the refills of the face-up row are chance events drawn
from the state's own seeded ``Rng``; players are never asked to act for them.
"""

from __future__ import annotations

import secrets
from enum import Enum
from functools import lru_cache
from itertools import chain, repeat
from operator import is_, itemgetter
from typing import Any, Final

from ...core.errors import (
    ActionParseError,
    ElfenlandError,
    GameOverError,
    IllegalActionError,
)
from ...core.game import TERMINAL, GameState, JSONDict, PlayerId, chain_tail
from ...core.game import Action as CoreAction
from ...core.rng import Rng
from ...core.saving import dump_game, load_game
from ...core.transport import COST_TABLE, Terrain, Transport
from .actions import (
    Action,
    CardCounts,
    Kind,
    Pay,
    by_value,
    parse,
    route_text,
    tables,
    transport_from_text,
)
from .board import Board, load_board
from .rules import Rules, make_rules

#: Travel cards of each kind (dragon ... giant pig: 10 each; raft: 12).
CARDS_PER_KIND: Final = (10, 10, 10, 10, 10, 10, 12)
TOTAL_CARDS: Final = sum(CARDS_PER_KIND)
#: Transportation counters of each land kind.
COUNTERS_PER_KIND: Final = 8
TOTAL_COUNTERS: Final = 6 * COUNTERS_PER_KIND
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
RAFT: Final = int(Transport.RAFT)
NO_PIECE: Final = -1


class Phase(Enum):
    DRAW_SECRET = "draw-secret"
    DRAW_COUNTERS = "draw-counters"
    PLACE = "place"
    KEEP = "keep"
    MOVE = "move"
    OVER = "over"


@lru_cache(maxsize=1 << 16)
def _sub_multisets(hand: tuple[int, ...], size: int) -> list[CardCounts]:
    """Every multiset of ``size`` cards that ``hand`` can pay, in a fixed order."""
    out: list[CardCounts] = []
    kinds = len(hand)
    chosen = [0] * kinds
    # after[k]: cards of the kinds after k, so that hopeless branches are cut at once.
    after = [0] * kinds
    for k in range(kinds - 2, -1, -1):
        after[k] = after[k + 1] + hand[k + 1]

    def rec(k: int, left: int) -> None:
        if k == kinds - 1:
            chosen[k] = left
            out.append(tuple(chosen))
            chosen[k] = 0
            return
        for n in range(min(left, hand[k]), max(0, left - after[k]) - 1, -1):
            chosen[k] = n
            rec(k + 1, left - n)
        chosen[k] = 0

    if size <= sum(hand):
        rec(0, size)
    return out


@lru_cache(maxsize=1 << 16)
def _paid_steps(route: int, direction: int, hand: tuple[int, ...],
                size: int) -> tuple[Action, ...]:
    """Every caravan (or boatmen crossing) of ``size`` cards that ``hand`` can pay."""
    paid = tables().paid[route][direction]
    return tuple(paid[cards] for cards in _sub_multisets(hand, size))


# Module-level names for enum members: attribute lookups on an Enum class are slow
# on the engine's hot path.
_K_DISCARD: Final = Kind.DISCARD
_K_DRAW: Final = Kind.DRAW
_K_DRAW_BLIND: Final = Kind.DRAW_BLIND
_K_DRAW_SECRET: Final = Kind.DRAW_SECRET
_K_END: Final = Kind.END
_K_KEEP: Final = Kind.KEEP
_K_MOVE: Final = Kind.MOVE
_K_OBSTACLE: Final = Kind.OBSTACLE
_K_PASS: Final = Kind.PASS
_K_PLACE: Final = Kind.PLACE
_P_DRAW_COUNTERS: Final = Phase.DRAW_COUNTERS
_P_DRAW_SECRET: Final = Phase.DRAW_SECRET
_P_KEEP: Final = Phase.KEEP
_P_MOVE: Final = Phase.MOVE
_P_OVER: Final = Phase.OVER
_P_PLACE: Final = Phase.PLACE

_NORMAL: Final = Pay.NORMAL
_RIVER: Final = Terrain.RIVER
_SLUG: Final = tuple(t.slug for t in Transport)
#: The cost table indexed by plain ints: [transport][terrain].
_COST: Final = tuple(tuple(COST_TABLE[t]) for t in Transport)

LogLink = tuple[Any, int, Action, JSONDict, JSONDict]


class ElfenlandState(GameState):
    game_name = "elfenland"

    def __init__(self, players: int = 4, seed: int | None = None,
                 rules: str | Rules = "amigo", destination: bool = False,
                 **options: Any) -> None:
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ElfenlandError(
                f"Elfenland is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int):
            raise ElfenlandError(f"a seed is an integer, not {seed!r}")
        self.rules: Rules = make_rules(rules, destination, **options)
        self.board: Board = load_board()
        self.seed: int = seed
        #: Where the game began: None for a new game, else a position document.
        self.origin: JSONDict | None = None
        self.rng = Rng(seed)
        self._init_empty(players)
        self._setup()

    # ------------------------------------------------------------------ structure
    def _init_empty(self, n: int) -> None:
        nroutes = len(self.board.routes)
        self.n = n
        self.round = 1
        self.phase = _P_DRAW_SECRET
        self.starting = 0
        self.current = 0
        #: Actions taken so far in the phase (sets whose turn it is).
        self.step = 0
        self.passes = 0
        self.discarding = False
        self.hands: list[list[int]] = [[0] * 7 for _ in range(n)]
        self.card_pile: list[int] = list(CARDS_PER_KIND)
        self.counter_pile: list[int] = [COUNTERS_PER_KIND] * 6
        self.face_up: list[int] = [0] * 6
        self.counters_up: list[list[int]] = [[0] * 6 for _ in range(n)]
        self.counters_secret: list[list[int]] = [[0] * 6 for _ in range(n)]
        #: Counters set aside as kept during the keep phase: (up, secret) per player.
        self.kept_up: list[list[int]] = [[0] * 6 for _ in range(n)]
        self.kept_secret: list[list[int]] = [[0] * 6 for _ in range(n)]
        self.route_counter: list[int] = [NO_PIECE] * nroutes
        self.route_obstacle: list[int] = [NO_PIECE] * nroutes
        self.obstacle_in_hand: list[bool] = [True] * n
        self.boots: list[int] = [self.board.capital] * n
        self.visited: list[int] = [0] * n
        self.town_cards: list[int] = [NO_PIECE] * n
        self.result: list[PlayerId] | None = None
        self.special_victory = False
        #: The actions so far as a chain of (previous, player, action, public facts,
        #: private facts) links: appending is O(1) and clones share their past.
        self._chain: LogLink | None = None
        self._length = 0
        #: True while ``rng`` is shared with a clone (copied on first use).
        self._rng_shared = False
        self._legal: list[Action] | None = None

    def _setup(self) -> None:
        if self.rules.town_cards:
            pool = list(self.board.town_cards)
            self._random().shuffle(pool)
            self.town_cards = pool[: self.n]
        self._refill_face_up()
        self._start_round()

    # ------------------------------------------------------------------ interface
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def history(self) -> list[Action]:
        return [link[2] for link in self._links()]

    @property
    def log(self) -> list[tuple[int, int, JSONDict, JSONDict]]:
        """One entry per action: (player, action id, public facts, private facts)."""
        return self.log_entries()

    def _links(self, after: int = 0) -> list[LogLink]:
        """The links after the first ``after``, oldest first: only those are walked."""
        return chain_tail(self._chain, self._length - after)

    def history_length(self) -> int:
        return self._length

    def log_entries(self, after: int = 0) -> list[tuple[int, int, JSONDict, JSONDict]]:
        """The log's entries after the first ``after``."""
        return [(link[1], link[2]._id, link[3], link[4]) for link in self._links(after)]

    def _random(self) -> Rng:
        if self._rng_shared:
            self.rng = self.rng.copy()
            self._rng_shared = False
        return self.rng

    def current_player(self) -> PlayerId:
        return TERMINAL if self.phase is _P_OVER else self.current

    def is_terminal(self) -> bool:
        return self.phase is _P_OVER

    def parse_action(self, text: str | int) -> Action:
        """An action from its notation or id.  Also accepts ``go <town> [payment]``,
        a step from where the current player's boot stands."""
        from .actions import from_id

        if isinstance(text, int) and not isinstance(text, bool):
            return from_id(text)
        if not isinstance(text, str):
            raise ActionParseError(f"an action is text or an id, not {type(text).__name__}")
        words = text.strip().lower().split()
        if words and words[0] == "go" and len(words) in (2, 3):
            here = self.board.towns[self.boots[self.current]].id
            rest = " ".join(words[2:])
            action = parse(f"move {here}-{words[1]} {rest}".strip(), self.board)
        else:
            action = parse(text, self.board)
        if len(words) == 3 and words[0] in ("go", "move") and action.pay is _NORMAL \
                and action.kind is _K_MOVE and words[2] != "raft":
            self._check_named_transport(action, transport_from_text(words[2]))
        return action

    def _check_named_transport(self, action: Action, named: Transport) -> None:
        """``move a-b unicorn`` names the counter it travels with: refuse it on a road
        whose counter is another one, rather than pay for that other counter."""
        assert action.route is not None
        counter = self.route_counter[action.route]
        if counter != named:
            road = route_text(self.board, action.route)
            lies = "no counter" if counter == NO_PIECE else f"a {_SLUG[counter]} counter"
            raise IllegalActionError(f"{action} {named.slug}: {road} has {lies}, "
                                     f"not a {named.slug}")

    def legal_actions(self) -> list[Action]:
        """A fresh list each call: the caller may change it without touching the state
        (``apply_action`` checks against the state's own copy)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate_legal()
        return legal[:]

    def _own_legal(self) -> list[Action]:
        """The state's own list of legal actions, never handed out (clones share it)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate_legal()
        return legal

    def legal_action_ids(self) -> list[int]:
        return [a._id for a in self._own_legal()]

    def apply_action(self, action: CoreAction | str | int) -> None:
        if not isinstance(action, Action):
            action = self.parse_action(action if isinstance(action, str | int) else str(action))
        if self.phase is _P_OVER:
            raise GameOverError("the game is over")
        action = by_value(action)  # a copy or a hand-built one: by what it says
        # Actions are canonical singletons: membership is an identity test.
        if not any(map(is_, self._own_legal(), repeat(action))):
            raise IllegalActionError(self.why_illegal(action))
        player = self.current
        self._legal = None
        public, private = self._do(action)
        self._chain = (self._chain, player, action, public, private)
        self._length += 1

    # ------------------------------------------------------------------ chance
    def _deal(self) -> None:
        target = self.rules.cards_per_deal
        for i in range(self.n):
            p = (self.starting + i) % self.n
            hand = self.hands[p]
            want = target if self.rules.deal == "fresh" else target - sum(hand)
            for _ in range(max(0, want)):
                if sum(self.card_pile) == 0:
                    break
                hand[self._random().draw_from_counts(self.card_pile)] += 1

    def _refill_face_up(self) -> None:
        while sum(self.face_up) < self.rules.face_up_counters and sum(self.counter_pile) > 0:
            self.face_up[self._random().draw_from_counts(self.counter_pile)] += 1

    # ------------------------------------------------------------------ flow
    def _start_round(self) -> None:
        self._deal()
        self._begin(_P_DRAW_SECRET)

    def _begin(self, phase: Phase) -> None:
        self.phase = phase
        self.step = 0
        self.passes = 0
        self.discarding = False
        self.current = self.starting
        if phase is _P_DRAW_SECRET and sum(self.counter_pile) == 0:
            self._begin(_P_DRAW_COUNTERS)
        elif phase is _P_DRAW_COUNTERS and not self._can_draw():
            self._begin(_P_PLACE)
        elif phase is _P_KEEP:
            self._next_keeper(first=True)

    def _can_draw(self) -> bool:
        return sum(self.counter_pile) + sum(self.face_up) > 0

    def _advance(self) -> None:
        """Pass the turn after a single-action turn in the drawing phases."""
        self.step += 1
        rounds = 1 if self.phase is _P_DRAW_SECRET else self.rules.counter_draws
        if self.step >= rounds * self.n:
            self._begin(_P_DRAW_COUNTERS if self.phase is _P_DRAW_SECRET else _P_PLACE)
        else:
            self.current = (self.starting + self.step) % self.n
            if self.phase is _P_DRAW_SECRET and sum(self.counter_pile) == 0:
                self._begin(_P_DRAW_COUNTERS)
            elif self.phase is _P_DRAW_COUNTERS and not self._can_draw():
                self._begin(_P_PLACE)

    def _counters_of(self, p: int) -> int:
        return sum(self.counters_up[p]) + sum(self.counters_secret[p])

    def _next_keeper(self, first: bool = False) -> None:
        """Find the next player who must choose counters to keep; settle the others."""
        if not first:
            self.step += 1
        while self.step < self.n:
            p = (self.starting + self.step) % self.n
            kept = sum(self.kept_up[p]) + sum(self.kept_secret[p])
            if kept < self.rules.counters_kept and self._counters_of(p) > 0:
                if kept + self._counters_of(p) <= self.rules.counters_kept:
                    self._keep_all(p)
                else:
                    self.current = p
                    return
            self._return_unkept(p)
            self.step += 1
        self._after_keep()

    def _keep_all(self, p: int) -> None:
        for k in range(6):
            self.kept_up[p][k] += self.counters_up[p][k]
            self.kept_secret[p][k] += self.counters_secret[p][k]
            self.counters_up[p][k] = 0
            self.counters_secret[p][k] = 0

    def _return_unkept(self, p: int) -> None:
        for k in range(6):
            self.counter_pile[k] += self.counters_up[p][k] + self.counters_secret[p][k]
            self.counters_up[p][k] = self.kept_up[p][k]
            self.counters_secret[p][k] = self.kept_secret[p][k]
            self.kept_up[p][k] = 0
            self.kept_secret[p][k] = 0

    def _after_keep(self) -> None:
        if self.rules.keep_when == "after-placement":
            self._begin(_P_MOVE)
        else:
            self._end_round()

    def _after_moves(self) -> None:
        if self.rules.keep_when == "round-end" and (
                self.rules.final_keep or self._round_outcome() == "next"):
            self._begin(_P_KEEP)
        else:
            self._end_round()

    def _complete_players(self) -> list[PlayerId]:
        everything = (1 << len(self.board.towns)) - 1 & ~(1 << self.board.capital)
        return [p for p in range(self.n) if self.visited[p] == everything]

    def _round_outcome(self) -> str:
        """How the round now ending ends: "special-victory", "finish" or "next"."""
        rules = self.rules
        complete = self._complete_players()
        last = self.round >= rules.rounds
        if rules.early_end == "special-victory":
            checked = not last and (rules.special_victory_at == "rounds-1-3"
                                    or self.round == rules.rounds - 1)
            if complete and checked:
                return "special-victory"
            return "finish" if last else "next"
        return "finish" if complete or last else "next"

    def _end_round(self) -> None:
        for r, kind in enumerate(self.route_counter):
            if kind != NO_PIECE:
                self.counter_pile[kind] += 1
                self.route_counter[r] = NO_PIECE
            # Used obstacles leave the game.
            self.route_obstacle[r] = NO_PIECE
        self._refill_face_up()
        outcome = self._round_outcome()
        if outcome == "special-victory":
            complete = self._complete_players()
            self.special_victory = True
            best = max(sum(self.hands[p]) for p in complete)
            self._finish([p for p in complete if sum(self.hands[p]) == best])
        elif outcome == "finish":
            self._finish(None)
        else:
            self.round += 1
            # The starting player passes to the left (kept in the state, so that a
            # loaded position's starting player carries on from where it is).
            self.starting = (self.starting + 1) % self.n
            self._start_round()

    def _finish(self, winners: list[PlayerId] | None) -> None:
        self.phase = _P_OVER
        self.current = TERMINAL
        if winners is None:
            keys = [self._rank_key(p) for p in range(self.n)]
            best = max(keys)
            winners = [p for p in range(self.n) if keys[p] == best]
        self.result = winners

    def _rank_key(self, p: int) -> tuple[int, int, int]:
        closeness = 0
        if self.rules.town_cards and self.rules.closest_breaks_ties:
            closeness = -self.distance_to_card(p)
        return (self.scores()[p], closeness, sum(self.hands[p]))

    # ------------------------------------------------------------------ scoring
    def markers(self, p: PlayerId) -> int:
        """Town pieces the player has collected."""
        return self.visited[p].bit_count()

    def distance_to_card(self, p: PlayerId) -> int:
        if self.town_cards[p] == NO_PIECE:
            return 0
        return self.board.distance(self.boots[p], self.town_cards[p])

    def scores(self) -> list[int]:
        if self.special_victory or not self.rules.town_cards:
            return [self.markers(p) for p in range(self.n)]
        return [self.markers(p) - self.distance_to_card(p) for p in range(self.n)]

    def winners(self) -> list[PlayerId]:
        return list(self.result) if self.result is not None else []

    # ------------------------------------------------------------------ legality
    def _generate_legal(self) -> list[Action]:
        ph = self.phase
        p = self.current
        tab = tables()
        if ph is _P_DRAW_SECRET:
            return [tab.draw_secret]
        if ph is _P_DRAW_COUNTERS:
            out = [tab.draw[k] for k in range(6) if self.face_up[k]]
            if sum(self.counter_pile):
                out.append(tab.draw_blind)
            return out
        if ph is _P_PLACE:
            return self._legal_placements(p)
        if ph is _P_KEEP:
            up, secret = self.counters_up[p], self.counters_secret[p]
            return ([tab.keep_up[k] for k in range(6) if up[k]]
                    + [tab.keep_secret[k] for k in range(6) if secret[k]])
        if ph is _P_MOVE:
            if self.discarding:
                return [tab.discard[k] for k in range(7) if self.hands[p][k]]
            out = self._legal_steps(p)
            out.append(tab.end)
            return out
        return []

    def _legal_placements(self, p: int) -> list[Action]:
        tab = tables()
        out = [tab.pass_]
        up, secret = self.counters_up[p], self.counters_secret[p]
        mask = 0
        for k in range(6):
            if up[k] or secret[k]:
                mask |= 1 << k
        counters = self.route_counter
        roads = self.board.roads
        if mask:
            rows = tab.place_by_mask_t[mask]
            free = [r for r in roads if counters[r] == NO_PIECE]
            if len(free) > 1:
                out.extend(chain.from_iterable(itemgetter(*free)(rows)))
            elif free:
                out.extend(rows[free[0]])
        if self.obstacle_in_hand[p]:
            obstacles, obstacle = self.route_obstacle, tab.obstacle
            out.extend([obstacle[r] for r in roads  # type: ignore[misc]
                        if counters[r] != NO_PIECE and obstacles[r] == NO_PIECE])
        return out

    def step_cost(self, route: int, direction: int) -> tuple[int, int] | None:
        """(card kind, number of cards) for a normal step, or None if none is possible."""
        r = self.board.routes[route]
        if r.is_road:
            kind = self.route_counter[route]
            if kind == NO_PIECE:
                return None
            n = _COST[kind][r.terrain]
            if n is None:  # only reachable through a hand-made position
                return None
            return kind, n + (self.route_obstacle[route] != NO_PIECE)
        if r.terrain is _RIVER:
            to = r.b if direction == 0 else r.a
            return RAFT, 1 if to == r.downstream else 2
        return RAFT, self.lake_rafts(r.lake)

    def lake_rafts(self, lake: str | None) -> int:
        if lake == "mare-nebulae":
            return self.rules.mare_nebulae_rafts
        return self.rules.mare_magnum_rafts

    def caravan_size(self, route: int) -> int:
        return self.rules.caravan_cards + (self.route_obstacle[route] != NO_PIECE)

    def _legal_steps(self, p: int) -> list[Action]:
        out: list[Action] = []
        hand = self.hands[p]
        frozen_hand = tuple(hand)
        here = self.boots[p]
        routes = self.board.routes
        tab = tables()
        only_if_needed = self.rules.caravan == "only-if-needed"
        for r, _ in self.board.adjacent[here]:
            route = routes[r]
            direction = 0 if route.a == here else 1
            cost = self.step_cost(r, direction)
            if cost is None:
                continue
            kind, n = cost
            if hand[kind] >= n:
                out.append(tab.move[r][direction])
                if only_if_needed and route.is_road:
                    continue
            if route.is_road:
                size = self.caravan_size(r)
            elif route.lake == "mare-nebulae" and self.rules.boatmen:
                size = self.rules.caravan_cards
            else:
                continue
            out.extend(_paid_steps(r, direction, frozen_hand, size))
        return out

    def why_illegal(self, action: Action) -> str:
        """A plain reason why ``action`` is not legal now (for error messages)."""
        ph = self.phase
        k = action.kind
        expected = {
            _P_DRAW_SECRET: {_K_DRAW_SECRET},
            _P_DRAW_COUNTERS: {_K_DRAW, _K_DRAW_BLIND},
            _P_PLACE: {_K_PLACE, _K_OBSTACLE, _K_PASS},
            _P_KEEP: {_K_KEEP},
            _P_MOVE: {_K_DISCARD} if self.discarding else {_K_MOVE, _K_END},
        }.get(ph, set())
        if k not in expected:
            what = "discard down to the hand limit" if self.discarding else ph.value
            return f"{action} is not possible now: player {self.current} must {what}"
        p = self.current
        if k is _K_DRAW:
            return f"there is no face-up {action.transport.slug if action.transport else ''}"
        if k is _K_DRAW_BLIND:
            return "the face-down pile is empty"
        if k is _K_KEEP:
            return f"{action}: player {p} has no such counter"
        if k is _K_DISCARD:
            return f"{action}: player {p} holds no such card"
        assert action.route is not None
        route = self.board.routes[action.route]
        if k is _K_PLACE:
            assert action.transport is not None
            t = action.transport
            if not (self.counters_up[p][t] or self.counters_secret[p][t]):
                return f"player {p} has no {t.slug} counter"
            if self.route_counter[action.route] != NO_PIECE:
                return f"there is already a counter on {route.id}"
            return f"a {t.slug} cannot travel on {route.terrain.slug}"
        if k is _K_OBSTACLE:
            if not self.obstacle_in_hand[p]:
                return f"player {p} has already used their obstacle"
            if self.route_counter[action.route] == NO_PIECE:
                return "an obstacle goes only beside a counter already placed"
            return f"there is already an obstacle on {route.id}"
        if k is _K_MOVE:
            here = self.boots[p]
            start = route.a if action.direction == 0 else route.b
            if start != here:
                return f"player {p}'s boot is in {self.board.towns[here].name}, not at {action}"
            cost = self.step_cost(action.route, action.direction)
            if action.pay is Pay.NORMAL:
                if cost is None:
                    return f"there is no transportation counter on {route.id}"
                kind, n = cost
                return f"{action} needs {n} {Transport(kind).slug} cards"
            if action.pay is Pay.CARAVAN:
                if cost is None:
                    return "a caravan needs a transportation counter on the road"
                if action.card_count != self.caravan_size(action.route):
                    return f"this caravan takes {self.caravan_size(action.route)} cards"
                kind, n = cost
                if self.rules.caravan == "only-if-needed" and self.hands[p][kind] >= n:
                    return (f"under these rules a caravan is only for a player who cannot "
                            f"pay the {n} {Transport(kind).slug} cards")
                return "the hand does not hold those cards"
            if not self.rules.boatmen or route.lake != "mare-nebulae":
                return "there are no boatmen on this lake under these rules"
            return "the hand does not hold those cards"
        return f"{action} is not legal now"

    # ------------------------------------------------------------------ effects
    def _do(self, a: Action) -> tuple[JSONDict, JSONDict]:
        p = self.current
        k = a.kind
        public: JSONDict = {}
        private: JSONDict = {}
        if k is _K_DRAW_SECRET:
            got = self._random().draw_from_counts(self.counter_pile)
            self.counters_secret[p][got] += 1
            private["counter"] = _SLUG[got]
            self._advance()
        elif k is _K_DRAW or k is _K_DRAW_BLIND:
            if a.transport is not None:
                got = int(a.transport)
                self.face_up[got] -= 1
                self._refill_face_up()
            else:
                got = self._random().draw_from_counts(self.counter_pile)
            self.counters_up[p][got] += 1
            public["counter"] = _SLUG[got]
            self._advance()
        elif k is _K_PLACE:
            assert a.transport is not None and a.route is not None
            t = int(a.transport)
            if self.counters_up[p][t]:
                self.counters_up[p][t] -= 1
            else:
                self.counters_secret[p][t] -= 1
                public["from_secret"] = True
            self.route_counter[a.route] = t
            self._after_placement_turn(passed=False)
        elif k is _K_OBSTACLE:
            assert a.route is not None
            self.obstacle_in_hand[p] = False
            self.route_obstacle[a.route] = p
            self._after_placement_turn(passed=False)
        elif k is _K_PASS:
            self._after_placement_turn(passed=True)
        elif k is _K_KEEP:
            assert a.transport is not None
            t = int(a.transport)
            if a.secret:
                self.counters_secret[p][t] -= 1
                self.kept_secret[p][t] += 1
            else:
                self.counters_up[p][t] -= 1
                self.kept_up[p][t] += 1
            kept = sum(self.kept_up[p]) + sum(self.kept_secret[p])
            if kept >= self.rules.counters_kept or self._counters_of(p) == 0:
                self._return_unkept(p)
                self._next_keeper()
        elif k is _K_MOVE:
            self._step(p, a, public)
        elif k is _K_END:
            self._end_move(p)
        elif k is _K_DISCARD:
            assert a.transport is not None
            self.hands[p][a.transport] -= 1
            self.card_pile[a.transport] += 1
            self._end_move(p)
        return public, private

    def _after_placement_turn(self, passed: bool) -> None:
        self.passes = self.passes + 1 if passed else 0
        if self.passes >= self.n:
            if self.rules.keep_when == "after-placement" and (
                    self.rules.final_keep or self.round < self.rules.rounds):
                self._begin(_P_KEEP)
            else:
                self._begin(_P_MOVE)
        else:
            self.step += 1
            self.current = (self.current + 1) % self.n

    def _step(self, p: int, a: Action, public: JSONDict) -> None:
        assert a.route is not None
        hand = self.hands[p]
        if a.pay is _NORMAL:
            cost = self.step_cost(a.route, a.direction)
            assert cost is not None
            kind, n = cost
            hand[kind] -= n
            self.card_pile[kind] += n
            paid = [0] * 7
            paid[kind] = n
        else:
            assert a.cards is not None
            for kind, n in enumerate(a.cards):
                hand[kind] -= n
                self.card_pile[kind] += n
            paid = list(a.cards)
        route = self.board.routes[a.route]
        to = route.b if a.direction == 0 else route.a
        self.boots[p] = to
        if to != self.board.capital:
            self.visited[p] |= 1 << to
        public["paid"] = paid

    def _end_move(self, p: int) -> None:
        if sum(self.hands[p]) > self.rules.hand_limit:
            self.discarding = True
            return
        self.discarding = False
        self.step += 1
        if self.step >= self.n:
            self._after_moves()
        else:
            self.current = (self.starting + self.step) % self.n

    # ------------------------------------------------------------------ copies
    def clone(self) -> ElfenlandState:
        new = ElfenlandState.__new__(ElfenlandState)
        new.__dict__.update(self.__dict__)
        new._rng_shared = self._rng_shared = True
        new.hands = [h[:] for h in self.hands]
        new.card_pile = self.card_pile[:]
        new.counter_pile = self.counter_pile[:]
        new.face_up = self.face_up[:]
        new.counters_up = [c[:] for c in self.counters_up]
        new.counters_secret = [c[:] for c in self.counters_secret]
        new.kept_up = [c[:] for c in self.kept_up]
        new.kept_secret = [c[:] for c in self.kept_secret]
        new.route_counter = self.route_counter[:]
        new.route_obstacle = self.route_obstacle[:]
        new.obstacle_in_hand = self.obstacle_in_hand[:]
        new.boots = self.boots[:]
        new.visited = self.visited[:]
        new.town_cards = self.town_cards[:]
        new.result = None if self.result is None else self.result[:]
        return new

    def _key(self) -> tuple[Any, ...]:
        return (
            self.rules, self.n, self.round, self.phase, self.starting, self.current,
            self.step, self.passes, self.discarding, self.hands, self.card_pile,
            self.counter_pile, self.face_up, self.counters_up, self.counters_secret,
            self.kept_up, self.kept_secret, self.route_counter, self.route_obstacle,
            self.obstacle_in_hand, self.boots, self.visited, self.town_cards, self.result,
            self.special_victory, self.rng.getstate(), [a._id for a in self.history],
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ElfenlandState) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<ElfenlandState {self.n} players, round {self.round}, {self.phase.value}, "
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

        Only the last action can be taken back, by the seat that played it, and only if
        it left chance alone: a draw (secret, blind, or face up, which refills the row
        at random) or the end of a round (the new deal, the refilled row) showed
        something nobody could know before.  Everything else here follows from the
        position, so the answer is read from the kind of the last action and where the
        game stands now, never guessed by replaying."""
        link = self._chain
        if link is None or self.phase is _P_OVER:
            return None
        player, action = link[1], link[2]
        kind = action.kind
        if kind is _K_DRAW_SECRET or kind is _K_DRAW or kind is _K_DRAW_BLIND:
            return None
        # A round ends only after a move phase's end, a discard or a keep; the round
        # that follows starts with a deal.
        if (kind is _K_END or kind is _K_DISCARD or kind is _K_KEEP) \
                and self.phase is not _P_MOVE and self.phase is not _P_KEEP:
            return None
        return int(player)

    def view(self, player: PlayerId | None, log_after: int = 0) -> JSONDict:
        from .view import make_view

        return make_view(self, player, log_after)

    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> ElfenlandState:
        from .position import resample

        return resample(self, player, rng)


def deserialize(text: str) -> ElfenlandState:
    """A game saved by ``serialize``, replayed action by action."""
    from .position import from_position
    from .rules import Rules

    def new_state(doc: JSONDict) -> ElfenlandState:
        return ElfenlandState(players=doc["players"], seed=doc["seed"],
                              rules=Rules.from_json(doc["rules"]))

    return load_game(text, "elfenland", "Elfenland", new_state, from_position)
