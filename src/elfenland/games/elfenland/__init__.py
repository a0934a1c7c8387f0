"""Elfenland: the board game's rules engine."""

from .actions import Action, Kind, Pay, from_id, num_actions
from .board import Board, Route, Town, load_board
from .position import from_position
from .rules import AMIGO, MOON, RULE_SETS, Rules, make_rules
from .state import ElfenlandState, Phase, deserialize

__all__ = [
    "AMIGO", "MOON", "RULE_SETS", "Action", "Board", "ElfenlandState", "Kind", "Pay",
    "Phase", "Route", "Rules", "Town", "deserialize", "from_id", "from_position",
    "load_board", "make_rules", "num_actions",
]
