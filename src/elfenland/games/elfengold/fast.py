"""The compiled Elfengold engine, when it was built: the same ``ElfengoldState`` with its
hot path (legal actions, apply, clone) in C (``_speedups.c``, which shares the code every
compiled engine has in ``core/_engine_common.h``).  ``new_game`` builds it when it was
built (``ELFENLAND_ENGINE=pure`` chooses the pure one; see ``BY_DEFAULT``).

The pure engine in ``state.py`` stays the reference and the fallback: ``pip install``
on a machine without a C compiler leaves ``_speedups`` out and everything runs on the
pure engine.  ``FastElfengoldState`` is a subclass of ``ElfengoldState``, so bots, the
server and the views use it unchanged; what it does not compile (views, positions, error
messages, scores) is the pure code, reading the C arrays through attributes.

The C history keeps one number per action for its facts (``_fact``); ``log_entries``
turns it back into the pure engine's public and private facts (``_facts``).
"""

from __future__ import annotations

import os
import random
import secrets
from typing import TYPE_CHECKING, Any, Final

from ...core import fast_state
from ...core.compiled import gaps as _gaps
from ...core.compiled import not_built, pure_chosen
from ...core.errors import ElfenlandError, GameOverError, IllegalActionError
from ...core.game import Action as CoreAction
from ...core.game import JSONDict, PlayerId, chain_tail, check_player
from ...core.rng import Rng, as_rng
from ...core.transport import COST_TABLE, Transport
from ..elfenland.board import load_board
from .actions import Action, Kind, Pay, _space, canonical
from .items import (
    CARD_SLUGS,
    COINS_PER_GOLD_CARD,
    DEAL,
    DISPLAY,
    DOUBLE,
    FIXED_GOLD,
    FLIGHT_COINS,
    GOLD_CARD,
    GOLD_CARDS,
    GOLD_TOKENS,
    INCOME,
    ITEM_COUNTS,
    ITEM_SLUGS,
    MAX_BID,
    START_COINS,
    TOWNS_TO_END,
    TRAVEL_PER_KIND,
    WITCH,
    WITCH_BYPASS_COINS,
    WITCH_CARDS,
)
from .options import Rules, make_rules
from .state import LAKE_RAFTS, MAX_PLAYERS, MIN_PLAYERS, ElfengoldState, Phase

try:
    from . import _speedups
except ImportError:  # built without a C compiler: the pure engine runs
    _speedups = None  # type: ignore[assignment]

#: Whether the compiled engine was built and imports.
AVAILABLE: Final = _speedups is not None

#: The pure engine's state fields and rule options this compiled engine mirrors.
_KNOWN_STATE: Final = frozenset({
    "_chain", "_drew", "_legal", "_length", "_rng_shared", "after_discard", "board", "boots",
    "coins", "counters", "current", "discard", "display", "double", "drawn", "draws_left",
    "earned", "excluded", "gold_deck", "gold_piece", "gold_values", "hands", "high_bid",
    "high_bidder", "item_pile", "items_down", "items_up", "kept_down", "kept_up", "moved",
    "n", "obstacle", "origin", "paid_in", "paid_out", "passed", "passes", "phase",
    "removed", "result", "rng", "round", "row", "rules", "seed", "starting", "step",
    "supply", "town_cards", "visited",
})
_KNOWN_RULES: Final = frozenset({
    "name", "eg_card_draw", "eg_gold_in_display", "eg_overbid", "eg_defaulter_rebids",
    "eg_public_gold", "eg_hand_limit", "eg_hand_limit_when", "eg_used_obstacles",
    "eg_flight_collects_piece", "eg_exchange_same_kind", "eg_tiebreak",
    "eg_witch_in_caravan", "caravan", "rounds", "random_gold", "witch", "town_cards",
})
#: The numbering the C code is written for (its enums): a change there is a gap too.
_C_KINDS: Final = ("DRAW", "DRAW_BLIND", "TAKE_GOLD", "HIDE", "BID", "PASS", "PLACE",
                   "DOUBLE", "EXCHANGE", "TREE", "MONSTER", "GOLD", "MOVE", "FLY", "END",
                   "COLLECT", "CARDS", "DISCARD", "KEEP")
_C_PHASES: Final = ("DRAW_CARDS", "DRAW_ITEMS", "AUCTION", "PLACE", "MOVE", "SETTLE",
                    "MOVE_DRAW", "DISCARD", "KEEP", "OVER")
_C_PAYS: Final = ("NORMAL", "WITCH", "CARAVAN")


def _numbering_gaps() -> list[str]:
    out = []
    for title, enum, names in (("kinds", Kind, _C_KINDS), ("phases", Phase, _C_PHASES),
                               ("payments", Pay, _C_PAYS)):
        if tuple(m.name for m in enum) != names:
            out.append(f"the order of the {title}")
    return out


#: Whether ``new_game`` builds the compiled engine without being asked (as the other two
#: games do).  A compiled state hands out fresh lists, so code that sets up a position
#: assigns whole fields (``s.coins = [...]``) or works on ``to_pure()``: a write into a
#: handed-out list (``s.coins[0] = 5``) is lost.  ``ELFENLAND_ENGINE=pure`` chooses the
#: pure engine.
BY_DEFAULT: Final = True


def compiled_chosen() -> bool:
    """Whether the environment asks for the compiled engines (``ELFENLAND_ENGINE=compiled``)."""
    return os.environ.get("ELFENLAND_ENGINE", "").strip().lower() == "compiled"


def enabled() -> bool:
    """Whether ``new_game`` builds the compiled engine: built, current, and chosen (by
    default once ``BY_DEFAULT``; ``ELFENLAND_ENGINE=pure`` always chooses the pure one)."""
    return AVAILABLE and not STALE and not pure_chosen() and (BY_DEFAULT or compiled_chosen())


def _configure() -> None:
    """Hand the board, the action space, the costs and the material to the C code once:
    they have one source, the Python modules."""
    from .position import to_position

    assert _speedups is not None
    board = load_board()
    actions = _space()[0]
    decoded = []
    for a in actions:
        cards = list(a.cards) if a.cards is not None else [-1] * 8
        decoded.append([int(a.kind), a.item, a.route, a.direction, a.amount, a.item2,
                        a.route2, int(a.secret), int(a.pay), *cards])
    _speedups.configure({
        "sizes": [len(board.routes), len(board.towns), board.capital, len(board.town_cards),
                  MAX_BID],
        "route_a": [r.a for r in board.routes],
        "route_b": [r.b for r in board.routes],
        "route_terrain": [int(r.terrain) for r in board.routes],
        "route_downstream": [r.downstream for r in board.routes],
        "town_cards": list(board.town_cards),
        "fixed_gold": [FIXED_GOLD.get(t.id, 0) for t in board.towns],
        "gold_tokens": list(GOLD_TOKENS),
        "item_counts": list(ITEM_COUNTS),
        "constants": [TRAVEL_PER_KIND, WITCH_CARDS, GOLD_CARDS, START_COINS, INCOME, DEAL,
                      DISPLAY, COINS_PER_GOLD_CARD, WITCH_BYPASS_COINS, FLIGHT_COINS,
                      TOWNS_TO_END, LAKE_RAFTS, len(GOLD_TOKENS)],
        "adjacent": [[r for r, _ in row] for row in board.adjacent],
        "distances": [list(row) for row in board.distances],
        "cost": [list(COST_TABLE[t]) for t in Transport],
        "actions": actions,
        "decoded": decoded,
        "phases": list(Phase),
        "action_type": Action,
        "rng_type": Rng,
        "to_position": to_position,
        "random_type": random.Random,
        "error_type": ElfenlandError,
    })


# ----- the log's facts as one number ----------------------------------------------------
_SALES: Final = (None, "returned", "sold", "default")


def _uses(action: Action) -> tuple[int, ...]:
    """The items a placement takes from the play area, in the order it takes them."""
    k = action.kind
    if k is Kind.DOUBLE:
        return (DOUBLE, action.item)
    return ({Kind.PLACE: action.item, Kind.TREE: 6, Kind.MONSTER: 7, Kind.GOLD: 8,
             Kind.EXCHANGE: 10}[k],)


_PLACEMENTS: Final = frozenset({Kind.PLACE, Kind.DOUBLE, Kind.TREE, Kind.MONSTER, Kind.GOLD,
                                Kind.EXCHANGE})


def _fact(action: Action, public: JSONDict, private: JSONDict) -> int:
    """The one number the compiled engine's history keeps for an action's facts."""
    k = action.kind
    if k is Kind.DRAW_BLIND:
        return GOLD_CARD if public.get("gold_card") else CARD_SLUGS.index(private["card"])
    if k is Kind.TAKE_GOLD:
        return int(public["gold_cards"])
    if k is Kind.HIDE:
        up = public["face_up"]
        return ITEM_SLUGS.index(up[0]) + 1 if up else 0
    if k is Kind.BID or k is Kind.PASS:
        for sale, key in enumerate(_SALES):
            if key is not None and key in public:
                value = public[key]
                if key == "returned":
                    return sale | ITEM_SLUGS.index(value) << 2
                who, amount = ((value["to"], value["price"]) if key == "sold"
                               else (value["player"], value["paid"]))
                return int(sale | ITEM_SLUGS.index(value["item"]) << 2 | who << 6 | amount << 9)
        return 0
    if k in _PLACEMENTS:
        down = public.get("from_face_down", [])
        fact = 0
        for bit, item in enumerate(_uses(action)):
            if ITEM_SLUGS[item] in down:
                fact |= 1 << bit
                down = down[down.index(ITEM_SLUGS[item]) + 1:]
        return fact
    if k is Kind.MOVE:
        count = 0 if action.pay is Pay.CARAVAN else public["paid"].count(CARD_SLUGS[action.item])
        return count | int(public["gold"]) << 8
    if k is Kind.COLLECT:
        return int(public["coins"])
    return 0


def _facts(action: Action, fact: int) -> tuple[JSONDict, JSONDict]:
    """The public and private facts of the pure engine's log, from the kept number."""
    k = action.kind
    if k is Kind.DRAW_BLIND:
        return ({"gold_card": True}, {}) if fact == GOLD_CARD else ({}, {"card": CARD_SLUGS[fact]})
    if k is Kind.TAKE_GOLD:
        return {"gold_cards": fact, "coins": COINS_PER_GOLD_CARD * fact}, {}
    if k is Kind.HIDE:
        return ({"face_up": [ITEM_SLUGS[fact - 1]] if fact else []},
                {"face_down": ITEM_SLUGS[action.item]})
    if k is Kind.BID or k is Kind.PASS:
        key = _SALES[fact & 3]
        if key is None:
            return {}, {}
        item = ITEM_SLUGS[fact >> 2 & 15]
        who, amount = fact >> 6 & 7, fact >> 9
        if key == "returned":
            return {"returned": item}, {}
        if key == "sold":
            return {"sold": {"item": item, "to": who, "price": amount}}, {}
        return {"default": {"item": item, "player": who, "paid": amount}}, {}
    if k in _PLACEMENTS:
        down = [ITEM_SLUGS[item] for bit, item in enumerate(_uses(action)) if fact >> bit & 1]
        return ({"from_face_down": down} if down else {}), {}
    if k is Kind.MOVE:
        public: JSONDict = {}
        if action.pay is Pay.CARAVAN:
            assert action.cards is not None
            paid = [CARD_SLUGS[i] for i, n in enumerate(action.cards) for _ in range(n)]
        else:
            paid = [CARD_SLUGS[action.item]] * (fact & 255)
            if action.pay is Pay.WITCH:
                public["coins_paid"] = WITCH_BYPASS_COINS
                paid.append(CARD_SLUGS[WITCH])
        public["paid"] = paid
        public["gold"] = fact >> 8
        return public, {}
    if k is Kind.COLLECT:
        return {"coins": fact}, {}
    return {}, {}


_FIELDS: Final = (
    "round", "phase", "starting", "current", "step", "passes", "gold_values", "hands",
    "supply", "display", "discard", "gold_deck", "item_pile", "items_up", "items_down",
    "kept_up", "kept_down", "removed", "drawn", "row", "high_bid", "high_bidder", "passed",
    "excluded", "counters", "double", "obstacle", "gold_piece", "coins", "paid_out",
    "paid_in", "boots", "visited", "town_cards", "moved", "earned", "draws_left",
    "after_discard", "result", "_length", "_drew",
)


if TYPE_CHECKING:
    from ._speedups import Core as _Core
elif _speedups is None:
    _Core = not_built("Elfengold")
else:
    _Core = _speedups.Core


class FastElfengoldState(_Core, ElfengoldState):
    """``ElfengoldState`` on the compiled engine."""

    def __init__(self, players: int = 4, seed: int | None = None,
                 rules: str | Rules = "elfengold", destination: bool = False,
                 **options: Any) -> None:
        # ElfengoldState.__init__'s checks and fields; the deal itself is in C (_start).
        if not isinstance(players, int) or isinstance(players, bool) \
                or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ElfenlandError(
                f"Elfengold is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ElfenlandError(f"a seed is an integer, not {seed!r}")
        self.rules = make_rules(rules, destination, **options)
        self.board = load_board()
        self.seed = seed
        self.origin = None
        self.rng = Rng(seed)
        self._start(players)

    @classmethod
    def from_state(cls, pure: ElfengoldState) -> FastElfengoldState:
        """The same game (position, history, random state) on the compiled engine."""
        new = cls.__new__(cls)
        new._take(pure)
        return new

    def _take(self, pure: ElfengoldState) -> None:
        self.rules = pure.rules
        self.board = pure.board
        self.seed = pure.seed
        self.n = pure.n
        for name in _FIELDS:
            setattr(self, name, getattr(pure, name))
        self.rng = pure.rng.copy()  # its own: the two games draw alike, each for itself
        self.origin = pure.origin
        self._chain = fast_state.compiled_chain(chain_tail(pure._chain, pure._length), _fact)

    def to_pure(self) -> ElfengoldState:
        """The same game on the pure engine (the reference), e.g. to compare the two."""
        if self.rules is None or self.rng is None:
            raise ElfenlandError("this state was not set up: make it with the class itself, "
                                 "from_state, load_position or deserialize")
        pure = ElfengoldState.__new__(ElfengoldState)
        pure.rules = self.rules
        pure.board = self.board
        pure.seed = self.seed
        pure.origin = self.origin
        pure.rng = self.rng.copy()
        pure._init_empty(self.n)
        for name in _FIELDS:
            setattr(pure, name, getattr(self, name))  # every read is a fresh list
        pure._chain = fast_state.pure_chain(chain_tail(self._chain, self._length), _facts)
        return pure

    def _apply_slow(self, action: CoreAction | str | int) -> None:
        """Everything but a legal canonical action: parse, then the pure engine's errors."""
        if not isinstance(action, Action):
            action = self.parse_action(action if isinstance(action, str | int) else str(action))
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if action._id < 0:
            action = canonical(action)
        actions = _space()[0]
        # As the pure engine: only the canonical object itself is played (a copy or a
        # forged id is not one of the legal actions).
        if not (0 <= action._id < len(actions) and actions[action._id] is action) \
                or not self._apply_id(action._id):
            raise IllegalActionError(self.why_illegal(action))

    def log_entries(self, after: int = 0) -> list[tuple[int, int, JSONDict, JSONDict]]:
        return fast_state.log_entries(chain_tail(self._chain, self._length - after), _facts)

    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> FastElfengoldState:
        """``position.resample`` in C, draw for draw."""
        return self._resample(check_player(player, self.n), as_rng(rng))  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its saved game (the C fields are not in ``__dict__``)."""
        return deserialize_fast, (self.serialize(),)

    def __repr__(self) -> str:
        return "<Fast" + ElfengoldState.__repr__(self)[1:]


#: Gaps between the pure engine and this compiled one (empty when they match).
STALE: Final = (_gaps(ElfengoldState(players=2, seed=0), Rules, _KNOWN_STATE, _KNOWN_RULES)
                + _numbering_gaps())

if _speedups is not None:
    _configure()
    _speedups.own_methods(FastElfengoldState)


def from_pure(state: ElfengoldState) -> ElfengoldState:
    """``state`` on the compiled engine when it serves (itself otherwise)."""
    return fast_state.on_engine(state, FastElfengoldState, enabled())


def deserialize_fast(text: str) -> FastElfengoldState:
    """A saved game replayed on the compiled engine."""
    from .position import from_position

    return fast_state.load_fast(text, "elfengold", "Elfengold", FastElfengoldState,
                                FastElfengoldState.from_state, "rules",
                                Rules.from_json, from_position)
