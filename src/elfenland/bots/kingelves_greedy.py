"""The greedy King of the Elves bot: the exact journey planner for travelling, one look
ahead for building.

While building, every table-changing action it may take (a town card into a kingdom, a
gold, thief, tree or sea monster beside a town, removing one of its towns) is tried on a
copy of the table and scored by the *margin*: its own planned journey's gold plus the
thieves' takings it can expect, less the same for the average rival.  Rivals' journeys
are planned with hands dealt again from what the bot cannot see
(``resample_from_infostate``), never with their real hands.  Buying and drawing are
scored by the cards they are expected to bring, over the cards the bot has not seen.
With nothing worth a gold, it passes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..games.kingelves.actions import Action, Kind
from ..games.kingelves.cards import NUM_KINDS, TOWN_KINDS, Card, town_value
from ..games.kingelves.rules import BUY_PRICES, kingdom_size
from ..games.kingelves.state import NO_ONE, KingOfTheElvesState, Pending, Phase
from .kingelves_journey import JOURNEY_CARDS, TIE_BREAK_VALUES, Plan, plan_journey

#: What a card kept for a later round is worth, in GOLD_UNITs (the planner's units): a
#: journey stops before a town whose cards are worth more than its gold.
KEEP_VALUES: Final = (60, 60, 60, 60, 60, 60, 60, 40, 80)
#: How many gold a card in hand is worth while building, for discards and draws.
CARD_WORTH: Final = {
    Card.GIANT_PIG: 1.0, Card.ELFCYCLE: 1.2, Card.MAGIC_CLOUD: 1.0, Card.UNICORN: 1.3,
    Card.TROLL_WAGON: 1.0, Card.DRAGON: 1.4, Card.RAFT: 1.1,
    Card.GOLD: 2.5, Card.THIEF: 2.0, Card.TREE: 1.2, Card.SEA_MONSTER: 1.0,
    Card.ESCORT: 0.8, Card.CHANGE_OF_DIRECTION: 1.2,
}
#: A town card is worth this while the bot's own kingdom has room, else ``SPARE_TOWN``.
WANTED_TOWN: Final = 2.0
SPARE_TOWN: Final = 0.3
#: An action must gain at least this much margin (gold) to be played instead of passing.
THRESHOLD: Final = 0.5
#: Journey positions each building-phase estimate may explore.
ESTIMATE_BUDGET: Final = 4_000


def keep_values(s: KingOfTheElvesState) -> tuple[int, ...]:
    """Cards kept are worth something only while rounds remain."""
    return TIE_BREAK_VALUES if s.round >= s.rounds else KEEP_VALUES


def unseen_pool(s: KingOfTheElvesState, p: int) -> list[int]:
    """The cards ``p`` has not seen: the game's cards less their hand, the table and the
    face-up discard pile (the deck and the other hands, mixed)."""
    pool = s.all_cards()
    table = s.table_cards()
    for c in range(NUM_KINDS):
        pool[c] -= s.hands[p][c] + table[c] + s.discard[c]
    return [max(0, n) for n in pool]


def card_worth(s: KingOfTheElvesState, p: int, card: int) -> float:
    c = Card(card)
    if c.is_town:
        room = len(s.kingdoms[p]) < kingdom_size(s.n)
        held = sum(s.hands[p][t] for t in TOWN_KINDS)
        if room and held <= kingdom_size(s.n) - len(s.kingdoms[p]):
            return WANTED_TOWN + town_value(c) / 3
        return SPARE_TOWN + town_value(c) / 20
    if c in (Card.GOLD, Card.THIEF, Card.TREE, Card.SEA_MONSTER) and s.banners_left(p) == 0:
        return 0.1
    worth = CARD_WORTH[c]
    # The fourth card of a kind is worth less than the first.
    return worth * (0.85 ** max(0, s.hands[p][c] - 2))


def discard_choice(s: KingOfTheElvesState, p: int, allowed: Sequence[int]) -> int:
    return min(allowed, key=lambda c: (card_worth(s, p, c), c))


class Evaluator:
    """Margins of tables for one decision: one resampled deal for the rivals' hands."""

    def __init__(self, s: KingOfTheElvesState, me: int, rng: random.Random) -> None:
        self.me = me
        self.det = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
        self.n = s.n

    def plans(self, table: KingOfTheElvesState) -> list[Plan]:
        return [plan_journey(table, q, budget=ESTIMATE_BUDGET, extras=False,
                             hand=tuple(self.det.hands[q][c] for c in JOURNEY_CARDS))
                for q in range(self.n)]

    def margin(self, table: KingOfTheElvesState, spent: int = 0) -> float:
        """My journey gold and thief takings less the average rival's (gold)."""
        plans = self.plans(table)
        gold = [float(pl.gold) for pl in plans]
        for q, pl in enumerate(plans):
            for owner, toll in pl.thieves_paid(table, q).items():
                gold[owner] += toll
        gold[self.me] -= spent
        rivals = [g for q, g in enumerate(gold) if q != self.me]
        return gold[self.me] - sum(rivals) / max(1, len(rivals))


class KingOfTheElvesGreedyBot:
    """Plays every phase with the heuristics in the module doc; deterministic per seed."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, KingOfTheElvesState):
            raise ElfenlandError("this bot plays King of the Elves")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1:
            return legal[0]
        action = self._pick(state, legal)
        return action if action in legal else legal[0]

    def _pick(self, s: KingOfTheElvesState, legal: list[Action]) -> Action:
        p = s.current
        if s.phase is Phase.JOURNEY:
            return plan_journey(s, p, values=keep_values(s)).first
        if s.pending is Pending.TAKE:
            return self.take(s, legal)
        if s.pending in (Pending.DISCARD, Pending.DISCARD_OTHER):
            allowed = [int(a.card) for a in legal if a.card is not None]
            return Action.discard(Card(discard_choice(s, p, allowed)))
        ranked = self.rank(s, legal)
        return ranked[0][1]

    # ------------------------------------------------------------------ building
    def rank(self, s: KingOfTheElvesState, legal: list[Action],
             deals: int = 1) -> list[tuple[float, Action]]:
        """Building actions with their scores, best first (pass scored ``THRESHOLD``).

        ``deals``: the scores are averaged over as many deals of the hidden cards.  One
        deal's rivals hold one guess of their hands: its best action is the best of eight
        deals' mean in 60% of two-player building decisions, 81% with four
        (``bench/search_strength.py --only ranking``, session 39)."""
        if deals <= 1:
            return self._rank(s, legal)
        total: dict[Action, float] = {}
        for _ in range(deals):
            for score, a in self._rank(s, legal):
                total[a] = total.get(a, 0.0) + score
        ranked = [(score / deals, a) for a, score in total.items()]
        ranked.sort(key=lambda x: (-x[0], x[1].id))
        return ranked

    def _rank(self, s: KingOfTheElvesState, legal: list[Action]) -> list[tuple[float, Action]]:
        p = s.current
        ev = Evaluator(s, p, self.rng)
        base = ev.margin(ev.det)
        scored: list[tuple[float, Action]] = []
        for a in legal:
            if a.kind in (Kind.PLAY, Kind.PLACE, Kind.REMOVE):
                after = ev.det.clone()
                after.apply_action(a)
                spent = s.removal_cost(s.kingdoms[p][a.town]) if a.kind is Kind.REMOVE else 0
                score = ev.margin(after, spent) - base
                if a.kind is Kind.PLAY:
                    # A town card kept has some worth too (a later round, a block).
                    score -= SPARE_TOWN
                    if a.kingdom == p and not s.kingdoms[p]:
                        score += 1.0  # the player must have a town to pass at all
                scored.append((score, a))
            elif a.kind is Kind.BUY:
                scored.append((self.buy_worth(s, p) - BUY_PRICES[s.bought[p]], a))
            elif a.kind is Kind.DRAW:
                scored.append((self.draw_worth(s, p), a))
            elif a.kind is Kind.NO_TOWN_CARD:
                scored.append((5.0, a))
            elif a.kind is Kind.PASS:
                scored.append((THRESHOLD, a))
        if not scored:
            return [(0.0, legal[0])]
        scored.sort(key=lambda x: (-x[0], x[1].id))
        return scored

    def buy_worth(self, s: KingOfTheElvesState, p: int) -> float:
        """The expected worth of the top card of the deck, over the unseen cards."""
        pool = unseen_pool(s, p)
        total = sum(pool)
        if total == 0:
            return 0.0
        return sum(n * card_worth(s, p, c) for c, n in enumerate(pool)) / total

    def draw_worth(self, s: KingOfTheElvesState, p: int) -> float:
        """Draw 3, keep the best of hand and draw, discard the 4 worst: the expected
        worth gained, over a few draws from the unseen cards."""
        pool = unseen_pool(s, p)
        if sum(pool) < 3:
            return -1.0
        hand = [card_worth(s, p, c) for c in range(NUM_KINDS) for _ in range(s.hands[p][c])]
        now = sum(hand)
        gains = []
        kinds = [c for c, n in enumerate(pool) for _ in range(n)]
        for _ in range(8):
            drawn = [card_worth(s, p, c) for c in self.rng.sample(kinds, 3)]
            after = sorted(hand + drawn)[4:]
            gains.append(sum(after) - now)
        return sum(gains) / len(gains)

    def take(self, s: KingOfTheElvesState, legal: list[Action]) -> Action:
        """The town card that makes the best own journey, from the castle."""
        p = s.current
        best: tuple[int, int, int] | None = None
        choice = legal[0]
        hand = tuple(s.hands[p][c] for c in JOURNEY_CARDS)
        for a in legal:
            assert a.card is not None
            table = s.clone()
            # Assigned whole, not appended in place: the compiled engine's lists are copies.
            kingdoms = [[t[:] for t in k] for k in s.kingdoms]
            kingdoms[p].append([int(a.card), NO_ONE, NO_ONE, NO_ONE])
            table.kingdoms = kingdoms
            value = plan_journey(table, p, hand=hand, budget=ESTIMATE_BUDGET,
                                 extras=False).gold
            key = (value, town_value(a.card), -a.id)
            if best is None or key > best:
                best, choice = key, a
        return choice

