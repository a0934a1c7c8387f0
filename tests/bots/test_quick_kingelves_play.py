"""The King of the Elves quick level's play settings of session 13 (issue #25): whom
its harm cards hit (``harm_root``) and the learned value as its evaluation."""

from __future__ import annotations

from typing import Any

import pytest
from test_quick import greedy_until

from elfenland.bots.kingelves_quick import HARM, KingOfTheElvesQuickBot, leading_rival
from elfenland.games.kingelves.actions import Kind
from elfenland.games.kingelves.state import KingOfTheElvesState, Pending, Phase


def harm_roots(s: KingOfTheElvesState, on: bool) -> list[Any]:
    bot = KingOfTheElvesQuickBot(1)
    bot.harm_root = on
    return bot.candidates(s, s.legal_actions())


def test_leading_rival_is_the_richest_then_the_best_kingdom() -> None:
    state = greedy_until("king-of-the-elves", 4, 3, lambda s: s.phase is Phase.BUILDING
                         and sum(1 for k in s.kingdoms if k) >= 3)
    me = state.current
    richest = max((q for q in range(4) if q != me), key=lambda q: len(state.kingdoms[q]))
    gold = list(state.gold)
    gold[richest] = max(gold) + 5
    state.gold = gold
    assert leading_rival(state, me) == richest
    gold[richest] = min(gold) - 1
    state.gold = gold
    assert leading_rival(state, me) != richest


def test_harm_root_adds_the_best_harm_on_the_leader() -> None:
    """``harm_root`` (a screening setting, off by default): with four players the
    greedy bot's best-ranked thief or obstacle on the leading rival joins the roots
    when its best few miss it; off, and with two players, the roots are the old ones."""
    def missed(s: KingOfTheElvesState) -> bool:
        return s.phase is Phase.BUILDING and s.pending is Pending.NONE \
            and len(harm_roots(s, True)) > len(harm_roots(s, False))
    state = greedy_until("king-of-the-elves", 4, 3, missed)
    plain, wide = harm_roots(state, False), harm_roots(state, True)
    assert wide[:len(plain)] == plain and len(wide) == len(plain) + 1
    added = wide[-1]
    assert added.kind is Kind.PLACE and added.card in HARM
    assert added.kingdom == leading_rival(state, state.current)
    assert added in state.legal_actions()
    assert not any(a.kind is Kind.PLACE and a.card in HARM
                   and a.kingdom == added.kingdom for a in plain)
    two = greedy_until("king-of-the-elves", 2, 3, lambda s: s.phase is Phase.BUILDING
                       and s.pending is Pending.NONE)
    assert harm_roots(two, True) == harm_roots(two, False)


def four_player_building() -> KingOfTheElvesState:
    state = greedy_until("king-of-the-elves", 4, 5, lambda s: s.phase is Phase.BUILDING
                         and s.pending is Pending.NONE and s.round == 1
                         and sum(1 for k in s.kingdoms if k) >= 2)
    assert isinstance(state, KingOfTheElvesState)
    return state


def test_the_value_is_the_trainers_value_of_each_seats_own_observation() -> None:
    """``ValueHead.values``: sigmoid(value(relu(body(obs)))) of each seat's own
    observation, computed here again in plain Python from the shipped tensors."""
    import math

    from elfenland.bots.kingelves_value import value_head
    from elfenland.bots.learned import shipped_weights
    from elfenland.envs.observation import encoder_for

    state = four_player_building()
    head = value_head(state)
    assert head is not None
    w = shipped_weights("king-of-the-elves")
    w1, w2 = w.matrix("body.0.weight"), w.matrix("body.2.weight")
    b1, b2 = w.tensors["body.0.bias"], w.tensors["body.2.bias"]
    wv, bv = w.tensors["value.weight"], w.tensors["value.bias"][0]
    got = head.values(state)
    encoder = encoder_for(state)
    for q in range(4):
        x = encoder.encode_python(state, q)
        h = [max(0.0, sum(a * b for a, b in zip(row, x, strict=True)) + c)
             for row, c in zip(w1, b1, strict=True)]
        h = [max(0.0, sum(a * b for a, b in zip(row, h, strict=True)) + c)
             for row, c in zip(w2, b2, strict=True)]
        v = 1 / (1 + math.exp(-(sum(a * b for a, b in zip(wv, h, strict=True)) + bv)))
        assert abs(got[q] - v) < 1e-4
    assert abs(sum(head.share(state, q) for q in range(4)) - 1.0) < 1e-9
    two = greedy_until("king-of-the-elves", 2, 3, lambda s: s.phase is Phase.BUILDING)
    assert value_head(two) is None


def test_learned_value_mixes_the_values_share_into_the_rollouts_reward(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``learned_value`` (a screening setting, 0 by default): before the last round a
    rollout's reward is ``(1 - w) round_outcome + w share``; at 1 no journey is planned."""
    import random

    import elfenland.bots.kingelves_quick as quick_module
    from elfenland.bots.kingelves_quick import _Plans
    from elfenland.bots.kingelves_value import value_head

    state = four_player_building()
    head = value_head(state)
    assert head is not None
    me = state.current
    first = state.legal_action_ids()[0]
    plain = KingOfTheElvesQuickBot(1)
    after = state.clone()
    r0 = plain._rollout(after, me, first, _Plans(), random.Random(5))
    assert after.round < after.rounds and after.phase is Phase.JOURNEY
    share = head.share(after, me)
    half = KingOfTheElvesQuickBot(1)
    half.learned_value = 0.5
    r1 = half._rollout(state.clone(), me, first, _Plans(), random.Random(5), None, head)
    assert abs(r1 - (0.5 * r0 + 0.5 * share)) < 1e-9 and r1 != r0

    def no_plans(*args: Any, **kwargs: Any) -> float:
        raise AssertionError("round_outcome planned journeys")
    monkeypatch.setattr(quick_module, "round_outcome", no_plans)
    whole = KingOfTheElvesQuickBot(1)
    whole.learned_value = 1.0
    assert whole._rollout(state.clone(), me, first, _Plans(), random.Random(5), None,
                          head) == share
    # The search asks the value only when the setting is on.
    calls = head.calls
    bot = KingOfTheElvesQuickBot(2, iterations=8, seconds=60.0)
    bot.learned_value = 1.0
    roots = bot.candidates(state, state.legal_actions())
    assert bot.search(state, roots) in roots
    assert head.calls - calls == bot.rollouts == 8


@pytest.mark.parametrize("rivals", [False, True])
def test_greedy_steps_play_the_first_rollout_steps_by_the_greedy_bot(
        rivals: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``greedy_steps`` (session 14, off): the first building steps of a rollout after
    its root are the greedy bot's choices (``greedy_rivals``: only the rivals'); off,
    the greedy bot is asked nothing inside a search."""
    state = greedy_until("king-of-the-elves", 2, 7, lambda s: s.phase is Phase.BUILDING
                         and s.pending is Pending.NONE and s.round == 1
                         and len(s.legal_actions()) > 3)
    me = state.current
    asked: dict[int, list[int]] = {}
    for steps in (0, 2):
        bot = KingOfTheElvesQuickBot(3, iterations=10, seconds=60.0)
        bot.greedy_steps = steps
        bot.greedy_rivals = rivals
        seats: list[int] = []
        real = bot.greedy.choose

        def spy(s: Any, seats: list[int] = seats, real: Any = real) -> Any:
            seats.append(s.current)
            return real(s)
        monkeypatch.setattr(bot.greedy, "choose", spy)
        roots = bot.candidates(state, state.legal_actions())
        bot.search(state, roots)
        asked[steps] = seats
    assert asked[0] == []
    assert len(asked[2]) >= 5  # a step or two in most of the ten rollouts
    if rivals:
        assert me not in asked[2]
    else:
        assert me in asked[2] and any(q != me for q in asked[2])
