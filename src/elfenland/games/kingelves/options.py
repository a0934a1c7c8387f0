"""King of the Elves' rule options, declared once (``core/options.py``): both engines
check every ``Rules`` against it, the server validates a new game's options with it.

One rule set ("standard"); the three variants of the rule text (magic spell, weak gold,
gold for all) may be switched on in a rated game.  The readings and the settings no
source fixes (card counts, starting gold, the bank) are options too, but changing them
makes a game "custom".  Gold is bounded so that all the gold in a game (``gold_supply``,
which must cover six players' starting gold) stays at most ``MAX_GOLD``.
"""

from __future__ import annotations

from typing import Final

from ...core.options import MAX_COUNT, MAX_GOLD, Option, OptionSpec

OPTIONS: Final = OptionSpec(
    game="king-of-the-elves",
    options=(
        Option("magic_spell", "bool", False,
               "4 transport cards of any kinds and 3 gold visit an unreachable town"),
        Option("weak_gold", "bool", False, "a gold card only on another player's town, "
               "and an escort cancels it"),
        Option("gold_for_all", "bool", False, "a gold card doubles the town for every visitor"),
        Option("escort_two_towns", "bool", False, "an escort protects at most two towns"),
        Option("no_town_card_from_discard", "bool", False,
               "'no town card' may be declared from the discard pile when the deck is empty"),
        Option("land_transport_cards", "int", 9, "cards of each land transport",
               low=0, high=MAX_COUNT),
        Option("raft_cards", "int", 10, "raft cards", low=0, high=MAX_COUNT),
        Option("action_cards", "int", 5, "cards of each action kind", low=0, high=MAX_COUNT),
        Option("starting_gold", "int", 12, "gold each player starts with",
               low=0, high=MAX_GOLD // 6),
        Option("gold_supply", "int", 10_000, "all the gold in the game (the bank holds the "
               "rest); at least six players' starting gold", low=0, high=MAX_GOLD),
        Option("rebuild_deck", "bool", True,
               "a deck that runs out mid-round is rebuilt from the discard pile"),
    ),
    rule_sets={"standard": {}},
    variants=frozenset({"magic_spell", "weak_gold", "gold_for_all"}),
)
