"""The module-level entry points the game registry looks up."""

from __future__ import annotations

from typing import Any

from .position import from_position
from .state import KingOfTheElvesState, deserialize


def new_game(players: int = 4, seed: int | None = None, **variants: Any) -> KingOfTheElvesState:
    """A new game; ``variants`` are ``Rules`` fields (``magic_spell=True``, ``weak_gold``,
    ``gold_for_all``, the card-count settings) or ``variants=[names]``."""
    return KingOfTheElvesState(players=players, seed=seed, **variants)


__all__ = ["deserialize", "from_position", "new_game"]
