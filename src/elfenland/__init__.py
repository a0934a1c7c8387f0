"""Elfenland and King of the Elves: pure rules engines, bots, a game server and a
browser UI.

>>> import elfenland
>>> game = elfenland.new_game(players=3, seed=7)
>>> game.current_player(), str(game.legal_actions()[0])
(0, 'draw secret')
"""

from __future__ import annotations

from .core.errors import (
    ActionParseError,
    ElfenlandError,
    GameOverError,
    IllegalActionError,
    PositionError,
    SerializationError,
    UnknownTownError,
)
from .core.game import TERMINAL, GameState
from .core.rng import Rng
from .games.registry import (
    GAMES,
    deserialize,
    engine_backend,
    load_position,
    new_game,
    option_spec,
)

__version__ = "0.1.0"

__all__ = [
    "GAMES", "TERMINAL", "ActionParseError", "ElfenlandError", "GameOverError", "GameState",
    "IllegalActionError", "PositionError", "Rng", "SerializationError", "UnknownTownError",
    "__version__", "deserialize", "engine_backend", "load_position", "new_game", "option_spec",
]
