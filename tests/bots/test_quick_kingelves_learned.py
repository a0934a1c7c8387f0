"""The King of the Elves quick bot with the shipped learned policy inside its search
(``bots/learned_rollout.py``): the rollouts' building steps (``learned_rollouts``) and
a root (``policy_root``), both screening switches, off by default."""

from __future__ import annotations

from typing import Any

import pytest
from test_quick import TickClock, building_state, greedy_until, ticking

import elfenland
from elfenland.bots import kingelves_quick, learned_rollout
from elfenland.bots.kingelves_quick import RIVALS, SEARCHER, KingOfTheElvesQuickBot
from elfenland.bots.learned import LearnedBot
from elfenland.bots.learned_rollout import rollout_policy
from elfenland.games.kingelves.actions import from_id
from elfenland.games.kingelves.state import KingOfTheElvesState, Pending, Phase

pytest.importorskip("numpy")


def test_the_rollout_policy_plays_as_the_learned_level() -> None:
    """The cheap forward pass (actions' half of the score tabled, the observation
    viewed in place) chooses what ``make_bot("learned")`` chooses, at every position of
    a whole 4-player game, pending discards and takes and journeys included."""
    bot = LearnedBot("king-of-the-elves")
    state: Any = elfenland.new_game("king-of-the-elves", players=4, seed=7)
    policy = rollout_policy(state)
    assert policy is not None
    moves = 0
    while not state.is_terminal():
        action = bot.choose(state)
        assert policy.choose(state) == action.id
        state.apply_action(action)
        moves += 1
    assert moves > 50


def test_the_rollout_policy_is_absent_where_it_does_not_fit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two players (the weights are for four), Elfengold (no weights) and no numpy:
    no policy, so the quick bot plays as it does without the switches."""
    assert rollout_policy(elfenland.new_game("king-of-the-elves", players=2, seed=1)) is None
    assert rollout_policy(elfenland.new_game("elfengold", players=4, seed=1)) is None
    four = elfenland.new_game("king-of-the-elves", players=4, seed=1)
    assert rollout_policy(four) is not None
    monkeypatch.setattr(learned_rollout, "numpy_available", lambda: False)
    assert rollout_policy(four) is None


def seats_by_player(monkeypatch: pytest.MonkeyPatch, learned: int,
                    numpy: bool = True) -> tuple[int, set[int], set[int]]:
    """Who the rollouts of one search let the policy and ``fast_policy`` play: the
    searcher's seat, the seats the policy played, those ``fast_policy`` played."""
    state, roots = building_state()
    by_policy: set[int] = set()
    by_fast: set[int] = set()
    real_fast = kingelves_quick.fast_policy
    policy = learned_rollout._shipped("king-of-the-elves")
    real_choose = policy.choose

    def fast(s: KingOfTheElvesState, *args: Any) -> int:
        by_fast.add(s.current)
        return real_fast(s, *args)

    def choose(s: Any) -> int:
        by_policy.add(s.current)
        return real_choose(s)
    monkeypatch.setattr(kingelves_quick, "fast_policy", fast)
    monkeypatch.setattr(policy, "choose", choose)
    if not numpy:
        monkeypatch.setattr(learned_rollout, "numpy_available", lambda: False)
    bot = KingOfTheElvesQuickBot(4, iterations=40, seconds=60.0)
    bot.learned_rollouts = learned
    assert bot.search(state, roots) in roots
    return state.current, by_policy, by_fast


@pytest.mark.parametrize("learned", [0, RIVALS, SEARCHER, RIVALS | SEARCHER])
def test_learned_rollouts_play_the_chosen_seats_by_the_policy(
        monkeypatch: pytest.MonkeyPatch, learned: int) -> None:
    """``learned_rollouts``: RIVALS, the other three seats' building steps in the
    rollouts are the policy's; SEARCHER, the bot's own; both; 0 (the default), none:
    ``fast_policy`` plays every seat, as before."""
    me, by_policy, by_fast = seats_by_player(monkeypatch, learned)
    rivals = {0, 1, 2, 3} - {me}
    expected = (rivals if learned & RIVALS else set()) | ({me} if learned & SEARCHER else set())
    assert by_policy == expected
    assert by_fast == {0, 1, 2, 3} - expected


def test_learned_rollouts_without_numpy_play_as_today(monkeypatch: pytest.MonkeyPatch) -> None:
    _, by_policy, by_fast = seats_by_player(monkeypatch, RIVALS | SEARCHER, numpy=False)
    assert by_policy == set() and by_fast == {0, 1, 2, 3}


def test_learned_rollouts_keep_the_deadline() -> None:
    """The budget is asked before every rollout with the policy playing, too."""
    clock = TickClock()
    bot = KingOfTheElvesQuickBot(3, seconds=7.0, clock=clock)
    bot.learned_rollouts = RIVALS | SEARCHER
    state, roots = building_state()
    starts = ticking(bot, clock)
    bot.search(state, roots)
    assert len(starts) == 7 and max(starts) < 7.0 and clock.now == 7.0


def test_policy_root_adds_the_policys_choice_or_puts_it_first() -> None:
    """``policy_root``: 1, the policy's choice joins the greedy bot's roots when it is
    not among them (after them); 2, it is the first root (the one that stands unless
    beaten by the margin); 0 (the default), the roots are the old ones."""
    def liked(s: KingOfTheElvesState) -> Any:
        policy = rollout_policy(s)
        assert policy is not None
        return from_id(policy.choose(s))

    def elsewhere(s: KingOfTheElvesState) -> bool:
        return s.phase is Phase.BUILDING and s.pending is Pending.NONE \
            and liked(s) not in KingOfTheElvesQuickBot(1).candidates(s, s.legal_actions())
    state = greedy_until("king-of-the-elves", 4, 3, elsewhere)
    legal = state.legal_actions()
    plain = KingOfTheElvesQuickBot(1).candidates(state, legal)
    bots = [KingOfTheElvesQuickBot(1) for _ in range(2)]
    for level, bot in enumerate(bots, 1):
        bot.policy_root = level
    assert bots[0].candidates(state, legal) == [*plain, liked(state)]
    assert bots[1].candidates(state, legal) == [liked(state), *plain]
    two = greedy_until("king-of-the-elves", 2, 3, lambda s: s.phase is Phase.BUILDING
                       and s.pending is Pending.NONE)
    assert bots[1].candidates(two, two.legal_actions()) == \
        KingOfTheElvesQuickBot(1).candidates(two, two.legal_actions())
