"""The 120 cards of King of the Elves, as kinds.

Cards of one kind are interchangeable (every plains town card is a plains town worth 3),
so hands, the deck and the discard pile are counts per kind: nineteen numbers each.  The
kinds are numbered so that a town card's kind is its ``Terrain`` and a transport card's
kind is ``TRANSPORT_BASE`` plus its ``Transport``: the shared cost table then needs no
translation.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from ...core.errors import ActionParseError
from ...core.transport import LAND_TERRAINS, Terrain, Transport

TRANSPORT_BASE: Final = 6


class Card(IntEnum):
    # town cards (the kind is the town's terrain)
    PLAINS = 0
    FOREST = 1
    DESERT = 2
    MOUNTAIN = 3
    RIVER = 4
    LAKE = 5
    # transport cards (the kind is TRANSPORT_BASE + Transport)
    GIANT_PIG = 6
    ELFCYCLE = 7
    MAGIC_CLOUD = 8
    UNICORN = 9
    TROLL_WAGON = 10
    DRAGON = 11
    RAFT = 12
    # action cards: four played while building, two during the journey
    GOLD = 13
    THIEF = 14
    TREE = 15
    SEA_MONSTER = 16
    ESCORT = 17
    CHANGE_OF_DIRECTION = 18

    @property
    def slug(self) -> str:
        return self.name.lower().replace("_", "-")

    @property
    def is_town(self) -> bool:
        return self < TRANSPORT_BASE

    @property
    def is_transport(self) -> bool:
        return TRANSPORT_BASE <= self < Card.GOLD

    @property
    def terrain(self) -> Terrain:
        return Terrain(int(self))

    @property
    def transport(self) -> Transport:
        return Transport(self - TRANSPORT_BASE)


NUM_KINDS: Final = len(Card)
TOWN_KINDS: Final = tuple(Card(int(t)) for t in Terrain)
TRANSPORT_KINDS: Final = tuple(Card(TRANSPORT_BASE + t) for t in Transport)
#: The action cards placed beside a town while building, with a banner on them.
TOWN_ACTION_KINDS: Final = (Card.GOLD, Card.THIEF, Card.TREE, Card.SEA_MONSTER)

#: Town cards: how many of each terrain and the gold a visit earns.
TOWN_CARDS: Final[dict[Terrain, tuple[int, int]]] = {
    #                 cards  value
    Terrain.RIVER:    (6,    2),
    Terrain.PLAINS:   (6,    3),
    Terrain.FOREST:   (5,    4),
    Terrain.MOUNTAIN: (4,    5),
    Terrain.DESERT:   (3,    6),
    Terrain.LAKE:     (2,    7),
}


def town_value(terrain: int) -> int:
    return TOWN_CARDS[Terrain(terrain)][1]


def obstacle_for(terrain: int) -> Card:
    """Trees stand on land towns, sea monsters on water towns."""
    return Card.TREE if Terrain(terrain) in LAND_TERRAINS else Card.SEA_MONSTER


def full_deck(land_transport: int, rafts: int, action_cards: int) -> list[int]:
    """Counts per kind of the whole game's cards."""
    counts = [0] * NUM_KINDS
    for terrain, (n, _) in TOWN_CARDS.items():
        counts[int(terrain)] = n
    for t in Transport:
        counts[TRANSPORT_BASE + t] = rafts if t is Transport.RAFT else land_transport
    for k in range(Card.GOLD, NUM_KINDS):
        counts[k] = action_cards
    return counts


_ALIASES: Final = {
    "pig": Card.GIANT_PIG, "cycle": Card.ELFCYCLE, "cloud": Card.MAGIC_CLOUD,
    "troll": Card.TROLL_WAGON, "reverse": Card.CHANGE_OF_DIRECTION,
    "direction": Card.CHANGE_OF_DIRECTION, "monster": Card.SEA_MONSTER,
}


def card_from_text(text: str) -> Card:
    """A card kind from its slug, a short name, or a town with its value (``plains-3``)."""
    key = text.strip().lower().replace("_", "-").replace(" ", "-")
    if key in _ALIASES:
        return _ALIASES[key]
    head, _, tail = key.rpartition("-")
    if head and tail.isdigit():
        card = card_from_text(head)
        if not card.is_town or town_value(card) != int(tail):
            raise ActionParseError(f"no town card {text!r}")
        return card
    try:
        return Card[key.upper().replace("-", "_")]
    except KeyError:
        raise ActionParseError(f"unknown card {text!r}") from None


def counts_to_list(counts: list[int] | tuple[int, ...]) -> list[str]:
    return [Card(k).slug for k, n in enumerate(counts) for _ in range(n)]


def counts_to_dict(counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    return {Card(k).slug: n for k, n in enumerate(counts) if n}
