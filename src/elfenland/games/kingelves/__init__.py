"""King of the Elves (König der Elfen), Alan R. Moon's Elfenland card game: a pure rules
engine behind the shared ``GameState`` interface.  Standard library only."""

from __future__ import annotations

from .actions import Action, Kind, from_id, num_actions, parse
from .api import deserialize, from_position, new_game
from .cards import Card
from .rules import Rules
from .state import KingOfTheElvesState, Phase

__all__ = [
    "Action",
    "Card",
    "Kind",
    "KingOfTheElvesState",
    "Phase",
    "Rules",
    "deserialize",
    "from_id",
    "from_position",
    "new_game",
    "num_actions",
    "parse",
]
