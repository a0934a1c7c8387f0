"""Root parallelism for the quick levels (issue #25): ``workers=1`` plays as the loop
did before, move for move; ``workers=2`` merges every worker's sums and counts, draws
its own deals in each worker, is deterministic for a seed with an iteration budget,
keeps its wall-time budget, survives a worker that crashes or hangs, and searches in
one process where forking is not safe (another thread alive)."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.budget import Budget, Rollouts, RootSearch
from elfenland.bots.elfenland_quick import ElfenlandQuickBot
from elfenland.bots.elfenland_search import candidates
from elfenland.bots.kingelves_quick import KingOfTheElvesQuickBot
from elfenland.bots.parallel import MARGIN, can_fork, reap
from elfenland.games.elfenland.state import ElfenlandState, Phase
from elfenland.games.kingelves.state import KingOfTheElvesState
from elfenland.games.kingelves.state import Phase as KingPhase

GAMES = ("elfenland", "king-of-the-elves")
#: What a loaded machine may add to a decision's wall time (a process waiting for a core);
#: the failures these bounds catch (a worker waited for, one without a deadline) take
#: tens of seconds or never end.
SLACK = 1.0
QUICK: dict[str, Callable[..., Any]] = {"elfenland": ElfenlandQuickBot,
                                        "king-of-the-elves": KingOfTheElvesQuickBot}

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="root parallelism forks")


class LoopAsItWas(RootSearch):
    """``RootSearch.means`` as it was before root parallelism (main 971ead5), verbatim:
    the reference ``workers=1`` must match move for move."""

    def means(self, n: int, budget: Budget, deal: Callable[[], Rollouts],
              stop_clear: float = 0.0) -> list[float]:
        sums = [0.0] * n
        counts = [0] * n
        alive = list(range(n))
        deals = 0
        while budget.left():
            rollout = deal()
            for i in alive:
                if not budget.left():
                    break
                sums[i] += rollout(i)
                counts[i] += 1
                budget.spend()
            deals += 1
            if deals >= self.prune_after and len(alive) > 2:
                best = max(sums[i] / counts[i] for i in alive)
                alive = [i for i in alive
                         if i == 0 or sums[i] / counts[i] >= best - self.prune]
            if stop_clear and deals >= self.prune_after:
                lead = sorted((sums[i] / counts[i] for i in alive if counts[i]), reverse=True)
                if len(lead) == 1 or lead[0] - lead[1] >= stop_clear:
                    break
        return [sums[i] / counts[i] if counts[i] else 0.0 for i in range(n)]


def game_actions(game: str, bots: list[Any], seed: int, limit: int = 10_000) -> list[str]:
    state = elfenland.new_game(game, players=len(bots), seed=seed)
    out: list[str] = []
    while not state.is_terminal() and len(out) < limit:
        action = bots[state.current_player()].choose(state)
        assert action in state.legal_actions()
        out.append(str(action))
        state.apply_action(action)
    return out


def iteration_bots(game: str, players: int, iterations: int, workers: int) -> list[Any]:
    return [QUICK[game](100 + q, iterations=iterations, seconds=1e9, workers=workers)
            for q in range(players)]


@pytest.mark.parametrize("game", GAMES)
def test_one_worker_plays_exactly_as_before(game: str) -> None:
    now = iteration_bots(game, 2, 12, workers=1)
    before = iteration_bots(game, 2, 12, workers=1)
    for bot in before:
        loop = bot.loop
        bot.loop = LoopAsItWas(loop.deviation, 1, bot.rng, prune=loop.prune,
                                prune_after=loop.prune_after)
    played = game_actions(game, now, seed=7)
    assert played == game_actions(game, before, seed=7)
    assert sum(b.searches for b in now) > 10  # the games searched
    assert all(b.loop.fanout.shares == [] for b in now)  # never forked


@pytest.mark.parametrize("game", GAMES)
def test_two_workers_are_deterministic_for_a_seed(game: str) -> None:
    first = game_actions(game, iteration_bots(game, 2, 8, workers=2), seed=3, limit=120)
    bots = iteration_bots(game, 2, 8, workers=2)
    assert game_actions(game, bots, seed=3, limit=120) == first
    assert sum(b.searches for b in bots) > 3
    assert all(b.rollouts == 2 * 8 * b.searches for b in bots)  # both workers, every search


def placing_state() -> tuple[ElfenlandState, list[Any]]:
    state: Any = elfenland.new_game("elfenland", players=4, seed=11)
    greedy = [make_bot("greedy", "elfenland", q) for q in range(4)]
    probe = ElfenlandQuickBot(0).greedy
    while not (state.phase is Phase.PLACE and len(candidates(state, probe)) >= 3):
        state.apply_action(greedy[state.current_player()].choose(state))
    return state, candidates(state, probe)


def building_state() -> tuple[KingOfTheElvesState, list[Any]]:
    state: Any = elfenland.new_game("king-of-the-elves", players=4, seed=5)
    greedy = [make_bot("greedy", "king-of-the-elves", q) for q in range(4)]
    probe = KingOfTheElvesQuickBot(0)
    while not (state.phase is KingPhase.BUILDING and state.pending.name == "NONE"
               and len(probe.candidates(state, state.legal_actions())) >= 3):
        state.apply_action(greedy[state.current_player()].choose(state))
    return state, probe.candidates(state, state.legal_actions())


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_counts_the_rollouts_of_every_worker(game: str) -> None:
    state, roots = placing_state() if game == "elfenland" else building_state()
    bot = QUICK[game](1, iterations=30, seconds=1e9, workers=2)
    bot.search(state, roots)
    assert bot.loop.fanout.shares == [30, 30]
    assert bot.rollouts == 60


def deals_of(values: Callable[[random.Random], float], rng: random.Random,
             parent: list[float]) -> Callable[[], Rollouts]:
    """A deal draws a value from ``rng``; every root's rollout on it returns that value
    (the parent's values are also kept in ``parent``)."""
    me = os.getpid()

    def deal() -> Rollouts:
        value = values(rng)
        if os.getpid() == me:
            parent.append(value)
        return lambda i: value
    return deal


def test_the_workers_draw_their_own_deals_and_their_sums_are_merged() -> None:
    rng = random.Random(5)
    parent: list[float] = []
    loop = RootSearch(prune_after=4, prune=1.0, deviation=0.0, workers=2, rng=rng)
    budget = Budget(30, 1e9).start()
    means = loop.means(3, budget, deals_of(lambda r: r.random(), rng, parent))
    assert loop.fanout.shares == [30, 30] and budget.used == 60
    assert len(parent) == 10  # 10 deals of 3 roots in the parent
    parent_sum = sum(parent)
    merged_sum = means[0] * 20
    child_sum = merged_sum - parent_sum
    assert abs(child_sum - parent_sum) > 1e-6  # the child's deals are not the parent's
    assert 0.0 < child_sum < 10.0
    assert means[0] == pytest.approx(means[1]) == pytest.approx(means[2])


def test_the_workers_paired_differences_are_merged() -> None:
    """Each worker's differences to the first root travel with its sums: root 1 scores
    0.25 more than root 0 on every deal of either process."""
    rng = random.Random(6)
    loop = RootSearch(prune_after=4, prune=1.0, deviation=0.0, workers=2, rng=rng)
    budget = Budget(30, 1e9).start()
    got = loop.run(3, budget, deals_of(lambda r: r.random() / 2, rng, []))
    assert got.counts == [20, 20, 20] and got.paired == [0, 20, 20]
    got = loop.run(2, Budget(20, 1e9).start(), lambda: lambda i: 0.25 * i)
    assert got.paired == [0, 20]
    assert got.diffs[1] == pytest.approx(5.0) and got.squares[1] == pytest.approx(1.25)


def in_child(effect: Callable[[], None]) -> Callable[[], Rollouts]:
    """Deals whose rollouts are worth 1 in the parent; in a child, ``effect`` first."""
    me = os.getpid()

    def deal() -> Rollouts:
        if os.getpid() != me:
            effect()
        return lambda i: 1.0
    return deal


def crash() -> None:
    raise RuntimeError("a worker's rollout failed")


def die() -> None:
    os._exit(3)


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the workers forked during the test.  The test process may have other
    children (a browser or a server another test of the same pytest worker started), so
    "every worker reaped" is asked of these pids, not of ``waitpid(-1)``."""
    pids: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


def assert_reaped(pids: list[int]) -> None:
    assert pids
    for pid in pids:
        with pytest.raises(ChildProcessError):  # gone and reaped: no zombie left
            os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize("effect", [crash, die], ids=["raises", "exits"])
def test_a_crashed_worker_is_left_out(effect: Callable[[], None], forked: list[int]) -> None:
    loop = RootSearch(prune_after=4, prune=1.0, deviation=0.0, workers=3,
                      rng=random.Random(1))
    budget = Budget(12, 1e9).start()
    assert loop.means(2, budget, in_child(effect)) == [1.0, 1.0]
    assert loop.fanout.shares == [12, None, None]
    assert budget.used == 12
    reap(block=True)
    assert len(forked) == 2
    assert_reaped(forked)


def test_a_hung_worker_is_killed_within_the_margin(forked: list[int]) -> None:
    loop = RootSearch(prune_after=4, prune=1.0, deviation=0.0, workers=2,
                      rng=random.Random(1))
    seconds = 0.2
    budget = Budget(10**9, seconds)
    me = os.getpid()

    def deal() -> Rollouts:
        time.sleep(60 if os.getpid() != me else 0.002)
        return lambda i: 0.5

    started = time.perf_counter()
    budget.start()
    assert loop.means(2, budget, deal) == [0.5, 0.5]
    took = time.perf_counter() - started
    assert loop.fanout.shares[1] is None
    # A deal, a fork, a kill; the slack is for a loaded CI machine (a process may wait
    # long for a core): far below the 60 s a waited-for hung worker would take.
    assert took < seconds + MARGIN + SLACK
    reap(block=True)
    assert len(forked) == 1
    assert_reaped(forked)


@pytest.mark.parametrize("game", GAMES)
def test_two_workers_keep_the_wall_time_budget(game: str) -> None:
    state, roots = placing_state() if game == "elfenland" else building_state()
    seconds = 0.15
    bot = QUICK[game](2, iterations=10**9, seconds=seconds, workers=2)
    for _ in range(3):
        started = time.perf_counter()
        bot.search(state, roots)
        took = time.perf_counter() - started
        assert took < seconds + MARGIN + SLACK, (took, bot.loop.fanout)
        assert len(bot.loop.fanout.shares) == 2 and bot.loop.fanout.shares[0]


def test_no_fork_while_another_thread_runs() -> None:
    state, roots = building_state()
    bot = KingOfTheElvesQuickBot(1, iterations=20, seconds=1e9, workers=2)
    assert can_fork()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
        bot.search(state, roots)
    finally:
        stop.set()
        other.join()
    assert bot.rollouts == 20 and bot.loop.fanout.shares == []
    bot.search(state, roots)
    assert bot.loop.fanout.shares == [20, 20]
