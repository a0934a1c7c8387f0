"""The King of the Elves quick level's play settings of session 13 (issue #25): whom
its harm cards hit (``harm_root``) and the learned value as its evaluation."""

from __future__ import annotations

from typing import Any

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
