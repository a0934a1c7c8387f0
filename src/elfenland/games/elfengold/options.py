"""Elfengold's rule options, declared once (``OPTIONS``): every open question of the
specification's section 2 is one option whose default is the spec's default reading, and
the three variants of the rulebook (random gold, the witch, town cards).

``Rules`` is the checked, typed form the engine reads on its hot paths.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from ...core.options import MAX_COUNT, Option, OptionSpec

OPTIONS = OptionSpec(
    game="elfengold",
    options=(
        Option("eg_card_draw", "str", "round-robin",
               "Q1: phase 1 draws one card a turn three times round, or three at once",
               choices=("round-robin", "three-at-once")),
        Option("eg_gold_in_display", "str", "to-gold-deck",
               "Q2: a gold card turned up into the display goes to the gold deck, or stays",
               choices=("to-gold-deck", "stays-face-up")),
        Option("eg_overbid", "str", "allowed",
               "Q3a: a bid may exceed the bidder's coins, or is capped by them",
               choices=("allowed", "capped")),
        Option("eg_defaulter_rebids", "bool", False,
               "Q3b: a winner who could not pay may bid again on that item"),
        Option("eg_public_gold", "bool", True, "Q3c: every player's coins are public"),
        Option("eg_hand_limit", "int", 0,
               "Q4: travel cards a player may keep after the move (0: no limit)",
               low=0, high=MAX_COUNT),
        Option("eg_hand_limit_when", "str", "before-draw",
               "Q4: the hand limit applies before or after the end-of-move draw",
               choices=("before-draw", "after-draw")),
        Option("eg_used_obstacles", "str", "return",
               "Q5: obstacles used on the board go back into the pile, or leave the game",
               choices=("return", "remove")),
        Option("eg_flight_collects_piece", "bool", True,
               "Q6: a magic flight collects the town piece of its destination"),
        Option("eg_exchange_same_kind", "bool", False,
               "Q7: an Exchange may swap two counters of the same kind"),
        Option("eg_tiebreak", "str", "coins",
               "Q8: ties broken by coins, or by coins then travel cards",
               choices=("coins", "coins-cards")),
        Option("eg_witch_in_caravan", "bool", True,
               "Q9: a witch card may be one of a caravan's cards"),
        Option("caravan", "str", "always",
               "Q11: a caravan whenever chosen, or only by a player who cannot pay",
               choices=("always", "only-if-needed")),
        Option("rounds", "int", 6, "Q12: rounds in a game", low=1, high=20),
        Option("random_gold", "bool", False,
               "variant: the 20 gold value tokens are dealt to the towns at random"),
        Option("witch", "bool", False, "variant: the Elven Witch cards"),
        Option("town_cards", "bool", False, "variant: a secret town card each"),
    ),
    rule_sets={"elfengold": {}},
    variants=frozenset({"random_gold", "witch", "town_cards", "eg_public_gold"}),
)


@dataclass(frozen=True, slots=True)
class Rules:
    """One value per option of ``OPTIONS`` (the fields carry the same names)."""

    name: str
    eg_card_draw: str
    eg_gold_in_display: str
    eg_overbid: str
    eg_defaulter_rebids: bool
    eg_public_gold: bool
    eg_hand_limit: int
    eg_hand_limit_when: str
    eg_used_obstacles: str
    eg_flight_collects_piece: bool
    eg_exchange_same_kind: bool
    eg_tiebreak: str
    eg_witch_in_caravan: bool
    caravan: str
    rounds: int
    random_gold: bool
    witch: bool
    town_cards: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> Rules:
        if not isinstance(data, dict):
            from ...core.options import OptionError

            raise OptionError("rules must be an object of option values")
        values = dict(data)
        name = values.pop("name", "elfengold")
        return make_rules(str(name), **values)


assert [f.name for f in fields(Rules)][1:] == OPTIONS.names()


def make_rules(rules: str | Rules = "elfengold", destination: bool = False,
               **options: Any) -> Rules:
    """The named rule set with ``options`` changed, every value checked by ``OPTIONS``."""
    if isinstance(rules, Rules):
        values: dict[str, Any] = rules.to_json()
        name = str(values.pop("name"))
    else:
        name = str(rules).strip().lower()
        values = OPTIONS.rule_set(name)
    if destination:
        options.setdefault("town_cards", True)
    values.update(OPTIONS.check(options))
    return Rules(name=name, **values)
