"""The transport/terrain cost table shared by Elfenland and King of the Elves.

The table is the one on the players' transportation charts: how many travel cards of a
kind one step costs on each kind of region.  ``None`` means the transport cannot go
there at all (and, in Elfenland, that its counter may not be placed there).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final


class Transport(IntEnum):
    """Kinds of travel card.  The first six also exist as transportation counters."""

    GIANT_PIG = 0
    ELFCYCLE = 1
    MAGIC_CLOUD = 2
    UNICORN = 3
    TROLL_WAGON = 4
    DRAGON = 5
    RAFT = 6

    @property
    def slug(self) -> str:
        """The notation name: ``giant-pig``, ``troll-wagon``, ``raft``..."""
        return self.name.lower().replace("_", "-")

    @classmethod
    def from_slug(cls, text: str) -> Transport:
        key = text.strip().lower().replace("-", "_").replace(" ", "_")
        try:
            return cls[key.upper()]
        except KeyError:
            raise ValueError(f"unknown transport {text!r}") from None


class Terrain(IntEnum):
    PLAINS = 0
    FOREST = 1
    DESERT = 2
    MOUNTAIN = 3
    RIVER = 4
    LAKE = 5

    @property
    def slug(self) -> str:
        return self.name.lower()

    @classmethod
    def from_slug(cls, text: str) -> Terrain:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown terrain {text!r}") from None


LAND_TRANSPORTS: Final = tuple(t for t in Transport if t is not Transport.RAFT)
LAND_TERRAINS: Final = (Terrain.PLAINS, Terrain.FOREST, Terrain.DESERT, Terrain.MOUNTAIN)
WATER_TERRAINS: Final = (Terrain.RIVER, Terrain.LAKE)

_: None = None
#: Cards of the transport's kind needed for one step on a region of that terrain.
#: Water costs for the raft are the card game's (river 1, lake 2); Elfenland refines
#: them with the river's flow and its rule set's lake costs.
COST_TABLE: Final[dict[Transport, tuple[int | None, ...]]] = {
    #                       plains forest desert mountain river lake
    Transport.GIANT_PIG:   (1,     1,     _,     _,       _,    _),
    Transport.ELFCYCLE:    (1,     1,     _,     2,       _,    _),
    Transport.MAGIC_CLOUD: (2,     2,     _,     1,       _,    _),
    Transport.UNICORN:     (_,     1,     2,     1,       _,    _),
    Transport.TROLL_WAGON: (1,     2,     2,     2,       _,    _),
    Transport.DRAGON:      (1,     2,     1,     1,       _,    _),
    Transport.RAFT:        (_,     _,     _,     _,       1,    2),
}
del _


def cost(transport: Transport, terrain: Terrain) -> int | None:
    """Cards needed for one step of ``transport`` on ``terrain``; ``None`` if impossible."""
    return COST_TABLE[transport][terrain]


def can_travel(transport: Transport, terrain: Terrain) -> bool:
    return COST_TABLE[transport][terrain] is not None
