"""The Elfenland quick level's rollout policy against the search bot's (issue #25): a
rival's wish journey is planned again when what was laid since the deal may change it
(``still_best``), and only then; the shortcut never keeps a wish a fresh plan would
change."""

from __future__ import annotations

import random
from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.budget import Budget, Rollouts
from elfenland.bots.elfenland_greedy import owned_kinds, wish
from elfenland.bots.elfenland_quick import (
    ElfenlandQuickBot,
    _Draws,
    _Plans,
    _Policy,
    journey_roots,
    lead_block,
    leave_out,
    still_best,
)
from elfenland.bots.elfenland_search import candidates, move
from elfenland.bots.planner import plan_journey
from elfenland.core.rng import Rng
from elfenland.games.elfenland.actions import Action, Kind, from_id
from elfenland.games.elfenland.state import NO_PIECE, ElfenlandState, Phase


def placing_states(players: int, seeds: range) -> list[ElfenlandState]:
    """Placement positions met in games of greedy bots."""
    out: list[ElfenlandState] = []
    for seed in seeds:
        state: Any = elfenland.new_game("elfenland", players=players, seed=seed)
        greedy = [make_bot("greedy", "elfenland", q) for q in range(players)]
        while not state.is_terminal() and state.round <= 2:
            if state.phase is Phase.PLACE and len(state.legal_actions()) > 2:
                out.append(state.clone())
            state.apply_action(greedy[state.current_player()].choose(state))
    return out


def blocking_position() -> tuple[ElfenlandState, ElfenlandState, int]:
    """A deal, the same deal after the searcher laid a counter on an empty road its
    rival's wish journey crosses, and the rival, where the rival's wish changes."""
    for state in placing_states(2, range(1, 30)):
        me = state.current
        rival = 1 - me
        det = state.resample_from_infostate(me, Rng(3))
        before = wish(det, rival)
        assumed = {st.action.route: st.action.transport for st in before.steps
                   if st.action.kind is Kind.PLACE}
        for a in det.legal_actions():
            # a counter of another kind than the wish assumed there: a real block
            if a.kind is Kind.PLACE and a.route in assumed and a.transport != assumed[a.route]:
                after = det.clone()
                after.apply_action(a)
                if wish(after, rival).steps != before.steps:
                    return det, after, rival
    raise AssertionError("no blocking position found")


@pytest.fixture
def evaluated(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, Phase, int]]:
    """Where each rollout was evaluated: the round, the phase and how many roads hold a
    counter, one entry for each call of the quick level's ``evaluate``."""
    import elfenland.bots.elfenland_quick as quick

    seen: list[tuple[int, Phase, int]] = []
    real = quick.evaluate

    def spy(s: ElfenlandState, me: int, plans: Any, *rest: Any) -> float:
        seen.append((s.round, s.phase, sum(c != NO_PIECE for c in s.route_counter)))
        return real(s, me, plans, *rest)

    monkeypatch.setattr(quick, "evaluate", spy)
    return seen


def test_a_rival_replans_its_wish_after_a_counter_on_its_journey() -> None:
    """The search bot plans a rival's wish after the root action, so a counter laid on
    the rival's way makes it go round; the old quick bot kept the wish planned on the
    deal (the rival then skipped the road taken and went on as if nothing happened)."""
    det, after, rival = blocking_position()
    plans = _Plans()
    keeper = ElfenlandQuickBot(0).greedy
    shared: dict[int, Any] = {}
    old = _Policy(plans, keeper, det, shared, react=False)
    new = _Policy(plans, keeper, det, {}, react=True)
    fresh = wish(after, rival)
    assert new.wish(after, rival).steps == fresh.steps
    assert old.wish(after, rival).steps == wish(det, rival).steps != fresh.steps
    assert not still_best(wish(det, rival), det, after, rival)


def test_the_quick_bot_lets_rivals_react_by_default() -> None:
    assert ElfenlandQuickBot(1).react_wishes is True


def test_a_wish_kept_without_planning_is_the_wish_a_fresh_plan_gives() -> None:
    """Over rollouts of many positions (four players: earlier rivals lay counters before
    a player's first turn too), every wish ``still_best`` keeps is the planner's answer
    on the state as it is, and some are kept (the shortcut is used) and some replanned."""
    kept = replanned = 0
    for i, state in enumerate(placing_states(4, range(1, 5))[:40]):
        me = state.current
        det = state.resample_from_infostate(me, Rng(i))
        s = det.clone()
        greedy = ElfenlandQuickBot(i).greedy
        first = {q: wish(det, q) for q in range(s.n)}
        while not s.is_terminal() and s.phase is Phase.PLACE:
            for q in range(s.n):
                if still_best(first[q], det, s, q):
                    assert wish(s, q).key == first[q].key
                    kept += 1
                else:
                    replanned += 1
            s.apply_action(greedy.choose(s))
    assert kept > 50 and replanned > 50


def test_the_searchers_later_placements_are_chosen_in_a_tree(monkeypatch: Any) -> None:
    """As in the search bot, the searcher's own placements after the root action are
    chosen among its candidates in a tree (one a root action); the old quick bot laid
    them by its wish policy, asking for no candidates inside a rollout."""
    import elfenland.bots.elfenland_quick as quick

    state = next(s for s in placing_states(2, range(1, 9))
                 if sum(s.counters_up[s.current]) + sum(s.counters_secret[s.current]) >= 3)
    me = state.current
    roots = candidates(state, ElfenlandQuickBot(0).greedy)
    asked: list[tuple[int, Phase]] = []
    real = quick.candidate_ids

    def spy(s: ElfenlandState, *rest: Any) -> list[int]:
        asked.append((s.current, s.phase))
        return real(s, *rest)

    monkeypatch.setattr(quick, "candidate_ids", spy)
    bot = ElfenlandQuickBot(2, iterations=40, seconds=60.0)
    bot.compiled = False  # the Python rollouts (test_quick_rollout: the C ones equal them)
    assert bot.own_tree is True
    assert bot.search(state, roots) in roots
    assert len(asked) >= 10 and all(a == (me, Phase.PLACE) for a in asked)
    asked.clear()
    plain = ElfenlandQuickBot(2, iterations=40, seconds=60.0)
    plain.compiled = False
    plain.own_tree = False
    plain.search(state, roots)
    assert asked == []


def test_no_root_action_is_dropped() -> None:
    """Every root gets every deal, however far behind (the old quick bot dropped a root
    0.12 below the best after four deals)."""
    bot = ElfenlandQuickBot(3)
    calls = [0, 0, 0]

    def deal() -> Rollouts:
        def rollout(i: int) -> float:
            calls[i] += 1
            return (0.5, 0.95, 0.0)[i]
        return rollout

    budget = Budget(60, 1e9).start()
    assert bot.loop.choose(3, budget, deal) == 1
    assert calls == [20, 20, 20]


def round_end_state(discarding: bool, seeds: range = range(1, 40)) -> ElfenlandState:
    """A keep (or discard) with a choice between kinds, before the last round, met in
    games of greedy bots."""
    for seed in seeds:
        state: Any = elfenland.new_game("elfenland", players=2, seed=seed)
        greedy = [make_bot("greedy", "elfenland", q) for q in range(2)]
        while not state.is_terminal() and state.round < state.rules.rounds:
            at = (state.phase is Phase.MOVE and state.discarding if discarding
                  else state.phase is Phase.KEEP)
            kinds = {a.transport for a in state.legal_actions()}
            if at and len(kinds) >= 2:
                assert isinstance(state, ElfenlandState)
                return state
            state.apply_action(greedy[state.current_player()].choose(state))
    raise AssertionError("no such position")


@pytest.mark.parametrize("discarding", [False, True])
def test_the_round_end_is_searched_into_the_next_round(
        evaluated: list[tuple[int, Phase, int]], discarding: bool) -> None:
    """The counter kept and the cards discarded are searched: every kind is a root, the
    greedy bot's choice first, and every rollout is evaluated where the next round's
    move phase starts (after its deal, draws and placements).  The old quick bot kept
    and discarded by the greedy rule, with no rollout."""
    state = round_end_state(discarding)
    legal = state.legal_actions()
    seen = evaluated
    bot = ElfenlandQuickBot(4, iterations=24, seconds=60.0)
    setattr(bot, "search_discards" if discarding else "search_keeps", True)
    roots = bot.round_end_roots(state, legal)
    greedy_choice = ElfenlandQuickBot(4).greedy.choose(state)
    assert roots[0] == greedy_choice
    assert {a.transport for a in roots} == {a.transport for a in legal}
    assert len(roots) == len({a.transport for a in roots})
    choice = bot.choose(state)
    assert choice in legal
    assert bot.searches == 1 and bot.rollouts == 24 and len(seen) == 24
    assert all(r == state.round + 1 and ph is Phase.MOVE for r, ph, _ in seen)
    assert all(laid > 0 for _, _, laid in seen)  # the next round's placements were played
    plain = ElfenlandQuickBot(4, iterations=24, seconds=60.0)
    plain.search_keeps = plain.search_discards = False
    assert plain.choose(state) == greedy_choice and plain.rollouts == 0


def test_the_last_rounds_end_is_not_searched() -> None:
    """In the last round a counter kept or a card discarded counts for nothing but ties
    broken by the cards in hand: the greedy rule plays them, no rollout."""
    for seed in range(1, 20):
        state: Any = elfenland.new_game("elfenland", players=2, seed=seed)
        greedy = [make_bot("greedy", "elfenland", q) for q in range(2)]
        while not state.is_terminal() and not (
                state.round == state.rules.rounds and state.phase is Phase.MOVE
                and state.discarding and len(state.legal_actions()) > 1):
            state.apply_action(greedy[state.current_player()].choose(state))
        if not state.is_terminal():
            break
    else:
        raise AssertionError("no discard in a last round")
    bot = ElfenlandQuickBot(4, iterations=24, seconds=60.0)
    bot.search_keeps = bot.search_discards = True
    assert not bot.ahead(state)
    bot.choose(state)
    assert bot.rollouts == 0


def test_the_round_end_search_ends_within_one_rollout_of_its_deadline() -> None:
    """The budget holds for the rollouts into the next round as for the placements'."""
    clock = {"now": 0.0}
    bot: Any = ElfenlandQuickBot(3, iterations=10**6, seconds=5.0, clock=lambda: clock["now"])
    bot.search_keeps = True
    state = round_end_state(False)
    inner = bot._rollout_ahead
    starts: list[float] = []

    def rollout(*args: Any) -> float:
        starts.append(clock["now"])
        clock["now"] += 1.0
        return float(inner(*args))

    bot._rollout_ahead = rollout
    bot.choose(state)
    assert len(starts) == 5 and max(starts) < 5.0 and clock["now"] == 5.0


def test_rollouts_across_the_round_follow_the_planned_journeys() -> None:
    """The rollout policy moves each player along their planned journey (the placement
    rollouts never met the move phase: their policy played it at random)."""
    state: Any = elfenland.new_game("elfenland", players=2, seed=2)
    greedy = [make_bot("greedy", "elfenland", q) for q in range(2)]
    while state.phase is not Phase.MOVE:
        state.apply_action(greedy[state.current_player()].choose(state))
    det = state.resample_from_infostate(state.current, Rng(1))
    p = det.current
    journey = plan_journey(det, p)
    policy = _Policy(_Plans(), ElfenlandQuickBot(0).greedy, det, {})
    rng = random.Random(0)
    played = []
    while det.current == p and det.phase is Phase.MOVE and not det.discarding:
        a = policy.choose(det, rng)
        played.append(a)
        det.apply_action(a)
    assert len(journey.steps) >= 2 and played == [a.id for a in journey.actions]


def moving_states(seeds: range, rounds: range) -> list[ElfenlandState]:
    """Steps of the move (several actions) met in games of greedy bots."""
    out: list[ElfenlandState] = []
    for seed in seeds:
        state: Any = elfenland.new_game("elfenland", players=2, seed=seed)
        greedy = [make_bot("greedy", "elfenland", q) for q in range(2)]
        while not state.is_terminal():
            if (state.phase is Phase.MOVE and not state.discarding and state.round in rounds
                    and len(state.legal_actions()) > 1):
                out.append(state.clone())
            state.apply_action(greedy[state.current_player()].choose(state))
    return out


def test_the_journeys_searched_start_with_the_levels_own() -> None:
    """The first root is the journey ``move`` plays (the choice to beat), the others
    collect as many towns and end elsewhere; some steps have several."""
    several = 0
    for state in moving_states(range(1, 4), range(1, 5)):
        roots = journey_roots(state)
        assert roots[0].actions[0] == move(state)
        assert all(j.key[:2] == roots[0].key[:2] for j in roots)
        ends = [j.steps[-1].to if j.steps else state.boots[state.current] for j in roots]
        assert len(set(ends)) == len(ends) and len(roots) <= 4
        several += len(roots) > 1
    assert several >= 10


def test_the_move_is_searched_into_the_next_round(
        evaluated: list[tuple[int, Phase, int]]) -> None:
    """With ``search_moves`` a step of the move searches the journeys whole, each
    rollout evaluated at the next round's move phase; the old quick bot played
    ``move`` (no rollout)."""
    state = next(s for s in moving_states(range(1, 4), range(1, 3))
                 if len(journey_roots(s)) >= 2)
    bot = ElfenlandQuickBot(6, iterations=20, seconds=60.0)
    bot.search_moves = True
    assert bot.choose(state) in state.legal_actions()
    assert bot.searches == 1 and bot.rollouts == 20
    assert [(r, ph) for r, ph, _ in evaluated] == [(state.round + 1, Phase.MOVE)] * 20
    plain = ElfenlandQuickBot(6, iterations=20, seconds=60.0)
    assert plain.choose(state) == move(state) and plain.rollouts == 0


def test_a_journey_chosen_over_the_levels_own_is_followed_to_its_end() -> None:
    """Once the search prefers another journey, the later steps follow it (searching
    each step afresh could wander between journeys)."""
    state = next(s for s in moving_states(range(1, 4), range(1, 3))
                 if len(journey_roots(s)) >= 2 and len(journey_roots(s)[1].steps) >= 2)
    other = journey_roots(state)[1]
    bot = ElfenlandQuickBot(6, iterations=8, seconds=60.0)
    bot.search_moves = True
    bot.loop.choose = lambda n, budget, deal, stop_clear=0.0: 1  # type: ignore[method-assign]
    p = state.current
    played = []
    while state.current == p and state.phase is Phase.MOVE and not state.discarding:
        a = bot.choose(state)
        played.append(a)
        state.apply_action(a)
    assert played == other.actions and bot.searches == 1


def test_the_next_rounds_draws_in_a_rollout_follow_the_wish() -> None:
    """In the rollouts into the next round counters are drawn as the greedy bot draws
    them: the face-up counter that makes the wish journey best if it makes it better,
    else a blind draw (the placement rollouts' policy only ever drew blind there, its
    wish using no kind the player lacks)."""
    face_up = blind = 0
    for seed in range(1, 6):
        state: Any = elfenland.new_game("elfenland", players=2, seed=seed)
        greedy = [make_bot("greedy", "elfenland", q) for q in range(2)]
        while not state.is_terminal() and state.round <= 2:
            if state.phase is Phase.DRAW_COUNTERS:
                p = state.current
                policy = _Policy(_Plans(), ElfenlandQuickBot(0).greedy, state, {})
                policy.looking = True
                ids = state.legal_action_ids()
                chosen = policy.choose(state, random.Random(0))
                now = wish(state, p).key
                held = owned_kinds(state, p)
                keys = {i: wish(state, p, [*held, int(a.transport)]).key
                        for i in ids if (a := from_id(i)).transport is not None}
                if keys and max(keys.values()) > now:
                    assert keys[chosen] == max(keys.values())
                    face_up += 1
                else:
                    assert from_id(chosen).transport is None
                    blind += 1
            state.apply_action(greedy[state.current_player()].choose(state))
    assert face_up >= 5 and blind >= 5


def test_rivals_in_the_rollouts_place_as_the_greedy_bot_with_rival_greedy() -> None:
    """With ``greedy_place`` (the level's ``rival_greedy``) the rollout policy places as
    the greedy bot does, which is what ``search`` plays unless its search beats it: the
    counter of the wish journey whose laying leaves the best wish, else the obstacle on
    a rival's way, else pass.  The search bot's policy lays the wish's first counter
    and never the obstacle; a test that it differs keeps both cases real."""
    keeper = ElfenlandQuickBot(0).greedy
    same = differs = obstacles = 0
    for players in (2, 4):
        for state in placing_states(players, range(1, 16)):
            legal = state.legal_actions()
            greedy = make_bot("greedy", "elfenland", 0).place(state, legal)  # type: ignore[attr-defined]
            new = _Policy(_Plans(), keeper, state, {}, True, True).choose(
                state.clone(), random.Random(0))
            old = _Policy(_Plans(), keeper, state, {}).choose(state.clone(), random.Random(0))
            assert from_id(old).kind is not Kind.OBSTACLE
            if from_id(new).kind is Kind.OBSTACLE:
                obstacles += 1
                assert from_id(new) in legal and state.obstacle_in_hand[state.current]
            # The greedy bot lays the obstacle by a deal of the rivals' hands, the
            # rollout on the deal it plays: where either lays it they may differ.
            if greedy.kind is not Kind.OBSTACLE and from_id(new).kind is not Kind.OBSTACLE:
                assert new == greedy.id
                same += 1
                differs += old != greedy.id
    assert same > 50 and differs >= 3 and obstacles >= 1


def test_block_leader_blocks_beside_the_leading_rival_only() -> None:
    """With ``block_leader`` (four players) the blocking root is laid on a road beside a
    rival with the most markers, in place of ``search``'s (beside whichever rival the
    road costs most); the other roots stay; two players are left alone."""
    def roots(state: ElfenlandState, block_leader: bool) -> list[Action]:
        bot = ElfenlandQuickBot(0)  # afresh: the greedy bot's obstacle draws a deal
        bot.block_leader = block_leader
        return bot.roots(state)

    replaced = 0
    for state in placing_states(4, range(1, 12)):
        plain = candidates(state, ElfenlandQuickBot(0).greedy)
        assert roots(state, False) == plain
        roots_now = roots(state, True)
        assert roots_now[0] == plain[0] and abs(len(roots_now) - len(plain)) <= 1
        lead = lead_block(state)
        if lead is None:
            continue
        route = state.board.routes[lead.route]  # type: ignore[index]
        p = state.current
        most = max(state.markers(q) for q in range(4) if q != p)
        assert any(state.markers(q) == most and state.boots[q] in (route.a, route.b)
                   for q in range(4) if q != p)
        assert lead in roots_now
        anyone = lead_block(state, leaders=False)
        after = plain.index(Action.pass_())
        kept = [a for i, a in enumerate(plain) if a != anyone or a == lead or i < after]
        assert roots_now == kept + ([] if lead in kept else [lead])
        if anyone != lead and anyone in plain[plain.index(Action.pass_()) + 1:]:
            assert anyone not in roots_now
            replaced += 1
    assert replaced >= 3
    for state in placing_states(2, range(1, 4)):
        assert roots(state, True) == candidates(state, ElfenlandQuickBot(0).greedy)


def test_wide_adds_the_placements_from_the_players_own_town() -> None:
    """``wide=1`` adds to ``search``'s roots, after them, every counter the player may
    lay on a road from the town it stands in; ``wide=2`` every legal placement and
    obstacle; ``wide=3`` every obstacle and every counter on a road of its wish
    journey; 0 leaves them as they are."""
    added = 0
    for state in placing_states(2, range(1, 6)):
        plain = candidates(state, ElfenlandQuickBot(0).greedy)
        bot = ElfenlandQuickBot(0)
        assert bot.roots(state) == plain
        bot = ElfenlandQuickBot(0)
        bot.wide = 1
        roots = bot.roots(state)
        assert roots[:len(plain)] == plain and len(set(roots)) == len(roots)
        here = state.boots[state.current]
        routes = state.board.routes
        home = [a for a in state.legal_actions() if a.kind is Kind.PLACE
                and here in (routes[a.route].a, routes[a.route].b)]  # type: ignore[index]
        assert set(roots) == set(plain) | set(home)
        added += len(roots) - len(plain)
        bot = ElfenlandQuickBot(0)
        bot.wide = 2
        assert set(bot.roots(state)) == set(state.legal_actions())
    assert added >= 5
    added = 0
    for state in placing_states(4, range(1, 4)):
        plain = candidates(state, ElfenlandQuickBot(0).greedy)
        bot = ElfenlandQuickBot(0)
        bot.wide = 3
        roots = bot.roots(state)
        mine = {st.action.route for st in wish(state, state.current).steps
                if st.action.kind is Kind.PLACE}
        assert roots[:len(plain)] == plain
        assert set(roots) == set(plain) | {
            a for a in state.legal_actions()
            if a.kind is Kind.OBSTACLE or (a.kind is Kind.PLACE and a.route in mine)}
        added += len(roots) - len(plain)
    assert added >= 5


def test_wide_4_adds_every_obstacle_in_the_last_round_only() -> None:
    """``wide=4`` adds to ``search``'s roots every legal obstacle in the last round, where
    the level (``OBSTACLE``) keeps its obstacle for; before it, nothing."""
    last = earlier = 0
    for seed in range(1, 4):
        state: Any = elfenland.new_game("elfenland", players=2, seed=seed)
        bots = [ElfenlandQuickBot(seed * 2 + q, iterations=8, seconds=10.0) for q in range(2)]
        while not state.is_terminal():
            legal = state.legal_actions()
            obstacles = {a for a in legal if a.kind is Kind.OBSTACLE}
            if state.phase is Phase.PLACE and obstacles:
                plain = candidates(state, ElfenlandQuickBot(0).greedy)
                bot = ElfenlandQuickBot(0)
                bot.wide = 4
                roots = bot.roots(state)
                assert roots[:len(plain)] == plain and len(set(roots)) == len(roots)
                if state.round == state.rules.rounds:
                    assert set(roots) == set(plain) | obstacles
                    last += len(obstacles - set(plain)) > 0
                else:
                    assert roots == plain
                    earlier += 1
            state.apply_action(bots[state.current_player()].choose(state))
    assert last >= 3 and earlier >= 3


def test_rival_tree_makes_the_rivals_replies_nodes_of_the_tree() -> None:
    """With ``rival_tree`` the node after the searcher's root action is the rival's: its
    children are the rival's ``candidates`` and, once all are tried, the rollouts go
    on through the reply worst for the searcher; off, the rival's reply is the rollout
    policy's and the tree's children are the searcher's own later placements."""
    from elfenland.bots.elfenland_quick import _Node, candidate_ids

    checked = differ = 0
    for state in placing_states(2, range(1, 6)):
        me = state.current
        root = candidates(state, ElfenlandQuickBot(0).greedy)[0]
        after = state.clone()
        after.apply_action(root)
        if after.phase is not Phase.PLACE or after.current == me:
            continue
        for on in (False, True):
            bot = ElfenlandQuickBot(0)
            bot.rival_tree = on
            plans = _Plans()
            tree = _Node()
            for i in range(12):
                policy = _Policy(plans, bot.greedy, state, {})
                reward = bot._rollout(state.clone(), me, root.id, plans, policy, i, tree)
                assert 0.0 <= reward <= 1.0
            assert tree.visits == 12
            replies = set(candidate_ids(after, plans.wish))
            if on:
                assert set(tree.children) == replies
                assert sum(c.visits for c in tree.children.values()) == 12
                assert max(c.visits for c in tree.children.values()) >= 2
            else:
                # The rival's reply is the policy's (its wish's first counter: the
                # same on every rollout here), then the searcher's own choices.
                reply = after.clone()
                reply.apply_action(_Policy(plans, bot.greedy, state, {}).choose(
                    reply.clone(), random.Random(0)))
                if reply.phase is Phase.PLACE and reply.current == me:
                    assert set(tree.children) == set(candidate_ids(reply, plans.wish))
                    differ += set(tree.children) != replies
        checked += 1
    assert checked >= 3 and differ >= 2


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_trees_candidate_ids_are_the_search_bots_candidates(players: int) -> None:
    """``candidate_ids`` (the rollouts' own tree, on ids) lists what ``candidates``
    lists, in its order, on placement positions and on deals of them, obstacles held
    and laid included."""
    from elfenland.bots.elfenland_quick import candidate_ids

    checked = 0
    with_obstacle = 0
    for state in placing_states(players, range(40, 40 + 24 // players)):
        plans = _Plans()
        for det in (state, state.resample_from_infostate(state.current, Rng(checked))):
            want = [a.id for a in candidates(det, None, plans.wish)]
            assert candidate_ids(det, plans.wish) == want
            checked += 1
            with_obstacle += any(from_id(i).kind is Kind.OBSTACLE for i in want)
    assert checked > 40 and with_obstacle > 0


def test_a_wish_is_kept_past_counters_it_cannot_use_or_that_it_assumed() -> None:
    """The two shortcuts ``still_best`` takes beyond the first version's, each met and
    each right (the kept wish is worth what a fresh plan is worth): a counter of a kind
    the player does not hold and cannot pay to cross, and a counter of the very kind the
    wish assumed on a road it crosses."""
    from elfenland.core.transport import COST_TABLE, Transport

    unusable = assumed = 0
    for i, state in enumerate(placing_states(4, range(1, 9))[:80]):
        det = state.resample_from_infostate(state.current, Rng(100 + i))
        first = {q: wish(det, q) for q in range(det.n)}
        held = {q: set(owned_kinds(det, q)) for q in range(det.n)}
        s = det.clone()
        while not s.is_terminal() and s.phase is Phase.PLACE:
            a = ElfenlandQuickBot(i).greedy.choose(s)
            s.apply_action(a)
            if a.kind is not Kind.PLACE:
                continue
            assert a.transport is not None and a.route is not None
            k, r = int(a.transport), a.route
            for q in range(s.n):
                on_way = {st.action.route: st.action.transport for st in first[q].steps
                          if st.action.kind is Kind.PLACE}
                price = COST_TABLE[Transport(k)][s.board.routes[r].terrain]
                if r in on_way and on_way[r] == a.transport:
                    case = "assumed"
                elif (r not in on_way and k not in held[q]
                      and (price is None or det.hands[q][k] < price)):
                    case = "unusable"
                else:
                    continue
                one = det.clone()  # the deal with this counter alone laid
                one.route_counter = [*det.route_counter[:r], k, *det.route_counter[r + 1:]]
                if not still_best(first[q], det, one, q):
                    continue
                assert wish(one, q).key == first[q].key, (case, q, r, k)
                if case == "assumed":
                    assumed += 1
                else:
                    unusable += 1
    assert unusable > 5 and assumed > 5, (unusable, assumed)


def test_a_rollouts_random_draws_repeat_for_its_seed_and_are_uniform() -> None:
    """A rollout's random choices (``_Draws``: the tree's untried candidate, a policy's
    random pick) are the same for the same seed, so the rollouts of every root on a
    deal meet the same choices (common random numbers); they fall in range, spread
    evenly, differ between seeds, and an empty range is an error as in ``random``."""
    for seed in (0, 7, 2**31 + 5, 2**64 - 1, 2**70 + 3):
        one, two = _Draws(seed), _Draws(seed)
        sizes = (3, 10, 2, 1000, 5, 1, 2**40)
        got = [one.randrange(n) for n in sizes]
        assert got == [two.randrange(n) for n in sizes]
        assert all(0 <= x < n for x, n in zip(got, sizes, strict=True))
    streams = set()
    for seed in range(50):
        stream = _Draws(seed)
        streams.add(tuple(stream.randrange(1000) for _ in range(8)))
    assert len(streams) == 50
    draws = _Draws(12345)
    counts = [0] * 6
    for _ in range(60_000):
        counts[draws.randrange(6)] += 1
    assert all(9_500 < c < 10_500 for c in counts), counts
    with pytest.raises(ValueError):
        _Draws(1).randrange(0)


@pytest.mark.parametrize("mode", [1, 2])
def test_placement_rollouts_play_on_to_the_next_rounds_move(
        mode: int, evaluated: list[tuple[int, Phase, int]]) -> None:
    """``place_ahead``: a placement's rollouts are evaluated where the next round's move
    phase starts (1: in every round but the last; 2: in the round before the last
    only), with that round's counters laid; off, where this round's starts."""
    seen = evaluated
    by_round: dict[int, ElfenlandState] = {}
    for state in placing_states(2, range(1, 12)):
        by_round.setdefault(state.round, state)
    late: Any = elfenland.new_game("elfenland", players=2, seed=5)
    greedy = [make_bot("greedy", "elfenland", q) for q in range(2)]
    while not (late.round == late.rules.rounds - 1 and late.phase is Phase.PLACE
               and len(late.legal_actions()) > 2):
        late.apply_action(greedy[late.current_player()].choose(late))
    by_round[late.round] = late
    assert {1, late.rules.rounds - 1} <= set(by_round)
    for r, state in sorted(by_round.items()):
        for ahead in (0, mode):
            seen.clear()
            bot = ElfenlandQuickBot(4, iterations=12, seconds=60.0)
            bot.place_ahead = ahead
            bot.compiled = False  # the Python evaluation, which the fixture spies on
            assert bot.search(state, bot.roots(state)) in state.legal_actions()
            assert len(seen) == 12
            on = bool(ahead) and (ahead == 1 or r == state.rules.rounds - 1)
            assert all(ph is Phase.MOVE for _, ph, _ in seen)
            assert {rr for rr, _, _ in seen} == {r + 1 if on else r}


def test_the_margin_to_leave_the_greedy_choice_is_by_players() -> None:
    """Each decision's root loop leaves the greedy bot's choice only for a lead of
    ``DEVIATIONS``'s margin for the game's number of players, or the bot's own
    ``deviation`` where set (a bench's screen)."""
    from elfenland.bots.budget import by_players
    from elfenland.bots.elfenland_quick import DEVIATIONS

    for players in (2, 4):
        state = placing_states(players, range(1, 3))[0]
        bot = ElfenlandQuickBot(4, iterations=8, seconds=60.0)
        assert bot.choose(state) in state.legal_actions()
        assert bot.loop.deviation == by_players(DEVIATIONS, None, players)
        bot.deviation = 0.125
        bot.choose(state)
        assert bot.loop.deviation == 0.125


def test_leave_drops_only_the_kinds_of_root_it_names() -> None:
    """``leave`` (a bench's screen) takes out the wish's counters after the greedy one
    (1), pass (2), the blocking counter (4) or the obstacle (8), and nothing else."""
    dropped = {1: 0, 2: 0, 4: 0, 8: 0}
    for state in placing_states(2, range(1, 20)):
        bot = ElfenlandQuickBot(0)
        roots = bot.roots(state)
        assert roots == candidates(state, ElfenlandQuickBot(0).greedy)
        after = roots.index(Action.pass_()) if Action.pass_() in roots else len(roots)
        kinds = {a: (2 if i == after else 0 if i == 0 else 1 if i < after
                     else 8 if a.kind is Kind.OBSTACLE else 4)
                 for i, a in enumerate(roots)}
        for leave in dropped:
            left = leave_out(roots, leave)
            assert left == [a for a in roots if kinds[a] != leave] or (
                left == roots[:1] and all(kinds[a] == leave for a in roots))
            dropped[leave] += len(roots) - len(left)
        assert leave_out(roots, 15) == roots[:1]
    assert all(n >= 3 for n in dropped.values()), dropped


def roots_with(**settings: int) -> list[tuple[ElfenlandState, list[Action], list[Action]]]:
    """Two-player placements with the level's roots and those under ``settings``."""
    out = []
    for state in placing_states(2, range(1, 20)):
        bot = ElfenlandQuickBot(0)  # afresh: the greedy bot's obstacle draws a deal
        for name, value in settings.items():
            setattr(bot, name, value)
        out.append((state, ElfenlandQuickBot(0).roots(state), bot.roots(state)))
    return out


def test_more_wish_adds_the_wish_journeys_later_counters() -> None:
    """``more_wish`` appends the wish journey's counters ``candidates`` stopped short of,
    up to its number, after ``search``'s roots."""
    added = 0
    for state, base, more in roots_with(more_wish=2):
        legal = set(state.legal_actions())
        later = list(dict.fromkeys(
            st.action for st in wish(state, state.current).steps
            if st.action.kind is Kind.PLACE and st.action in legal
            and st.action not in base))
        assert more == base + later[:2]
        added += len(more) - len(base)
    assert added >= 10


def test_blocking_adds_the_next_costliest_blocking_counter() -> None:
    """``blocking=2`` (a bench's screen) keeps ``search``'s roots and adds, after them,
    one counter on an empty road beside the rival."""
    added = 0
    for state, base, more in roots_with(blocking=2):
        assert more[:len(base)] == base and len(more) - len(base) <= 1
        for a in more[len(base):]:
            assert a.kind is Kind.PLACE and a.route is not None
            route = state.board.routes[a.route]
            assert state.route_counter[a.route] == NO_PIECE
            assert state.boots[1 - state.current] in (route.a, route.b)
            added += 1
    assert added >= 10
