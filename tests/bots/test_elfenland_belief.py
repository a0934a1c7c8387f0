"""What the Elfenland quick level reads of the rivals' travel cards (``elfenland_belief``):
the counters each laid this round, from the public record only, and deals whose hands
pay for them, the game's cards all accounted for."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.budget import Budget
from elfenland.bots.elfenland_belief import (
    claims,
    missing,
    needs_of,
    paying_deal,
    placed_this_round,
)
from elfenland.bots.elfenland_quick import ElfenlandQuickBot
from elfenland.core.rng import Rng
from elfenland.games.elfenland.actions import Kind
from elfenland.games.elfenland.state import ElfenlandState, Phase


def placements(players: int, seeds: range) -> Iterator[tuple[ElfenlandState, list[Any]]]:
    """Positions of games of greedy bots, with each player's counters laid this round as
    the game went (not read from the log)."""
    for seed in seeds:
        s: Any = elfenland.new_game("elfenland", players=players, seed=seed)
        bots = [make_bot("greedy", "elfenland", seed * 8 + q) for q in range(players)]
        laid: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        while not s.is_terminal():
            if s.phase is not Phase.PLACE:
                laid = [[] for _ in range(players)]
            yield s, laid
            a = bots[s.current].choose(s)
            if a.kind is Kind.PLACE:
                laid[s.current].append((int(a.transport), a.route))
            s.apply_action(a)


def totals(s: ElfenlandState) -> list[int]:
    return [sum(x) for x in zip(*s.hands, s.card_pile, strict=True)]


def test_the_counters_laid_this_round_are_read_from_the_public_record() -> None:
    seen = 0
    for s, laid in placements(3, range(1, 4)):
        log = s.log
        read = placed_this_round(log, s.n)
        if s.phase is Phase.PLACE:
            assert read == laid
            seen += sum(map(len, laid))
        elif s.phase is not Phase.MOVE or log[-1][1] != s.parse_action("pass").id:
            assert read == [[]] * s.n, s.phase
        # Only who acted and what they did: the facts of the log are not read.
        blind = [(p, i, None, None) for p, i, _, _ in log]
        assert placed_this_round(blind, s.n) == read
    assert seen > 50


def test_claims_ask_each_rival_to_pay_one_step_on_each_road_it_claimed() -> None:
    s, laid = next((s, laid) for s, laid in placements(2, range(1, 9))
                   if s.phase is Phase.PLACE and laid[1 - s.current])
    me = s.current
    need = claims(s, me)
    assert list(need) == [1 - me]
    assert sorted(need[1 - me]) == sorted(needs_of(laid[1 - me], s.board))
    # The true hand of a greedy bot pays for the roads of the journey it laid them for.
    assert missing(s.hands[1 - me], need[1 - me]) == 0


def test_paying_deals_keep_every_card_and_pay_for_the_counters_laid() -> None:
    rng = random.Random(5)
    tried = paid_engine = paid = 0
    for s, _ in placements(2, range(10, 16)):
        if s.phase is not Phase.PLACE:
            continue
        me = s.current
        need = claims(s, me)
        if not need:
            continue
        for _ in range(6):
            det = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
            before = totals(det)
            paid_engine += sum(missing(det.hands[q], n) for q, n in need.items()) == 0
            left = paying_deal(det, me, need, rng, eps=0.0, tries=32)
            assert totals(det) == before == totals(s)
            assert det.hands[me] == s.hands[me]
            assert [sum(h) for h in det.hands] == [sum(h) for h in s.hands]
            assert min(det.card_pile) >= 0
            assert left == sum(missing(det.hands[q], n) for q, n in need.items())
            assert det.legal_actions() == s.legal_actions()
            tried += 1
            paid += left == 0
    assert tried > 60
    assert paid > 0.9 * tried > paid_engine + 0.2 * tried


def test_the_quick_level_deals_pay_for_the_rivals_counters_with_belief() -> None:
    s = next(s for s, laid in placements(2, range(20, 30))
             if s.phase is Phase.PLACE and laid[1 - s.current]
             and len(s.legal_actions()) > 2)
    me = s.current
    need = claims(s, me)

    def unpaid(belief: bool) -> int:
        bot = ElfenlandQuickBot(seed=3)
        bot.belief = int(belief)
        bot.belief_eps = 0.0
        refine = bot.refine(s, me)
        left = 0
        for k in range(40):
            det = s.resample_from_infostate(me, Rng(k))
            if refine is not None:
                refine(det)
            left += sum(missing(det.hands[q], n) for q, n in need.items()) > 0
        return left

    assert ElfenlandQuickBot(seed=3).refine(s, me) is not None  # on with two players
    off = ElfenlandQuickBot(seed=3)
    off.belief = 0
    assert off.refine(s, me) is None
    assert unpaid(True) < unpaid(False) // 2
    bot = ElfenlandQuickBot(seed=3, iterations=30, seconds=10.0)
    bot.belief = 1
    budget = Budget(30, 10.0, bot.clock).start()
    action = bot.search(s, bot.roots(s), budget)
    assert action in s.legal_actions()
    assert bot.rollouts == 30


def test_held_claims_add_a_card_of_each_face_up_counter_a_rival_holds() -> None:
    found = 0
    for s, _ in placements(2, range(30, 34)):
        if s.phase is not Phase.PLACE:
            continue
        me, rival = s.current, 1 - s.current
        base = claims(s, me).get(rival, [])
        held = claims(s, me, held=True).get(rival, [])
        up = [(k, 1) for k, n in enumerate(s.counters_up[rival]) if n]
        assert held == base + up
        assert me not in claims(s, me, held=True)
        found += bool(up)
    assert found > 10
