"""Elfengold actions: one frozen value type, a text notation that round-trips, and a
stable id in one fixed action space (the same for every option and player count).

Notation (towns and routes resolve as in Elfenland, case-insensitively)::

    draw dragon | draw witch | draw blind   phases 1 and 6: a face-up card, or the supply
    take gold                               the whole gold card deck, 3 coins a card
    hide sea-monster                        phase 3: which of the two drawn items lies face down
    bid 7 | pass                            phase 4 (``pass`` also passes in phase 5)
    place dragon feodor-lapphalya           phase 5: a transport counter
    double elfcycle ixara-lapphalya         the Double spell and a second counter
    exchange troll-wagon a-b magic-cloud c-d   the Exchange spell: swap two counters
    tree feodor-lapphalya | monster virst-ixara | gold feodor-dagamura
    move feodor-lapphalya dragon            phase 6: a step paying that counter's cards
    move virst-ixara raft                   a river or lake
    move elvenhold-virst raft witch         the witch bypasses the obstacle for 1 coin
    move a-b caravan:pig+pig+raft           any 3 cards (4 with an obstacle)
    fly grangor                             the witch's magic flight (3 coins)
    end                                     stop moving
    collect | cards                         after the move: the coins earned, or two cards
    discard raft                            down to the hand limit (option)
    keep dragon | keep secret gold-piece    phase 7: the two items kept
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Final

from ...core.errors import ActionParseError
from ...core.once import once
from ...core.transport import COST_TABLE, Transport
from ..elfenland.actions import route_text
from ..elfenland.board import Board, load_board
from .items import CARD_SLUGS, HAND_KINDS, ITEM_SLUGS, MAX_BID, NUM_COUNTERS, NUM_ITEMS, WITCH

CardCounts = tuple[int, ...]


class Kind(IntEnum):
    DRAW = 0
    DRAW_BLIND = 1
    TAKE_GOLD = 2
    HIDE = 3
    BID = 4
    PASS = 5
    PLACE = 6
    DOUBLE = 7
    EXCHANGE = 8
    TREE = 9
    MONSTER = 10
    GOLD = 11
    MOVE = 12
    FLY = 13
    END = 14
    COLLECT = 15
    CARDS = 16
    DISCARD = 17
    KEEP = 18


class Pay(IntEnum):
    NORMAL = 0
    WITCH = 1
    CARAVAN = 2


@dataclass(frozen=True, slots=True, eq=False)
class Action:
    kind: Kind
    #: A card kind (draw, discard), an item kind (hide, keep, place...), the counter
    #: used for a road move, the first counter of an exchange.
    item: int = -1
    route: int = -1
    direction: int = 0
    #: A bid, or a town (flight).
    amount: int = 0
    item2: int = -1
    route2: int = -1
    secret: bool = False
    pay: Pay = Pay.NORMAL
    cards: CardCounts | None = None
    _id: int = field(default=-1, compare=False, repr=False)

    @property
    def key(self) -> tuple[object, ...]:
        return (self.kind, self.item, self.route, self.direction, self.amount, self.item2,
                self.route2, self.secret, self.pay, self.cards)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Action) and self.key == other.key)

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


def _multisets(size: int) -> tuple[CardCounts, ...]:
    out = []
    for combo in combinations_with_replacement(range(HAND_KINDS), size):
        counts = [0] * HAND_KINDS
        for c in combo:
            counts[c] += 1
        out.append(tuple(counts))
    return tuple(out)


#: Every caravan of 3 and of 4 cards (travel cards and witches), in a fixed order.
MULTISETS: Final = {3: _multisets(3), 4: _multisets(4)}


def _fits(kind: int, route: int, board: Board) -> bool:
    return COST_TABLE[Transport(kind)][board.routes[route].terrain] is not None


def exchange_pairs(board: Board) -> list[tuple[int, int, int, int]]:
    """(kind a, road a, kind b, road b), road a < road b, each counter legal on the other
    road: every swap an Exchange can make."""
    out = []
    roads = board.roads
    for i, ra in enumerate(roads):
        for rb in roads[i + 1:]:
            for ka in range(NUM_COUNTERS):
                for kb in range(NUM_COUNTERS):
                    if _fits(ka, ra, board) and _fits(kb, rb, board) and \
                            _fits(ka, rb, board) and _fits(kb, ra, board):
                        out.append((ka, ra, kb, rb))
    return out


def _enumerate(board: Board) -> list[Action]:
    out = [Action(Kind.DRAW, k) for k in range(HAND_KINDS)]
    out += [Action(Kind.DRAW_BLIND), Action(Kind.TAKE_GOLD)]
    out += [Action(Kind.HIDE, k) for k in range(NUM_ITEMS)]
    out += [Action(Kind.BID, amount=b) for b in range(1, MAX_BID + 1)]
    out += [Action(Kind.PASS), Action(Kind.END), Action(Kind.COLLECT), Action(Kind.CARDS)]
    out += [Action(Kind.DISCARD, k) for k in range(HAND_KINDS)]
    for secret in (False, True):
        out += [Action(Kind.KEEP, k, secret=secret) for k in range(NUM_ITEMS)]
    for r in board.roads:
        out += [Action(Kind.PLACE, k, r) for k in range(NUM_COUNTERS) if _fits(k, r, board)]
        out += [Action(Kind.DOUBLE, k, r) for k in range(NUM_COUNTERS) if _fits(k, r, board)]
        out += [Action(Kind.TREE, route=r), Action(Kind.GOLD, route=r)]
    out += [Action(Kind.MONSTER, route=r.index) for r in board.routes if not r.is_road]
    out += [Action(Kind.EXCHANGE, ka, ra, item2=kb, route2=rb)
            for ka, ra, kb, rb in exchange_pairs(board)]
    for route in board.routes:
        for d in (0, 1):
            if route.is_road:
                for k in range(NUM_COUNTERS):
                    if _fits(k, route.index, board):
                        out.append(Action(Kind.MOVE, k, route.index, d))
                        out.append(Action(Kind.MOVE, k, route.index, d, pay=Pay.WITCH))
                out += [Action(Kind.MOVE, route=route.index, direction=d, pay=Pay.CARAVAN,
                               cards=m) for m in MULTISETS[3] + MULTISETS[4]]
            else:
                out.append(Action(Kind.MOVE, Transport.RAFT, route.index, d))
                out.append(Action(Kind.MOVE, Transport.RAFT, route.index, d, pay=Pay.WITCH))
    out += [Action(Kind.FLY, amount=t.index) for t in board.towns]
    return out


@once
def _space() -> tuple[tuple[Action, ...], dict[tuple[object, ...], Action]]:
    actions = tuple(_enumerate(load_board()))
    for i, a in enumerate(actions):
        object.__setattr__(a, "_id", i)
    return actions, {a.key: a for a in actions}


def num_actions() -> int:
    """Size of the fixed action space: every id is in ``range(num_actions())``."""
    return len(_space()[0])


def canonical(action: Action) -> Action:
    """The one action object of this value (it carries the id), or ``ActionParseError``."""
    if action.kind is Kind.EXCHANGE and action.route > action.route2:
        action = Action(Kind.EXCHANGE, action.item2, action.route2, item2=action.item,
                        route2=action.route)
    try:
        return _space()[1][action.key]
    except KeyError:
        raise ActionParseError(f"no such action: {action!r}") from None


def make(kind: Kind, item: int = -1, route: int = -1, direction: int = 0, amount: int = 0,
         item2: int = -1, route2: int = -1, secret: bool = False, pay: Pay = Pay.NORMAL,
         cards: CardCounts | None = None) -> Action:
    return canonical(Action(kind, item, route, direction, amount, item2, route2, secret,
                            pay, cards))


def from_id(i: int) -> Action:
    if not isinstance(i, int) or isinstance(i, bool):
        raise ActionParseError(f"an action id is an integer, not {i!r}")
    actions = _space()[0]
    if not 0 <= i < len(actions):
        raise ActionParseError(f"no action has id {i}")
    return actions[i]


# ----- text ----------------------------------------------------------------------------
_SHORT: Final = {"pig": "giant-pig", "cloud": "magic-cloud", "troll": "troll-wagon",
                 "cycle": "elfcycle", "monster": "sea-monster", "gold": "gold-piece"}


def card_from_text(word: str, hand_only: bool = True) -> int:
    key = _SHORT.get(word.strip().lower(), word.strip().lower())
    if key in CARD_SLUGS[:HAND_KINDS if hand_only else len(CARD_SLUGS)]:
        return CARD_SLUGS.index(key)
    raise ActionParseError(f"unknown card {word!r}")


def item_from_text(word: str) -> int:
    key = _SHORT.get(word.strip().lower(), word.strip().lower())
    if key in ITEM_SLUGS:
        return ITEM_SLUGS.index(key)
    raise ActionParseError(f"unknown item {word!r}")


def counter_from_text(word: str) -> int:
    k = item_from_text(word)
    if k >= NUM_COUNTERS:
        raise ActionParseError(f"{word!r} is not a transport counter")
    return k


def cards_to_text(cards: CardCounts) -> str:
    return "+".join(CARD_SLUGS[k] for k, n in enumerate(cards) for _ in range(n))


def cards_from_text(text: str) -> CardCounts:
    counts = [0] * HAND_KINDS
    for part in text.split("+"):
        if not part.strip():
            raise ActionParseError(f"empty card in {text!r}")
        counts[card_from_text(part)] += 1
    return tuple(counts)


def to_text(a: Action, board: Board) -> str:
    k = a.kind
    simple = {Kind.DRAW_BLIND: "draw blind", Kind.TAKE_GOLD: "take gold", Kind.PASS: "pass",
              Kind.END: "end", Kind.COLLECT: "collect", Kind.CARDS: "cards"}
    if k in simple:
        return simple[k]
    if k is Kind.DRAW:
        return f"draw {CARD_SLUGS[a.item]}"
    if k is Kind.DISCARD:
        return f"discard {CARD_SLUGS[a.item]}"
    if k is Kind.HIDE:
        return f"hide {ITEM_SLUGS[a.item]}"
    if k is Kind.KEEP:
        return f"keep {'secret ' if a.secret else ''}{ITEM_SLUGS[a.item]}"
    if k is Kind.BID:
        return f"bid {a.amount}"
    if k is Kind.FLY:
        return f"fly {board.towns[a.amount].id}"
    if k is Kind.PLACE or k is Kind.DOUBLE:
        verb = "place" if k is Kind.PLACE else "double"
        return f"{verb} {ITEM_SLUGS[a.item]} {route_text(board, a.route)}"
    if k is Kind.TREE or k is Kind.MONSTER or k is Kind.GOLD:
        verb = {Kind.TREE: "tree", Kind.MONSTER: "monster", Kind.GOLD: "gold"}[k]
        return f"{verb} {route_text(board, a.route)}"
    if k is Kind.EXCHANGE:
        return (f"exchange {ITEM_SLUGS[a.item]} {route_text(board, a.route)} "
                f"{ITEM_SLUGS[a.item2]} {route_text(board, a.route2)}")
    where = route_text(board, a.route, a.direction)
    if a.pay is Pay.CARAVAN:
        assert a.cards is not None
        return f"move {where} caravan:{cards_to_text(a.cards)}"
    how = CARD_SLUGS[a.item]
    return f"move {where} {how}{' witch' if a.pay is Pay.WITCH else ''}"


def parse_route(board: Board, text: str, want: str) -> tuple[int, int]:
    """(route, direction) from "a-b" or a route id; ``want``: "road", "water" or "any"
    (a road first when both join the two towns)."""
    text = text.strip().lower()
    if "-" not in text:
        try:
            r = board.route(text)
        except ValueError:
            raise ActionParseError(f"no route {text!r}") from None
        routes = [r]
        a = r.a
    else:
        left, _, right = text.partition("-")
        a, b = board.town(left), board.town(right)
        routes = sorted(board.routes_between(a, b), key=lambda r: not r.is_road)
    if want == "road":
        routes = [r for r in routes if r.is_road]
    elif want == "water":
        routes = [r for r in routes if not r.is_road]
    if not routes:
        raise ActionParseError(f"no {want if want != 'any' else ''} route {text!r}")
    r = routes[0]
    return r.index, 0 if r.a == a else 1


def parse(text: str, board: Board) -> Action:
    """The action a notation names (raises ``ActionParseError``).  A road move must name
    its counter here; the state's ``parse_action`` also reads ``move a-b`` alone."""
    if not isinstance(text, str):
        raise ActionParseError(f"an action is text, not {type(text).__name__}")
    words = text.strip().lower().split()
    if not words:
        raise ActionParseError("empty action")
    verb, args = words[0], words[1:]
    try:
        simple = {"pass": Kind.PASS, "end": Kind.END, "collect": Kind.COLLECT,
                  "cards": Kind.CARDS}
        if verb in simple and not args:
            return make(simple[verb])
        if verb == "take" and args == ["gold"]:
            return make(Kind.TAKE_GOLD)
        if verb == "draw" and len(args) == 1:
            if args[0] == "blind":
                return make(Kind.DRAW_BLIND)
            return make(Kind.DRAW, card_from_text(args[0]))
        if verb == "discard" and len(args) == 1:
            return make(Kind.DISCARD, card_from_text(args[0]))
        if verb == "hide" and len(args) == 1:
            return make(Kind.HIDE, item_from_text(args[0]))
        if verb == "keep" and len(args) in (1, 2):
            if len(args) == 2 and args[0] != "secret":
                raise ActionParseError(f"bad keep: {text!r}")
            return make(Kind.KEEP, item_from_text(args[-1]), secret=len(args) == 2)
        if verb == "bid" and len(args) == 1:
            if not args[0].isdigit():
                raise ActionParseError(f"a bid is a whole number of coins, not {args[0]!r}")
            amount = int(args[0])
            if not 1 <= amount <= MAX_BID:
                raise ActionParseError(f"a bid is from 1 to {MAX_BID} coins")
            return make(Kind.BID, amount=amount)
        if verb == "fly" and len(args) == 1:
            return make(Kind.FLY, amount=board.town(args[0]))
        if verb in ("place", "double") and len(args) == 2:
            r, _ = parse_route(board, args[1], "road")
            return make(Kind.PLACE if verb == "place" else Kind.DOUBLE,
                        counter_from_text(args[0]), r)
        if verb in ("tree", "gold") and len(args) == 1:
            r, _ = parse_route(board, args[0], "road")
            return make(Kind.TREE if verb == "tree" else Kind.GOLD, route=r)
        if verb == "monster" and len(args) == 1:
            r, _ = parse_route(board, args[0], "water")
            return make(Kind.MONSTER, route=r)
        if verb == "exchange" and len(args) == 4:
            ra, _ = parse_route(board, args[1], "road")
            rb, _ = parse_route(board, args[3], "road")
            return make(Kind.EXCHANGE, counter_from_text(args[0]), ra,
                        item2=counter_from_text(args[2]), route2=rb)
        if verb == "move" and len(args) in (2, 3):
            how = args[1]
            if how.startswith("caravan:") and len(args) == 2:
                r, d = parse_route(board, args[0], "road")
                return make(Kind.MOVE, route=r, direction=d, pay=Pay.CARAVAN,
                            cards=cards_from_text(how.partition(":")[2]))
            witch = len(args) == 3
            if witch and args[2] != "witch":
                raise ActionParseError(f"unknown payment {args[2]!r}")
            card = card_from_text(how)
            if card >= WITCH:
                raise ActionParseError(f"a step is paid with a transport, not {how!r}")
            r, d = parse_route(board, args[0], "water" if card == Transport.RAFT else "road")
            return make(Kind.MOVE, card, r, d, pay=Pay.WITCH if witch else Pay.NORMAL)
    except ActionParseError:
        raise
    except ValueError as exc:
        raise ActionParseError(f"bad action {text!r}: {exc}") from None
    raise ActionParseError(f"bad action {text!r}")


@once
def tables() -> Tables:
    return Tables(_space()[0])


class Tables:
    """Direct lookups of the canonical actions for the engine's hot paths."""

    def __init__(self, actions: tuple[Action, ...]) -> None:
        self.by_key = _space()[1]
        self.draw = [make(Kind.DRAW, k) for k in range(HAND_KINDS)]
        self.discard = [make(Kind.DISCARD, k) for k in range(HAND_KINDS)]
        self.hide = [make(Kind.HIDE, k) for k in range(NUM_ITEMS)]
        self.keep = [[make(Kind.KEEP, k, secret=s) for k in range(NUM_ITEMS)]
                     for s in (False, True)]
        self.bid = [actions[0]] + [make(Kind.BID, amount=b) for b in range(1, MAX_BID + 1)]
        self.draw_blind = make(Kind.DRAW_BLIND)
        self.take_gold = make(Kind.TAKE_GOLD)
        self.pass_ = make(Kind.PASS)
        self.end = make(Kind.END)
        self.collect = make(Kind.COLLECT)
        self.cards = make(Kind.CARDS)
        self.exchanges: list[Action] = [a for a in actions if a.kind is Kind.EXCHANGE]

    def get(self, kind: Kind, item: int = -1, route: int = -1, direction: int = 0,
            pay: Pay = Pay.NORMAL, cards: CardCounts | None = None,
            amount: int = 0) -> Action:
        return self.by_key[(kind, item, route, direction, amount, -1, -1, False, pay, cards)]

