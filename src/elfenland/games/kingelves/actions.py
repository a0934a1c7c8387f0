"""King of the Elves actions: one small frozen value type, a text notation that round-trips,
and a stable integer id in one fixed action space (374 actions).

Kingdoms are numbered by their owner's seat (0 … players-1) and towns within a kingdom
by the order they were played, 0 being the rightmost town, the first one its owner visits.
A town is written ``kingdom.town``.  Card names are the slugs of ``Card`` (``plains``,
``giant-pig``, ``sea-monster``, ``change-of-direction``…); short names (``pig``,
``cloud``, ``troll``, ``cycle``) and town cards with their value (``plains-3``) are
accepted too.

Building phase, one action a turn::

    play plains kingdom 2      a town card into kingdom 2 (``play plains 2`` also reads)
    no-town-card               show the hand; then ``take <town>`` and ``discard <card>``
    take lake                  the town card picked from the deck after no-town-card
    draw                       draw 3; then four ``discard <card>`` (fewer if the hand
                               holds fewer)
    discard dragon             one card to the discard pile, face up
    buy                        the top card of the deck, for 1, 2, then 3 gold
    gold 2.1 | thief 2.1 | tree 2.1 | sea-monster 2.1
                               an action card beside town 1 of kingdom 2, with a banner
    remove 1                   town 1 of the player's own kingdom, with its action cards
    pass

Journey, a sequence of steps by the same player::

    visit dragon+dragon        the next town, paying these transport cards (the tree or
                               sea monster's extra card included)
    spell pig+pig+raft+dragon  (magic spell variant) the next town for 4 cards and 3 gold
    escort                     play an escort on entering the next town's kingdom
    reverse                    play a change of direction
    stop                       end the journey
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Final

from ...core.errors import ActionParseError
from ...core.once import once
from .cards import (
    NUM_KINDS,
    TOWN_ACTION_KINDS,
    TOWN_KINDS,
    TRANSPORT_BASE,
    TRANSPORT_KINDS,
    Card,
    card_from_text,
)
from .rules import MAX_KINGDOM, SPELL_CARDS

MAX_SEATS: Final = 6
#: A visit never costs more than 3 cards of one transport: 2 plus an obstacle's one.
MAX_VISIT_CARDS: Final = 3

#: Counts of each of the 7 transport kinds.
TransportCounts = tuple[int, ...]


class Kind(IntEnum):
    PASS = 0
    NO_TOWN_CARD = 1
    DRAW = 2
    BUY = 3
    ESCORT = 4
    REVERSE = 5
    STOP = 6
    PLAY = 7
    TAKE = 8
    DISCARD = 9
    PLACE = 10
    REMOVE = 11
    VISIT = 12
    SPELL = 13


_WORDS: Final = {
    Kind.PASS: "pass", Kind.NO_TOWN_CARD: "no-town-card", Kind.DRAW: "draw", Kind.BUY: "buy",
    Kind.ESCORT: "escort", Kind.REVERSE: "reverse", Kind.STOP: "stop",
}
_SINGLE: Final = {word: kind for kind, word in _WORDS.items()}


@dataclass(frozen=True, slots=True)
class Action:
    kind: Kind
    card: Card | None = None
    kingdom: int = -1
    town: int = -1
    count: int = 0
    #: The 4 transport cards of a spell, as counts per transport.
    cards: TransportCounts | None = None
    _id: int = field(default=-1, compare=False, repr=False)

    @staticmethod
    def simple(kind: Kind) -> Action:
        return canonical(Action(kind))

    @staticmethod
    def play(town: Card, kingdom: int) -> Action:
        return canonical(Action(Kind.PLAY, Card(town), kingdom=kingdom))

    @staticmethod
    def take(town: Card) -> Action:
        return canonical(Action(Kind.TAKE, Card(town)))

    @staticmethod
    def discard(card: Card) -> Action:
        return canonical(Action(Kind.DISCARD, Card(card)))

    @staticmethod
    def place(card: Card, kingdom: int, town: int) -> Action:
        return canonical(Action(Kind.PLACE, Card(card), kingdom=kingdom, town=town))

    @staticmethod
    def remove(town: int) -> Action:
        return canonical(Action(Kind.REMOVE, town=town))

    @staticmethod
    def visit(transport: Card, count: int) -> Action:
        return canonical(Action(Kind.VISIT, Card(transport), count=count))

    @staticmethod
    def spell(cards: TransportCounts) -> Action:
        return canonical(Action(Kind.SPELL, cards=tuple(cards)))

    @property
    def id(self) -> int:
        return self._id

    def __str__(self) -> str:
        return to_text(self)

    @classmethod
    def from_text(cls, text: str) -> Action:
        return parse(text)


def _spell_payments() -> tuple[TransportCounts, ...]:
    out = []
    for combo in combinations_with_replacement(range(len(TRANSPORT_KINDS)), SPELL_CARDS):
        counts = [0] * len(TRANSPORT_KINDS)
        for c in combo:
            counts[c] += 1
        out.append(tuple(counts))
    return tuple(out)


SPELL_PAYMENTS: Final = _spell_payments()


def _enumerate() -> list[Action]:
    out = [Action(kind) for kind in _WORDS]
    out += [Action(Kind.PLAY, t, kingdom=k) for t in TOWN_KINDS for k in range(MAX_SEATS)]
    out += [Action(Kind.TAKE, t) for t in TOWN_KINDS]
    out += [Action(Kind.DISCARD, Card(c)) for c in range(NUM_KINDS)]
    out += [Action(Kind.PLACE, c, kingdom=k, town=i) for c in TOWN_ACTION_KINDS
            for k in range(MAX_SEATS) for i in range(MAX_KINGDOM)]
    out += [Action(Kind.REMOVE, town=i) for i in range(MAX_KINGDOM)]
    out += [Action(Kind.VISIT, t, count=n) for t in TRANSPORT_KINDS
            for n in range(1, MAX_VISIT_CARDS + 1)]
    out += [Action(Kind.SPELL, cards=m) for m in SPELL_PAYMENTS]
    return out


@once
def _space() -> tuple[tuple[Action, ...], dict[Action, Action]]:
    actions = tuple(replace(a, _id=i) for i, a in enumerate(_enumerate()))
    return actions, {a: a for a in actions}


def all_actions() -> tuple[Action, ...]:
    """Every action, each at the index of its id."""
    return _space()[0]


def num_actions() -> int:
    """Size of the fixed action space: every id is in ``range(num_actions())``."""
    return len(_space()[0])


def canonical(action: Action) -> Action:
    try:
        return _space()[1][action]
    except KeyError:
        raise ActionParseError(f"no such action: {action!r}") from None


def from_id(i: int) -> Action:
    if not isinstance(i, int) or isinstance(i, bool):
        raise ActionParseError(f"an action id is an integer, not {i!r}")
    actions = _space()[0]
    if not 0 <= i < len(actions):
        raise ActionParseError(f"no action has id {i}")
    return actions[i]


# ----- text notation -------------------------------------------------------------------

def transport_cards_text(counts: TransportCounts) -> str:
    return "+".join(TRANSPORT_KINDS[k].slug for k, n in enumerate(counts) for _ in range(n))


def to_text(a: Action) -> str:
    k = a.kind
    if k in _WORDS:
        return _WORDS[k]
    if k is Kind.PLAY:
        assert a.card is not None
        return f"play {a.card.slug} kingdom {a.kingdom}"
    if k is Kind.TAKE or k is Kind.DISCARD:
        assert a.card is not None
        return f"{k.name.lower()} {a.card.slug}"
    if k is Kind.PLACE:
        assert a.card is not None
        return f"{a.card.slug} {a.kingdom}.{a.town}"
    if k is Kind.REMOVE:
        return f"remove {a.town}"
    if k is Kind.VISIT:
        assert a.card is not None
        return "visit " + "+".join([a.card.slug] * a.count)
    assert a.cards is not None
    return f"spell {transport_cards_text(a.cards)}"


def _int(word: str, what: str) -> int:
    if not word.isdigit():
        raise ActionParseError(f"{what} is a number, not {word!r}")
    return int(word)


def _town_ref(word: str) -> tuple[int, int]:
    kingdom, dot, town = word.partition(".")
    if not dot:
        raise ActionParseError(f"a town is written kingdom.town, e.g. 2.0, not {word!r}")
    return _int(kingdom, "a kingdom"), _int(town, "a town")


def _transport_counts(text: str) -> TransportCounts:
    counts = [0] * len(TRANSPORT_KINDS)
    for part in text.split("+"):
        card = card_from_text(part) if part.strip() else None
        if card is None or not card.is_transport:
            raise ActionParseError(f"{part!r} in {text!r} is not a transport card")
        counts[card - TRANSPORT_BASE] += 1
    return tuple(counts)


def parse(text: str) -> Action:
    """Parse the notation above (raises ``ActionParseError``)."""
    if not isinstance(text, str):
        raise ActionParseError(f"an action is text, not {type(text).__name__}")
    words = text.strip().lower().split()
    if not words:
        raise ActionParseError("empty action")
    if words == ["no", "town", "card"]:
        words = ["no-town-card"]
    verb, args = words[0], words[1:]
    if verb in _SINGLE and not args:
        return Action.simple(_SINGLE[verb])
    if verb == "play" and len(args) in (2, 3):
        if len(args) == 3 and args[1] != "kingdom":
            raise ActionParseError(f"bad action {text!r}: play <town> kingdom <seat>")
        card = card_from_text(args[0])
        if not card.is_town:
            raise ActionParseError(f"{card.slug} is not a town card")
        return Action.play(card, _int(args[-1], "a kingdom"))
    if verb in ("take", "discard") and len(args) == 1:
        card = card_from_text(args[0])
        if verb == "take":
            if not card.is_town:
                raise ActionParseError(f"{card.slug} is not a town card")
            return Action.take(card)
        return Action.discard(card)
    if verb == "remove" and len(args) == 1:
        return Action.remove(_int(args[0], "a town"))
    if verb in ("visit", "spell") and len(args) == 1:
        counts = _transport_counts(args[0])
        if verb == "spell":
            if sum(counts) != SPELL_CARDS:
                raise ActionParseError(f"a spell takes {SPELL_CARDS} transport cards")
            return Action.spell(counts)
        kinds = [k for k, n in enumerate(counts) if n]
        if len(kinds) != 1:
            raise ActionParseError("a visit is paid with cards of one transport")
        return Action.visit(TRANSPORT_KINDS[kinds[0]], counts[kinds[0]])
    if len(args) == 1 and "." in args[0]:
        card = card_from_text(verb)
        if card not in TOWN_ACTION_KINDS:
            raise ActionParseError(f"{card.slug} cards are not placed beside towns")
        kingdom, town = _town_ref(args[0])
        return Action.place(card, kingdom, town)
    raise ActionParseError(f"bad action {text!r}")
