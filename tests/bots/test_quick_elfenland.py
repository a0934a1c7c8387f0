"""The Elfenland quick level's rollout policy against the search bot's (issue #25): a
rival's wish journey is planned again when what was laid since the deal may change it
(``still_best``), and only then; the shortcut never keeps a wish a fresh plan would
change."""

from __future__ import annotations

from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.budget import Budget, Rollouts
from elfenland.bots.elfenland_greedy import wish
from elfenland.bots.elfenland_quick import ElfenlandQuickBot, _Plans, _Policy, still_best
from elfenland.bots.elfenland_search import candidates
from elfenland.core.rng import Rng
from elfenland.games.elfenland.actions import Kind
from elfenland.games.elfenland.state import ElfenlandState, Phase


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
        roads = {st.action.route for st in before.steps if st.action.kind is Kind.PLACE}
        for a in det.legal_actions():
            if a.kind is Kind.PLACE and a.route in roads:
                after = det.clone()
                after.apply_action(a)
                if wish(after, rival).steps != before.steps:
                    return det, after, rival
    raise AssertionError("no blocking position found")


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
    real = candidates

    def spy(s: ElfenlandState, greedy: Any, *rest: Any) -> list[Any]:
        asked.append((s.current, s.phase))
        return real(s, greedy, *rest)

    monkeypatch.setattr(quick, "candidates", spy)
    bot = ElfenlandQuickBot(2, iterations=40, seconds=60.0)
    assert bot.own_tree is True
    assert bot.search(state, roots) in roots
    assert len(asked) >= 10 and all(a == (me, Phase.PLACE) for a in asked)
    asked.clear()
    plain = ElfenlandQuickBot(2, iterations=40, seconds=60.0)
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

    budget = Budget(60, 1e9)
    budget.start()
    assert bot.loop.choose(3, budget, deal) == 1
    assert calls == [20, 20, 20]
