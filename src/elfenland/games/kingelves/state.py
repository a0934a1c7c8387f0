"""The King of the Elves game state and its rules.

Like the Elfenland engine, the state holds counts, not card objects: a hand, the deck
and the discard pile are nineteen numbers each, a town on the table is four numbers
(its terrain and the owners of the gold, thief and obstacle cards beside it).  Copies
stay cheap, and "every card accounted for" is a sum.  Deals, draws and purchases are
chance events drawn from the state's own seeded ``Rng``.

Decisions where the texts are silent (see ``docs/king-of-the-elves.md``):

* The change of direction turns the traveller round where they stand: the next town
  is the one just visited, which may be visited and paid again (the rulebook's third
  example visits Bob's single town twice around a change of direction); after that the
  journey goes on the other way round the table.  Two in a row would cancel out, so a
  second one needs a visit in between.
* An escort is played only on entering a kingdom: at the castle, or when the next town
  lies in another kingdom than the last one visited.  It protects in the kingdom of
  that next town and is discarded on leaving it.
* A player's own thief and own obstacle do not hinder them.
* The magic spell may be cast only when no ordinary payment reaches the next town.
* "No town card" picks a town card from the deck; with none left in the deck it cannot
  be declared.  The card then discarded is one of the other cards (discarding the town
  just taken would undo the action and could stall a player with an empty hand, who
  may not pass); a player holding no other card discards nothing.  The hand shown and
  the town card taken are public.
* "Draw 3, discard 4" with fewer than 4 cards in hand after drawing discards them all.
* A player who may not pass (no town in their kingdom) but has no other legal action
  passes anyway, so that the building phase always ends.
* A traveller whose own kingdom is empty starts at the first town clockwise from their
  castle.  The 10-gold bonus needs at least one town on the table.
* The bank pays what it holds; it starts with ``Rules.gold_supply`` less the players'
  gold, which no game can exhaust.
"""

from __future__ import annotations

import secrets
from enum import Enum
from typing import Any, Final

from ...core.errors import (
    ActionParseError,
    ElfenlandError,
    GameOverError,
    IllegalActionError,
)
from ...core.game import TERMINAL, GameState, JSONDict, PlayerId
from ...core.game import Action as CoreAction
from ...core.rng import Rng
from ...core.saving import dump_game, load_game
from ...core.transport import COST_TABLE, Terrain
from .actions import SPELL_PAYMENTS, Action, Kind, all_actions, canonical, from_id, parse
from .cards import (
    NUM_KINDS,
    TOWN_KINDS,
    TRANSPORT_BASE,
    TRANSPORT_KINDS,
    Card,
    counts_to_list,
    full_deck,
    obstacle_for,
    town_value,
)
from .rules import (
    ALL_TOWNS_BONUS,
    BANNERS,
    BUY_PRICES,
    FIRST_DEAL,
    LATER_DEAL,
    MAX_KINGDOM,
    REMOVE_BASE,
    ROUNDS,
    SPELL_CARDS,
    SPELL_GOLD,
    THIEF_TOLL,
    Rules,
    kingdom_size,
    make_rules,
)

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
NO_ONE: Final = -1
#: Fields of a town on the table.
TERRAIN, GOLD, THIEF, OBSTACLE = 0, 1, 2, 3
#: Where each placeable action card goes on a town.
SLOT: Final = {Card.GOLD: GOLD, Card.THIEF: THIEF, Card.TREE: OBSTACLE,
               Card.SEA_MONSTER: OBSTACLE}
CLOCKWISE, COUNTERCLOCKWISE = 1, -1

Town = list[int]
TownRef = tuple[int, int]


class Phase(Enum):
    BUILDING = "building"
    JOURNEY = "journey"
    OVER = "over"


class Pending(Enum):
    """The later steps of a multi-step building action."""

    NONE = ""
    TAKE = "take"
    #: After taking a town card: one card other than a town card.
    DISCARD_OTHER = "discard-other"
    #: After drawing 3: ``pending_count`` cards.
    DISCARD = "discard"


# Every action the legal-move generator may list, looked up rather than built each time.
_SIMPLE: Final = {k: Action.simple(k) for k in (Kind.PASS, Kind.NO_TOWN_CARD, Kind.DRAW,
                                                Kind.BUY, Kind.ESCORT, Kind.REVERSE,
                                                Kind.STOP)}
_PLAY: Final = {(t, k): Action.play(t, k) for t in TOWN_KINDS for k in range(MAX_PLAYERS)}
_TAKE: Final = {t: Action.take(t) for t in TOWN_KINDS}
_DISCARD: Final = [Action.discard(Card(c)) for c in range(NUM_KINDS)]
_PLACE: Final = {(c, k, i): Action.place(c, k, i) for c in SLOT for k in range(MAX_PLAYERS)
                 for i in range(MAX_KINGDOM)}
_REMOVE: Final = [Action.remove(i) for i in range(MAX_KINGDOM)]
_VISIT: Final = {(t, n): Action.visit(t, n) for t in TRANSPORT_KINDS for n in (1, 2, 3)}
_SPELL: Final = [Action.spell(m) for m in SPELL_PAYMENTS]


_ACTIONS: Final = all_actions()
#: Actions whose effect follows from the position alone (see ``take_back_seat``).
_TAKE_BACK_KINDS: Final = frozenset({
    Kind.PLAY, Kind.TAKE, Kind.DISCARD, Kind.PLACE, Kind.REMOVE, Kind.PASS, Kind.VISIT,
    Kind.SPELL, Kind.ESCORT, Kind.REVERSE, Kind.STOP,
})


def town_bit(ref: TownRef) -> int:
    return 1 << (ref[0] * MAX_KINGDOM + ref[1])


class KingOfTheElvesState(GameState):
    game_name = "king-of-the-elves"

    def __init__(self, players: int = 4, seed: int | None = None, rules: Any = None,
                 **options: Any) -> None:
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ElfenlandError(
                f"King of the Elves is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                f"not {players!r}")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ElfenlandError(f"a seed is an integer, not {seed!r}")
        self.rules: Rules = make_rules(rules, **options)
        self.seed: int = seed
        #: Where the game began: None for a new game, else a position document.
        self.origin: JSONDict | None = None
        self.rng = Rng(seed)
        self._init_empty(players)
        self.gold[:] = [self.rules.starting_gold] * players
        self.bank = self.rules.gold_supply - sum(self.gold)
        self.deck[:] = self.all_cards()
        self._start_round()

    # ------------------------------------------------------------------ structure
    def _init_empty(self, n: int) -> None:
        self.n = n
        self.round = 1
        self.phase = Phase.BUILDING
        #: The seat holding the dragon marker: first to act in every phase this round.
        self.dragon = 0
        self.current = 0
        #: Passes in a row in the building phase.
        self.passes = 0
        self.pending = Pending.NONE
        #: Cards still to discard when ``pending`` is DISCARD.
        self.pending_count = 0
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(n)]
        self.gold: list[int] = [0] * n
        #: Gold put aside for cards bought this round, paid to the bank after building.
        self.set_aside: list[int] = [0] * n
        self.bought: list[int] = [0] * n
        self.deck: list[int] = [0] * NUM_KINDS
        self.discard: list[int] = [0] * NUM_KINDS
        self.bank = 0
        #: Each kingdom's towns, right to left: [terrain, gold, thief, obstacle owners].
        self.kingdoms: list[list[Town]] = [[] for _ in range(n)]
        self._reset_journey()
        self.result: list[PlayerId] | None = None
        self._history: list[Action] = []
        #: One entry per action: (player, action id, public facts, private facts).
        self.log: list[tuple[int, int, JSONDict, JSONDict]] = []
        self._legal: list[Action] | None = None
        self._legal_ids: set[int] | None = None
        self._ring: list[TownRef] | None = None

    def _reset_journey(self) -> None:
        #: The town the traveller stands in; (-1, -1) is their castle.
        self.at: TownRef = (NO_ONE, NO_ONE)
        self.direction = CLOCKWISE
        #: Just played a change of direction: the next town is the one stood in.
        self.turned = False
        self.own_visited = False
        #: The kingdom the traveller's escort protects, or NO_ONE.
        self.escort = NO_ONE
        #: Towns the escort has protected so far (``Rules.escort_two_towns``), as bits.
        self.escort_towns = 0
        self.visited = 0
        self.bonus_paid = False
        self.earned = 0
        self.paid = 0

    def all_cards(self) -> list[int]:
        r = self.rules
        return full_deck(r.land_transport_cards, r.raft_cards, r.action_cards)

    # ------------------------------------------------------------------ interface
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def history(self) -> list[Action]:
        return self._history

    @property
    def rounds(self) -> int:
        return ROUNDS[self.n]

    def current_player(self) -> PlayerId:
        return TERMINAL if self.phase is Phase.OVER else self.current

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def parse_action(self, text: str | int) -> Action:
        if isinstance(text, int) and not isinstance(text, bool):
            return from_id(text)
        if not isinstance(text, str):
            raise ActionParseError(f"an action is text or an id, not {type(text).__name__}")
        return parse(text)

    def legal_actions(self) -> list[Action]:
        """A fresh list each call: the caller may change it without touching the state
        (``apply_action`` checks against the state's own set of ids)."""
        return self._own_legal()[:]

    def _own_legal(self) -> list[Action]:
        """The state's own list of legal actions, never handed out."""
        if self._legal is None:
            self._legal = self._generate_legal()
            self._legal_ids = {a.id for a in self._legal}
        return self._legal

    def legal_action_ids(self) -> list[int]:
        return [a.id for a in self._own_legal()]

    def apply_action(self, action: CoreAction | str | int) -> None:
        if not isinstance(action, Action):
            action = self.parse_action(action if isinstance(action, str | int) else str(action))
        elif not (0 <= action.id < len(_ACTIONS) and _ACTIONS[action.id] is action):
            # Built by hand: its id may not be its own, so look it up by value.
            action = canonical(action)
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        self._own_legal()
        assert self._legal_ids is not None
        if action.id not in self._legal_ids:
            raise IllegalActionError(self.why_illegal(action))
        player = self.current
        self._legal = None
        self._legal_ids = None
        self._history.append(action)
        public, private = self._do(action)
        self.log.append((player, action.id, public, private))

    def scores(self) -> list[int]:
        return self.gold[:]

    def winners(self) -> list[PlayerId]:
        return list(self.result) if self.result is not None else []

    # ------------------------------------------------------------------ queries
    def banners_left(self, p: int) -> int:
        used = sum(1 for k in self.kingdoms for t in k for slot in (GOLD, THIEF, OBSTACLE)
                   if t[slot] == p)
        return BANNERS - used

    def table_cards(self) -> list[int]:
        """Counts of the cards lying on the table: towns, the cards beside them, and an
        escort travelling with the player on their journey."""
        counts = [0] * NUM_KINDS
        for kingdom in self.kingdoms:
            for t in kingdom:
                counts[t[TERRAIN]] += 1
                if t[GOLD] != NO_ONE:
                    counts[Card.GOLD] += 1
                if t[THIEF] != NO_ONE:
                    counts[Card.THIEF] += 1
                if t[OBSTACLE] != NO_ONE:
                    counts[obstacle_for(t[TERRAIN])] += 1
        if self.escort != NO_ONE:
            counts[Card.ESCORT] += 1
        return counts

    def towns_on_table(self) -> int:
        return sum(len(k) for k in self.kingdoms)

    def ring(self) -> list[TownRef]:
        """Every town on the table in clockwise order (kingdom by kingdom, right to left);
        kept while the journeys run, when the table no longer changes."""
        if self._ring is not None:
            return self._ring
        ring = [(k, i) for k in range(self.n) for i in range(len(self.kingdoms[k]))]
        if self.phase is Phase.JOURNEY:
            self._ring = ring
        return ring

    def next_town(self) -> TownRef | None:
        """The town the traveller's next visit goes to, or None with no town on the table."""
        ring = self.ring()
        if not ring:
            return None
        if self.at[0] == NO_ONE:
            p = self.current
            return min(ring, key=lambda ref: ((ref[0] - p) % self.n, ref[1]))
        if self.turned:
            return self.at
        i = ring.index(self.at)
        return ring[(i + self.direction) % len(ring)]

    def _protected(self, ref: TownRef) -> bool:
        """Whether an escort covers a visit to ``ref`` (one left behind is discarded);
        with ``escort_two_towns`` only two towns of the kingdom."""
        if self.escort != ref[0]:
            return False
        if not self.rules.escort_two_towns:
            return True
        return bool(self.escort_towns & town_bit(ref)) or self.escort_towns.bit_count() < 2

    def visit_terms(self, p: int, ref: TownRef) -> tuple[int, bool, int, bool]:
        """(terrain, obstacle applies, thief owner to pay or NO_ONE, gold card doubles)."""
        town = self.kingdoms[ref[0]][ref[1]]
        protected = self._protected(ref)
        obstacle = town[OBSTACLE] not in (NO_ONE, p) and not protected
        thief = town[THIEF] if town[THIEF] not in (NO_ONE, p) and not protected else NO_ONE
        gold_owner = town[GOLD]
        doubles = gold_owner != NO_ONE and (self.rules.gold_for_all or gold_owner == p)
        if doubles and self.rules.weak_gold and protected:
            doubles = False
        return town[TERRAIN], obstacle, thief, doubles

    def visit_costs(self, p: int, ref: TownRef) -> list[tuple[Card, int]]:
        """Each transport that can reach ``ref`` with the number of its cards needed."""
        terrain, obstacle, _, _ = self.visit_terms(p, ref)
        out = []
        for card in TRANSPORT_KINDS:
            n = COST_TABLE[card.transport][terrain]
            if n is not None:
                out.append((card, n + obstacle))
        return out

    # ------------------------------------------------------------------ legality
    def _generate_legal(self) -> list[Action]:
        if self.phase is Phase.BUILDING:
            return self._legal_building(self.current)
        if self.phase is Phase.JOURNEY:
            return self._legal_journey(self.current)
        return []

    def _legal_building(self, p: int) -> list[Action]:
        hand = self.hands[p]
        if self.pending is Pending.TAKE:
            return [_TAKE[t] for t in TOWN_KINDS if self.deck[t]]
        if self.pending is Pending.DISCARD:
            return [_DISCARD[c] for c in range(NUM_KINDS) if hand[c]]
        if self.pending is Pending.DISCARD_OTHER:
            return [_DISCARD[c] for c in range(len(TOWN_KINDS), NUM_KINDS)
                    if hand[c]]
        out: list[Action] = []
        cap = kingdom_size(self.n)
        for t in TOWN_KINDS:
            if hand[t]:
                out += [_PLAY[t, k] for k in range(self.n) if len(self.kingdoms[k]) < cap]
        if self._may_declare_no_town(p):
            out.append(_SIMPLE[Kind.NO_TOWN_CARD])
        can_draw = sum(self.deck) > 0 or (self.rules.rebuild_deck and sum(self.discard) > 0)
        if can_draw:
            out.append(_SIMPLE[Kind.DRAW])
        if can_draw and self.bought[p] < len(BUY_PRICES) \
                and self.gold[p] >= BUY_PRICES[self.bought[p]]:
            out.append(_SIMPLE[Kind.BUY])
        if self.banners_left(p) > 0:
            for card in (Card.GOLD, Card.THIEF, Card.TREE, Card.SEA_MONSTER):
                if hand[card]:
                    out += [_PLACE[card, k, i] for k, i in self.ring()
                            if self._may_place(p, card, k, i)]
        for i, town in enumerate(self.kingdoms[p]):
            if self.gold[p] >= self.removal_cost(town):
                out.append(_REMOVE[i])
        if self.kingdoms[p] or not out:
            out.append(_SIMPLE[Kind.PASS])
        return out

    def _may_declare_no_town(self, p: int) -> bool:
        if any(self.hands[p][t] for t in TOWN_KINDS) or self.kingdoms[p]:
            return False
        return any(self.deck[t] for t in TOWN_KINDS) or self._no_town_from_discard()

    def _no_town_from_discard(self) -> bool:
        """``Rules.no_town_card_from_discard``: the deck is empty, the discard pile holds
        a town card."""
        return (self.rules.no_town_card_from_discard and sum(self.deck) == 0
                and any(self.discard[t] for t in TOWN_KINDS))

    def _may_place(self, p: int, card: Card, k: int, i: int) -> bool:
        town = self.kingdoms[k][i]
        if town[SLOT[card]] != NO_ONE:
            return False
        if card in (Card.TREE, Card.SEA_MONSTER) and obstacle_for(town[TERRAIN]) != card:
            return False
        return not (card is Card.GOLD and self.rules.weak_gold and k == p)

    @staticmethod
    def removal_cost(town: Town) -> int:
        return REMOVE_BASE + sum(1 for s in (GOLD, THIEF, OBSTACLE) if town[s] != NO_ONE)

    def _legal_journey(self, p: int) -> list[Action]:
        hand = self.hands[p]
        out: list[Action] = []
        target = self.next_town()
        if target is not None:
            _, _, thief, _ = self.visit_terms(p, target)
            toll = THIEF_TOLL if thief != NO_ONE else 0
            if self.gold[p] >= toll:
                for card, n in self.visit_costs(p, target):
                    if hand[card] >= n:
                        out.append(_VISIT[card, n])
                if not out and self.rules.magic_spell and self.gold[p] >= toll + SPELL_GOLD:
                    transports = [hand[c] for c in TRANSPORT_KINDS]
                    out += [_SPELL[j] for j, m in enumerate(SPELL_PAYMENTS)
                            if all(m[k] <= transports[k] for k in range(len(m)))]
            if hand[Card.ESCORT] and self._entering(target) and self.escort != target[0]:
                out.append(_SIMPLE[Kind.ESCORT])
        if hand[Card.CHANGE_OF_DIRECTION] and self.own_visited and not self.turned:
            out.append(_SIMPLE[Kind.REVERSE])
        out.append(_SIMPLE[Kind.STOP])
        return out

    def _entering(self, target: TownRef) -> bool:
        return self.at[0] == NO_ONE or self.at[0] != target[0]

    def why_illegal(self, a: Action) -> str:
        """A plain reason why ``a`` is not legal now (for error messages)."""
        p = self.current
        k = a.kind
        journey_kinds = {Kind.VISIT, Kind.SPELL, Kind.ESCORT, Kind.REVERSE, Kind.STOP}
        if self.phase is Phase.JOURNEY and k not in journey_kinds:
            return f"{a}: player {p} is on their journey (visit, escort, reverse or stop)"
        if self.phase is Phase.BUILDING:
            if k in journey_kinds:
                return f"{a}: the journeys start when the building phase is over"
            if self.pending is Pending.TAKE and k is not Kind.TAKE:
                return f"{a}: player {p} must first take a town card from the deck"
            if self.pending is Pending.DISCARD and k is not Kind.DISCARD:
                return f"{a}: player {p} must first discard {self.pending_count} more card(s)"
            if self.pending is Pending.DISCARD_OTHER:
                if k is not Kind.DISCARD:
                    return f"{a}: player {p} must first discard a card"
                if a.card is not None and a.card.is_town:
                    return "after taking a town card, the card discarded is another one"
            if self.pending is Pending.NONE and k in (Kind.TAKE, Kind.DISCARD):
                return f"{a}: only after declaring no town card or drawing 3"
        hand = self.hands[p]
        if k is Kind.TAKE:
            assert a.card is not None
            return f"there is no {a.card.slug} town card left in the deck"
        if k is Kind.DISCARD:
            return f"player {p} holds no {a.card.slug if a.card else ''} card"
        if k is Kind.PLAY:
            assert a.card is not None
            if not hand[a.card]:
                return f"player {p} holds no {a.card.slug} town card"
            if a.kingdom >= self.n:
                return f"there is no kingdom {a.kingdom} with {self.n} players"
            return f"kingdom {a.kingdom} already has {kingdom_size(self.n)} towns"
        if k is Kind.NO_TOWN_CARD:
            if any(hand[t] for t in TOWN_KINDS):
                return f"player {p} holds a town card"
            if self.kingdoms[p]:
                return f"player {p}'s kingdom already has a town"
            return "there is no town card left in the deck"
        if k is Kind.DRAW:
            return "the deck and the discard pile are empty"
        if k is Kind.BUY:
            if self.bought[p] >= len(BUY_PRICES):
                return f"player {p} has already bought {len(BUY_PRICES)} cards this round"
            if self.gold[p] < BUY_PRICES[self.bought[p]]:
                return f"the next card costs {BUY_PRICES[self.bought[p]]} gold, more than " \
                       f"player {p} has"
            return "the deck and the discard pile are empty"
        if k is Kind.PLACE:
            assert a.card is not None
            if not hand[a.card]:
                return f"player {p} holds no {a.card.slug} card"
            if self.banners_left(p) == 0:
                return f"player {p} has no banner left"
            if a.kingdom >= self.n or a.town >= len(self.kingdoms[a.kingdom]):
                return f"there is no town {a.kingdom}.{a.town}"
            town = self.kingdoms[a.kingdom][a.town]
            if town[SLOT[a.card]] != NO_ONE:
                kind = "obstacle" if SLOT[a.card] == OBSTACLE else a.card.slug
                return f"town {a.kingdom}.{a.town} already has a {kind} card"
            if a.card is Card.GOLD:
                return "with the weaker gold card, gold goes only on another player's town"
            where = "land" if a.card is Card.TREE else "river and lake"
            return f"{a.card.slug} cards go only on {where} towns"
        if k is Kind.REMOVE:
            if a.town >= len(self.kingdoms[p]):
                return f"player {p}'s kingdom has no town {a.town}"
            cost = self.removal_cost(self.kingdoms[p][a.town])
            return f"removing town {p}.{a.town} costs {cost} gold, more than player {p} has"
        if k is Kind.PASS:
            return f"player {p} may pass only with a town in their kingdom"
        if k in (Kind.VISIT, Kind.SPELL):
            return self._why_no_visit(p, a)
        if k is Kind.ESCORT:
            if not hand[Card.ESCORT]:
                return f"player {p} holds no escort card"
            return "an escort is played on entering a kingdom, before its first town"
        if k is Kind.REVERSE:
            if not hand[Card.CHANGE_OF_DIRECTION]:
                return f"player {p} holds no change-of-direction card"
            if not self.own_visited:
                return "a change of direction needs a town of your own kingdom visited first"
            return "a change of direction was just played"
        return f"{a} is not legal now"

    def _why_no_visit(self, p: int, a: Action) -> str:
        target = self.next_town()
        if target is None:
            return "there is no town on the table"
        terrain, _, thief, _ = self.visit_terms(p, target)
        if thief != NO_ONE and self.gold[p] < THIEF_TOLL:
            return f"the thief on town {target[0]}.{target[1]} takes {THIEF_TOLL} gold, more " \
                   f"than player {p} has"
        costs = dict(self.visit_costs(p, target))
        where = f"the next town, {target[0]}.{target[1]} ({Terrain(terrain).slug})"
        if a.kind is Kind.VISIT:
            assert a.card is not None
            if a.card not in costs:
                return f"a {a.card.slug} cannot reach {where}"
            if costs[a.card] != a.count:
                return f"{where} takes {costs[a.card]} {a.card.slug} card(s), not {a.count}"
            return f"player {p} does not hold {a.count} {a.card.slug} card(s)"
        if not self.rules.magic_spell:
            return "the magic spell is a variant this game does not use"
        if any(self.hands[p][c] >= n for c, n in costs.items()):
            return "the magic spell is only for a town the right cards cannot reach"
        if self.gold[p] < SPELL_GOLD + (THIEF_TOLL if thief != NO_ONE else 0):
            return f"the magic spell costs {SPELL_GOLD} gold, more than player {p} has"
        return f"player {p} does not hold those {SPELL_CARDS} cards"

    # ------------------------------------------------------------------ chance
    def _draw_card(self) -> int | None:
        if sum(self.deck) == 0:
            if not self.rules.rebuild_deck or sum(self.discard) == 0:
                return None
            self.deck, self.discard = self.discard, [0] * NUM_KINDS
        return self.rng.draw_from_counts(self.deck)

    def _deal(self, cards: int) -> None:
        for _ in range(cards):
            for i in range(self.n):
                got = self._draw_card()
                if got is None:
                    return
                self.hands[(self.dragon + i) % self.n][got] += 1

    # ------------------------------------------------------------------ flow
    def _start_round(self) -> None:
        self._deal(FIRST_DEAL if self.round == 1 else LATER_DEAL)
        self.phase = Phase.BUILDING
        self.current = self.dragon
        self.passes = 0
        self.pending = Pending.NONE
        self.pending_count = 0

    def _end_turn(self, passed: bool) -> None:
        self.pending = Pending.NONE
        self.pending_count = 0
        self.passes = self.passes + 1 if passed else 0
        if self.passes >= self.n:
            self._start_journeys()
        else:
            self.current = (self.current + 1) % self.n

    def _start_journeys(self) -> None:
        self.bank += sum(self.set_aside)
        self.set_aside = [0] * self.n
        self.phase = Phase.JOURNEY
        self.passes = 0
        self.current = self.dragon
        self._ring = None
        self._reset_journey()

    def _end_journey(self) -> None:
        if self.escort != NO_ONE:
            self.discard[Card.ESCORT] += 1
        self._reset_journey()
        self.current = (self.current + 1) % self.n
        if self.current == self.dragon:
            self._end_round()

    def _end_round(self) -> None:
        """Banners go home, every card on the table and the discard pile go back into the
        deck (counts need no shuffle), hands are kept, and the dragon moves left."""
        table = self.table_cards()
        for c in range(NUM_KINDS):
            self.deck[c] += table[c] + self.discard[c]
        self.discard = [0] * NUM_KINDS
        self.kingdoms = [[] for _ in range(self.n)]
        self._ring = None
        self.bought = [0] * self.n
        if self.round >= self.rounds:
            self._finish()
        else:
            self.round += 1
            # The dragon marker moves one seat left from wherever it lies (kept in the
            # state, so that a loaded position's dragon carries on from there).
            self.dragon = (self.dragon + 1) % self.n
            self._start_round()

    def _finish(self) -> None:
        self.phase = Phase.OVER
        self.current = TERMINAL
        best = max(self.gold)
        self.result = [p for p in range(self.n) if self.gold[p] == best]

    # ------------------------------------------------------------------ effects
    def _do(self, a: Action) -> tuple[JSONDict, JSONDict]:
        p = self.current
        k = a.kind
        hand = self.hands[p]
        public: JSONDict = {}
        private: JSONDict = {}
        if k is Kind.PLAY:
            assert a.card is not None
            hand[a.card] -= 1
            self.kingdoms[a.kingdom].append([int(a.card), NO_ONE, NO_ONE, NO_ONE])
            self._end_turn(passed=False)
        elif k is Kind.NO_TOWN_CARD:
            public["hand"] = counts_to_list(hand)
            if self._no_town_from_discard():
                self.deck, self.discard = self.discard, [0] * NUM_KINDS
                public["deck_rebuilt"] = True
            self.pending = Pending.TAKE
        elif k is Kind.TAKE:
            assert a.card is not None
            self.deck[a.card] -= 1
            hand[a.card] += 1
            if sum(hand) > 1:
                self.pending = Pending.DISCARD_OTHER
                self.pending_count = 1
            else:
                self._end_turn(passed=False)
        elif k is Kind.DRAW:
            drawn = [0] * NUM_KINDS
            for _ in range(3):
                got = self._draw_card()
                if got is None:
                    break
                hand[got] += 1
                drawn[got] += 1
            private["cards"] = counts_to_list(drawn)
            public["drew"] = sum(drawn)
            self.pending = Pending.DISCARD
            self.pending_count = min(4, sum(hand))
            if self.pending_count == 0:
                self._end_turn(passed=False)
        elif k is Kind.DISCARD:
            assert a.card is not None
            hand[a.card] -= 1
            self.discard[a.card] += 1
            self.pending_count -= 1
            if self.pending_count == 0 or sum(hand) == 0:
                self._end_turn(passed=False)
        elif k is Kind.BUY:
            price = BUY_PRICES[self.bought[p]]
            self.gold[p] -= price
            self.set_aside[p] += price
            self.bought[p] += 1
            got = self._draw_card()
            assert got is not None
            hand[got] += 1
            public["price"] = price
            private["card"] = Card(got).slug
            self._end_turn(passed=False)
        elif k is Kind.PLACE:
            assert a.card is not None
            hand[a.card] -= 1
            town = self.kingdoms[a.kingdom][a.town]
            town[SLOT[a.card]] = p
            public["town_kind"] = Card(town[TERRAIN]).slug
            self._end_turn(passed=False)
        elif k is Kind.REMOVE:
            town = self.kingdoms[p].pop(a.town)
            cost = self.removal_cost(town)
            self.gold[p] -= cost
            self.bank += cost
            self.discard[town[TERRAIN]] += 1
            for slot, card in ((GOLD, Card.GOLD), (THIEF, Card.THIEF),
                               (OBSTACLE, obstacle_for(town[TERRAIN]))):
                if town[slot] != NO_ONE:
                    self.discard[card] += 1
            public["cost"] = cost
            public["town_kind"] = Card(town[TERRAIN]).slug
            self._end_turn(passed=False)
        elif k is Kind.PASS:
            self._end_turn(passed=True)
        elif k is Kind.VISIT or k is Kind.SPELL:
            self._visit(p, a, public)
        elif k is Kind.ESCORT:
            target = self.next_town()
            assert target is not None
            hand[Card.ESCORT] -= 1
            if self.escort != NO_ONE:
                self.discard[Card.ESCORT] += 1
            self.escort = target[0]
            self.escort_towns = 0
            public["kingdom"] = target[0]
        elif k is Kind.REVERSE:
            hand[Card.CHANGE_OF_DIRECTION] -= 1
            self.discard[Card.CHANGE_OF_DIRECTION] += 1
            self.direction = -self.direction
            self.turned = not self.turned
        elif k is Kind.STOP:
            public["earned"] = self.earned
            public["paid"] = self.paid
            self._end_journey()
        return public, private

    def _pay_out(self, p: int, amount: int) -> int:
        amount = min(amount, self.bank)
        self.bank -= amount
        self.gold[p] += amount
        self.earned += amount
        return amount

    def _visit(self, p: int, a: Action, public: JSONDict) -> None:
        target = self.next_town()
        assert target is not None
        if self.escort != NO_ONE and self.escort != target[0]:
            self.discard[Card.ESCORT] += 1
            self.escort = NO_ONE
            self.escort_towns = 0
            public["escort_discarded"] = True
        if self.rules.escort_two_towns and self._protected(target):
            self.escort_towns |= town_bit(target)
        terrain, _, thief, doubles = self.visit_terms(p, target)
        hand = self.hands[p]
        if a.kind is Kind.VISIT:
            assert a.card is not None
            hand[a.card] -= a.count
            self.discard[a.card] += a.count
        else:
            assert a.cards is not None
            for i, n in enumerate(a.cards):
                hand[TRANSPORT_BASE + i] -= n
                self.discard[TRANSPORT_BASE + i] += n
            self.gold[p] -= SPELL_GOLD
            self.bank += SPELL_GOLD
            self.paid += SPELL_GOLD
        if thief != NO_ONE:
            self.gold[p] -= THIEF_TOLL
            self.gold[thief] += THIEF_TOLL
            self.paid += THIEF_TOLL
            public["thief"] = thief
        value = town_value(terrain) * (2 if doubles else 1)
        public["town"] = f"{target[0]}.{target[1]}"
        public["town_kind"] = Card(terrain).slug
        public["earned"] = self._pay_out(p, value)
        self.visited |= town_bit(target)
        if not self.bonus_paid and self.visited == self._all_bits():
            self.bonus_paid = True
            public["bonus"] = self._pay_out(p, ALL_TOWNS_BONUS)
        self.at = target
        self.turned = False
        if target[0] == p:
            self.own_visited = True

    def _all_bits(self) -> int:
        bits = 0
        for ref in self.ring():
            bits |= town_bit(ref)
        return bits

    # ------------------------------------------------------------------ copies
    def clone(self) -> KingOfTheElvesState:
        new = KingOfTheElvesState.__new__(KingOfTheElvesState)
        new.__dict__.update(self.__dict__)
        new.rng = self.rng.copy()
        new.hands = [h[:] for h in self.hands]
        new.gold = self.gold[:]
        new.set_aside = self.set_aside[:]
        new.bought = self.bought[:]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.kingdoms = [[t[:] for t in k] for k in self.kingdoms]
        new.result = None if self.result is None else self.result[:]
        new._history = self._history[:]
        new.log = self.log[:]
        new._ring = None if self._ring is None else self._ring[:]
        return new

    def _key(self) -> tuple[Any, ...]:
        return (
            self.rules, self.n, self.round, self.phase, self.dragon, self.current,
            self.passes, self.pending, self.pending_count, self.hands, self.gold,
            self.set_aside, self.bought, self.deck, self.discard, self.bank, self.kingdoms,
            self.at, self.direction, self.turned, self.own_visited, self.escort,
            self.escort_towns, self.visited,
            self.bonus_paid, self.earned, self.paid, self.result, self.rng.getstate(),
            [a.id for a in self._history],
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KingOfTheElvesState) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<KingOfTheElvesState {self.n} players, round {self.round}, "
                f"{self.phase.value}, player {self.current} to act, "
                f"{len(self._history)} actions>")

    # ------------------------------------------------------------------ saving
    def serialize(self) -> str:
        start = {"players": self.n, "seed": self.seed, "options": self.rules.to_json()}
        return dump_game(self.game_name, start, self.origin, self._history)

    def to_position(self) -> JSONDict:
        from .position import to_position

        return to_position(self)

    def log_entries(self, after: int = 0) -> list[tuple[int, int, JSONDict, JSONDict]]:
        """The log's entries after the first ``after``."""
        return self.log[after:]

    def history_length(self) -> int:
        return len(self.log)

    def _last_move(self) -> tuple[PlayerId, Action] | None:
        """The game's last action and the seat that played it."""
        if not self._history:
            return None
        return self.log[-1][0], self._history[-1]

    def take_back_seat(self) -> PlayerId | None:
        """The seat that may take back the game's last action, or None.

        Only the last action can be taken back, by the seat that played it, and only if
        it showed nothing new: drawing or buying cards (from the shuffled deck), saying
        one has no town card (the cards then offered tell what the deck holds) and the
        last stop of a round (the next deal) cannot be.  The answer is read from the
        kind of the last action and where the game stands now, never guessed."""
        last = self._last_move()
        if last is None or self.phase is Phase.OVER:
            return None
        player, action = last
        if action.kind not in _TAKE_BACK_KINDS:
            return None
        if action.kind is Kind.STOP and self.phase is not Phase.JOURNEY:
            return None  # the round ended: the next one began with a deal
        return int(player)

    def view(self, player: PlayerId | None, log_after: int = 0) -> JSONDict:
        from .view import make_view

        return make_view(self, player, log_after)

    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> KingOfTheElvesState:
        from .position import resample

        return resample(self, player, rng)


def deserialize(text: str) -> KingOfTheElvesState:
    """A game saved by ``serialize``, replayed action by action."""
    from .position import from_position

    def new_state(doc: JSONDict) -> KingOfTheElvesState:
        return KingOfTheElvesState(players=doc["players"], seed=doc["seed"],
                                   rules=Rules.from_json(doc["options"]))

    return load_game(text, "king-of-the-elves", "King of the Elves", new_state, from_position)
