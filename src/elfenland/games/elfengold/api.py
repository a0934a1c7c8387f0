"""The module-level entry points the game registry looks up.

They build the pure engine's states, or the compiled engine's (``fast.py``) when it was
built (``ELFENLAND_ENGINE=pure`` chooses the pure one; see ``fast.BY_DEFAULT``)."""

from __future__ import annotations

from typing import Any

from ...core.game import JSONDict
from . import fast
from .position import from_position as pure_from_position
from .state import ElfengoldState
from .state import deserialize as pure_deserialize


def new_game(players: int = 4, seed: int | None = None, rules: Any = "elfengold",
             destination: bool = False, **options: Any) -> ElfengoldState:
    cls = fast.FastElfengoldState if fast.enabled() else ElfengoldState
    return cls(players=players, seed=seed, rules=rules, destination=destination, **options)


def deserialize(text: str) -> ElfengoldState:
    if fast.enabled():
        return fast.deserialize_fast(text)
    return pure_deserialize(text)


def from_position(doc: JSONDict) -> ElfengoldState:
    return fast.from_pure(pure_from_position(doc))


def engine_backend() -> str:
    """``"compiled"`` when ``new_game`` builds the C engine's states, else ``"pure"``."""
    return "compiled" if fast.enabled() else "pure"


__all__ = ["deserialize", "engine_backend", "from_position", "new_game", "pure_deserialize"]
