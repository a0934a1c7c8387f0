"""Elfenland's rule options, declared once (``core/options.py``): the engines check every
``Rules`` against it (pure and compiled alike), the server validates a new game's options
with it, and the docs and the lobby read their names, ranges and one-line docs from it.

The named rule sets are Amigo's rulebook and Alan R. Moon's own rules; the destination
variant (town cards) may be added to either without leaving it, and ``final_keep``
changes nothing but whether a pointless question is asked, so neither makes a game
"custom".  ``caravan_cards`` is fixed at 3: the action space holds caravans of 3 cards
(4 with an obstacle), and a move the action space cannot name could not be played.
"""

from __future__ import annotations

from typing import Final

from ...core.options import MAX_COUNT, Option, OptionSpec

#: The one caravan size the action space (``actions.MULTISETS[3]`` and ``[4]``) holds.
CARAVAN_CARDS: Final = 3

OPTIONS: Final = OptionSpec(
    game="elfenland",
    options=(
        Option("deal", "str", "fill", "fill: hands are filled up to the deal each round "
               "(Amigo); fresh: a whole new deal on top of the cards kept (Moon)",
               choices=("fill", "fresh")),
        Option("cards_per_deal", "int", 8, "travel cards dealt (or filled up to) per round",
               low=1, high=MAX_COUNT),
        Option("hand_limit", "int", 4, "travel cards a player may keep after their move",
               low=1, high=MAX_COUNT),
        Option("counters_kept", "int", 1, "transport counters kept from one round to the next",
               low=0, high=5),
        Option("keep_when", "str", "round-end", "when the kept counter is chosen",
               choices=("round-end", "after-placement")),
        Option("face_up_counters", "int", 5, "face-up transport counters to draw from",
               low=1, high=MAX_COUNT),
        Option("counter_draws", "int", 3, "face-up draws per player per round",
               low=1, high=MAX_COUNT),
        Option("mare_magnum_rafts", "int", 2, "raft cards to cross Mare Magnum",
               low=1, high=MAX_COUNT),
        Option("mare_nebulae_rafts", "int", 2, "raft cards to cross Mare Nebulae",
               low=1, high=MAX_COUNT),
        Option("boatmen", "bool", False, "any 3 cards carry a player across Mare Nebulae"),
        Option("town_cards", "bool", False, "town cards are dealt (the destination variant)"),
        Option("destination", "bool", False,
               "the destination variant: the same as town_cards true"),
        Option("early_end", "str", "finish-round", "finish-round: a player with every "
               "marker ends the game at the round's end (Amigo); special-victory: wins at "
               "once (Moon)", choices=("finish-round", "special-victory")),
        Option("rounds", "int", 4, "rounds in a game", low=1, high=MAX_COUNT),
        Option("caravan_cards", "int", CARAVAN_CARDS,
               "cards of any kinds a caravan costs (the action space holds 3)",
               low=CARAVAN_CARDS, high=CARAVAN_CARDS),
        Option("closest_breaks_ties", "bool", True,
               "ties go to the player closest to their town card first"),
        Option("caravan", "str", "always", "always: a caravan whenever chosen; "
               "only-if-needed: only where the counter's cards cannot be paid",
               choices=("always", "only-if-needed")),
        Option("special_victory_at", "str", "rounds-1-3", "with special-victory: checked "
               "at the end of every round before the last, or only before the last",
               choices=("rounds-1-3", "round-3")),
        Option("final_keep", "bool", True,
               "players choose a counter to keep after the last round (changes nothing)"),
    ),
    rule_sets={
        "amigo": {},
        "moon": {"deal": "fresh", "keep_when": "after-placement", "mare_nebulae_rafts": 1,
                 "boatmen": True, "town_cards": True, "early_end": "special-victory",
                 "closest_breaks_ties": False},
    },
    variants=frozenset({"destination", "town_cards", "final_keep"}),
)

#: The options a ``Rules`` holds (``destination`` is a way of asking for one of them).
RULE_FIELDS: Final = tuple(n for n in OPTIONS.names() if n != "destination")
