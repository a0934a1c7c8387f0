"""Both engines of each game side by side, for the fuzzers (issue #22): how to build,
load and compare a pure and a compiled state, and the fields a caller may write."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from elfenland.core.game import GameState
from elfenland.games.elfengold import fast as eg_fast
from elfenland.games.elfengold import position as eg_position
from elfenland.games.elfengold import state as eg_state
from elfenland.games.elfenland import fast as el_fast
from elfenland.games.elfenland import position as el_position
from elfenland.games.elfenland import state as el_state
from elfenland.games.kingelves import fast as ke_fast
from elfenland.games.kingelves import position as ke_position
from elfenland.games.kingelves import state as ke_state


@dataclass(frozen=True)
class Pair:
    """One game's two engines: constructors, loaders, and the writable fields."""

    game: str
    pure: type[GameState]
    compiled: type[GameState]
    from_position: Callable[[Any], GameState]
    from_state: Callable[[GameState], GameState]
    deserialize_pure: Callable[[str], GameState]
    deserialize_compiled: Callable[[str], GameState]
    fields: tuple[str, ...]
    available: bool


PAIRS = {
    "elfenland": Pair("elfenland", el_state.ElfenlandState, el_fast.FastElfenlandState,
                      el_position.from_position, el_fast.FastElfenlandState.from_state,
                      el_state.deserialize, el_fast.deserialize_fast,
                      el_fast._FIELDS, el_fast.AVAILABLE),
    "king-of-the-elves": Pair("king-of-the-elves", ke_state.KingOfTheElvesState,
                              ke_fast.FastKingOfTheElvesState, ke_position.from_position,
                              ke_fast.FastKingOfTheElvesState.from_state,
                              ke_state.deserialize, ke_fast.deserialize_fast,
                              ke_fast._FIELDS, ke_fast.AVAILABLE),
    "elfengold": Pair("elfengold", eg_state.ElfengoldState, eg_fast.FastElfengoldState,
                      eg_position.from_position, eg_fast.FastElfengoldState.from_state,
                      eg_state.deserialize, eg_fast.deserialize_fast,
                      eg_fast._FIELDS, eg_fast.AVAILABLE),
}

#: Fields that hold no numbers (written from a member of their enum, not fuzzed).
NOT_NUMBERS = frozenset({"phase", "pending", "_length"})


def snapshot(state: GameState, fields: tuple[str, ...]) -> dict[str, Any]:
    """Every field's value, lists copied: what two states must agree on."""
    out: dict[str, Any] = {}
    for name in fields:
        value = getattr(state, name)
        out[name] = value.value if hasattr(value, "value") else value
    out["history"] = [str(a) for a in state.history]
    out["rng"] = state.rng.to_json()  # type: ignore[attr-defined]
    return out


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", result) or ("error", whether it was a typed ElfenlandError): what two
    engines must agree on when given the same input."""
    from elfenland.core.errors import ElfenlandError

    try:
        return "ok", call()
    except ElfenlandError:
        return "error", "typed"
    except (LookupError, ArithmeticError, TypeError, AssertionError, ValueError) as exc:
        return "error", type(exc).__name__
