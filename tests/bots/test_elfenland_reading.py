"""The Elfenland quick level's reading of a rival's play (``elfenland_reading``): the
rival's positions rebuilt as they were, deals weighted by the greedy bot's model of its
choices, nothing of the true hidden cards read, every card and counter accounted for."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_quick import ElfenlandQuickBot
from elfenland.bots.elfenland_reading import Hidden, Reading, put, round_choices, unseen
from elfenland.core.rng import Rng
from elfenland.games.elfenland.state import ElfenlandState, Phase


def game(seed: int, players: int = 2) -> Iterator[tuple[ElfenlandState, dict[int, Any]]]:
    """Positions of a game of greedy bots, each with every earlier position by the
    length of the log then."""
    s: Any = elfenland.new_game("elfenland", players=players, seed=seed)
    bots = [make_bot("greedy", "elfenland", seed * 8 + q) for q in range(players)]
    past: dict[int, Any] = {}
    while not s.is_terminal():
        past[len(s.log)] = s.clone()
        yield s, past
        s.apply_action(bots[s.current].choose(s))


def hidden_of(s: ElfenlandState) -> Hidden:
    return Hidden([list(h) for h in s.hands], [list(c) for c in s.counters_secret])


def placements(seeds: tuple[int, ...]) -> Iterator[tuple[ElfenlandState, dict[int, Any],
                                                         Reading]]:
    """Seat 0's placement decisions in games of greedy bots, each with the earlier
    positions and seat 0's reading, told of each of its positions as it met them."""
    for seed in seeds:
        reading = Reading(0, random.Random(1))
        for s, past in game(seed):
            if s.current == 0:
                reading.observe(s)
                if s.phase is Phase.PLACE:
                    yield s, past, reading


def test_the_rivals_positions_are_rebuilt_as_they_were() -> None:
    checked = 0
    for s, past, reading in placements((1, 2)):
        for k in round_choices(s.log, 0):
            t = reading.position(s.log, k)
            assert t is not None
            real = past[k]
            for field in ("hands", "counters_up", "counters_secret", "face_up",
                          "route_counter", "route_obstacle", "current", "phase"):
                assert getattr(t, field) == getattr(real, field), field
            checked += 1
    assert checked > 50


def test_the_true_hand_explains_a_greedy_rivals_choices() -> None:
    """Against a greedy rival the model is the rival: its true cards explain every
    choice; the engine's deals explain fewer."""
    true_w, deal_w, n = 0.0, 0.0, 0
    rng = random.Random(4)
    for s, _, reading in placements((3, 4)):
        choices = round_choices(s.log, 0)
        if len(choices) < 3:
            continue
        true_w += reading.likelihood(s.log, hidden_of(s), choices)
        det = s.resample_from_infostate(0, Rng(rng.randrange(2**63)))
        deal_w += reading.likelihood(s.log, hidden_of(det), choices)
        n += 1
    assert n > 10
    assert true_w > 0.8 * n  # the greedy bot's obstacle draws its own deals
    assert deal_w < 0.6 * true_w


def test_nothing_of_the_rivals_true_cards_is_read() -> None:
    """Swap the rival's travel cards for others of the pile, in the position and every
    remembered one: the pool and its weights come out the same."""
    s, _ = next((s, p) for s, p in game(6)
                if s.phase is Phase.PLACE and s.current == 0 and len(round_choices(s.log, 0)) >= 3)
    memory = {}
    source: Any = elfenland.new_game("elfenland", players=2, seed=6)
    bots = [make_bot("greedy", "elfenland", 6 * 8 + q) for q in range(2)]
    while len(source.log) < len(s.log):
        if source.current == 0 and source.round == s.round:
            memory[len(source.log)] = source.clone()
        source.apply_action(bots[source.current].choose(source))

    hand = s.hands[1]
    pool = [k for k, n in enumerate(a + b for a, b in zip(s.card_pile, hand, strict=True))
            for _ in range(n)]
    other = [0] * 7
    for k in random.Random(3).sample(pool, sum(hand)):
        other[k] += 1
    assert other != hand

    def swapped(t: ElfenlandState) -> ElfenlandState:
        """The same position with the rival holding ``other`` (the same for the whole
        round: its travel cards do not change before the move phase)."""
        u = t.clone()
        assert put(u, 0, [u.hands[0], other], u.counters_secret)
        return u

    def pool_of(transform: Any) -> list[tuple[list[list[int]], float]]:
        reading = Reading(0, random.Random(9), size=12)
        reading.round = s.round
        reading.memory = {n: transform(t) for n, t in memory.items()}
        reading.update(transform(s))
        return [(h.hands, h.weight) for h in reading.pool]

    same = pool_of(lambda t: t)
    assert any(w > 0 for _, w in same)
    assert pool_of(swapped) == same


def test_a_deal_put_in_keeps_every_card_and_counter() -> None:
    rng = random.Random(2)
    tried = 0
    for s, _ in game(8, players=4):
        if s.phase is not Phase.PLACE or rng.random() < 0.7:
            continue
        me = s.current
        det = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
        other = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
        before = unseen(det, me)
        assert put(det, me, other.hands, other.counters_secret)
        assert unseen(det, me) == before == unseen(s, me)
        assert det.hands[me] == s.hands[me]
        assert det.counters_secret[me] == s.counters_secret[me]
        assert [det.hands[q] for q in range(4) if q != me] == \
            [other.hands[q] for q in range(4) if q != me]
        assert det.legal_actions() == s.legal_actions()
        tried += 1
    assert tried > 10
    s = next(s for s, _ in game(8) if s.phase is Phase.PLACE)
    too_many = [[9] * 7, [9] * 7]
    det = s.clone()
    assert not put(det, 0, too_many, s.counters_secret)
    assert det.hands == s.hands


def test_the_quick_level_plays_with_the_reading() -> None:
    s: Any = elfenland.new_game("elfenland", players=2, seed=11)
    quick = ElfenlandQuickBot(seed=1, iterations=10**9, seconds=0.01, clock=time.thread_time)
    quick.belief = 3
    rival = make_bot("greedy", "elfenland", 5)
    weighted = 0
    while not s.is_terminal():
        if s.current == 0:
            a = quick.choose(s)
            r = quick.reading
            assert r is not None
            if s.phase is Phase.PLACE and r.pool:
                weighted += any(h.weight < 1.0 for h in r.pool)
        else:
            a = rival.choose(s)
        assert a in s.legal_actions()
        s.apply_action(a)
    assert quick.reading is not None and quick.reading.replays > 0
    assert weighted > 3


def test_a_reading_recalled_from_a_record_weighs_as_one_that_played() -> None:
    """A bench holding the game's record (``recall``) weighs a deal as the level
    playing the game does: the rebuilt positions are the same."""
    recalled = Reading(0, random.Random(1))
    compared = 0
    for s, past, reading in placements((3,)):
        choices = round_choices(s.log, 0)
        if not choices:
            continue
        recalled.recall(0, dict(past))
        h = hidden_of(s)
        assert recalled.likelihood(s.log, h, choices) == reading.likelihood(s.log, h, choices)
        compared += 1
    assert compared > 10
