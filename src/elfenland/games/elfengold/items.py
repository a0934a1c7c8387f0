"""Elfengold's material as tables: the 48 items of the face-down pile, the travel, witch
and gold cards, the coins, and the gold value of every town.

Items and cards are counted by kind, never listed one by one: two dragons are
interchangeable, so a pile is eleven numbers and "all 48 items accounted for" is a sum.
"""

from __future__ import annotations

from typing import Final

from ...core.transport import Transport

# ----- items -------------------------------------------------------------------------
#: Item kinds 0–5 are the transport counters, numbered as ``Transport``.
TREE: Final = 6
SEA_MONSTER: Final = 7
GOLD_PIECE: Final = 8
DOUBLE: Final = 9
EXCHANGE: Final = 10
NUM_ITEMS: Final = 11
NUM_COUNTERS: Final = 6
ITEM_SLUGS: Final = (*(Transport(k).slug for k in range(NUM_COUNTERS)),
                     "tree", "sea-monster", "gold-piece", "double", "exchange")
#: The pile (rule 6): 9 pigs (the expansion adds the 9th), 8 elfcycles, 4 clouds,
#: 5 unicorns, 8 troll wagons, 4 dragons; 2 each of the five other items.
ITEM_COUNTS: Final = (9, 8, 4, 5, 8, 4, 2, 2, 2, 2, 2)
TOTAL_ITEMS: Final = sum(ITEM_COUNTS)
assert TOTAL_ITEMS == 48

# ----- cards -------------------------------------------------------------------------
#: Card kinds 0–6 are the travel cards (``Transport``); a hand holds these and witches.
WITCH: Final = 7
GOLD_CARD: Final = 8
NUM_CARDS: Final = 9
HAND_KINDS: Final = 8
RAFT: Final = int(Transport.RAFT)
CARD_SLUGS: Final = (*(Transport(k).slug for k in range(7)), "witch", "gold")
TRAVEL_PER_KIND: Final = 9
TRAVEL_CARDS: Final = 7 * TRAVEL_PER_KIND
GOLD_CARDS: Final = 7
WITCH_CARDS: Final = 6
#: Coins a gold card pays when the gold card deck is taken.
COINS_PER_GOLD_CARD: Final = 3


def card_counts(witch: bool) -> tuple[int, ...]:
    """How many cards of each kind the game has (rules 10–12)."""
    return (*([TRAVEL_PER_KIND] * 7), WITCH_CARDS if witch else 0, GOLD_CARDS)


# ----- coins and gold ----------------------------------------------------------------
START_COINS: Final = 12
INCOME: Final = 2
WITCH_BYPASS_COINS: Final = 1
FLIGHT_COINS: Final = 3
#: The highest bid the action space holds: far above what any player ever owns.
MAX_BID: Final = 500
DEAL: Final = 5
DISPLAY: Final = 3
ITEMS_DRAWN: Final = 2
ITEMS_KEPT: Final = 2
TOWNS_TO_END: Final = 20

#: Rule 4: the fixed placement of the gold value tokens (Elvenhold has none: 0).
FIXED_GOLD: Final[dict[str, int]] = {
    "albaran": 7, "kihromah": 6,
    "grangor": 5, "mahdavikia": 5, "jaccaranda": 5, "ergeren": 5,
    "strykhaven": 4, "dagamura": 4, "yttar": 4, "parundia": 4, "usselen": 4, "feodor": 4,
    "virst": 3, "ixara": 3, "wylhien": 3, "throtmanni": 3, "tichih": 3, "rivinia": 3,
    "beata": 2, "lapphalya": 2,
}
#: Rule 3: the 20 tokens (2×2, 6×3, 6×4, 4×5, 1×6, 1×7 = 79).
GOLD_TOKENS: Final = tuple(sorted(FIXED_GOLD.values()))
assert len(GOLD_TOKENS) == 20 and sum(GOLD_TOKENS) == 79
