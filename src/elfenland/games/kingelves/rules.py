"""The variants and the settings no source fixes, as one frozen value.

The three variants come from the rule text; the card counts, the bank and the deck
rebuild are the project's choices (``/work/shared/rules/README.md``), kept as settings so
a table with other counts can play its own.  The fixed numbers of the rules are the
constants below, in one place.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from ...core.errors import ElfenlandError
from .options import OPTIONS

#: Rounds (journeys) by number of players: one each, but only five with six players.
ROUNDS: Final = {2: 2, 3: 3, 4: 4, 5: 5, 6: 5}
FIRST_DEAL: Final = 10
LATER_DEAL: Final = 8
BANNERS: Final = 4
#: Price of the first, second and third card bought in a round.
BUY_PRICES: Final = (1, 2, 3)
THIEF_TOLL: Final = 2
#: Removing a town costs this plus one gold per action card beside it.
REMOVE_BASE: Final = 2
SPELL_GOLD: Final = 3
SPELL_CARDS: Final = 4
ALL_TOWNS_BONUS: Final = 10
#: Most towns one kingdom holds (three in the two-player game).
MAX_KINGDOM: Final = 3


def kingdom_size(players: int) -> int:
    return 3 if players == 2 else 2


@dataclass(frozen=True, slots=True)
class Rules:
    name: str = "standard"
    #: 4 transport cards of any kinds and 3 gold visit a town the player cannot reach
    #: with the right cards; obstacles are ignored, thieves and gold cards are not.
    magic_spell: bool = False
    #: Vincent Calame's weaker gold card: only on another player's town, and an escort
    #: cancels it like any other action card.
    weak_gold: bool = False
    #: A gold card doubles the town for every visitor, not only for its owner.
    gold_for_all: bool = False
    # --- readings of the text, offered as options (defaults: the project's reading) --
    #: An escort protects at most two towns of its kingdom (the first text's "two towns
    #: of one kingdom"); it matters only with 2 players, whose kingdoms hold three.
    escort_two_towns: bool = False
    #: "No town card" may be declared when the deck is empty but the discard pile holds
    #: town cards: the discard pile becomes the deck (as when a deck runs out), then the
    #: player takes a town card from it.
    no_town_card_from_discard: bool = False
    # --- settings no source fixes -------------------------------------------------
    land_transport_cards: int = 9
    raft_cards: int = 10
    action_cards: int = 5
    starting_gold: int = 12
    #: All the gold in the game; the bank holds what the players do not.  Large enough
    #: that the bank never runs dry, as a table would make change with anything to hand.
    gold_supply: int = 10_000
    #: A deck that runs out mid-round is rebuilt from the discard pile.
    rebuild_deck: bool = True

    def __post_init__(self) -> None:
        self.check()

    def with_options(self, **changes: Any) -> Rules:
        names = {f.name for f in fields(self)} - {"name"}
        unknown = set(changes) - names
        if unknown:
            raise ElfenlandError(f"unknown King of the Elves options: {sorted(unknown)}")
        return replace(self, **changes)

    def check(self) -> None:
        """Every option of its declared type and range (``options.py``: one place for
        both engines and the server), and enough gold for six players."""
        if not isinstance(self.name, str):
            raise ElfenlandError(f"a rule set's name is text, not {self.name!r}")
        for option in OPTIONS:
            option.check(getattr(self, option.name))
        if self.gold_supply < 6 * self.starting_gold:
            raise ElfenlandError("gold_supply must cover six players' starting gold")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        if not isinstance(data, dict):
            raise ElfenlandError("options must be an object")
        try:
            rules = cls(**data)
        except TypeError as exc:
            raise ElfenlandError(f"bad options: {exc}") from None
        rules.check()
        return rules


def make_rules(rules: Any = None, variants: Any = None, **options: Any) -> Rules:
    """Rules from keyword options, plus ``variants`` as a list of names or a mapping."""
    if isinstance(rules, Rules):
        base = rules
    elif rules in (None, "standard", "default"):
        base = Rules()
    else:
        raise ElfenlandError(f"King of the Elves has one rule set, not {rules!r}")
    if variants is not None:
        if isinstance(variants, dict):
            extra = dict(variants)
        elif isinstance(variants, list | tuple | set | frozenset):
            extra = {str(v).replace("-", "_"): True for v in variants}
        else:
            raise ElfenlandError("variants must be a list of names or an object")
        options = {**extra, **options}
    OPTIONS.check(options)
    result = base.with_options(**options) if options else base
    result.check()
    return result
