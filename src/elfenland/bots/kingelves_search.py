"""The search King of the Elves bot: Information-Set Monte Carlo Tree Search over the
building phase, where the round is decided; the exact journey planner for travelling
(a journey has no chance in it, so there is nothing to search) and the greedy bot's
choices for the later steps of "no town card" and "draw 3".

Each iteration deals the hidden parts again (``resample_from_infostate``: the other
hands and the deck), so the bot never reads what its seat cannot see.  The tree is the
bot's own next decision: its root actions are the greedy bot's best few and pass, and
every deal is tried with each of them (common random numbers, so the candidates are
compared on the same deals; with UCB's availability counts this is the one-level tree
of ISMCTS, as deep as a second of Python allows).  From there the rest of the building
phase is played out by a fast policy for every player, then each player's journey is
planned with the hand they hold in that deal; the reward is the bot's gold after the
round (plus the cards it keeps for later rounds) against the best rival's, squashed
into [0, 1].  The greedy choice stands unless another is clearly better on average.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Final

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.rng import Rng
from ..core.transport import COST_TABLE, Transport
from ..games.kingelves.actions import Action, Kind
from ..games.kingelves.cards import TOWN_KINDS, Card, town_value
from ..games.kingelves.state import (
    GOLD,
    NO_ONE,
    TERRAIN,
    KingOfTheElvesState,
    Pending,
    Phase,
)
from .kingelves_greedy import KingOfTheElvesGreedyBot, discard_choice
from .kingelves_journey import JOURNEY_CARDS, plan_journey

#: Root actions searched: the greedy bot's best few, and pass.
MAX_CANDIDATES: Final = 4
#: Margins (gold) are squashed into [0, 1] over this scale.
MARGIN_SCALE: Final = 12.0
#: Gold a journey card kept for a later round is counted as, at the end of a rollout.
KEPT_CARD_GOLD: Final = 0.6
#: How much better on average (reward in [0, 1]) a root action must do than the greedy
#: choice to be played instead: search noise must not undo the greedy bot's sense.
DEVIATION: Final = 0.02
#: Journey positions a rollout's journey plans may explore.
ROLLOUT_BUDGET: Final = 3_000


def reachable(hand: Sequence[int], terrain: int) -> bool:
    """Whether some transport in ``hand`` (full card counts) can pay for this terrain."""
    for t in Transport:
        need = COST_TABLE[t][terrain]
        if need is not None and hand[JOURNEY_CARDS[t]] >= need:
            return True
    return False


def fast_policy(s: KingOfTheElvesState, rng: random.Random) -> Action:
    """A cheap building policy for rollouts: the best town its hand reaches into its own
    kingdom, its gold card on its own town, thieves and obstacles on a rival's first
    town, then pass."""
    legal = s.legal_actions()
    if len(legal) == 1:
        return legal[0]
    p = s.current
    hand = s.hands[p]
    if s.pending is Pending.TAKE:
        return max(legal, key=lambda a: (reachable(hand, int(a.card or 0)),
                                         town_value(int(a.card or 0))))
    if s.pending is not Pending.NONE:
        allowed = [int(a.card) for a in legal if a.card is not None]
        return Action.discard(Card(discard_choice(s, p, allowed)))
    legal_set = set(legal)
    mine = s.kingdoms[p]
    # A town for its own kingdom: the most valuable its hand can reach.
    towns = [Card(t) for t in TOWN_KINDS if hand[t] and reachable(hand, int(t))]
    if not mine and not towns:
        towns = [Card(t) for t in TOWN_KINDS if hand[t]]
    if towns and len(mine) < (3 if s.n == 2 else 2) and (not mine or rng.random() < 0.5):
        a = Action.play(max(towns, key=town_value), p)
        if a in legal_set:
            return a
    if hand[Card.GOLD]:
        for i, town in enumerate(mine):
            if town[GOLD] == NO_ONE and reachable(hand, town[TERRAIN]):
                a = Action.place(Card.GOLD, p, i)
                if a in legal_set:
                    return a
    for card in (Card.THIEF, Card.TREE, Card.SEA_MONSTER):
        if not hand[card]:
            continue
        for q in rng.sample(range(s.n), s.n):
            if q == p or not s.kingdoms[q]:
                continue
            town = s.kingdoms[q][0]
            a = Action.place(card, q, 0)
            if a in legal_set:
                return a
    if Action.simple(Kind.NO_TOWN_CARD) in legal_set:
        return Action.simple(Kind.NO_TOWN_CARD)
    if Action.simple(Kind.PASS) in legal_set:
        return Action.simple(Kind.PASS)
    return legal[rng.randrange(len(legal))]


def round_outcome(s: KingOfTheElvesState, me: int) -> float:
    """The reward of a state at the end of building (or later): every journey still to
    come this round planned with the hands of this deal, then the bot's gold against the
    best rival's, squashed into [0, 1]."""
    if s.is_terminal():
        won = s.winners()
        return 1.0 if won == [me] else 0.5 if me in won else 0.0
    gold = [float(g) for g in s.gold]
    final = s.round >= s.rounds
    order = [(s.current + i) % s.n for i in range(s.n)]
    if s.phase is Phase.JOURNEY:
        order = order[:(s.dragon - s.current) % s.n or s.n]
    for q in order:
        plan = plan_journey(s, q, budget=ROLLOUT_BUDGET)
        gold[q] += plan.gold
        for owner, toll in plan.thieves_paid(s, q).items():
            gold[owner] += toll
        if not final:
            gold[q] += KEPT_CARD_GOLD * sum(plan.hand[:7])
    margin = gold[me] - max(g for q, g in enumerate(gold) if q != me)
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE * 4))


class KingOfTheElvesSearchBot:
    """ISMCTS within a time and iteration budget (whichever ends first)."""

    name = "search"

    def __init__(self, seed: int | None = None, iterations: int = 200,
                 seconds: float = 0.8) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        #: What ``seconds`` are measured on: wall time by default; a bench sets
        #: ``time.thread_time`` (CPU seconds, the same on a loaded machine).
        self.clock: Callable[[], float] = time.perf_counter
        self.greedy = KingOfTheElvesGreedyBot(self.rng.randrange(2**32))

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, KingOfTheElvesState):
            raise ElfenlandError("this bot plays King of the Elves")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1 or state.phase is not Phase.BUILDING \
                or state.pending is not Pending.NONE:
            return self.greedy.choose(state)
        roots = self.candidates(state, legal)
        if len(roots) == 1:
            return roots[0]
        return self.search(state, roots)

    def candidates(self, s: KingOfTheElvesState, legal: list[Action]) -> list[Action]:
        ranked = self.greedy.rank(s, legal)
        out = [a for _, a in ranked[:MAX_CANDIDATES]]
        passing = Action.simple(Kind.PASS)
        if passing in legal and passing not in out:
            out.append(passing)
        return out

    def search(self, state: KingOfTheElvesState, roots: Sequence[Action]) -> Action:
        me = state.current
        deadline = self.clock() + self.seconds
        sums = [0.0] * len(roots)
        counts = [0] * len(roots)
        done = 0
        while done < self.iterations and (done == 0 or self.clock() < deadline):
            det = state.resample_from_infostate(me, Rng(self.rng.randrange(2**63)))
            seed = self.rng.randrange(2**32)
            for i, a in enumerate(roots):
                sim = det.clone()
                sim.rng = Rng(seed)
                sums[i] += self.rollout(sim, me, a, random.Random(seed))
                counts[i] += 1
            done += 1
        means = [sums[i] / counts[i] if counts[i] else 0.0 for i in range(len(roots))]
        best = max(range(len(roots)), key=lambda i: means[i])
        if means[best] > means[0] + DEVIATION:
            return roots[best]
        return roots[0]

    def rollout(self, s: KingOfTheElvesState, me: int, first: Action,
                rng: random.Random) -> float:
        s.apply_action(first)
        steps = 0
        while s.phase is Phase.BUILDING and steps < 200:
            s.apply_action(fast_policy(s, rng))
            steps += 1
        return round_outcome(s, me)
