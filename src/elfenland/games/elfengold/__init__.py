"""Elfengold: the Elfenland expansion's rules engine (coins, the item auction, gold)."""

from .actions import Action, Kind, Pay, from_id, num_actions
from .options import OPTIONS, Rules, make_rules
from .position import from_position
from .state import ElfengoldState, Phase, deserialize

__all__ = [
    "OPTIONS", "Action", "ElfengoldState", "Kind", "Pay", "Phase", "Rules", "deserialize",
    "from_id", "from_position", "make_rules", "num_actions",
]
