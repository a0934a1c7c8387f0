"""The module-level entry points the game registry looks up."""

from __future__ import annotations

from typing import Any

from .position import from_position
from .state import ElfenlandState, deserialize


def new_game(players: int = 4, seed: int | None = None, rules: Any = "amigo",
             destination: bool = False, **options: Any) -> ElfenlandState:
    return ElfenlandState(players=players, seed=seed, rules=rules,
                          destination=destination, **options)


__all__ = ["deserialize", "from_position", "new_game"]
