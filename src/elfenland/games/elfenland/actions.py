"""Elfenland actions: one small frozen value type, a text notation that round-trips, and
a stable integer id in one fixed action space.

Notation (town and route names resolve case-insensitively, through aliases)::

    draw secret                      phase 2: take the hidden counter
    draw dragon | draw blind         phase 3: a face-up counter by kind, or the pile
    place dragon feodor-lapphalya    phase 4: a counter on a road
    obstacle feodor-lapphalya        phase 4: your obstacle beside a counter
    pass                             phase 4
    move feodor-lapphalya            phase 5: one step on a road, paying the counter's cards
    move virst-ixara raft            phase 5: a river or lake by raft
    move dagamura-kihromah caravan:dragon+raft+raft
    move grangor-yttar boatmen:pig+pig+raft   (Moon rules only)
    end                              phase 5: stop moving
    discard dragon                   end of move: one card, down to the hand limit
    keep dragon | keep secret dragon the counter kept for the next round
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Final

from ...core.errors import ActionParseError
from ...core.once import once
from ...core.transport import COST_TABLE, Terrain, Transport
from .board import Board, load_board

NUM_CARD_KINDS: Final = 7
NUM_COUNTER_KINDS: Final = 6

CardCounts = tuple[int, ...]


class Kind(IntEnum):
    DRAW_SECRET = 0
    DRAW = 1
    DRAW_BLIND = 2
    PASS = 3
    END = 4
    DISCARD = 5
    KEEP = 6
    PLACE = 7
    OBSTACLE = 8
    MOVE = 9


class Pay(IntEnum):
    """How a step is paid for."""

    NORMAL = 0
    CARAVAN = 1
    BOATMEN = 2


def _multisets(size: int) -> tuple[CardCounts, ...]:
    out = []
    for combo in combinations_with_replacement(range(NUM_CARD_KINDS), size):
        counts = [0] * NUM_CARD_KINDS
        for c in combo:
            counts[c] += 1
        out.append(tuple(counts))
    return tuple(out)


#: Every hand of 3 and of 4 travel cards (caravans, boatmen), in a fixed order.
MULTISETS: Final[dict[int, tuple[CardCounts, ...]]] = {3: _multisets(3), 4: _multisets(4)}
_MULTISET_INDEX: Final = {
    size: {m: i for i, m in enumerate(ms)} for size, ms in MULTISETS.items()
}
_PAYMENTS_PER_STEP: Final = 1 + len(MULTISETS[3]) + len(MULTISETS[4])

@dataclass(frozen=True, slots=True, eq=False)
class Action:
    kind: Kind
    transport: Transport | None = None
    route: int | None = None
    #: For moves: 0 travels from the route's first town to its second, 1 the other way.
    direction: int = 0
    secret: bool = False
    pay: Pay = Pay.NORMAL
    #: Cards given for a caravan or the boatmen, as counts per card kind.
    cards: CardCounts | None = None
    _id: int = field(default=-1, compare=False, repr=False)

    # ----- construction helpers -------------------------------------------------
    @staticmethod
    def draw_secret() -> Action:
        return canonical(Action(Kind.DRAW_SECRET))

    @staticmethod
    def draw(transport: Transport | None) -> Action:
        if transport is None:
            return canonical(Action(Kind.DRAW_BLIND))
        return canonical(Action(Kind.DRAW, Transport(transport)))

    @staticmethod
    def pass_() -> Action:
        return canonical(Action(Kind.PASS))

    @staticmethod
    def end() -> Action:
        return canonical(Action(Kind.END))

    @staticmethod
    def discard(card: Transport) -> Action:
        return canonical(Action(Kind.DISCARD, Transport(card)))

    @staticmethod
    def keep(counter: Transport, secret: bool = False) -> Action:
        return canonical(Action(Kind.KEEP, Transport(counter), secret=secret))

    @staticmethod
    def place(counter: Transport, route: int) -> Action:
        return canonical(Action(Kind.PLACE, Transport(counter), route))

    @staticmethod
    def obstacle(route: int) -> Action:
        return canonical(Action(Kind.OBSTACLE, route=route))

    @staticmethod
    def move(route: int, direction: int, pay: Pay = Pay.NORMAL,
             cards: CardCounts | None = None) -> Action:
        return canonical(Action(Kind.MOVE, route=route, direction=direction, pay=pay,
                                cards=None if pay is Pay.NORMAL else cards))

    # ----- identity -------------------------------------------------------------
    # Every action the engine hands out is the one canonical object for its value, so
    # equality is identity (fast on the engine's hot path); ``key`` is the value.
    @property
    def key(self) -> tuple[object, ...]:
        return (self.kind, self.transport, self.route, self.direction, self.secret,
                self.pay, self.cards)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Action) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def id(self) -> int:
        return self._id

    def __str__(self) -> str:
        return to_text(self, load_board())

    @classmethod
    def from_text(cls, text: str) -> Action:
        return parse(text, load_board())

    @property
    def card_count(self) -> int:
        return sum(self.cards) if self.cards else 0


def _enumerate(board: Board) -> list[Action]:
    out = [Action(Kind.DRAW_SECRET)]
    out += [Action(Kind.DRAW, t) for t in Transport if t is not Transport.RAFT]
    out += [Action(Kind.DRAW_BLIND), Action(Kind.PASS), Action(Kind.END)]
    out += [Action(Kind.DISCARD, t) for t in Transport]
    for secret in (False, True):
        out += [Action(Kind.KEEP, t, secret=secret) for t in Transport if t is not Transport.RAFT]
    for r in board.roads:
        out += [Action(Kind.PLACE, t, r) for t in Transport if t is not Transport.RAFT]
    out += [Action(Kind.OBSTACLE, route=r) for r in board.roads]
    for route in board.routes:
        for direction in (0, 1):
            out.append(Action(Kind.MOVE, route=route.index, direction=direction))
            if route.is_road:
                out += [Action(Kind.MOVE, route=route.index, direction=direction,
                               pay=Pay.CARAVAN, cards=m) for m in MULTISETS[3] + MULTISETS[4]]
            elif route.terrain is Terrain.LAKE:
                out += [Action(Kind.MOVE, route=route.index, direction=direction,
                               pay=Pay.BOATMEN, cards=m) for m in MULTISETS[3]]
    return out


@once
def _space() -> tuple[tuple[Action, ...], dict[tuple[object, ...], Action]]:
    """Every action of the real board, each carrying its id (built once, on first use)."""
    actions = tuple(_enumerate(load_board()))
    for i, a in enumerate(actions):
        object.__setattr__(a, "_id", i)
    return actions, {a.key: a for a in actions}


class Tables:
    """Direct lookups of the canonical actions, for the engine's hot paths."""

    def __init__(self, actions: tuple[Action, ...], board: Board) -> None:
        n = len(board.routes)
        self.draw_secret = Action.draw_secret()
        self.draw_blind = Action.draw(None)
        self.pass_ = Action.pass_()
        self.end = Action.end()
        self.draw = [Action.draw(Transport(k)) for k in range(NUM_COUNTER_KINDS)]
        self.discard = [Action.discard(Transport(k)) for k in range(NUM_CARD_KINDS)]
        self.keep_up = [Action.keep(Transport(k)) for k in range(NUM_COUNTER_KINDS)]
        self.keep_secret = [Action.keep(Transport(k), True) for k in range(NUM_COUNTER_KINDS)]
        self.place: list[list[Action] | None] = [None] * n
        self.obstacle: list[Action | None] = [None] * n
        self.move: list[list[Action]] = [[] for _ in range(n)]
        self.paid: list[list[dict[CardCounts, Action]]] = [[{}, {}] for _ in range(n)]
        #: For each road and each set of owned counter kinds (a 6-bit mask): the
        #: placements allowed there.
        self.place_by_mask: list[list[list[Action]]] = [[] for _ in range(n)]
        for a in actions:
            if a.kind is Kind.PLACE:
                assert a.route is not None and a.transport is not None
                row = self.place[a.route]
                if row is None:
                    row = self.place[a.route] = [a] * NUM_COUNTER_KINDS
                row[a.transport] = a
            elif a.kind is Kind.OBSTACLE:
                assert a.route is not None
                self.obstacle[a.route] = a
            elif a.kind is Kind.MOVE:
                assert a.route is not None
                if a.pay is Pay.NORMAL:
                    self.move[a.route].append(a)
                else:
                    assert a.cards is not None
                    self.paid[a.route][a.direction][a.cards] = a
        for r in board.roads:
            row = self.place[r]
            assert row is not None
            allowed = [k for k in range(NUM_COUNTER_KINDS)
                       if COST_TABLE[Transport(k)][board.routes[r].terrain] is not None]
            self.place_by_mask[r] = [[row[k] for k in allowed if mask >> k & 1]
                                     for mask in range(1 << NUM_COUNTER_KINDS)]
        #: The same, indexed [mask][road].
        self.place_by_mask_t: list[list[list[Action]]] = [
            [self.place_by_mask[r][mask] if self.place_by_mask[r] else [] for r in range(n)]
            for mask in range(1 << NUM_COUNTER_KINDS)
        ]


@once
def tables() -> Tables:
    return Tables(_space()[0], load_board())


def num_actions() -> int:
    """Size of the fixed action space: every id is in ``range(num_actions())``."""
    return len(_space()[0])


def canonical(action: Action) -> Action:
    """The action with its id, or ``ActionParseError`` if no action looks like this."""
    try:
        return _space()[1][action.key]
    except KeyError:
        raise ActionParseError(f"no such action: {action!r}") from None


def by_value(action: Action) -> Action:
    """The action space's own action equal to ``action``: one built by hand or copied
    (``dataclasses.replace`` copies the private id too) is played as what it says, never
    by the id it carries; ``ActionParseError`` if no action looks like it."""
    actions = _space()[0]
    i = action._id
    if 0 <= i < len(actions) and actions[i] is action:
        return action
    return canonical(action)


def from_id(i: int) -> Action:
    if not isinstance(i, int) or isinstance(i, bool):
        raise ActionParseError(f"an action id is an integer, not {i!r}")
    actions = _space()[0]
    if not 0 <= i < len(actions):
        raise ActionParseError(f"no action has id {i}")
    return actions[i]


# ----- text notation -------------------------------------------------------------------

_SHORT_NAMES: Final = {"pig": Transport.GIANT_PIG, "cloud": Transport.MAGIC_CLOUD,
                       "troll": Transport.TROLL_WAGON, "cycle": Transport.ELFCYCLE}


def transport_from_text(text: str) -> Transport:
    key = text.strip().lower()
    if key in _SHORT_NAMES:
        return _SHORT_NAMES[key]
    try:
        return Transport.from_slug(key)
    except ValueError:
        raise ActionParseError(f"unknown transport {text!r}") from None


def cards_to_text(cards: CardCounts) -> str:
    return "+".join(Transport(k).slug for k, n in enumerate(cards) for _ in range(n))


def cards_from_text(text: str) -> CardCounts:
    counts = [0] * NUM_CARD_KINDS
    for part in text.split("+"):
        if not part.strip():
            raise ActionParseError(f"empty card in {text!r}")
        counts[transport_from_text(part)] += 1
    return tuple(counts)


def route_text(board: Board, route: int, direction: int = 0) -> str:
    r = board.routes[route]
    a, b = (r.a, r.b) if direction == 0 else (r.b, r.a)
    return f"{board.towns[a].id}-{board.towns[b].id}"


def to_text(action: Action, board: Board) -> str:
    k = action.kind
    if k is Kind.DRAW_SECRET:
        return "draw secret"
    if k is Kind.DRAW:
        assert action.transport is not None
        return f"draw {action.transport.slug}"
    if k is Kind.DRAW_BLIND:
        return "draw blind"
    if k is Kind.PASS:
        return "pass"
    if k is Kind.END:
        return "end"
    if k is Kind.DISCARD:
        assert action.transport is not None
        return f"discard {action.transport.slug}"
    if k is Kind.KEEP:
        assert action.transport is not None
        return f"keep {'secret ' if action.secret else ''}{action.transport.slug}"
    assert action.route is not None
    if k is Kind.PLACE:
        assert action.transport is not None
        return f"place {action.transport.slug} {route_text(board, action.route)}"
    if k is Kind.OBSTACLE:
        return f"obstacle {route_text(board, action.route)}"
    r = board.routes[action.route]
    where = route_text(board, action.route, action.direction)
    if action.pay is Pay.NORMAL:
        return f"move {where}" if r.is_road else f"move {where} raft"
    assert action.cards is not None
    return f"move {where} {action.pay.name.lower()}:{cards_to_text(action.cards)}"


def _parse_route(board: Board, text: str, road_only: bool,
                 terrain_hint: str | None = None) -> tuple[int, int]:
    """(route, direction) from "a-b" or a route id; direction 0 if a is the route's a."""
    text = text.strip().lower()
    if "-" not in text:
        try:
            return board.route(text).index, 0
        except ValueError:
            raise ActionParseError(f"no route {text!r}") from None
    left, _, right = text.partition("-")
    a, b = board.town(left), board.town(right)
    routes = board.routes_between(a, b)
    routes.sort(key=lambda r: not r.is_road)
    if road_only:
        routes = [r for r in routes if r.is_road]
    elif terrain_hint == "water":
        routes = [r for r in routes if not r.is_road]
    elif terrain_hint == "road":
        routes = [r for r in routes if r.is_road]
    if not routes:
        raise ActionParseError(f"no such route between {left!r} and {right!r}")
    r = routes[0]
    return r.index, 0 if r.a == a else 1


def parse(text: str, board: Board) -> Action:
    """Parse the notation above (raises ``ActionParseError``)."""
    if not isinstance(text, str):
        raise ActionParseError(f"an action is text, not {type(text).__name__}")
    words = text.strip().lower().split()
    if not words:
        raise ActionParseError("empty action")
    verb, args = words[0], words[1:]
    try:
        if verb == "draw" and len(args) == 1:
            if args[0] == "secret":
                return Action.draw_secret()
            if args[0] == "blind":
                return Action.draw(None)
            return Action.draw(_counter(args[0]))
        if verb in ("pass", "end") and not args:
            return Action.pass_() if verb == "pass" else Action.end()
        if verb == "discard" and len(args) == 1:
            return Action.discard(transport_from_text(args[0]))
        if verb == "keep" and len(args) in (1, 2):
            if len(args) == 2 and args[0] != "secret":
                raise ActionParseError(f"bad keep: {text!r}")
            return Action.keep(_counter(args[-1]), secret=len(args) == 2)
        if verb == "place" and len(args) == 2:
            route, _ = _parse_route(board, args[1], road_only=True)
            if not board.routes[route].is_road:
                raise ActionParseError("counters go on roads only")
            return Action.place(_counter(args[0]), route)
        if verb == "obstacle" and len(args) == 1:
            route, _ = _parse_route(board, args[0], road_only=True)
            return Action.obstacle(route)
        if verb == "move" and len(args) == 1:
            route, direction = _parse_route(board, args[0], False)
            return Action.move(route, direction)
        if verb == "move" and len(args) == 2:
            how = args[1]
            if ":" in how:
                kind, _, cards_text = how.partition(":")
                pay = {"caravan": Pay.CARAVAN, "boatmen": Pay.BOATMEN}.get(kind)
                if pay is None:
                    raise ActionParseError(f"unknown payment {kind!r}")
                hint = "road" if pay is Pay.CARAVAN else "water"
                route, direction = _parse_route(board, args[0], False, hint)
                is_lake = board.routes[route].terrain is Terrain.LAKE
                if (pay is Pay.BOATMEN) != is_lake:
                    raise ActionParseError(f"{kind} cannot cross {args[0]}")
                return Action.move(route, direction, pay, cards_from_text(cards_text))
            if how == "raft":
                route, direction = _parse_route(board, args[0], False, "water")
            elif _is_transport(how):
                route, direction = _parse_route(board, args[0], False, "road")
            else:
                raise ActionParseError(f"unknown payment {how!r}")
            return Action.move(route, direction)
    except ValueError as exc:
        if isinstance(exc, ActionParseError):
            raise
        raise ActionParseError(f"bad action {text!r}: {exc}") from None
    raise ActionParseError(f"bad action {text!r}")


def _is_transport(word: str) -> bool:
    try:
        transport_from_text(word)
    except ActionParseError:
        return False
    return True


def _counter(word: str) -> Transport:
    t = transport_from_text(word)
    if t is Transport.RAFT:
        raise ActionParseError("there are no raft counters")
    return t
