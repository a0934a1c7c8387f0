"""The compiled Elfenland engine, when it was built: the same ``ElfenlandState`` with its
hot path (legal actions, apply, clone, resample) in C (``_speedups.c``).

The pure engine in ``state.py`` stays the reference and the fallback: ``pip install``
on a machine without a C compiler leaves ``_speedups`` out and everything runs on the
pure engine.  ``FastElfenlandState`` is a subclass of ``ElfenlandState``, so bots, the
server and the views use it unchanged; what it does not compile (views, positions, error
messages, scores) is the pure code, reading the C arrays through attributes.

``ELFENLAND_ENGINE=pure`` in the environment makes ``new_game`` and friends use the pure
engine even when the compiled one is there.
"""

from __future__ import annotations

import random
import secrets
from typing import TYPE_CHECKING, Any, Final

from ...core import fast_state
from ...core.compiled import gaps as _gaps
from ...core.compiled import not_built, pure_chosen
from ...core.errors import ElfenlandError, GameOverError, IllegalActionError
from ...core.game import Action as CoreAction
from ...core.game import JSONDict, PlayerId, check_player
from ...core.rng import Rng, as_rng
from ...core.transport import COST_TABLE, Transport
from .actions import MULTISETS, Action, Kind, Pay, _space, by_value
from .board import load_board
from .rules import Rules, make_rules
from .state import (
    CARDS_PER_KIND,
    COUNTERS_PER_KIND,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ElfenlandState,
    Phase,
)

try:
    from . import _speedups
except ImportError:  # built without a C compiler: the pure engine runs
    _speedups = None  # type: ignore[assignment]

#: Whether the compiled engine was built and imports.
AVAILABLE: Final = _speedups is not None

_SLUGS: Final = tuple(t.slug for t in Transport)


#: The pure engine's state fields and rule options this compiled engine mirrors.
_KNOWN_STATE: Final = frozenset({
    "_chain", "_legal", "_length", "_rng_shared", "board", "boots", "card_pile",
    "counter_pile", "counters_secret", "counters_up", "current", "discarding", "face_up",
    "hands", "kept_secret", "kept_up", "n", "obstacle_in_hand", "origin", "passes",
    "phase", "result", "rng", "round", "route_counter", "route_obstacle", "rules", "seed",
    "special_victory", "starting", "step", "town_cards", "visited",
})
_KNOWN_RULES: Final = frozenset({
    "name", "deal", "cards_per_deal", "hand_limit", "counters_kept", "keep_when",
    "face_up_counters", "counter_draws", "mare_magnum_rafts", "mare_nebulae_rafts",
    "boatmen", "town_cards", "early_end", "rounds", "caravan_cards", "closest_breaks_ties",
    "caravan", "special_victory_at", "final_keep",
})


def enabled() -> bool:
    """Whether ``new_game`` uses the compiled engine (built, and not switched off)."""
    return AVAILABLE and not STALE and not pure_chosen()


def _configure() -> None:
    """Hand the board, the action space and the cost table to the C code once: they
    have one source, the Python modules."""
    from .position import to_position

    assert _speedups is not None
    board = load_board()
    actions = _space()[0]
    decoded = []
    for a in actions:
        cards = list(a.cards) if a.cards is not None else [-1] * 7
        decoded.append([int(a.kind), -1 if a.transport is None else int(a.transport),
                        -1 if a.route is None else a.route, a.direction, int(a.secret),
                        int(a.pay), *cards])
    _speedups.configure({
        "sizes": [len(board.routes), len(board.towns), board.capital, len(board.town_cards)],
        "route_a": [r.a for r in board.routes],
        "route_b": [r.b for r in board.routes],
        "route_terrain": [int(r.terrain) for r in board.routes],
        "route_downstream": [r.downstream for r in board.routes],
        "route_lake": [0 if r.lake is None else 2 if r.lake == "mare-nebulae" else 1
                       for r in board.routes],
        "town_cards": list(board.town_cards),
        "adjacent": [[r for r, _ in row] for row in board.adjacent],
        "distances": [list(row) for row in board.distances],
        "cost": [list(COST_TABLE[t]) for t in Transport],
        "actions": actions,
        "decoded": decoded,
        "multisets": list(MULTISETS[3] + MULTISETS[4]),
        "lake_payment_size": [3],
        "phases": list(Phase),
        "action_type": Action,
        "rng_type": Rng,
        "to_position": to_position,
        "cards_per_kind": list(CARDS_PER_KIND),
        "counters_per_kind": [COUNTERS_PER_KIND] * 6,
        "random_type": random.Random,
        "board": board,
        "rules_type": Rules,
        "make_rules": make_rules,
        "error_type": ElfenlandError,
    })


def _fact(action: Action, public: JSONDict, private: JSONDict) -> int:
    """The one number the compiled engine's history keeps for an action's facts."""
    k = action.kind
    if k is Kind.DRAW_SECRET:
        return _SLUGS.index(private["counter"])
    if k is Kind.DRAW or k is Kind.DRAW_BLIND:
        return _SLUGS.index(public["counter"])
    if k is Kind.PLACE:
        return 1 if public.get("from_secret") else 0
    if k is Kind.MOVE and action.pay is Pay.NORMAL:
        paid = public["paid"]
        kind = next(i for i, n in enumerate(paid) if n)
        return kind * 16 + int(paid[kind])
    return 0


def _facts(action: Action, fact: int) -> tuple[JSONDict, JSONDict]:
    """The public and private facts of the pure engine's log, from the kept number."""
    k = action.kind
    if k is Kind.DRAW_SECRET:
        return {}, {"counter": _SLUGS[fact]}
    if k is Kind.DRAW or k is Kind.DRAW_BLIND:
        return {"counter": _SLUGS[fact]}, {}
    if k is Kind.PLACE:
        return ({"from_secret": True}, {}) if fact else ({}, {})
    if k is Kind.MOVE:
        if action.pay is Pay.NORMAL:
            paid = [0] * 7
            paid[fact >> 4] = fact & 15
            return {"paid": paid}, {}
        assert action.cards is not None
        return {"paid": list(action.cards)}, {}
    return {}, {}


_FIELDS: Final = (
    "round", "phase", "starting", "current", "step", "passes", "discarding", "hands",
    "card_pile", "counter_pile", "face_up", "counters_up", "counters_secret", "kept_up",
    "kept_secret", "route_counter", "route_obstacle", "obstacle_in_hand", "boots",
    "visited", "town_cards", "result", "special_victory", "_length",
)


if TYPE_CHECKING:
    from ._speedups import Core as _Core
elif _speedups is None:
    _Core = not_built("Elfenland")
else:
    _Core = _speedups.Core


def c_api() -> object | None:
    """The compiled engine's C entry (``core/_engine_api.h``, the capsule ``_c_api``),
    for C code that steps and reads these states (the quick bot's compiled rollouts);
    None where the engine is not built."""
    return None if _speedups is None else _speedups._c_api


class FastElfenlandState(_Core, ElfenlandState):
    """``ElfenlandState`` on the compiled engine.

    ``__init__`` is the C base's: the everyday call (player count, int seed, rule-set
    name, destination) is done there whole; any other call, and every error, comes
    back to ``_init_slow``."""

    def _init_slow(self, players: int = 4, seed: int | None = None,
                   rules: str | Rules = "amigo", destination: bool = False,
                   **options: Any) -> None:
        # ElfenlandState.__init__'s checks and fields; the deal itself is in C (_start).
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ElfenlandError(
                f"Elfenland is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int):
            raise ElfenlandError(f"a seed is an integer, not {seed!r}")
        self.rules = make_rules(rules, destination, **options)
        self.board = load_board()
        self.seed = seed
        self.origin = None
        self.rng = Rng(seed)
        self._start(players)

    @classmethod
    def from_state(cls, pure: ElfenlandState) -> FastElfenlandState:
        """The same game (position, history, random state) on the compiled engine."""
        new = cls.__new__(cls)
        new._take(pure)
        return new

    def _take(self, pure: ElfenlandState) -> None:
        self.rules = pure.rules
        self.board = pure.board
        self.seed = pure.seed
        self.n = pure.n
        for name in _FIELDS:
            setattr(self, name, getattr(pure, name))
        self.rng = pure.rng.copy()  # its own: the two games draw alike, each for itself
        self.origin = pure.origin
        self._chain = fast_state.compiled_chain(pure._links(), _fact)

    def to_pure(self) -> ElfenlandState:
        """The same game on the pure engine (the reference), e.g. to compare the two."""
        pure = ElfenlandState.__new__(ElfenlandState)
        pure.rules = self.rules
        pure.board = self.board
        pure.seed = self.seed
        pure.origin = self.origin
        pure.rng = self.rng.copy()
        pure._init_empty(self.n)
        for name in _FIELDS:
            value = getattr(self, name)
            setattr(pure, name, [x[:] if isinstance(x, list) else x for x in value]
                    if isinstance(value, list) else value)
        pure._chain = fast_state.pure_chain(self._links(), _facts)
        return pure

    def _apply_slow(self, action: CoreAction | str | int) -> None:
        """Everything but a legal canonical action: parse, then the pure engine's errors."""
        if not isinstance(action, Action):
            action = self.parse_action(action if isinstance(action, str | int) else str(action))
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        action = by_value(action)
        if not self._apply_id(action._id):
            raise IllegalActionError(self.why_illegal(action))

    @property
    def log(self) -> list[tuple[int, int, JSONDict, JSONDict]]:
        return self.log_entries()

    def log_entries(self, after: int = 0) -> list[tuple[int, int, JSONDict, JSONDict]]:
        return fast_state.log_entries(self._links(after), _facts)

    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> FastElfenlandState:
        return self._resample(check_player(player, self.n), as_rng(rng))  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its saved game (the C fields are not in ``__dict__``)."""
        return deserialize_fast, (self.serialize(),)

    def __repr__(self) -> str:
        return "<Fast" + ElfenlandState.__repr__(self)[1:]


#: Gaps between the pure engine and this compiled one (empty when they match).
STALE: Final = _gaps(ElfenlandState(players=2, seed=0), Rules, _KNOWN_STATE, _KNOWN_RULES)

if _speedups is not None:
    _configure()
    _speedups.own_methods(FastElfenlandState)


def state_class() -> type[ElfenlandState]:
    """The class ``new_game`` builds: compiled if built and enabled, else the pure one."""
    return FastElfenlandState if enabled() else ElfenlandState


def from_pure(state: ElfenlandState) -> ElfenlandState:
    """``state`` on the engine in use (itself when that is the pure one)."""
    return fast_state.on_engine(state, FastElfenlandState, enabled())


def deserialize_fast(text: str) -> FastElfenlandState:
    """A saved game replayed on the compiled engine."""
    from .position import from_position

    return fast_state.load_fast(text, "elfenland", "Elfenland", FastElfenlandState,
                                FastElfenlandState.from_state, "rules",
                                Rules.from_json, from_position)
