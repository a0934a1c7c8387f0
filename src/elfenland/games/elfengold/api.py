"""The module-level entry points the game registry looks up (the pure engine only:
Elfengold has no compiled engine yet)."""

from __future__ import annotations

from typing import Any

from ...core.game import JSONDict
from .position import from_position as pure_from_position
from .state import ElfengoldState
from .state import deserialize as pure_deserialize


def new_game(players: int = 4, seed: int | None = None, rules: Any = "elfengold",
             destination: bool = False, **options: Any) -> ElfengoldState:
    return ElfengoldState(players=players, seed=seed, rules=rules, destination=destination,
                          **options)


def deserialize(text: str) -> ElfengoldState:
    return pure_deserialize(text)


def from_position(doc: JSONDict) -> ElfengoldState:
    return pure_from_position(doc)


def engine_backend() -> str:
    return "pure"


__all__ = ["deserialize", "engine_backend", "from_position", "new_game", "pure_deserialize"]
