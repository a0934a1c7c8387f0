"""The quick King of the Elves bot: the search bot's plan (deals of the hidden cards,
each tried with the greedy bot's best few building actions and pass, played out to the
end of building, then every journey planned) with a slightly cheaper inner loop (1.2x
less CPU a rollout: the pure journey planner stays most of it), and a budget that
holds on a loaded machine; and it searches its discards, which ``search`` leaves to the
greedy bot's static card worths (``docs/bots.md``, ``bench/search_strength.py``).

Where the search bot's time went (a profile of four search bots, ``docs/bots.md``):
two thirds in the journey planner, planning again the same journeys (a player's hand
and the table often come out of the building phase as another deal left them), and
much of the rest in hashing action objects to build sets of the legal ones.  Here

- a decision's journey plans are memoised (``_Plans``), keyed by everything the planner
  reads: the traveller, their journey cards and gold, the table, the journey under way;
- the rollout policy (``fast_policy`` of the search bot) compares action ids;
- the budget (``Budget``) is asked before every rollout, so a decision ends within one
  rollout of its deadline however loaded the machine;
- every root action is tried on every deal to the deadline (the loop is
  ``budget.RootSearch``, shared with Elfenland; ``NEVER_DROP`` says why none is dropped).

The discards ("draw 3, discard 4", and the card given up after "no town card") are
the most frequent building decision, a third of them in games of two search bots, and
the one the search bot does not search: the greedy bot discards the card of least
static worth, whatever journey the hand is for.  Here they are searched as a building
action is: every kind it may discard is a root, the greedy bot's card first and kept
unless another does better by ``DEVIATION``; the rollouts play the rest of building
and the journeys as for any root.  So is the town card taken after "no town card",
which the greedy bot picks by its journey from the castle alone (what it may then
discard, what the rivals may yet lay or harm, and the rounds to come do not enter):
every town card it may take is a root, the greedy bot's first.  Both are the
decisions that gained at equal CPU; what else was screened is in ``docs/bots.md``
(the settings below, off by default, are those screening runs' switches).  The later
screens tried the rollout policy (it agrees with how ``search`` plays in a third of
its building decisions: it never buys, draws, removes or plays into a rival's kingdom;
``rollout_buy``, ``town_rate``), the evaluation (``final_scale``, ``eval_keep``,
``margin_scale``) and the roots (``card_roots``): none gained.  For four players, whom
to hurt and whom to measure against (``harm_leader``, ``rival_mean``) are switches
not yet screened.  The shipped learned policy (``bots/learned_rollout.py``, 4 players
only, with numpy) may play the rollouts' building steps (``learned_rollouts``: the
rivals', the searcher's, or both; 1.17x the CPU a rollout) or add its choice as a
root (``policy_root``): screened with four players; the rivals' steps by the policy
won 27.5% of 264 fresh games against three ``search`` bots, as the level does without
it: no gain, both off (``docs/bots.md``).  Session 13 screened the four-player
switches (``harm_leader``, ``rival_mean``), a root for the leader's harm
(``harm_root``: the greedy bot's rank scores a harm by the average rival's loss) and
the shipped learned value as the evaluation before the last round (``learned_value``,
``bots/kingelves_value.py``); the figures are in ``docs/bots.md``.  Session 14 played
the rollouts' first steps by the greedy bot (``greedy_steps``: a quarter of the
rollouts, and a loss), and measured what the deals get wrong: told the rival's real
transport cards, the level wins 11 points more head to head; what the public record
shows of them (``belief``, ``bots/kingelves_belief.py``: shown hands, discards read by
the discard rule, own towns paid for) gained nothing measurable.  Both stay off.
Session 39 screened, on 1,600 games each with two players, the roots ranked over eight
deals of the hidden cards (``rank_deals``), rollouts that block a rival with a town it
cannot reach and remove their own such towns (``block_rate``, ``unblock``), and
``keep_scale`` and ``final_scale`` again: none gained, all off.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from ..core.errors import ElfenlandError
from ..core.game import Action as CoreAction
from ..core.game import GameState
from ..core.transport import COST_TABLE, Terrain, Transport
from ..games.kingelves.actions import Action, Kind, from_id
from ..games.kingelves.cards import TOWN_KINDS, Card, town_value
from ..games.kingelves.rules import BUY_PRICES, kingdom_size
from ..games.kingelves.state import (
    GOLD,
    NO_ONE,
    TERRAIN,
    KingOfTheElvesState,
    Pending,
    Phase,
)
from .budget import Budget, Clock, RootSearch, by_players, resampled
from .kingelves_belief import agreeing_deal, belief_of
from .kingelves_greedy import (
    KEEP_VALUES,
    THRESHOLD,
    KingOfTheElvesGreedyBot,
    card_worth,
    discard_choice,
    unseen_pool,
)
from .kingelves_journey import JOURNEY_CARDS, Plan, plan_journey
from .kingelves_search import (
    DEVIATION,
    KEPT_CARD_GOLD,
    MARGIN_SCALE,
    MAX_CANDIDATES,
    ROLLOUT_BUDGET,
    reachable,
)
from .kingelves_value import ValueHead, value_head
from .learned_rollout import RolloutPolicy, rollout_policy

#: The greedy bot's best building actions searched as roots (with pass), by the number
#: of players.  Two players: 3, not ``search``'s 4 (session 34): with no root dropped
#: every root shares the decision's deals, and a fourth from the greedy bot's ranking
#: is rarely the one to play; against ``search`` as at the goal, +2.5 ± 2.3 points over
#: 2,800 games paired by deal (+2.7 ± 3.0 and +2.2 ± 3.5 on two fresh samples).  With
#: four players not screened.  ``--set width=4`` gives the level before.
WIDTHS = (MAX_CANDIDATES, MAX_CANDIDATES, 3, MAX_CANDIDATES)

#: ``learned_rollouts``: the rivals' building steps, the searcher's.
RIVALS = 1
SEARCHER = 2

PASS_ID = Action.simple(Kind.PASS).id
NO_TOWN_CARD_ID = Action.simple(Kind.NO_TOWN_CARD).id
BUY_ID = Action.simple(Kind.BUY).id
HARM = (Card.THIEF, Card.TREE, Card.SEA_MONSTER)
KEPT_OTHER = (*TOWN_KINDS, Card.GOLD, *HARM)
#: The building action cards ``kept_harm`` values in hand: gold, and the harms.
KEPT_HARM = (Card.GOLD, *HARM)


class _Plans:
    """One decision's journey plans, memoised by what the planner reads of the state."""

    def __init__(self, values: Sequence[int] | None = None) -> None:
        self.memo: dict[tuple[object, ...], Plan] = {}
        #: The card values journeys are planned with (``plan_journey``'s ``values``).
        self.values = values

    def plan(self, s: KingOfTheElvesState, q: int, table: tuple[object, ...]) -> Plan:
        under_way: tuple[object, ...] = ()
        if s.phase is Phase.JOURNEY and s.current == q:
            under_way = (tuple(s.at), s.direction, s.turned, s.own_visited, s.escort,
                         s.visited, s.bonus_paid)
        key = (q, tuple(s.hands[q]), s.gold[q], table, under_way)
        plan = self.memo.get(key)
        if plan is None:
            plan = plan_journey(s, q, values=self.values, budget=ROLLOUT_BUDGET)
            self.memo[key] = plan
        return plan


def table_key(s: KingOfTheElvesState) -> tuple[object, ...]:
    return tuple(tuple(tuple(town) for town in kingdom) for kingdom in s.kingdoms)


def round_outcome(s: KingOfTheElvesState, me: int, plans: _Plans,
                  margin_scale: float = MARGIN_SCALE,
                  kept_card_gold: float = KEPT_CARD_GOLD, kept_other: float = 0.0,
                  scale_left: float = 0.0, final_scale: float = 1.0,
                  rival_mean: float = 0.0, kept_harm: float = 0.0) -> float:
    """``kingelves_search.round_outcome`` with memoised plans: every journey still to
    come this round planned, then the bot's gold against the best rival's, in [0, 1].
    ``final_scale`` multiplies the margin's scale in the last round, where the planned
    journeys decide the game (a gold ahead is a win, not a slight lead).  In a round
    before the last, ``rival_mean`` is the weight of the rivals' mean gold against the
    best rival's (0: the best rival's alone): with more players, who leads after an
    early round is a noisy guess of who leads at the end.  ``kept_harm``: before the
    last round, what each gold, thief, tree and sea monster card a player still holds is
    worth, in gold (0: nothing, as in the search bot): the margin sees only what such a
    card earns or takes this round, so a card kept for the last round, where a rival
    has no round left to make up for it, counts nothing (Elfenland's obstacle kept,
    session 28, is the same lever)."""
    if s.is_terminal():
        won = s.winners()
        return 1.0 if won == [me] else 0.5 if me in won else 0.0
    gold = [float(g) for g in s.gold]
    final = s.round >= s.rounds
    order = [(s.current + i) % s.n for i in range(s.n)]
    if s.phase is Phase.JOURNEY:
        order = order[:(s.dragon - s.current) % s.n or s.n]
    table = table_key(s)
    for q in order:
        plan = plans.plan(s, q, table)
        gold[q] += plan.gold
        for owner, toll in plan.thieves_paid(s, q).items():
            gold[owner] += toll
        if not final:
            gold[q] += kept_card_gold * sum(plan.hand[:7])
            if kept_other:
                hand = s.hands[q]
                gold[q] += kept_other * (sum(plan.hand[7:]) + sum(hand[c] for c in KEPT_OTHER))
            if kept_harm:
                hand = s.hands[q]
                gold[q] += kept_harm * sum(hand[c] for c in KEPT_HARM)
    rivals = [g for q, g in enumerate(gold) if q != me]
    against = max(rivals)
    if rival_mean and not final:
        against += rival_mean * (sum(rivals) / len(rivals) - against)
    margin = gold[me] - against
    scale = margin_scale * (1.0 + scale_left * (s.rounds - s.round))
    if final:
        scale *= final_scale
    return 1.0 / (1.0 + math.exp(-margin / scale * 4))


def leading_rival(s: KingOfTheElvesState, me: int) -> int:
    """The rival ahead: the most gold, then the most town worth in their kingdom (in the
    first round, when all hold the same gold, the towns are what they will earn by)."""
    return max((q for q in range(s.n) if q != me),
               key=lambda q: (s.gold[q], sum(town_value(t[TERRAIN]) for t in s.kingdoms[q]),
                              -q))


def worth_buying(s: KingOfTheElvesState, p: int) -> bool:
    """Whether the greedy bot would rather buy the deck's top card than pass: its
    expected worth over the cards ``p`` has not seen, less the price, beats the gain
    it asks of any action (``THRESHOLD``)."""
    if s.bought[p] >= len(BUY_PRICES):
        return False
    pool = unseen_pool(s, p)
    total = sum(pool)
    if total == 0:
        return False
    worth = sum(n * card_worth(s, p, c) for c, n in enumerate(pool) if n) / total
    return worth - BUY_PRICES[s.bought[p]] > THRESHOLD


#: ``fast_policy``'s tables (its speed, issue #25: the rollouts call it thousands of
#: times a decision): the town cards as ints, their values, the transport slots and
#: cards that reach each terrain (``kingelves_search.reachable``'s), action ids.
_TOWNS: Final = tuple(int(t) for t in TOWN_KINDS)
_TOWN_VALUE: Final = {t: town_value(t) for t in _TOWNS}
_REACH: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    int(terrain): tuple((int(JOURNEY_CARDS[t]), need) for t in Transport
                        if (need := COST_TABLE[t][terrain]) is not None)
    for terrain in Terrain}


def _reachable(hand: Sequence[int], terrain: int) -> bool:
    """``reachable(hand, terrain)``, from a table."""
    reach = _REACH.get(terrain)
    if reach is None:
        return reachable(hand, terrain)
    return any(hand[slot] >= need for slot, need in reach)


@cache
def _play_id(town: int, kingdom: int) -> int:
    return Action.play(Card(town), kingdom).id


@cache
def _remove_id(town: int) -> int:
    return Action.remove(town).id


@cache
def _place_id(card: int, kingdom: int, town: int) -> int:
    return Action.place(Card(card), kingdom, town).id


@dataclass(frozen=True, slots=True)
class Policy:
    """How ``fast_policy`` plays: the screening switches of the rollouts' building, each
    off or as before by default (the quick bot's settings of the same names)."""

    #: Thieves and obstacles go to the richest rival first (a rival at random otherwise).
    harm_leader: bool = False
    #: The deck's top card is bought when the greedy bot would buy it.
    buy: bool = False
    #: The rate at which a player with a town already plays another into its kingdom.
    town_rate: float = 0.5
    #: Before harming, at this rate, a town card its own kingdom has no use for (full,
    #: or a terrain its hand cannot reach) goes into a rival's kingdom whose owner's
    #: hand cannot reach it: travellers visit their own towns first and skip none, so it
    #: ends the rival's journey there.  ``search`` plays a town into its rival's kingdom
    #: about once a round; the rollouts never did (session 39).
    block_rate: float = 0.0
    #: First of all, the first town of its own kingdom its hand cannot reach is removed,
    #: where it may pay for that and keep or play a town it can reach (``search``
    #: removes a town about every other round; the rollouts never did).
    unblock: bool = False


PLAIN: Final = Policy()


def fast_policy(s: KingOfTheElvesState, rng: random.Random, policy: Policy = PLAIN) -> int:
    """``kingelves_search.fast_policy`` on action ids: the best town its hand reaches
    into its own kingdom, its gold card on its own town, thieves and obstacles on a
    rival's first town, then the deck's top card (``Policy.buy``), then pass; the
    switches of ``policy`` as ``Policy`` says."""
    ids = s.legal_action_ids()
    if len(ids) == 1:
        return ids[0]
    p = s.current
    hand = s.hands[p]
    if s.pending is Pending.TAKE:
        legal = [from_id(i) for i in ids]
        return max(legal, key=lambda a: (reachable(hand, int(a.card or 0)),
                                         town_value(int(a.card or 0)))).id
    if s.pending is not Pending.NONE:
        allowed = [int(a.card) for a in map(from_id, ids) if a.card is not None]
        return Action.discard(Card(discard_choice(s, p, allowed))).id
    legal_ids = set(ids)
    mine = s.kingdoms[p]
    if policy.unblock and (len(mine) > 1
                          or any(hand[t] and _reachable(hand, t) for t in _TOWNS)):
        for k, town in enumerate(mine):
            if not _reachable(hand, town[TERRAIN]):
                i = _remove_id(k)
                if i in legal_ids:
                    return i
                break
    towns = [t for t in _TOWNS if hand[t] and _reachable(hand, t)]
    if not mine and not towns:
        towns = [t for t in _TOWNS if hand[t]]
    if towns and len(mine) < (3 if s.n == 2 else 2) \
            and (not mine or rng.random() < policy.town_rate):
        i = _play_id(max(towns, key=_TOWN_VALUE.__getitem__), p)
        if i in legal_ids:
            return i
    if hand[Card.GOLD]:
        for k, town in enumerate(mine):
            if town[GOLD] == NO_ONE and _reachable(hand, town[TERRAIN]):
                i = _place_id(Card.GOLD, p, k)
                if i in legal_ids:
                    return i
    if policy.block_rate and rng.random() < policy.block_rate:
        blocked = _block(s, p, hand, legal_ids, mine)
        if blocked is not None:
            return blocked
    for card in HARM:
        if not hand[card]:
            continue
        rivals = rng.sample(range(s.n), s.n)
        if policy.harm_leader:
            rivals.sort(key=lambda q: -s.gold[q])
        for q in rivals:
            if q == p or not s.kingdoms[q]:
                continue
            i = _place_id(card, q, 0)
            if i in legal_ids:
                return i
    if NO_TOWN_CARD_ID in legal_ids:
        return NO_TOWN_CARD_ID
    if policy.buy and BUY_ID in legal_ids and worth_buying(s, p):
        return BUY_ID
    if PASS_ID in legal_ids:
        return PASS_ID
    return ids[rng.randrange(len(ids))]


def _block(s: KingOfTheElvesState, p: int, hand: Sequence[int], legal_ids: set[int],
           mine: Sequence[object]) -> int | None:
    """``fast_policy``'s block: the most valuable town card ``p`` cannot use into the
    kingdom of a rival (from ``p``'s left) whose hand cannot reach its terrain."""
    full = len(mine) >= kingdom_size(s.n)
    spare = [t for t in _TOWNS if hand[t] and (full or not _reachable(hand, t))]
    if not spare:
        return None
    for k in range(1, s.n):
        q = (p + k) % s.n
        if len(s.kingdoms[q]) >= kingdom_size(s.n):
            continue
        theirs = s.hands[q]
        for t in sorted(spare, key=_TOWN_VALUE.__getitem__, reverse=True):
            if not _reachable(theirs, t):
                i = _play_id(t, q)
                if i in legal_ids:
                    return i
    return None


def play_on(s: KingOfTheElvesState, rng: random.Random, until: int,
            journeys: tuple[_Plans, _Plans], policy: Policy = PLAIN) -> None:
    """From a round's journeys, the game played on to where round ``until``'s building
    ends (or the game's end): each traveller makes the journey the bots would plan
    (``journeys``: plans valuing kept cards for a round before the last, plans for
    gold in the last), the deals come from the state, building is ``fast_policy``'s."""
    steps = 0
    while not s.is_terminal() and steps < 2_000:
        if s.phase is Phase.BUILDING:
            s.apply_action(fast_policy(s, rng, policy))
            steps += 1
            continue
        if s.round >= until:  # its building just ended (play_on starts before ``until``)
            return
        q = s.current
        plans = journeys[0] if s.round < s.rounds else journeys[1]
        plan = plans.plan(s, q, table_key(s))
        for a in plan.actions:
            if s.phase is not Phase.JOURNEY or s.current != q:
                break
            s.apply_action(a)
            steps += 1


class KingOfTheElvesQuickBot:
    """Root ISMCTS over the building phase with memoised journey plans, rollouts on
    action ids, root pruning and a budget asked before every rollout."""

    name = "quick"

    def __init__(self, seed: int | None = None, iterations: int = 2_000,
                 seconds: float = 0.3, clock: Clock = time.perf_counter,
                 workers: int = 1) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.clock = clock
        #: Root actions searched: the greedy bot's best ``width``, and pass (``None``:
        #: ``WIDTHS`` by the number of players).
        self.width: int | None = None
        #: The deals of the hidden cards the greedy bot's ranking of the roots is
        #: averaged over (``KingOfTheElvesGreedyBot.rank``; 1: one deal, as ``search``).
        self.rank_deals = 1
        #: The evaluation's constants (``round_outcome``).
        self.margin_scale = MARGIN_SCALE
        self.kept_card_gold = KEPT_CARD_GOLD
        self.kept_other = 0.0
        #: What a gold, thief, tree or sea monster card still in hand is worth before
        #: the last round (``round_outcome``'s ``kept_harm``; 0: nothing).
        self.kept_harm = 0.0
        #: The margin's scale grows by this share a round still to come: a lead in an
        #: early round is less sure to hold than the same lead in the last.
        self.scale_left = 0.0
        #: Whether the discards of "draw 3, discard 4" and "no town card" are searched
        #: (the greedy bot's static card worths otherwise).
        self.search_discards = True
        #: Whether the town card taken after "no town card" is searched (the greedy
        #: bot's town of the best journey from the castle otherwise).
        self.search_take = True
        #: Stop a search once its leader is ``stop_clear`` (reward) ahead of every other
        #: root still in play after ``budget.PRUNE_AFTER`` deals (0: search to the deadline).
        self.stop_clear = 0.0
        #: The CPU a clear decision leaves is banked for a close one: a decision may
        #: borrow up to ``bank`` times ``seconds`` from the bank (0: no bank).
        self.bank = 0.0
        #: The journey's worth of a card kept for a later round, as a multiple of the
        #: greedy bot's (``KEEP_VALUES``: 0.6 gold a transport card; 1: as greedy).
        self.keep_scale = 1.0
        #: The margin's scale in the last round, as a multiple of ``margin_scale``: there
        #: the planned journeys end the game, and a gold ahead wins it.
        self.final_scale = 1.0
        #: Whether a rollout's journeys (in a round before the last) are planned as the
        #: bots play them, keeping the cards worth more than the gold they would buy
        #: (``KEEP_VALUES``), rather than for the most gold with the cards kept counted after.
        self.eval_keep = False
        #: Whether the rollouts' thieves and obstacles go to the richest rival first (a
        #: rival at random otherwise): with four players, hurting the leader.
        self.harm_leader = False
        #: Whether the rollouts buy the deck's top card when the greedy bot would (the
        #: search bots buy in a sixth of their building decisions; the rollouts never did).
        self.rollout_buy = False
        #: In a round before the last, the margin is taken against this mix of the
        #: rivals' mean gold (1) and the best rival's (0), ``round_outcome``.
        self.rival_mean = 0.0
        #: Whether buying and drawing are roots whenever they are legal (as pass is),
        #: not only when the greedy bot ranks them among its best ``width``.
        self.card_roots = False
        #: The rate at which the rollouts play a town into a kingdom that has one (the
        #: search bots play their own towns a third as often as the rollouts at 0.5).
        self.town_rate = 0.5
        #: The rate at which the rollouts play a town card the player has no use for
        #: into a rival's kingdom that its owner cannot reach (``fast_policy``; 0: never).
        self.block_rate = 0.0
        #: Whether the rollouts remove the first town of a player's own kingdom its hand
        #: cannot reach (``fast_policy``'s ``unblock``).
        self.unblock = False
        #: Who plays the rollouts' building steps by the shipped learned policy
        #: (``learned_rollout``) instead of ``fast_policy``: a sum of ``RIVALS`` (1) and
        #: ``SEARCHER`` (2); 0: nobody.  Only where the policy fits (4 players, numpy,
        #: the compiled engine); elsewhere the rollouts play as with 0.
        self.learned_rollouts = 0
        #: The learned policy's choice as a root: 1 added to the greedy bot's roots when
        #: it is not among them, 2 also put first (the choice that stands unless another
        #: beats it by ``DEVIATION``); 0: not asked.  Where the policy fits, as above.
        self.policy_root = 0
        #: With more than two players, the greedy bot's best-ranked thief or obstacle on
        #: the leading rival (``leading_rival``) joins the roots when its best ``width``
        #: miss it: its rank scores a harm by the average rival's loss, so it may never
        #: look at hurting the one who is winning.
        self.harm_root = False
        #: Before the last round, a rollout's reward is this mix of the shipped learned
        #: value's share (``kingelves_value``, 1) and ``round_outcome`` (0); 1 plans no
        #: journey at all.  Only where the value fits (4 players, numpy, the compiled
        #: engine); elsewhere, and in the last round, ``round_outcome`` alone.
        self.learned_value = 0.0
        #: Rounds a rollout plays on past the round's building before it is evaluated:
        #: this round's journeys (each traveller's planned journey, cards kept for later
        #: rounds valued as the bots value them), then the next rounds' deals and
        #: building by the rollout policy, up to the end of building ``rounds_ahead``
        #: rounds on (or the game's end). 0: evaluated where this round's building ends.
        self.rounds_ahead = 0
        #: The first ``greedy_steps`` building steps of a rollout after its root are
        #: the greedy bot's choices (``search`` keeps the greedy bot's choice unless
        #: another beats it, so this is how the rival really answers); the rest are
        #: ``fast_policy``'s.  ``greedy_rivals``: only the rivals' steps among them.
        self.greedy_steps = 0
        self.greedy_rivals = False
        #: What the deals agree with beyond the engine's resampling (``kingelves_belief``):
        #: 1 the cards the public record shows still in each rival's hand (a hand shown
        #: on "no town card", less what left it since); 2 also the rivals' discards after
        #: "draw 3" read by the discard rule; 3 also every rival's hand paying for the
        #: towns of its own kingdom.  0: the engine's deals.
        self.belief = 0
        #: Seconds saved by clear decisions, not yet spent.
        self.banked = 0.0
        #: The root loop and its constants (an attribute: a bench may try others).
        #: ``workers`` > 1: each decision's deals split over as many processes, each
        #: with this budget on its own clock and its own deals drawn from ``rng``
        #: (``budget.RootSearch``, ``parallel``).
        self.loop = RootSearch(DEVIATION, workers, self.rng)
        self.greedy = KingOfTheElvesGreedyBot(self.rng.randrange(2**32))
        #: Searches run and their rollouts in all (what a budget buys: benches, tests).
        self.searches = 0
        self.rollouts = 0

    def choose(self, state: GameState) -> CoreAction:
        if not isinstance(state, KingOfTheElvesState):
            raise ElfenlandError("this bot plays King of the Elves")
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        if len(legal) == 1:
            return legal[0]
        if state.phase is Phase.JOURNEY and self.keep_scale != 1.0 \
                and state.round < state.rounds:
            values = [round(v * self.keep_scale) for v in KEEP_VALUES]
            return plan_journey(state, state.current, values=values).first
        if state.phase is not Phase.BUILDING:
            return self.greedy.choose(state)
        discarding = state.pending in (Pending.DISCARD, Pending.DISCARD_OTHER)
        taking = state.pending is Pending.TAKE
        if state.pending is not Pending.NONE and not (discarding and self.search_discards) \
                and not (taking and self.search_take):
            return self.greedy.choose(state)
        budget = self.budget()  # from here: choosing the roots is part of the decision
        roots = (self.discards(state, legal) if discarding
                 else self.takes(state, legal) if taking
                 else self.candidates(state, legal))
        if len(roots) == 1:
            return roots[0]
        return self.search(state, roots, budget)

    def takes(self, s: KingOfTheElvesState, legal: list[Action]) -> list[Action]:
        """The town cards it may take, the greedy bot's choice first."""
        first = self.greedy.take(s, legal)
        return [first, *(a for a in legal if a != first)]

    def candidates(self, s: KingOfTheElvesState, legal: list[Action]) -> list[Action]:
        ranked = self.greedy.rank(s, legal, self.rank_deals)
        width = int(by_players(WIDTHS, self.width, s.num_players))
        out = [a for _, a in ranked[:width]]
        extra = [Action.simple(Kind.PASS)]
        if self.card_roots:
            extra += [Action.simple(Kind.BUY), Action.simple(Kind.DRAW)]
        for a in extra:
            if a in legal and a not in out:
                out.append(a)
        if self.harm_root and s.n > 2:
            leader = leading_rival(s, s.current)
            hit = next((a for _, a in ranked if a.kind is Kind.PLACE and a.card in HARM
                        and a.kingdom == leader), None)
            if hit is not None and hit not in out:
                out.append(hit)
        policy = rollout_policy(s) if self.policy_root else None
        if policy is not None:
            liked = from_id(policy.choose(s))
            if self.policy_root >= 2:
                out = [liked, *(a for a in out if a != liked)]
            elif liked not in out:
                out.append(liked)
        return out

    def discards(self, s: KingOfTheElvesState, legal: list[Action]) -> list[Action]:
        """The cards it may discard, the greedy bot's choice (the least worth) first."""
        p = s.current
        return sorted(legal, key=lambda a: (card_worth(s, p, int(a.card or 0)),
                                            int(a.card or 0)))

    def budget(self) -> Budget:
        """A decision's budget, started, with what it borrows from the bank."""
        extra = max(0.0, min(self.banked, self.bank * self.seconds)) if self.bank else 0.0
        self.banked -= extra
        return Budget(self.iterations, self.seconds + extra, self.clock).start()

    def search(self, state: KingOfTheElvesState, roots: Sequence[Action],
               budget: Budget | None = None) -> Action:
        """Deals in turn, each tried with every root action still in play (common random
        numbers, ``RootSearch``); the greedy choice (the first root) stands unless
        another beats it by ``DEVIATION``."""
        me = state.current
        if budget is None:
            budget = self.budget()
        keep = self.eval_keep and state.round < state.rounds
        plans = _Plans(KEEP_VALUES if keep else None)
        journeys = (_Plans(KEEP_VALUES), _Plans()) if self.rounds_ahead else None

        policy = rollout_policy(state) if self.learned_rollouts else None
        head = value_head(state) if self.learned_value and state.round < state.rounds \
            else None
        refine = None
        if self.belief:
            belief = belief_of(state, self.belief >= 2)
            reach = self.belief >= 3
            if reach or any(any(belief.known[q]) or belief.allowed[q] is not None
                            for q in range(state.n) if q != me):
                rng = self.rng
                refine = lambda det: agreeing_deal(  # noqa: E731
                    det, me, belief, rng, reach=reach)
        play = Policy(self.harm_leader, self.rollout_buy, self.town_rate, self.block_rate,
                      self.unblock)
        deal = resampled(state, me, self.rng, lambda det, seed: lambda sim, i:
                         self._rollout(sim, me, roots[i].id, plans, random.Random(seed),
                                       policy, head, journeys, play), refine)
        chosen = self.loop.choose(len(roots), budget, deal, self.stop_clear)
        if self.bank:
            self.banked += budget.deadline - self.clock()
        self.searches += 1
        self.rollouts += budget.used
        return roots[chosen]

    def _rollout(self, s: KingOfTheElvesState, me: int, first: int, plans: _Plans,
                 rng: random.Random, policy: RolloutPolicy | None = None,
                 head: ValueHead | None = None,
                 journeys: tuple[_Plans, _Plans] | None = None,
                 play: Policy = PLAIN) -> float:
        s.apply_action(first)
        steps = 0
        learned = self.learned_rollouts if policy is not None else 0
        while s.phase is Phase.BUILDING and steps < 200:
            if learned & (SEARCHER if s.current == me else RIVALS):
                assert policy is not None
                s.apply_action(policy.choose(s))
            elif steps < self.greedy_steps and not (self.greedy_rivals and s.current == me):
                s.apply_action(self.greedy.choose(s))
            else:
                s.apply_action(fast_policy(s, rng, play))
            steps += 1
        if journeys is not None and s.phase is Phase.JOURNEY and s.round < s.rounds:
            play_on(s, rng, min(s.round + self.rounds_ahead, s.rounds), journeys, play)
        mix = 0.0
        if head is not None and s.round < s.rounds and not s.is_terminal():
            mix = self.learned_value
            if mix >= 1.0:
                return head.share(s, me)
        outcome = round_outcome(s, me, plans, self.margin_scale, self.kept_card_gold,
                                self.kept_other, self.scale_left, self.final_scale,
                                self.rival_mean, self.kept_harm)
        if mix:
            assert head is not None
            outcome = (1.0 - mix) * outcome + mix * head.share(s, me)
        return outcome
