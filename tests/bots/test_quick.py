"""The quick level (issue #25): legal whole games in both games and through the
tournament command; a budget that ends a decision within one rollout of its deadline
(a hand-driven clock, no timed assertions); the iteration cap; memoised plans equal to
fresh ones; and today's search bots measuring their budget on the clock they are given."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.budget import Budget, Rollouts, RootSearch
from elfenland.bots.elfenland_quick import ElfenlandQuickBot
from elfenland.bots.elfenland_quick import _Plans as ElfenlandPlans
from elfenland.bots.elfenland_search import ElfenlandSearchBot, candidates
from elfenland.bots.kingelves_greedy import discard_choice
from elfenland.bots.kingelves_journey import plan_journey as plan_kingelves
from elfenland.bots.kingelves_quick import KingOfTheElvesQuickBot, round_outcome, table_key
from elfenland.bots.kingelves_quick import _Plans as KingPlans
from elfenland.bots.kingelves_search import ROLLOUT_BUDGET, KingOfTheElvesSearchBot
from elfenland.bots.planner import plan_journey
from elfenland.cli import main
from elfenland.core.errors import ElfenlandError
from elfenland.core.game import GameState
from elfenland.core.rng import Rng
from elfenland.games.elfenland.state import ElfenlandState, Phase
from elfenland.games.kingelves.cards import Card
from elfenland.games.kingelves.state import KingOfTheElvesState, Pending
from elfenland.games.kingelves.state import Phase as KingPhase

GAMES = ("elfenland", "king-of-the-elves")


class TickClock:
    """A clock that moves only when told: one tick per rollout, whatever the machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def play_out(game: str, players: int, bots: list[Any], seed: int) -> GameState:
    state = elfenland.new_game(game, players=players, seed=seed)
    steps = 0
    while not state.is_terminal():
        action = bots[state.current_player()].choose(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        steps += 1
        assert steps < 5_000
    return state


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_quick_plays_legal_whole_games(game: str, players: int) -> None:
    bots: list[Any] = []
    for q in range(players):
        bot: Any = make_bot("quick" if q == 0 else "greedy", game, 7 + q)
        bots.append(bot)
    bots[0].iterations = 12
    state = play_out(game, players, bots, seed=players)
    assert state.winners()
    assert bots[0].searches > 0
    # The cap holds: never more than 12 rollouts a search.
    assert 0 < bots[0].rollouts <= 12 * bots[0].searches


def test_quick_is_registered_for_both_games_only() -> None:
    assert isinstance(make_bot("quick", "elfenland", 1), ElfenlandQuickBot)
    assert isinstance(make_bot("quick", "king-of-the-elves", 1), KingOfTheElvesQuickBot)
    with pytest.raises(ElfenlandError):
        make_bot("quick", "elfengold", 1)
    state = elfenland.new_game("king-of-the-elves", players=2, seed=1)
    with pytest.raises(ElfenlandError):
        ElfenlandQuickBot(1).choose(state)


def test_quick_in_the_tournament_command(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    for game in GAMES:
        out = tmp_path / f"{game}.json"
        rc = main(["tournament", "--game", game, "--players", "3", "--bots",
                   "quick,search,greedy", "--games", "1", "--seed", "2",
                   "--search-iterations", "4", "--quiet", "--out", str(out)])
        assert rc == 0
        doc = json.loads(out.read_text())
        assert doc["summary"][0]["bot"] == "quick"
        assert len(doc["games"]) == 1 and doc["games"][0]["winners"]
    assert "quick" in capsys.readouterr().out


def greedy_until(game: str, players: int, seed: int, found: Callable[[Any], bool]) -> Any:
    """The first position of a game of greedy bots that ``found`` accepts."""
    state: Any = elfenland.new_game(game, players=players, seed=seed)
    greedy = [make_bot("greedy", game, q) for q in range(players)]
    while not found(state):
        assert not state.is_terminal()
        state.apply_action(greedy[state.current_player()].choose(state))
    return state


def placing_state() -> tuple[ElfenlandState, list[Any]]:
    """An Elfenland position where the quick searches (placement, several roots)."""
    bot = ElfenlandQuickBot(0).greedy
    state = greedy_until("elfenland", 4, 11, lambda s: s.phase is Phase.PLACE
                         and len(candidates(s, bot)) >= 3)
    assert isinstance(state, ElfenlandState)
    return state, candidates(state, bot)


def building_state() -> tuple[KingOfTheElvesState, list[Any]]:
    bot = KingOfTheElvesQuickBot(0)
    state = greedy_until("king-of-the-elves", 4, 5, lambda s: s.phase is KingPhase.BUILDING
                         and s.pending.name == "NONE"
                         and len(bot.candidates(s, s.legal_actions())) >= 3)
    assert isinstance(state, KingOfTheElvesState)
    return state, bot.candidates(state, state.legal_actions())


def ticking(bot: Any, clock: TickClock, method: str = "_rollout",
            starts: list[float] | None = None) -> list[float]:
    """Each rollout moves the clock one second; returns when rollouts started (added
    to ``starts`` if given: a bot with two kinds of rollout)."""
    if starts is None:
        starts = []
    inner: Callable[..., float] = getattr(bot, method)

    def rollout(*args: Any) -> float:
        starts.append(clock.now)
        clock.now += 1.0
        return inner(*args)

    setattr(bot, method, rollout)
    return starts


@pytest.mark.parametrize("game", GAMES)
def test_the_deadline_ends_a_decision_within_one_rollout(game: str) -> None:
    clock = TickClock()
    bot: Any = (ElfenlandQuickBot(3, seconds=7.0, clock=clock) if game == "elfenland"
                else KingOfTheElvesQuickBot(3, seconds=7.0, clock=clock))
    state, roots = placing_state() if game == "elfenland" else building_state()
    starts = ticking(bot, clock)
    if game == "elfenland":  # the compiled rollouts, where the extensions are built
        ticking(bot, clock, "_compiled_rollout", starts)
    bot.search(state, roots)
    # Rollouts start only before the deadline, and the decision ends by it.
    assert len(starts) == 7 and max(starts) < 7.0 and clock.now == 7.0
    assert bot.rollouts == 7


def test_todays_search_measures_on_the_clock_it_is_given() -> None:
    """Today's search bots take a clock too (a bench gives both levels CPU time); the
    old code read ``time.perf_counter`` whatever it was given."""
    clock = TickClock()
    state, roots = placing_state()
    el = ElfenlandSearchBot(3, iterations=10**6, seconds=len(roots) + 1.0)
    el.clock = clock
    starts = ticking(el, clock, "_iterate")
    el.search(state, roots)
    # It checks the deadline once per deal of all the roots: the second deal starts
    # one second before the deadline and runs all its rollouts past it.
    assert len(starts) == 2 * len(roots) and el.iterations_done == 2
    kstate, kroots = building_state()
    ke = KingOfTheElvesSearchBot(3, iterations=10**6, seconds=len(kroots) + 1.0)
    ke.clock = clock
    clock.now = 0.0
    kstarts = ticking(ke, clock, "rollout")
    ke.search(kstate, kroots)
    assert len(kstarts) == 2 * len(kroots)


def test_budget_always_allows_one_rollout_and_stops_at_the_cap() -> None:
    clock = TickClock()
    b = Budget(3, 0.0, clock)
    b.start()
    assert b.left()  # a decision needs one rollout even with no time at all
    b.spend()
    assert not b.left()
    b = Budget(3, 100.0, clock)
    b.start()
    for _ in range(3):
        assert b.left()
        b.spend()
    assert not b.left()


def fixed_deals(rewards: list[float], calls: list[int]) -> Callable[[], Rollouts]:
    """Deals whose rollout of root ``i`` always scores ``rewards[i]``; ``calls`` counts
    the rollouts of each root."""
    def deal() -> Rollouts:
        def rollout(i: int) -> float:
            calls[i] += 1
            return rewards[i]
        return rollout
    return deal


def test_the_shared_root_loop_keeps_the_greedy_choice_within_the_margin() -> None:
    loop = RootSearch(prune_after=4, prune=0.12, deviation=0.02)
    for rewards, chosen in (([0.5, 0.51, 0.4], 0), ([0.5, 0.53, 0.4], 1),
                            ([0.5, 0.6, 0.6], 1), ([0.5, 0.2, 0.1], 0)):
        budget = Budget(30, 1e9).start()
        assert loop.choose(3, budget, fixed_deals(rewards, [0, 0, 0])) == chosen
        assert budget.used == 30


def test_the_shared_root_loop_prunes_the_hopeless_but_never_the_greedy_choice() -> None:
    loop = RootSearch(prune_after=4, prune=0.12, deviation=0.02)
    calls = [0, 0, 0, 0]
    budget = Budget(40, 1e9).start()
    means = loop.means(4, budget, fixed_deals([0.1, 0.5, 0.45, 0.3], calls))
    # Four deals of all four roots (16 rollouts), then only the greedy choice (never
    # dropped) and the two within 0.12 of the best: 8 more deals of three.
    assert calls == [12, 12, 12, 4]
    assert means == pytest.approx([0.1, 0.5, 0.45, 0.3])


def noisy_deals(spread: float, lead: float) -> Callable[[], Rollouts]:
    """Deals on which root 1 scores ``lead`` more than root 0 on average, the deals
    alternating so that root 1's paired difference swings by ``spread`` around it."""
    count = [0]

    def deal() -> Rollouts:
        count[0] += 1
        swing = spread if count[0] % 2 else -spread
        return lambda i: 0.5 + (lead + swing if i == 1 else 0.0)
    return deal


def test_the_paired_rule_keeps_the_greedy_choice_when_the_lead_is_noise() -> None:
    """A lead of 0.05 (past the 0.02 margin) that swings by 0.3 from deal to deal is
    within two standard errors after 10 deals: with ``z`` the greedy choice stands;
    without, the margin alone leaves it.  The same lead on steady deals is taken."""
    for z, spread, chosen in ((0.0, 0.3, 1), (2.0, 0.3, 0), (2.0, 0.01, 1)):
        loop = RootSearch(prune_after=4, prune=1.0, deviation=0.02, z=z)
        budget = Budget(20, 1e9).start()
        assert loop.choose(2, budget, noisy_deals(spread, 0.05)) == chosen
    got = RootSearch(0.02).tally(2, Budget(20, 1e9).start(), noisy_deals(0.3, 0.05))
    assert got.paired == [0, 10]
    assert got.diffs[1] == pytest.approx(0.5)
    assert got.squares[1] == pytest.approx(5 * 0.35 ** 2 + 5 * 0.25 ** 2)


def test_the_root_loop_ends_once_the_greedy_choice_is_sure_to_stand() -> None:
    """``sure``: after ``prune_after`` deals a search ends once every other root falls
    short of the first plus ``deviation`` by ``sure`` standard errors of their paired
    difference; a root past the margin, or a deficit within the noise, runs to the cap."""
    loop = RootSearch(0.02, prune_after=4, sure=3.0)
    calls = [0, 0, 0]
    budget = Budget(60, 1e9).start()
    assert loop.choose(3, budget, fixed_deals([0.6, 0.4, 0.3], calls)) == 0
    assert calls == [4, 4, 4] and budget.used == 12
    budget = Budget(60, 1e9).start()
    assert loop.choose(2, budget, noisy_deals(0.01, -0.05)) == 0
    assert budget.used == 8  # steady: sure after four deals
    for n, deals, chosen in ((3, fixed_deals([0.5, 0.53, 0.4], [0, 0, 0]), 1),
                             (2, noisy_deals(0.3, -0.05), 0)):
        budget = Budget(60, 1e9).start()
        assert loop.choose(n, budget, deals) == chosen
        assert budget.used == 60
    never = RootSearch(0.02, prune_after=4)
    budget = Budget(60, 1e9).start()
    assert never.choose(3, budget, fixed_deals([0.6, 0.4, 0.3], [0, 0, 0])) == 0
    assert budget.used == 60  # ``sure`` 0: to the cap


def test_elfenland_quick_banks_what_its_searches_leave() -> None:
    """With ``bank``, the seconds a search leaves of its own budget are banked and a
    later search borrows up to ``bank`` times ``seconds`` of them (what it borrowed or
    overran is paid back); a new game starts with the bank at its ``credit``; without
    a bank, nothing is borrowed or banked."""
    clock = TickClock()
    bot = ElfenlandQuickBot(3, iterations=10**6, seconds=100.0, clock=clock)
    bot.bank = 3.0
    budget = bot.budget()
    assert budget.deadline == 100.0
    clock.now = 30.0
    bot._spent(budget)
    assert bot.banked == 70.0 and bot.searches == 1
    budget = bot.budget()
    assert budget.deadline == 30.0 + 170.0
    clock.now = 230.0  # 30 past its deadline
    bot._spent(budget)
    assert bot.banked == -30.0
    assert bot.budget().deadline == 330.0  # a debt lends nothing
    bot.banked = 1000.0
    assert bot.budget().deadline == 230.0 + 400.0  # at most three times its seconds
    state = elfenland.new_game("elfenland", players=2, seed=1)
    bot._length = 40
    bot.choose(state)
    assert bot.banked == 0.0 and bot._length == state.history_length()
    bot.credit, bot._length = 2.0, 40
    bot.choose(state)  # a new game: the bank starts at its credit
    assert bot.banked == 200.0
    bot.banked = 250.0
    bot.choose(state)  # the same game (its history no shorter): the bank stays
    assert bot.banked == 250.0
    fresh = ElfenlandQuickBot(3, iterations=10**6, seconds=100.0, clock=clock)
    fresh.credit = 1.0
    fresh.choose(state)  # its first decision: the credit
    assert fresh.banked == 100.0
    plain = ElfenlandQuickBot(3, iterations=10**6, seconds=100.0, clock=clock)
    plain.banked = 250.0
    assert plain.budget().deadline == clock.now + 100.0
    plain._spent(plain.budget())
    assert plain.banked == 250.0


def test_elfenland_memoised_plans_equal_fresh_ones() -> None:
    """One memo over many deals and rollout states: every wish is the planner's own
    for that state (the key holds everything the planner reads), and the journeys
    planned together on one board are the planner's, player by player."""
    state, _ = placing_state()
    plans = ElfenlandPlans()
    bot = ElfenlandQuickBot(4)
    me = state.current
    checked = 0
    for d in range(6):
        s = state.resample_from_infostate(me, Rng(d))
        while not s.is_terminal() and s.phase is not Phase.MOVE:
            every = plans.every(s)
            for q in range(s.n):
                got, fresh = every[q], plan_journey(s, q)
                assert got.key == fresh.key and got.steps == fresh.steps
                wish = plans.wish(s, q)
                assert wish.key == plan_journey(
                    s, q, wild_kinds=sorted(set(range(6)) & {
                        k for k in range(6) if s.counters_up[q][k] or s.counters_secret[q][k]
                        or s.kept_up[q][k] or s.kept_secret[q][k]}),
                    any_cards=False).key
                checked += 1
            s.apply_action(bot.greedy.choose(s))
    assert checked > 50


def test_kingelves_memoised_plans_equal_fresh_ones() -> None:
    state, roots = building_state()
    plans = KingPlans()
    bot = KingOfTheElvesQuickBot(4)
    me = state.current
    checked = 0
    for d in range(6):
        s = state.resample_from_infostate(me, Rng(d))
        s.apply_action(roots[d % len(roots)])
        steps = 0
        while s.phase is KingPhase.BUILDING and steps < 200:
            s.apply_action(bot.greedy.choose(s))
            steps += 1
        table = table_key(s)
        for q in range(s.n):
            got = plans.plan(s, q, table)
            fresh = plan_kingelves(s, q, budget=ROLLOUT_BUDGET)
            assert got.value == fresh.value and got.gold == fresh.gold
            checked += 1
    assert checked == 6 * state.n


@pytest.mark.parametrize("game", GAMES)
def test_quick_ignores_hidden_information(game: str) -> None:
    """Two states differing only in what the bot's seat cannot see (other hands, the
    piles, secret counters) get the same answer from bots of the same seed."""
    state: Any = placing_state()[0] if game == "elfenland" else building_state()[0]
    me = state.current
    other = state.resample_from_infostate(me, Rng(123))
    assert other.hands != state.hands
    seen, also = state.view(me), other.view(me)
    for doc in (seen, also):  # a resampled state starts a new log
        doc.pop("log", None)
        doc.pop("seq", None)
    assert seen == also
    answers = []
    for s in (state, other):
        bot: Any = make_bot("quick", game, 7)
        bot.iterations, bot.seconds = 40, 60.0
        answers.append(str(bot.choose(s)))
        assert bot.rollouts == 40
    assert answers[0] == answers[1]


def discarding_state() -> KingOfTheElvesState:
    """A King of the Elves position where the player to act discards ("draw 3, discard
    4") and has several kinds of card to choose from."""
    state = greedy_until("king-of-the-elves", 2, 40, lambda s: s.pending is Pending.DISCARD
                         and len(s.legal_actions()) >= 4)
    assert isinstance(state, KingOfTheElvesState)
    return state


def test_kingelves_quick_searches_its_discards() -> None:
    """The discards of "draw 3, discard 4" are searched like a building action, the
    greedy bot's card (the least worth) as the choice to beat; the old quick bot left
    them to the greedy bot's static card worths (no rollout)."""
    state = discarding_state()
    p = state.current
    bot = KingOfTheElvesQuickBot(5, iterations=60, seconds=60.0)
    bot.search_discards = True
    roots = bot.discards(state, state.legal_actions())
    allowed = [int(a.card) for a in state.legal_actions() if a.card is not None]
    assert roots[0].card == discard_choice(state, p, allowed)
    assert sorted(a.id for a in roots) == sorted(a.id for a in state.legal_actions())
    choice = bot.choose(state)
    assert choice in state.legal_actions()
    assert bot.searches == 1 and bot.rollouts == 60
    # Left to the greedy bot when switched off: no rollout.
    plain = KingOfTheElvesQuickBot(5, iterations=60, seconds=60.0)
    plain.search_discards = False
    assert plain.choose(state) == roots[0] and plain.rollouts == 0


def drawing_state() -> ElfenlandState:
    """An Elfenland position where the player to act draws a transport counter."""
    state = greedy_until("elfenland", 2, 41, lambda s: s.phase is Phase.DRAW_COUNTERS
                         and len(s.legal_actions()) >= 3)
    assert isinstance(state, ElfenlandState)
    return state


def test_elfenland_quick_searches_its_draws() -> None:
    """The counters drawn are searched (rollouts through the rest of the draws and the
    placement phase), the greedy bot's draw as the choice to beat; the old quick bot
    drew as the greedy bot does (no rollout)."""
    state = drawing_state()
    bot = ElfenlandQuickBot(5, iterations=30, seconds=60.0)
    bot.search_draws = True
    roots = bot.draws(state, state.legal_actions())
    assert roots[0] == bot.greedy.draw(state, state.legal_actions())
    assert sorted(a.id for a in roots) == sorted(a.id for a in state.legal_actions())
    choice = bot.choose(state)
    assert choice in state.legal_actions()
    assert bot.searches == 1 and bot.rollouts == 30
    plain = ElfenlandQuickBot(5, iterations=30, seconds=60.0)
    plain.search_draws = False
    assert plain.choose(state) == roots[0] and plain.rollouts == 0


def test_elfenland_quick_searches_the_last_rounds_draws_only_with_two() -> None:
    """``search_draws=2`` searches the counters drawn in the last round alone (where
    the move phase the rollouts reach decides the game): a draw of an earlier round
    is the greedy bot's, the same draw made the last round's is searched."""
    state = drawing_state()
    assert state.round < state.rules.rounds
    bot = ElfenlandQuickBot(5, iterations=30, seconds=60.0)
    bot.search_draws = 2
    assert bot.choose(state) == bot.greedy.draw(state, state.legal_actions())
    assert bot.searches == 0 and bot.rollouts == 0
    last = state.clone()
    last.round = last.rules.rounds
    assert bot.choose(last) in last.legal_actions()
    assert bot.searches == 1 and bot.rollouts == 30


def test_kingelves_kept_cards_setting_counts_town_and_action_cards() -> None:
    """``kept_other`` (a screening setting, off by default) counts the town and
    building action cards a player still holds at the end of a rollout, as journey
    cards are counted: more such cards in the bot's hand, a higher reward; off, the
    reward is the old one."""
    state, _ = building_state()
    me = state.current
    s = state.clone()
    hands = [list(h) for h in s.hands]
    hands[me][int(Card.GOLD)] += 3
    hands[me][int(Card.LAKE)] += 1
    s.hands = hands
    assert s.round < s.rounds
    base = round_outcome(s, me, KingPlans())
    assert round_outcome(s, me, KingPlans(), kept_other=0.0) == base
    assert round_outcome(s, me, KingPlans(), kept_other=1.0) > base


def test_kingelves_kept_harm_counts_gold_and_harm_cards_before_the_last_round() -> None:
    """``kept_harm=w`` (a screening setting, off by default) adds ``w`` gold for each
    gold, thief, tree and sea monster card a player holds at the end of a rollout
    before the last round, and nothing for its town cards; in the last round it counts
    nothing (no round is left to play them in)."""
    state, _ = building_state()
    me = state.current
    s = state.clone()
    assert s.round < s.rounds
    base = round_outcome(s, me, KingPlans())
    assert round_outcome(s, me, KingPlans(), kept_harm=0.0) == base
    hands = [list(h) for h in s.hands]
    hands[me][int(Card.THIEF)] += 2
    s.hands = hands
    with_thieves = round_outcome(s, me, KingPlans())
    assert round_outcome(s, me, KingPlans(), kept_harm=1.0) > with_thieves
    towns = s.clone()
    hands = [list(h) for h in towns.hands]
    hands[me][int(Card.LAKE)] += 2
    towns.hands = hands
    assert (round_outcome(towns, me, KingPlans(), kept_harm=1.0)
            - round_outcome(towns, me, KingPlans())) == pytest.approx(
        round_outcome(s, me, KingPlans(), kept_harm=1.0) - with_thieves)
    last = s.clone()
    last.round = last.rounds
    assert round_outcome(last, me, KingPlans(), kept_harm=1.0) == round_outcome(
        last, me, KingPlans())


def taking_state() -> KingOfTheElvesState:
    """A King of the Elves position where the player to act takes a town card after
    "no town card", with several to choose from."""
    state = greedy_until("king-of-the-elves", 2, 40, lambda s: s.pending is Pending.TAKE
                         and len(s.legal_actions()) >= 3)
    assert isinstance(state, KingOfTheElvesState)
    return state


def test_kingelves_quick_searches_the_town_card_it_takes() -> None:
    """The town card taken after "no town card" is searched (rollouts through the
    discard and the rest of building to the journeys), the greedy bot's town (the best
    journey from the castle) as the choice to beat; the old quick bot took the greedy
    bot's town (no rollout)."""
    state = taking_state()
    legal = state.legal_actions()
    bot = KingOfTheElvesQuickBot(5, iterations=50, seconds=60.0)
    roots = bot.takes(state, legal)
    assert roots[0] == bot.greedy.take(state, legal)
    assert sorted(a.id for a in roots) == sorted(a.id for a in legal)
    choice = bot.choose(state)
    assert choice in legal
    assert bot.searches == 1 and bot.rollouts == 50
    plain = KingOfTheElvesQuickBot(5, iterations=50, seconds=60.0)
    plain.search_take = False
    assert plain.choose(state) == roots[0] and plain.rollouts == 0


def test_kingelves_clear_stop_and_bank_settings() -> None:
    """``stop_clear`` and ``bank`` (screening settings, off by default): a search
    whose leader is clearly ahead stops after the first deals, and the CPU it leaves
    lengthens a later decision's budget by at most ``bank`` times ``seconds``."""
    clock = TickClock()
    bot = KingOfTheElvesQuickBot(3, iterations=10**6, seconds=100.0, clock=clock)
    bot.stop_clear, bot.bank = 0.12, 1.0
    budget = bot.budget()
    assert budget.deadline == 100.0
    calls = [0, 0, 0]
    assert bot.loop.choose(3, budget, fixed_deals([0.6, 0.4, 0.3], calls), bot.stop_clear) == 0
    assert calls == [4, 4, 4]  # four deals, then clear
    close = [0, 0, 0]
    budget = Budget(60, 1e9).start()
    assert bot.loop.choose(3, budget, fixed_deals([0.5, 0.45, 0.1], close), bot.stop_clear) == 0
    assert budget.used == 60  # never clear: to the cap
    bot.banked = 250.0
    assert bot.budget().deadline == 200.0 and bot.banked == 150.0
    plain = KingOfTheElvesQuickBot(3, seconds=100.0, clock=clock)
    plain.banked = 250.0
    assert plain.budget().deadline == 100.0


def test_both_quick_levels_try_every_root_on_every_deal() -> None:
    """Neither level drops a root: with about 30 deals a root in a King of the Elves
    decision, dropping one 0.12 below the best after 4 deals lost 3.9 points head to
    head (session 33); Elfenland had found the same.  ``prune`` stays a setting."""
    for bot in (KingOfTheElvesQuickBot(3), ElfenlandQuickBot(3)):
        calls = [0, 0, 0]
        budget = Budget(60, 1e9).start()
        assert bot.loop.choose(3, budget, fixed_deals([0.9, 0.2, 0.1], calls)) == 0
        assert calls == [20, 20, 20]
    before = KingOfTheElvesQuickBot(3)
    before.loop.prune = 0.12  # ``--set prune=0.12``: the level until session 33
    calls = [0, 0, 0]
    before.loop.choose(3, Budget(60, 1e9).start(), fixed_deals([0.9, 0.2, 0.1], calls))
    assert calls == [52, 4, 4]


def test_kingelves_scale_left_and_keep_scale_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two screening settings, off by default: ``scale_left`` widens the margin's scale
    in rounds before the last (a reward nearer 0.5 for the same margin), and
    ``keep_scale`` plans a journey before the last round with the greedy bot's worths
    of kept cards scaled."""
    state, _ = building_state()
    me = state.current
    assert state.round < state.rounds
    s = state.clone()
    gold = list(s.gold)
    gold[me] += 10
    s.gold = gold
    sure = round_outcome(s, me, KingPlans())
    assert round_outcome(s, me, KingPlans(), scale_left=0.0) == sure
    assert 0.5 < round_outcome(s, me, KingPlans(), scale_left=1.0) < sure

    import elfenland.bots.kingelves_quick as quick_module
    journey = greedy_until("king-of-the-elves", 2, 3, lambda s: s.phase is KingPhase.JOURNEY
                           and len(s.legal_actions()) >= 2)
    assert isinstance(journey, KingOfTheElvesState)
    assert journey.round < journey.rounds
    seen: list[tuple[int, ...]] = []
    real = quick_module.plan_journey

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(tuple(kwargs["values"]))
        return real(*args, **kwargs)
    monkeypatch.setattr(quick_module, "plan_journey", spy)
    bot = KingOfTheElvesQuickBot(1)
    bot.keep_scale = 0.5
    assert bot.choose(journey) in journey.legal_actions()
    assert seen == [tuple(round(v / 2) for v in quick_module.KEEP_VALUES)]


def test_kingelves_final_scale_sharpens_the_last_round_only() -> None:
    """``final_scale`` (a screening setting, 1 by default) narrows the margin's scale in
    the last round, where the planned journeys end the game: the same lead gives a
    reward nearer 1 there, and leaves a round before the last unchanged."""
    last = greedy_until("king-of-the-elves", 2, 7, lambda s: s.phase is KingPhase.BUILDING
                        and s.round == s.rounds and s.pending is Pending.NONE)
    assert isinstance(last, KingOfTheElvesState)
    me = last.current
    s = last.clone()
    gold = list(s.gold)
    gold[me] += 30
    s.gold = gold
    plain = round_outcome(s, me, KingPlans())
    assert round_outcome(s, me, KingPlans(), final_scale=1.0) == plain
    assert plain < round_outcome(s, me, KingPlans(), final_scale=0.25) <= 1.0
    early, _ = building_state()
    assert early.round < early.rounds
    assert round_outcome(early, early.current, KingPlans(), final_scale=0.25) \
        == round_outcome(early, early.current, KingPlans())


def test_kingelves_rollouts_buy_as_the_greedy_bot_would() -> None:
    """``rollout_buy`` (a screening setting, off by default): the rollout policy buys
    the deck's top card where the greedy bot's rank would rather buy than pass (the
    search bots buy in a sixth of their building decisions; the old rollouts passed)."""
    from elfenland.bots.kingelves_greedy import THRESHOLD, KingOfTheElvesGreedyBot
    from elfenland.bots.kingelves_quick import BUY_ID, PASS_ID, Policy, fast_policy, worth_buying
    from elfenland.games.kingelves.rules import BUY_PRICES

    greedy = KingOfTheElvesGreedyBot(0)

    def buying(s: KingOfTheElvesState) -> bool:
        if s.phase is not KingPhase.BUILDING or s.pending is not Pending.NONE \
                or BUY_ID not in s.legal_action_ids():
            return False
        p = s.current
        agree = worth_buying(s, p) == \
            (greedy.buy_worth(s, p) - BUY_PRICES[s.bought[p]] > THRESHOLD)
        assert agree
        return worth_buying(s, p) and fast_policy(s, random.Random(1)) == PASS_ID

    state = greedy_until("king-of-the-elves", 2, 11, buying)
    assert fast_policy(state, random.Random(1), Policy(buy=True)) == BUY_ID
    assert fast_policy(state, random.Random(1), Policy(buy=False)) == PASS_ID


def test_kingelves_rival_mean_weighs_the_rivals_mean_before_the_last_round() -> None:
    """``rival_mean`` (a screening setting, 0 by default): in a round before the last,
    the margin is taken against the rivals' mean gold rather than the best rival's, so
    a rival far ahead of the others costs less reward; 0 gives the old reward."""
    state, _ = building_state()
    me = state.current
    assert state.round < state.rounds and state.n == 4
    s = state.clone()
    gold = list(s.gold)
    gold[(me + 1) % 4] += 20
    s.gold = gold
    plain = round_outcome(s, me, KingPlans())
    assert round_outcome(s, me, KingPlans(), rival_mean=0.0) == plain
    assert round_outcome(s, me, KingPlans(), rival_mean=1.0) > plain


def test_kingelves_harm_leader_sends_the_rollouts_thief_to_the_richest() -> None:
    """``harm_leader`` (a screening setting, off by default): the rollout policy's
    thieves and obstacles go to the richest rival with a town, not a rival at random."""
    from elfenland.bots.kingelves_quick import HARM, Policy, fast_policy
    from elfenland.games.kingelves.actions import Action, from_id

    def targets(s: KingOfTheElvesState) -> list[int]:
        """The rivals the policy's harm card may go to (their first town)."""
        card = next(c for c in HARM if s.hands[s.current][c])
        ids = s.legal_action_ids()
        return [q for q in range(s.n) if q != s.current
                and Action.place(card, q, 0).id in ids]

    def harming(s: KingOfTheElvesState) -> bool:
        if s.phase is not KingPhase.BUILDING or s.pending is not Pending.NONE:
            return False
        action = from_id(fast_policy(s, random.Random(0)))
        return action.card in HARM and len(targets(s)) >= 2
    state = greedy_until("king-of-the-elves", 4, 2, harming)
    chosen = from_id(fast_policy(state, random.Random(0))).kingdom
    rich = next(q for q in targets(state) if q != chosen)
    gold = list(state.gold)
    gold[rich] = max(gold) + 10
    state.gold = gold
    hits = {from_id(fast_policy(state, random.Random(seed), Policy(harm_leader=True))).kingdom
            for seed in range(12)}
    assert hits == {rich}
    spread = {from_id(fast_policy(state, random.Random(seed))).kingdom for seed in range(12)}
    assert len(spread) >= 2


def test_kingelves_eval_keep_plans_rollout_journeys_as_the_bots_travel(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``eval_keep`` (a screening setting, off by default): in a round before the last,
    the rollouts' journeys are planned with the kept cards' worths (``KEEP_VALUES``,
    as the bots travel), not for the most gold (the old plans, ``values=None``)."""
    import elfenland.bots.kingelves_quick as quick_module
    state, roots = building_state()
    assert state.round < state.rounds
    real = quick_module.plan_journey
    for keep, expected in ((False, None), (True, tuple(quick_module.KEEP_VALUES))):
        seen: set[object] = set()

        def spy(*args: Any, seen: set[object] = seen, **kwargs: Any) -> Any:
            values = kwargs.get("values")
            seen.add(None if values is None else tuple(values))
            return real(*args, **kwargs)
        monkeypatch.setattr(quick_module, "plan_journey", spy)
        bot = KingOfTheElvesQuickBot(4, iterations=6, seconds=60.0)
        bot.eval_keep = keep
        assert bot.search(state, roots) in roots
        assert seen == {expected}


def test_kingelves_card_roots_adds_buying_and_drawing_as_roots() -> None:
    """``card_roots`` (a screening setting, off by default): buying and drawing are
    roots whenever legal, after the greedy bot's best and pass; off, the roots are the
    old ones (the greedy bot's best ``width`` and pass)."""
    from elfenland.games.kingelves.actions import Action, Kind
    cards = {Action.simple(Kind.BUY), Action.simple(Kind.DRAW)}

    def missing(s: KingOfTheElvesState) -> set[Any]:
        legal = s.legal_actions()
        return cards & set(legal) - set(KingOfTheElvesQuickBot(1).candidates(s, legal))

    state = greedy_until("king-of-the-elves", 2, 3, lambda s: s.phase is KingPhase.BUILDING
                         and s.pending is Pending.NONE and bool(missing(s)))
    legal = state.legal_actions()
    plain = KingOfTheElvesQuickBot(1).candidates(state, legal)
    wider = KingOfTheElvesQuickBot(1)
    wider.card_roots = True
    wide = wider.candidates(state, legal)
    assert wide[:len(plain)] == plain
    assert set(wide[len(plain):]) == missing(state) != set()


def test_kingelves_town_rate_sets_how_often_rollouts_add_a_town() -> None:
    """``town_rate`` (a screening setting, 0.5 as before by default): the rate at which
    the rollout policy plays a town into its own kingdom once it has one: at 0 never
    (it passes or does something else), at 1 always."""
    from elfenland.bots.kingelves_quick import Policy, fast_policy
    from elfenland.games.kingelves.actions import Kind, from_id

    def own_town(s: KingOfTheElvesState, rate: float, seed: int) -> bool:
        a = from_id(fast_policy(s, random.Random(seed), Policy(town_rate=rate)))
        return a.kind is Kind.PLAY and a.kingdom == s.current

    def adding(s: KingOfTheElvesState) -> bool:
        return s.phase is KingPhase.BUILDING and s.pending is Pending.NONE \
            and bool(s.kingdoms[s.current]) and own_town(s, 1.0, 0)
    state = greedy_until("king-of-the-elves", 2, 5, adding)
    assert all(own_town(state, 1.0, seed) for seed in range(20))
    assert not any(own_town(state, 0.0, seed) for seed in range(20))
    assert 0 < sum(own_town(state, 0.5, seed) for seed in range(20)) < 20


def test_kingelves_rounds_ahead_plays_rollouts_on_into_the_next_round() -> None:
    """``rounds_ahead`` (a screening setting, off by default): a rollout from a round
    before the last plays that round's journeys, the next round's deal and building,
    and is evaluated where the next round's building ends; off, where this round's
    building ends.  ``play_on`` plays the planned journeys legally to the game's end,
    and whole games with the setting stay legal."""
    from elfenland.bots.kingelves_quick import play_on
    state, roots = building_state()
    start = state.round
    assert start < state.rounds
    for ahead, expected in ((0, start), (1, start + 1)):
        bot = KingOfTheElvesQuickBot(4, iterations=4, seconds=60.0)
        bot.rounds_ahead = ahead
        seen: list[tuple[int, Any]] = []
        real = bot._rollout

        def spy(s: KingOfTheElvesState, *args: Any, real: Any = real,
                seen: list[tuple[int, Any]] = seen, **kwargs: Any) -> float:
            reward = real(s, *args, **kwargs)
            seen.append((s.round, s.phase))
            return float(reward)
        bot._rollout = spy  # type: ignore[method-assign]
        assert bot.search(state, roots) in roots
        assert seen and set(seen) == {(expected, KingPhase.JOURNEY)}
    sim = state.clone()
    greedy = make_bot("greedy", "king-of-the-elves", 2)
    while sim.phase is KingPhase.BUILDING:
        sim.apply_action(greedy.choose(sim))
    gold = list(sim.gold)
    play_on(sim, random.Random(1), sim.rounds + 1, (KingPlans(), KingPlans()))
    assert sim.is_terminal() and sim.gold != gold
    bots = [KingOfTheElvesQuickBot(q, iterations=8, seconds=60.0) for q in range(2)]
    for b in bots:
        b.rounds_ahead = 1
    assert play_out("king-of-the-elves", 2, bots, 3).is_terminal()


@pytest.mark.parametrize(("players", "width"), [(2, 3), (4, 4)])
def test_kingelves_roots_are_the_greedy_bots_best_width_by_players(players: int,
                                                                   width: int) -> None:
    """Two players search the greedy bot's best 3 building actions (session 34), more
    players ``search``'s 4; pass is a root whenever it is legal, and ``width`` stays a
    setting."""
    bot = KingOfTheElvesQuickBot(0)
    state = greedy_until("king-of-the-elves", players, 5,
                         lambda s: s.phase is KingPhase.BUILDING
                         and s.pending.name == "NONE"
                         and len(s.legal_actions()) >= 8)
    assert isinstance(state, KingOfTheElvesState)
    legal = state.legal_actions()
    # The greedy ranking draws on its bot's rng: the same seed, the same ranking.
    ranked = [a for _, a in KingOfTheElvesQuickBot(0).greedy.rank(state, legal)]
    roots = bot.candidates(state, legal)
    assert roots[:width] == ranked[:width]
    assert {a.kind.name for a in roots[width:]} <= {"PASS"}
    assert (any(a.kind.name == "PASS" for a in roots)
            == any(a.kind.name == "PASS" for a in legal))
    assert len(ranked) > width + 1  # the ranking went on: the width cut it
    assert ranked[width] not in roots or ranked[width].kind.name == "PASS"
    wider = KingOfTheElvesQuickBot(0)
    wider.width = 5
    assert wider.candidates(state, legal)[:5] == ranked[:5]


def test_kingelves_roots_may_be_ranked_over_several_deals() -> None:
    """``rank_deals``: the greedy bot's scores averaged over as many deals of the hidden
    cards, one deal drawn after another from its rng; one deal is the ranking as before,
    and the quick level's roots are the averaged ranking's best."""
    state = greedy_until("king-of-the-elves", 2, 5,
                         lambda s: s.phase is KingPhase.BUILDING
                         and s.pending.name == "NONE"
                         and len(s.legal_actions()) >= 8)
    assert isinstance(state, KingOfTheElvesState)
    legal = state.legal_actions()
    one = KingOfTheElvesQuickBot(0).greedy
    assert one.rank(state, legal, 1) == KingOfTheElvesQuickBot(0).greedy._rank(state, legal)
    # Four deals: each action's score is the mean of four single-deal scores drawn in turn.
    averaged = KingOfTheElvesQuickBot(0).greedy.rank(state, legal, 4)
    single = KingOfTheElvesQuickBot(0).greedy
    totals: dict[object, float] = {}
    for _ in range(4):
        for score, a in single._rank(state, legal):
            totals[a] = totals.get(a, 0.0) + score
    assert [a for _, a in averaged] == sorted(
        totals, key=lambda a: (-totals[a], a.id))  # type: ignore[attr-defined]
    for score, a in averaged:
        assert score == pytest.approx(totals[a] / 4)
    scores = [score for score, _ in averaged]
    assert scores == sorted(scores, reverse=True)
    # The deals differ, so the average is not one deal's ranking with its scores.
    assert [s for s, _ in averaged] != [s for s, _ in one.rank(state, legal)]
    bot = KingOfTheElvesQuickBot(0)
    bot.rank_deals = 4
    roots = bot.candidates(state, legal)
    assert roots[:3] == [a for _, a in averaged[:3]]


def test_kingelves_block_rate_plays_an_unusable_town_into_a_rival_kingdom() -> None:
    """``block_rate`` (a screening setting, off by default): the rollout policy plays a
    town card its own kingdom cannot use into a rival's kingdom whose owner's hand
    cannot reach that terrain, so the rival's journey ends there; off, the rollouts
    never play into a rival's kingdom."""
    from elfenland.bots.kingelves_quick import Policy, _block, fast_policy
    from elfenland.bots.kingelves_search import reachable
    from elfenland.games.kingelves.actions import Kind, from_id
    from elfenland.games.kingelves.cards import Card

    def blocking(s: KingOfTheElvesState) -> bool:
        if s.phase is not KingPhase.BUILDING or s.pending is not Pending.NONE:
            return False
        a = from_id(fast_policy(s, random.Random(0), Policy(town_rate=0.0, block_rate=1.0)))
        return a.kind is Kind.PLAY and a.kingdom != s.current

    state = greedy_until("king-of-the-elves", 2, 3, blocking)
    p = state.current
    a = from_id(fast_policy(state, random.Random(0), Policy(town_rate=0.0, block_rate=1.0)))
    assert a.kingdom is not None and a.card is not None
    q = a.kingdom
    assert not reachable(state.hands[q], int(a.card))  # the rival cannot travel there
    assert state.hands[p][a.card] > 0
    assert len(state.kingdoms[p]) >= 3 or not reachable(state.hands[p], int(a.card))
    assert a.id == _block(state, p, state.hands[p], set(state.legal_action_ids()),
                          state.kingdoms[p])
    for seed in range(20):
        b = from_id(fast_policy(state, random.Random(seed), Policy(town_rate=0.0)))
        assert not (b.kind is Kind.PLAY and b.kingdom != p)
    # A rival's hand that reaches every terrain cannot be blocked.
    everything = state.clone()
    hands = [list(h) for h in everything.hands]
    for c in range(Card.GIANT_PIG, Card.RAFT + 1):  # a full hand of each transport card
        hands[q][c] = 3
    everything.hands = hands
    assert _block(everything, p, everything.hands[p],
                  set(everything.legal_action_ids()), everything.kingdoms[p]) is None


def test_kingelves_unblock_removes_an_own_town_the_hand_cannot_reach() -> None:
    """``unblock`` (a screening setting, off by default): the rollout policy first
    removes the first town of its own kingdom its hand cannot reach, when another town
    stays or can be played."""
    from elfenland.bots.kingelves_quick import Policy, fast_policy
    from elfenland.games.kingelves.actions import Kind, from_id
    from elfenland.games.kingelves.cards import Card

    state = greedy_until("king-of-the-elves", 2, 5,
                         lambda s: s.phase is KingPhase.BUILDING
                         and s.pending is Pending.NONE
                         and len(s.kingdoms[s.current]) >= 2
                         and s.gold[s.current] >= 4)
    p = state.current
    stranded = state.clone()
    hands = [list(h) for h in stranded.hands]
    for c in range(Card.GIANT_PIG, Card.RAFT + 1):  # no transport card: nothing reachable
        hands[p][c] = 0
    stranded.hands = hands
    a = from_id(fast_policy(stranded, random.Random(0), Policy(unblock=True)))
    assert a.kind is Kind.REMOVE and a.town == 0
    b = from_id(fast_policy(stranded, random.Random(0)))
    assert b.kind is not Kind.REMOVE
    # With every terrain reachable, nothing is removed.
    hands = [list(h) for h in stranded.hands]
    for c in range(Card.GIANT_PIG, Card.RAFT + 1):
        hands[p][c] = 3
    stranded.hands = hands
    kept = from_id(fast_policy(stranded, random.Random(0), Policy(unblock=True)))
    assert kept.kind is not Kind.REMOVE
