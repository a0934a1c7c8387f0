"""The rule sets: every point where the Amigo rulebook and Alan R. Moon's own rules differ
is one field here, so any mix can be played and each difference tested on its own.

Every value is checked against the declared option specification (``options.py``) when a
``Rules`` is made, so no engine (the compiled one narrows to C ints) ever sees one outside
its range, and both read the same game from the same options."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from ...core.errors import ElfenlandError
from .options import OPTIONS, RULE_FIELDS

Deal = Literal["fill", "fresh"]
KeepWhen = Literal["round-end", "after-placement"]
EarlyEnd = Literal["finish-round", "special-victory"]
Caravan = Literal["always", "only-if-needed"]
SpecialVictoryAt = Literal["rounds-1-3", "round-3"]


@dataclass(frozen=True, slots=True)
class Rules:
    name: str = "amigo"
    #: "fill": round 1 deals 8, later rounds fill each hand up to 8 (Amigo).
    #: "fresh": 8 new cards each round on top of the cards kept (Moon).
    deal: Deal = "fill"
    cards_per_deal: int = 8
    #: Travel cards a player may keep at the end of their move.
    hand_limit: int = 4
    #: Counters a player may keep from one round to the next.
    counters_kept: int = 1
    #: When the kept counter is chosen.
    keep_when: KeepWhen = "round-end"
    face_up_counters: int = 5
    #: Face-up draws per player per round in phase 3 (after the one secret counter).
    counter_draws: int = 3
    #: Rafts to cross each lake.
    mare_magnum_rafts: int = 2
    mare_nebulae_rafts: int = 2
    #: Whether the boatmen (any 3 cards) may carry a player across Mare Nebulae.
    boatmen: bool = False
    #: Town cards dealt: the destination variant under Amigo, always under Moon.
    town_cards: bool = False
    #: "finish-round": a player with all markers ends the game at the end of that round
    #: (Amigo). "special-victory": at the end of rounds 1–3 such a player wins at once,
    #: town cards ignored (Moon).
    early_end: EarlyEnd = "finish-round"
    rounds: int = 4
    caravan_cards: int = 3
    #: Ties between equal scores: closest to the town card first (Amigo's variant), then
    #: most travel cards in hand.  Moon breaks ties by cards only.
    closest_breaks_ties: bool = True
    # --- readings of the texts, offered as options (defaults: the project's reading) --
    #: "always": a caravan whenever the player chooses it (Moon's "in addition to the
    #: normal method"); "only-if-needed": only on a road whose counter's cards the player
    #: cannot pay (the Amigo rulebook's main text).
    caravan: Caravan = "always"
    #: With ``early_end="special-victory"``: "rounds-1-3" checks at the end of every round
    #: before the last; "round-3" only at the end of the round before the last (the text).
    special_victory_at: SpecialVictoryAt = "rounds-1-3"
    #: Whether players choose a counter to keep when no round follows (it changes nothing).
    final_keep: bool = True

    def __post_init__(self) -> None:
        self.check()

    def with_options(self, **changes: Any) -> Rules:
        names = {f.name for f in fields(self)}
        unknown = set(changes) - names
        if unknown:
            raise ElfenlandError(f"unknown rule options: {sorted(unknown)}; the options are "
                                 f"{', '.join(RULE_FIELDS)}")
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        try:
            rules = cls(**data)
        except TypeError as exc:
            raise ElfenlandError(f"bad rules: {exc}") from None
        rules.check()
        return rules

    def check(self) -> None:
        """Every option of its declared type and in its declared range (``OptionError``,
        an ``ElfenlandError``, naming the option and what it may be)."""
        if not isinstance(self.name, str):
            raise ElfenlandError(f"a rule set's name is text, not {self.name!r}")
        for name in RULE_FIELDS:
            OPTIONS[name].check(getattr(self, name))


AMIGO = Rules()
MOON = Rules(
    name="moon",
    deal="fresh",
    keep_when="after-placement",
    mare_nebulae_rafts=1,
    boatmen=True,
    town_cards=True,
    early_end="special-victory",
    closest_breaks_ties=False,
)
RULE_SETS: dict[str, Rules] = {"amigo": AMIGO, "moon": MOON}


def make_rules(rules: str | Rules = "amigo", destination: bool = False, **options: Any) -> Rules:
    if isinstance(rules, Rules):
        base = rules
    else:
        try:
            base = RULE_SETS[rules.strip().lower()]
        except (KeyError, AttributeError):
            raise ElfenlandError(
                f"unknown rule set {rules!r}; choose one of {sorted(RULE_SETS)}"
            ) from None
    OPTIONS["destination"].check(destination)
    OPTIONS.check(options)
    if destination:
        options.setdefault("town_cards", True)
    result = base.with_options(**options) if options else base
    result.check()
    return result
