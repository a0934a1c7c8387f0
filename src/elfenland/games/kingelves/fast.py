"""The compiled King of the Elves engine, when it was built: the same
``KingOfTheElvesState`` with legal actions, apply and clone in C (``_speedups.c``).

As for Elfenland (``games/elfenland/fast.py``), the pure engine in ``state.py`` stays the
reference and the fallback, and ``ELFENLAND_ENGINE=pure`` chooses it.
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
from ...core.game import JSONDict, PlayerId, chain_tail, check_player
from ...core.rng import Rng, as_rng
from ...core.transport import COST_TABLE, Transport
from .actions import SPELL_PAYMENTS, Action, Kind, _space, all_actions, canonical
from .cards import NUM_KINDS, Card, counts_to_list, obstacle_for, town_value
from .rules import (
    ALL_TOWNS_BONUS,
    BANNERS,
    BUY_PRICES,
    FIRST_DEAL,
    LATER_DEAL,
    MAX_KINGDOM,
    REMOVE_BASE,
    ROUNDS,
    SPELL_GOLD,
    THIEF_TOLL,
    Rules,
    make_rules,
)
from .state import MAX_PLAYERS, MIN_PLAYERS, KingOfTheElvesState, Pending, Phase

try:
    from . import _speedups
except ImportError:  # built without a C compiler: the pure engine runs
    _speedups = None  # type: ignore[assignment]

#: Whether the compiled engine was built and imports.
AVAILABLE: Final = _speedups is not None

_SLUGS: Final = tuple(c.slug for c in Card)
_ACTIONS: Final = all_actions()


#: The pure engine's state fields and rule options this compiled engine mirrors.
_KNOWN_STATE: Final = frozenset({
    "_history", "_legal", "_legal_ids", "_ring", "at", "bank", "bonus_paid", "bought",
    "current", "deck", "direction", "discard", "dragon", "earned", "escort",
    "escort_towns", "gold",
    "hands", "kingdoms", "log", "n", "origin", "own_visited", "paid", "passes", "pending",
    "pending_count", "phase", "result", "rng", "round", "rules", "seed", "set_aside",
    "turned", "visited",
})
_KNOWN_RULES: Final = frozenset({
    "name", "magic_spell", "weak_gold", "gold_for_all", "land_transport_cards",
    "raft_cards", "action_cards", "starting_gold", "gold_supply", "rebuild_deck",
    "escort_two_towns", "no_town_card_from_discard",
})


def enabled() -> bool:
    """Whether ``new_game`` uses the compiled engine (built, and not switched off)."""
    return AVAILABLE and not STALE and not pure_chosen()


def _configure() -> None:
    from .position import to_position

    assert _speedups is not None and MAX_KINGDOM == 3 and len(SPELL_PAYMENTS) <= 256
    decoded = []
    spell_index = {m: j for j, m in enumerate(SPELL_PAYMENTS)}
    for a in _space()[0]:
        decoded.append([int(a.kind), -1 if a.card is None else int(a.card), a.kingdom,
                        a.town, a.count, -1 if a.cards is None else spell_index[a.cards]])
    _speedups.configure({
        "rounds": [ROUNDS.get(n, 0) for n in range(MAX_PLAYERS + 1)],
        "constants": [FIRST_DEAL, LATER_DEAL, BANNERS, THIEF_TOLL, REMOVE_BASE, SPELL_GOLD,
                      ALL_TOWNS_BONUS, len(BUY_PRICES)],
        "prices": list(BUY_PRICES),
        "town_value": [town_value(t) for t in range(6)],
        "obstacle_card": [int(obstacle_for(t)) for t in range(6)],
        "cost": [list(COST_TABLE[t]) for t in Transport],
        "spells": list(SPELL_PAYMENTS),
        "actions": _space()[0],
        "decoded": decoded,
        "phases": list(Phase),
        "pendings": list(Pending),
        "action_type": Action,
        "rng_type": Rng,
        "random_type": random.Random,
        "to_position": to_position,
        "error_type": ElfenlandError,
    })


def _counts(slugs: list[str]) -> list[int]:
    counts = [0] * NUM_KINDS
    for slug in slugs:
        counts[_SLUGS.index(slug)] += 1
    return counts


def _fact(action: Action, public: JSONDict, private: JSONDict) -> Any:
    """What the compiled engine's history keeps of an action's facts."""
    k = action.kind
    if k is Kind.NO_TOWN_CARD:
        # the hand shown, and a last 1 if the discard pile became the deck
        return tuple(_counts(public["hand"])) + ((1,) if public.get("deck_rebuilt") else ())
    if k is Kind.DRAW:
        fact, shift = int(public["drew"]), 2
        for kind, n in enumerate(_counts(private["cards"])):
            for _ in range(n):
                fact |= kind << shift
                shift += 5
        return fact
    if k is Kind.BUY:
        return int(public["price"]) | _SLUGS.index(private["card"]) << 4
    if k is Kind.PLACE:
        return _SLUGS.index(public["town_kind"])
    if k is Kind.REMOVE:
        return int(public["cost"]) | _SLUGS.index(public["town_kind"]) << 16
    if k is Kind.VISIT or k is Kind.SPELL:
        kingdom, _, town = str(public["town"]).partition(".")
        return (int(bool(public.get("escort_discarded"))) | (public.get("thief", -1) + 1) << 1
                | int(kingdom) << 4 | int(town) << 7
                | _SLUGS.index(public["town_kind"]) << 9 | int(public["earned"]) << 12
                | (public.get("bonus", -1) + 1) << 36)
    if k is Kind.ESCORT:
        return int(public["kingdom"])
    if k is Kind.STOP:
        return (int(public["earned"]), int(public["paid"]))
    return 0


def _facts(action: Action, fact: Any) -> tuple[JSONDict, JSONDict]:
    """The pure engine's public and private facts, from what was kept."""
    k = action.kind
    if k is Kind.NO_TOWN_CARD:
        shown: JSONDict = {"hand": counts_to_list(list(fact[:NUM_KINDS]))}
        if len(fact) > NUM_KINDS:
            shown["deck_rebuilt"] = True
        return shown, {}
    if k is Kind.DRAW:
        drawn = [_SLUGS[fact >> (2 + 5 * i) & 31] for i in range(fact & 3)]
        return {"drew": fact & 3}, {"cards": drawn}
    if k is Kind.BUY:
        return {"price": fact & 15}, {"card": _SLUGS[fact >> 4]}
    if k is Kind.PLACE:
        return {"town_kind": _SLUGS[fact]}, {}
    if k is Kind.REMOVE:
        return {"cost": fact & 0xFFFF, "town_kind": _SLUGS[fact >> 16]}, {}
    if k is Kind.VISIT or k is Kind.SPELL:
        public: JSONDict = {}
        if fact & 1:
            public["escort_discarded"] = True
        thief = (fact >> 1 & 7) - 1
        if thief >= 0:
            public["thief"] = thief
        public["town"] = f"{fact >> 4 & 7}.{fact >> 7 & 3}"
        public["town_kind"] = _SLUGS[fact >> 9 & 7]
        public["earned"] = fact >> 12 & 0xFFFFFF
        bonus = (fact >> 36) - 1
        if bonus >= 0:
            public["bonus"] = bonus
        return public, {}
    if k is Kind.ESCORT:
        return {"kingdom": fact}, {}
    if k is Kind.STOP:
        return {"earned": fact[0], "paid": fact[1]}, {}
    return {}, {}


_FIELDS: Final = (
    "round", "phase", "dragon", "current", "passes", "pending", "pending_count", "hands",
    "gold", "set_aside", "bought", "deck", "discard", "bank", "kingdoms", "at", "direction",
    "turned", "own_visited", "escort", "escort_towns", "visited", "bonus_paid", "earned",
    "paid", "result",
)


if TYPE_CHECKING:
    from ._speedups import Core as _Core
elif _speedups is None:
    _Core = not_built("King of the Elves")
else:
    _Core = _speedups.Core


class FastKingOfTheElvesState(_Core, KingOfTheElvesState):
    """``KingOfTheElvesState`` on the compiled engine."""

    def __init__(self, players: int = 4, seed: int | None = None, rules: Any = None,
                 **options: Any) -> None:
        # KingOfTheElvesState.__init__'s checks and fields; the deal is in C (_start).
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ElfenlandError(
                f"King of the Elves is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                f"not {players!r}")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ElfenlandError(f"a seed is an integer, not {seed!r}")
        self.rules = make_rules(rules, **options)
        self.seed = seed
        self.origin = None
        self.rng = Rng(seed)
        self._start(players, self.rules.starting_gold, self.all_cards())
        self.bank = self.rules.gold_supply - players * self.rules.starting_gold

    @classmethod
    def from_state(cls, pure: KingOfTheElvesState) -> FastKingOfTheElvesState:
        """The same game (position, history, random state) on the compiled engine."""
        new = cls.__new__(cls)
        new.rules = pure.rules
        new.seed = pure.seed
        new.n = pure.n
        for name in _FIELDS:
            setattr(new, name, getattr(pure, name))
        new.rng = pure.rng.copy()  # its own: the two games draw alike, each for itself
        new.origin = pure.origin
        chain: Any = None
        for action, (player, _, public, private) in zip(pure.history, pure.log, strict=True):
            chain = (chain, player, action, _fact(action, public, private))
        new._chain = chain
        new._length = len(pure.history)
        return new

    def to_pure(self, history: bool = True) -> KingOfTheElvesState:
        """The same game on the pure engine (the reference); without its history (the
        actions and their log) if ``history`` is false."""
        pure = KingOfTheElvesState.__new__(KingOfTheElvesState)
        pure.rules = self.rules
        pure.seed = self.seed
        pure.origin = self.origin
        pure.rng = self.rng.copy()
        pure._init_empty(self.n)
        for name in _FIELDS:
            value = getattr(self, name)
            if name == "kingdoms":
                value = [[t[:] for t in k] for k in value]
            elif isinstance(value, list):
                value = [x[:] if isinstance(x, list) else x for x in value]
            setattr(pure, name, value)
        if history:
            pure._history = self.history
            pure.log = self.log
        return pure

    def _links(self, after: int = 0) -> list[tuple[Any, int, Action, Any]]:
        """The links after the first ``after``, oldest first: only those are walked."""
        return chain_tail(self._chain, self._length - after)

    @property
    def history(self) -> list[Action]:
        return [link[2] for link in self._links()]

    def _last_move(self) -> tuple[PlayerId, Action] | None:
        link = self._chain
        return None if link is None else (link[1], link[2])

    @property
    def _history(self) -> list[Action]:  # type: ignore[override]
        return self.history

    @property
    def log(self) -> list[tuple[int, int, JSONDict, JSONDict]]:  # type: ignore[override]
        return self.log_entries()

    def history_length(self) -> int:
        return int(self._length)

    def log_entries(self, after: int = 0) -> list[tuple[int, int, JSONDict, JSONDict]]:
        return fast_state.log_entries(self._links(after), _facts)

    def _apply_slow(self, action: CoreAction | str | int) -> None:
        """Everything but a legal canonical action: parse, then the pure engine's errors."""
        if not isinstance(action, Action):
            action = self.parse_action(action if isinstance(action, str | int) else str(action))
        elif not (0 <= action.id < len(_ACTIONS) and _ACTIONS[action.id] is action):
            # Built by hand: its id may not be its own, so look it up by value.
            action = canonical(action)
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if not self._apply_id(action.id):
            raise IllegalActionError(self.why_illegal(action))

    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> FastKingOfTheElvesState:
        return self._resample(check_player(player, self.n), as_rng(rng))  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its saved game (the C fields are not in ``__dict__``)."""
        return deserialize_fast, (self.serialize(),)

    def __repr__(self) -> str:
        return "<Fast" + KingOfTheElvesState.__repr__(self)[1:]


#: Gaps between the pure engine and this compiled one (empty when they match).
STALE: Final = _gaps(KingOfTheElvesState(players=2, seed=0), Rules, _KNOWN_STATE, _KNOWN_RULES)

if _speedups is not None:
    _configure()


def state_class() -> type[KingOfTheElvesState]:
    return FastKingOfTheElvesState if enabled() else KingOfTheElvesState


def from_pure(state: KingOfTheElvesState) -> KingOfTheElvesState:
    return fast_state.on_engine(state, FastKingOfTheElvesState, enabled())


def deserialize_fast(text: str) -> FastKingOfTheElvesState:
    """A saved game replayed on the compiled engine."""
    from .position import from_position

    return fast_state.load_fast(text, "king-of-the-elves", "King of the Elves",
                                FastKingOfTheElvesState,
                                FastKingOfTheElvesState.from_state, "options", Rules.from_json,
                                from_position)
