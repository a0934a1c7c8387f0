"""The Elfenland quick level's evaluation at the rollout horizon (issue #25): the last
round counted as the engine ranks it (``exact``), and before it the towns ``outlook``
reaches from a journey's end in the rounds left (``horizon``)."""

from __future__ import annotations

import math
import random
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_quick import (
    ElfenlandQuickBot,
    Scoring,
    _Plans,
    _Policy,
    evaluate,
)
from elfenland.bots.elfenland_search import MARGIN_SCALE
from elfenland.bots.outlook import journey_outlook, outlook
from elfenland.games.elfenland.state import ElfenlandState, Phase


def move_starts(players: int, seeds: range, rounds: range) -> list[ElfenlandState]:
    """Positions where a round's move phase starts, met in games of greedy bots."""
    out: list[ElfenlandState] = []
    for seed in seeds:
        state: Any = elfenland.new_game("elfenland", players=players, seed=seed)
        greedy = [make_bot("greedy", "elfenland", q) for q in range(players)]
        taken: set[int] = set()
        while not state.is_terminal():
            if state.phase is Phase.MOVE and state.round not in taken:
                taken.add(state.round)
                if state.round in rounds:
                    out.append(state.clone())
            state.apply_action(greedy[state.current_player()].choose(state))
    return out


def test_the_last_round_is_scored_as_the_engine_ranks_it() -> None:
    """With ``exact=1`` the last round's evaluation is the game's outcome when every
    player makes the journey planned (the rollout policy's move), ties of towns broken
    by the cards kept after the discard; the search bot's margin (``exact=0``, the
    level as it was) gives neither 0 nor 1 on a tie of towns, and rewards a win by one
    town less than the game does."""
    tied = decided = 0
    for s in move_starts(2, range(1, 25), range(4, 5)):
        for me in range(s.n):
            plans = _Plans()
            exact = evaluate(s, me, plans, Scoring(exact=1.0))
            margin = evaluate(s, me, plans)
            sim = s.clone()
            policy = _Policy(plans, ElfenlandQuickBot(0).greedy, sim, {})
            rng = random.Random(0)
            while not sim.is_terminal():
                sim.apply_action(policy.choose(sim, rng))
            won = sim.winners()
            assert exact == (1 / len(won) if me in won else 0.0)
            towns = [s.markers(q) + j.new_towns for q, j in enumerate(plans.every(s))]
            if towns[0] == towns[1] and len(won) == 1:
                tied += 1
                assert 0.0 < margin < 1.0 and exact in (0.0, 1.0)
            elif len(won) == 1:
                decided += 1
                assert margin not in (0.0, 1.0)
    assert tied >= 2 and decided >= 10


def test_level_on_towns_the_cards_kept_decide() -> None:
    """With ``tie_cards=w``, in the last round a player level on towns with the best
    rival gains ``w`` of margin for each card it keeps (after the discard to the hand
    limit) more than that rival, so the reward leans to the game's winner on the
    tie-break; with a margin in towns, and before the last round, it is the margin."""
    tied = 0
    for s in move_starts(2, range(1, 40), range(3, 5)):
        for me in range(s.n):
            plans = _Plans()
            base = evaluate(s, me, plans)
            scored = evaluate(s, me, plans, Scoring(tie_cards=0.25))
            journeys = plans.every(s)
            towns = [s.markers(q) + j.new_towns for q, j in enumerate(journeys)]
            kept = [min(sum(j.hand), s.rules.hand_limit) for j in journeys]
            if s.round < s.rules.rounds or towns[0] != towns[1]:
                assert scored == base
                continue
            margin = -math.log(1 / base - 1) * MARGIN_SCALE / 4
            expected = margin + 0.25 * (kept[me] - kept[1 - me])
            assert math.isclose(scored, 1 / (1 + math.exp(-expected / MARGIN_SCALE * 4)),
                                rel_tol=1e-9)
            if kept[0] != kept[1]:
                tied += 1
                outcome = evaluate(s, me, plans, Scoring(exact=1.0))
                assert (scored > 0.5) == (outcome == 1.0)
    assert tied >= 3


def test_half_exact_mixes_the_outcome_and_the_margin() -> None:
    s = move_starts(2, range(1, 3), range(4, 5))[0]
    plans = _Plans()
    both = [evaluate(s, 0, plans, Scoring(exact=w)) for w in (0.0, 0.5, 1.0)]
    assert math.isclose(both[1], (both[0] + both[2]) / 2)


def test_before_the_last_round_the_towns_within_reach_count() -> None:
    """With ``horizon=h`` before the last round, each player's value gains ``h`` for
    every town ``outlook`` reaches from the end of their journey in the rounds left:
    the margin changes by ``h`` times the difference; with ``horizon=0`` (the level as
    it was) the evaluation ignores where a journey ends."""
    changed = 0
    for s in move_starts(2, range(1, 12), range(1, 4)):
        plans = _Plans()
        journeys = plans.every(s)
        reached = [journey_outlook(s, q, j)[0] for q, j in enumerate(journeys)]
        base = evaluate(s, 0, plans)
        ahead = evaluate(s, 0, plans, Scoring(horizon=0.5))
        margin = -math.log(1 / base - 1) * MARGIN_SCALE / 4
        expected = margin + 0.5 * (reached[0] - reached[1])
        assert math.isclose(ahead, 1 / (1 + math.exp(-expected / MARGIN_SCALE * 4)),
                            rel_tol=1e-9, abs_tol=1e-12)
        changed += reached[0] != reached[1]
    assert changed >= 5


def test_before_the_last_round_the_obstacle_and_the_cards_kept_count() -> None:
    """With ``obstacle=w`` before the last round a player still holding its obstacle
    gains ``w``, and with ``cards=c`` ``c`` for each travel card it keeps after its
    journey (to the hand limit): the margin moves by the difference with the best
    rival; in the last round neither counts (nothing is left to use them on)."""
    moved = 0
    for s in move_starts(2, range(1, 14), range(1, 5)):
        for held in ((True, False), (False, True), (True, True)):
            s.obstacle_in_hand = list(held)  # the compiled state: set, not slice
            plans = _Plans()
            base = evaluate(s, 0, plans)
            scored = evaluate(s, 0, plans, Scoring(obstacle=0.5, cards=0.125))
            if s.round >= s.rules.rounds:
                assert scored == base
                continue
            kept = [min(sum(j.hand), s.rules.hand_limit) for j in plans.every(s)]
            margin = -math.log(1 / base - 1) * MARGIN_SCALE / 4
            expected = margin + 0.5 * (held[0] - held[1]) + 0.125 * (kept[0] - kept[1])
            assert math.isclose(scored, 1 / (1 + math.exp(-expected / MARGIN_SCALE * 4)),
                                rel_tol=1e-9, abs_tol=1e-12)
            moved += scored != base
    assert moved >= 10


def test_before_the_last_round_a_counter_held_to_keep_counts() -> None:
    """With ``counter=w`` before the last round a player holding transportation
    counters when the move phase starts gains ``w`` for each it may keep for the next
    round (one, by the rules): the margin moves by the difference with the best
    rival; in the last round nothing is kept, and it does not count."""
    moved = 0
    for s in move_starts(2, range(1, 14), range(1, 5)):
        for held in ((0, 0), (1, 0), (0, 2), (3, 1)):
            s.counters_up = [[h, 0, 0, 0, 0, 0] for h in held]  # compiled: set whole
            plans = _Plans()
            base = evaluate(s, 0, plans)
            scored = evaluate(s, 0, plans, Scoring(counter=0.25))
            if s.round >= s.rules.rounds:
                assert scored == base
                continue
            kept = [min(h + sum(s.counters_secret[q]), s.rules.counters_kept)
                    for q, h in enumerate(held)]
            margin = -math.log(1 / base - 1) * MARGIN_SCALE / 4
            expected = margin + 0.25 * (kept[0] - kept[1])
            assert math.isclose(scored, 1 / (1 + math.exp(-expected / MARGIN_SCALE * 4)),
                                rel_tol=1e-9, abs_tol=1e-12)
            moved += scored != base
    assert moved >= 10


def scorings(monkeypatch: Any, players: int, **settings: Any) -> set[Scoring]:
    """The ``Scoring`` every rollout of a quick bot with these settings is evaluated
    with, at its first placement decision with a choice in a game of ``players``."""
    import elfenland.bots.elfenland_quick as quick

    seen: list[Scoring] = []

    def spy(s: ElfenlandState, me: int, plans: _Plans, scoring: Scoring) -> float:
        seen.append(scoring)
        return evaluate(s, me, plans, scoring)

    monkeypatch.setattr(quick, "evaluate", spy)
    bot = ElfenlandQuickBot(1, iterations=30, seconds=10.0)
    # by players unless set
    assert bot.exact is None and bot.horizon is None and bot.obstacle is None
    assert bot.counter is None
    for name, value in settings.items():
        setattr(bot, name, value)
    bot.compiled = False  # the Python evaluation (test_quick_rollout: the C one equals it)
    state: Any = elfenland.new_game("elfenland", players=players, seed=5)
    while not (state.phase is Phase.PLACE and len(state.legal_actions()) > 2):
        state.apply_action(bot.greedy.choose(state))
    bot.choose(state)
    assert seen
    return set(seen)


def test_the_bot_evaluates_with_its_settings(monkeypatch: Any) -> None:
    """The bot's evaluation settings (``exact``, ``horizon``, ``calibrated``,
    ``learned``, ``every_rival``, ``tie_cards``, ``obstacle``, ``cards``, ``counter``,
    ``margin_scale``, ``horizon_late``) reach every evaluation of its rollouts."""
    assert scorings(monkeypatch, 2, exact=0.75, horizon=0.25, calibrated=True, learned=True,
                    every_rival=True, tie_cards=0.125, obstacle=0.5, cards=0.0625,
                    counter=0.375, margin_scale=2.5, horizon_late=0.125) == {
        Scoring(0.0, 0.75, 0.25, True, True, True, 0.125, 0.5, 0.0625, 0.375, 2.5, 0.125)}
    assert {x.scale for x in scorings(monkeypatch, 2)} == {6.0}  # MARGIN_SCALES
    assert {x.scale for x in scorings(monkeypatch, 4)} == {MARGIN_SCALE}


def test_the_late_horizon_weighs_the_towns_within_reach_in_the_round_before_the_last(
) -> None:
    """``horizon_late`` is the ``horizon`` weight in the round before the last (where
    the towns within reach are the last round's) and leaves the rounds before it, and
    the last round, as ``horizon`` has them."""
    changed = 0
    for s in move_starts(2, range(1, 6), range(1, 5)):
        plans = _Plans()
        late = evaluate(s, 0, plans, Scoring(horizon=0.25, horizon_late=0.5))
        if s.round == s.rules.rounds - 1:
            assert late == evaluate(s, 0, plans, Scoring(horizon=0.5))
            changed += late != evaluate(s, 0, plans, Scoring(horizon=0.25))
        else:
            assert late == evaluate(s, 0, plans, Scoring(horizon=0.25))
    assert changed >= 2


def test_the_margin_scale_is_the_sigmoids() -> None:
    """``scale`` is the margin, in towns, the reward's sigmoid reads: the same margin
    gives ``1 / (1 + exp(-4 margin / scale))`` at every scale (the search bot's by
    default), so a smaller scale plays for the win and a larger for the towns."""
    checked = 0
    for s in move_starts(2, range(1, 6), range(1, 4)):
        plans = _Plans()
        base = evaluate(s, 0, plans)
        if base in (0.0, 0.5, 1.0):
            continue
        margin = -math.log(1 / base - 1) * MARGIN_SCALE / 4
        for scale in (2.0, 2.5, 6.0):
            assert math.isclose(evaluate(s, 0, plans, Scoring(scale=scale)),
                                1 / (1 + math.exp(-margin / scale * 4)), rel_tol=1e-9)
        checked += 1
    assert checked >= 5


def test_every_rival_is_the_chance_of_beating_them_all() -> None:
    """With ``every_rival`` the reward is the product of the margin's sigmoid against
    each rival: the best rival's alone with two players, and less than it with four
    wherever a second rival is close too."""
    lower = 0
    for s in move_starts(2, range(1, 6), range(1, 4)):
        plans = _Plans()
        assert math.isclose(evaluate(s, 0, plans, Scoring(every_rival=True)),
                            evaluate(s, 0, plans))
    for s in move_starts(4, range(1, 6), range(1, 4)):
        plans = _Plans()
        best = evaluate(s, 0, plans)
        every = evaluate(s, 0, plans, Scoring(every_rival=True))
        base = -math.log(1 / best - 1) * MARGIN_SCALE / 4  # the margin over the best
        values = [s.markers(q) + j.new_towns + j.usefulness / 10_000
                  for q, j in enumerate(plans.every(s))]
        assert math.isclose(base, values[0] - max(values[1:]), abs_tol=1e-9)
        expected = 1.0
        for v in values[1:]:
            expected /= 1 + math.exp(-(values[0] - v) / MARGIN_SCALE * 4)
        assert math.isclose(every, expected, rel_tol=1e-9)
        assert every <= best + 1e-12
        lower += every < best - 1e-6
    assert lower >= 5


def test_the_calibrated_margin_is_weighed_by_the_rounds_to_come() -> None:
    """With ``calibrated`` the margin counts half in rounds 1 and 2 (``ROUND_WEIGHT``)
    and whole in rounds 3 and 4; the level as it was weighed every round alike."""
    weights: dict[int, set[float]] = {}
    for s in move_starts(2, range(1, 8), range(1, 5)):
        plans = _Plans()
        base = evaluate(s, 0, plans)
        calibrated = evaluate(s, 0, plans, Scoring(calibrated=True))
        if base in (0.5, 1.0, 0.0):
            continue
        ratio = math.log(1 / calibrated - 1) / math.log(1 / base - 1)
        weights.setdefault(s.round, set()).add(round(ratio, 9))
    assert weights == {1: {0.5}, 2: {0.5}, 3: {1.0}, 4: {1.0}}


def test_the_towns_within_reach_count_by_default_with_three_players_or_more(
        monkeypatch: Any) -> None:
    """The level counts the towns within reach (``HORIZON``, 0.55) with three or more
    players, where it won against three ``search`` bots, and not with two, where it
    did not; a setting overrides it."""
    for players, setting, expected in ((2, None, 0.0), (3, None, 0.55), (4, None, 0.55),
                                       (6, None, 0.55), (4, 0.0, 0.0), (2, 0.3, 0.3)):
        seen = {x.horizon for x in scorings(monkeypatch, players, horizon=setting)}
        assert seen == {expected}, (players, setting, seen)


def test_the_learned_value_replaces_the_margin_where_its_table_has_the_round(
        monkeypatch: Any) -> None:
    """With ``learned`` a player's value before the last round is the table's linear
    value of ``elfenland_value.features`` (predicted markers at the game's end): a
    table counting ``M`` alone gives the search bot's margin, one counting ``R`` alone
    a margin of towns in reach; the last round, and a round the table lacks, keep the
    level's evaluation."""
    import elfenland.bots.elfenland_value as value

    checked = 0
    for s in move_starts(2, range(1, 6), range(1, 5)):
        plans = _Plans()
        base = evaluate(s, 0, plans)
        monkeypatch.setattr(value, "VALUE", {2: {s.round: (0.0, 1.0, 0, 0, 0, 0, 0)}})
        if s.round == s.rules.rounds:
            monkeypatch.setattr(value, "VALUE", {2: {r: (9.0, 0, 5, 0, 0, 0, 0)
                                                     for r in range(1, 5)}})
            assert evaluate(s, 0, plans, Scoring(learned=True)) == base
            continue
        assert math.isclose(evaluate(s, 0, plans, Scoring(learned=True)), base)
        monkeypatch.setattr(value, "VALUE", {2: {s.round: (3.0, 0, 1.0, 0, 0, 0, 0)}})
        x = [value.features(s, q, j, plans) for q, j in enumerate(plans.every(s))]
        margin = x[0][1] - x[1][1] + (plans.every(s)[0].usefulness
                                      - plans.every(s)[1].usefulness) / 10_000
        expected = 1 / (1 + math.exp(-margin / MARGIN_SCALE * 4))
        assert math.isclose(evaluate(s, 0, plans, Scoring(learned=True)), expected)
        monkeypatch.setattr(value, "VALUE", {2: {9: (3.0, 0, 1.0, 0, 0, 0, 0)}})
        assert evaluate(s, 0, plans, Scoring(learned=True)) == base
        checked += 1
    assert checked >= 10


def test_the_value_features_are_what_the_evaluation_counts() -> None:
    """``features``' ``M`` is the margin's towns (markers plus the journey's new towns),
    ``R`` the horizon's towns in reach, ``C`` the cards kept (at most the hand limit)."""
    from elfenland.bots.elfenland_value import NAMES, features

    for s in move_starts(4, range(1, 3), range(1, 4)):
        plans = _Plans()
        for q, j in enumerate(plans.every(s)):
            x = features(s, q, j, plans)
            assert len(x) == len(NAMES)
            assert x[0] == s.markers(q) + j.new_towns
            assert x[2] == min(sum(j.hand), s.rules.hand_limit)
            end = j.steps[-1].to if j.steps else s.boots[q]
            seen = s.visited[q] | 1 << s.board.capital
            for st in j.steps:
                seen |= 1 << st.to
            todo = [u for u in range(len(s.board.towns)) if not seen >> u & 1]
            assert x[1] == outlook(s.board.distances, end, todo,
                                   s.rules.rounds - s.round)[0]
            assert x[4] == min(s.board.distances[end][u] for u in todo)


def test_the_shipped_table_values_two_players_only() -> None:
    """The shipped table (two players, rounds 1-3) changes the evaluation there, and
    leaves four players' and the last round's as they were."""
    changed = 0
    for s in move_starts(2, range(1, 4), range(1, 5)):
        plans = _Plans()
        same = evaluate(s, 0, plans, Scoring(learned=True)) == evaluate(s, 0, plans)
        assert same or s.round < s.rules.rounds
        changed += not same
    assert changed >= 3
    for s in move_starts(4, range(1, 2), range(1, 4)):
        plans = _Plans()
        assert evaluate(s, 0, plans, Scoring(learned=True)) == evaluate(s, 0, plans)


def test_the_last_round_is_half_exact_by_default_with_two_players(monkeypatch: Any) -> None:
    """The level scores the last round half by the game's outcome (``EXACT``) with two
    players, where it won against ``search``, and by the margin alone with more; a
    setting overrides it."""
    from elfenland.bots.elfenland_quick import EXACT

    for players, setting, expected in ((2, None, 0.5), (4, None, EXACT[3]),
                                       (6, None, EXACT[3]), (2, 0.0, 0.0), (4, 1.0, 1.0)):
        seen = {x.exact for x in scorings(monkeypatch, players, exact=setting)}
        assert seen == {expected}, (players, setting, seen)


def test_the_obstacle_in_hand_counts_a_town_by_default(monkeypatch: Any) -> None:
    """The level values an obstacle still in hand before the last round (``OBSTACLE``)
    at a town, with two players and with more, where keeping it for the last round won
    against ``search``; a setting overrides it."""
    from elfenland.bots.elfenland_quick import OBSTACLE

    assert OBSTACLE[2] == OBSTACLE[3] == 1.0
    for players, setting, expected in ((2, None, 1.0), (4, None, 1.0), (6, None, 1.0),
                                       (2, 0.0, 0.0), (4, 0.5, 0.5)):
        seen = {x.obstacle for x in scorings(monkeypatch, players, obstacle=setting)}
        assert seen == {expected}, (players, setting, seen)


def test_a_counter_held_counts_a_quarter_town_with_two_players(monkeypatch: Any) -> None:
    """The level values a counter held to keep before the last round (``COUNTER``) at a
    quarter of a town with two players, where it won against ``search``, and at nothing
    with more, where it did not; a setting overrides it."""
    from elfenland.bots.elfenland_quick import COUNTER

    assert COUNTER[2] == 0.25 and COUNTER[3] == 0.0
    for players, setting, expected in ((2, None, 0.25), (4, None, 0.0), (6, None, 0.0),
                                       (2, 0.0, 0.0), (4, 0.5, 0.5)):
        seen = {x.counter for x in scorings(monkeypatch, players, counter=setting)}
        assert seen == {expected}, (players, setting, seen)


def test_with_the_obstacle_valued_the_level_keeps_it_past_the_first_round() -> None:
    """Two quick bots at a few rollouts a decision lay their obstacles in the first
    round of most games when it is worth nothing in hand (the search bot's margin),
    and keep them past it when it is worth a town (the default)."""
    def first_round_obstacles(obstacle: float) -> int:
        laid = 0
        for seed in range(1, 13):
            state: Any = elfenland.new_game("elfenland", players=2, seed=seed)
            bots = [ElfenlandQuickBot(seed * 2 + q, iterations=12, seconds=10.0)
                    for q in range(2)]
            for bot in bots:
                bot.obstacle = obstacle
                bot.counter = 0.0  # the obstacle's weight alone
            while state.round == 1:
                state.apply_action(bots[state.current_player()].choose(state))
            laid += sum(not held for held in state.obstacle_in_hand)
        return laid

    assert first_round_obstacles(0.0) >= 8
    assert first_round_obstacles(1.0) <= 4
