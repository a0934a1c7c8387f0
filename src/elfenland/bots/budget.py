"""A decision's budget: at most so many rollouts, and at most so many seconds on a clock.

The clock is a parameter, so that the same bot keeps a wall-time promise in a game
(``time.perf_counter``: a player waits in wall time) and plays a fair, load-free match
in a bench (``time.thread_time``: CPU seconds of the deciding thread, which a loaded
machine does not shrink), and a test can drive it by hand.  The search loops ask
``left()`` before every rollout, so a decision overruns its deadline by at most one
rollout (about a millisecond on the compiled engine), however loaded the machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeVar

from ..core.rng import Rng, SeededOnUse
from .parallel import Fanout, Tally, can_fork, fan_out

Clock = Callable[[], float]


class Budget:
    """One decision's allowance; ``start`` it, then ask ``left`` before each rollout."""

    def __init__(self, iterations: int, seconds: float,
                 clock: Clock = time.perf_counter) -> None:
        self.iterations = iterations
        self.seconds = seconds
        self.clock = clock
        self.used = 0
        self.deadline = 0.0

    def start(self) -> Budget:
        """Start (or start again) the allowance's clock; the budget itself, so that a
        new one is started where it is made: ``Budget(n, s).start()``."""
        self.used = 0
        self.deadline = self.clock() + self.seconds
        return self

    def left(self) -> bool:
        """Whether another rollout fits (the first always does: a decision needs one)."""
        if self.used >= self.iterations:
            return False
        return self.used == 0 or self.clock() < self.deadline

    def spend(self, n: int = 1) -> None:
        self.used += n


#: A deal's rollouts: given a root action's index, play it out on this deal, a reward
#: in [0, 1].
Rollouts = Callable[[int], float]


S = TypeVar("S", bound="Dealable")


class Dealable(Protocol):
    """What a deal needs of a game state: the hidden parts drawn again, copies, and
    its own randomness."""

    rng: Rng

    def clone(self: S) -> S: ...

    def resample_from_infostate(self: S, player: int, rng: Rng) -> S: ...


def resampled(state: S, me: int, rng: random.Random,
              on_deal: Callable[[S, int], Callable[[S, int], float]],
              refine: Callable[[S], object] | None = None) -> Callable[[], Rollouts]:
    """``RootSearch``'s deals for a game: each draws again what ``me`` cannot see and a
    seed; ``on_deal(deal, seed)`` gives that deal's player, which plays root ``i`` on a
    fresh copy of the deal whose randomness is the seed's, so that every root meets the
    same future (common random numbers).  ``refine(deal)``, if given, may change the
    deal in place first (a belief sharper than the engine's resampling)."""

    def deal() -> Rollouts:
        det = state.resample_from_infostate(me, Rng(rng.randrange(2**63)))
        if refine is not None:
            refine(det)
        seed = rng.randrange(2**32)
        play = on_deal(det, seed)

        def rollout(i: int) -> float:
            sim = det.clone()
            sim.rng = SeededOnUse(seed)
            return play(sim, i)
        return rollout
    return deal


#: Deals every root action gets before any may be dropped.
PRUNE_AFTER: Final = 4
#: How far (reward in [0, 1]) below the best mean a root falls before it is dropped:
#: by default never, as rewards lie in [0, 1].  Both quick levels were built dropping
#: at 0.12 after 4 deals, and both lost by it: Elfenland 49.0% of 200 paired games
#: against ``search`` where never dropping won 52.0% (its first sessions), King of the
#: Elves 3.9 ± 2.4 points head to head over 2,800 paired games (session 33).  A
#: decision sees a dozen (Elfenland) to some thirty (King of the Elves) deals a root,
#: and four are too few to tell a root hopeless.  ``--set prune=0.12`` in the bench
#: gives the old setting.
NEVER_DROP: Final = 1.0


def by_players(table: Sequence[float], setting: float | None, players: int) -> float:
    """A quick level's setting for a game of ``players``: the bot's own, or ``None``
    for the table's entry (the last one for more players).  The levels' constants are
    screened by the number of players, and a bench may set any of them."""
    if setting is not None:
        return float(setting)
    return table[min(players, len(table) - 1)]


class RootSearch:
    """The quick bots' loop, shared by both games: deals in turn, each tried with every
    root action still in play (common random numbers: the candidates are compared on
    the same deals), the budget asked before every rollout.  A root action falling
    ``prune`` (reward) below the best mean after ``prune_after`` deals gets no more
    rollouts (by default none falls so far: ``NEVER_DROP``), so the deals left go to
    the ones still in question; the first root (the greedy choice) is never dropped,
    and it stands unless another beats it by ``deviation`` on average: search noise
    must not undo the greedy bot's sense.  With
    ``z`` > 0 the best must also beat it by ``z`` standard errors of their paired
    difference (the same deals): a fixed margin is too little where few deals were
    played and the rewards spread, and more than needed where many were.  With
    ``sure`` > 0 a search ends once the first root is sure to stand: after
    ``prune_after`` deals, every other root's paired difference to it, plus ``sure``
    standard errors, falls short of ``deviation`` (a bot may bank the time left).

    What a deal is belongs to the game: ``deal()`` draws the hidden parts again and
    returns the rollouts of that deal."""

    def __init__(self, deviation: float, workers: int = 1,
                 rng: random.Random | None = None, z: float = 0.0, *,
                 prune: float = NEVER_DROP, prune_after: int = PRUNE_AFTER,
                 sure: float = 0.0) -> None:
        self.prune_after = prune_after
        #: Standard errors by which every other root must fall short of ``deviation``
        #: for the search to end early, the first root sure to stand (0: never).
        self.sure = sure
        self.prune = prune
        self.deviation = deviation
        #: Standard errors of the paired difference the best root must beat the first
        #: by, besides ``deviation`` (0: the margin alone).
        self.z = z
        #: Processes a decision's deals are split over (root parallelism,
        #: ``parallel.fan_out``); 1: the loop below in this process alone.
        self.workers = workers
        #: What the deals draw from (the bot's rng): a worker's is seeded again from it.
        self.rng = rng
        #: The last parallel decision's rollouts by worker and its fork overhead.
        self.fanout = Fanout()
        #: The last decision's mean reward of every root (what a bench compares).
        self.last: list[float] = []

    def run(self, n: int, budget: Budget, deal: Callable[[], Rollouts],
            stop_clear: float = 0.0) -> Tally:
        """Every root's tally over the decision.  ``stop_clear`` > 0 ends the search
        early, once pruning may start and the leader is that far ahead of every other
        root still in play (a screening setting).  With ``workers`` > 1 and the ``rng``
        the deals draw from, the deals are split over forked processes where forking is
        safe (``parallel``), each pruning on its own counts, and the tallies merged."""
        if self.workers > 1 and self.rng is not None and can_fork():
            return fan_out(self.workers, n, budget, self.rng,
                           lambda own: self.tally(n, own, deal, stop_clear),
                           stats=self.fanout)
        return self.tally(n, budget, deal, stop_clear)

    def means(self, n: int, budget: Budget, deal: Callable[[], Rollouts],
              stop_clear: float = 0.0) -> list[float]:
        """Every root's mean reward over the deals it was tried on (0 if none)."""
        return _means(self.run(n, budget, deal, stop_clear))

    def tally(self, n: int, budget: Budget, deal: Callable[[], Rollouts],
              stop_clear: float = 0.0) -> Tally:
        """One process's loop."""
        got = Tally.empty(n)
        sums, counts = got.sums, got.counts
        alive = list(range(n))
        deals = 0
        while budget.left():
            rollout = deal()
            first: float | None = None
            for i in alive:
                if not budget.left():
                    break
                reward = rollout(i)
                sums[i] += reward
                counts[i] += 1
                budget.spend()
                if i == 0:
                    first = reward
                elif first is not None:
                    d = reward - first
                    got.diffs[i] += d
                    got.squares[i] += d * d
                    got.paired[i] += 1
            deals += 1
            if deals >= self.prune_after and len(alive) > 2:
                best = max(sums[i] / counts[i] for i in alive)
                alive = [i for i in alive
                         if i == 0 or sums[i] / counts[i] >= best - self.prune]
            if self.sure and deals >= self.prune_after and self._stands(got, alive):
                break
            if stop_clear and deals >= self.prune_after:
                lead = sorted((sums[i] / counts[i] for i in alive if counts[i]), reverse=True)
                if len(lead) == 1 or lead[0] - lead[1] >= stop_clear:
                    break
        return got

    def _stands(self, got: Tally, alive: Sequence[int]) -> bool:
        """Whether the first root is sure to stand: every other still in play falls
        short of it plus ``deviation`` by ``sure`` standard errors of their paired
        difference (each paired on two deals at least)."""
        others = [i for i in alive if i != 0]
        if not others:
            return False
        for i in others:
            if got.paired[i] < 2:
                return False
            if _paired_mean(got, i) + self.sure * _paired_error(got, i) >= self.deviation:
                return False
        return True

    def choose(self, n: int, budget: Budget, deal: Callable[[], Rollouts],
               stop_clear: float = 0.0) -> int:
        """The index of the root to play."""
        got = self.run(n, budget, deal, stop_clear)
        means = self.last = _means(got)
        best = max(range(n), key=lambda i: (means[i], -i))
        if best == 0 or means[best] <= means[0] + self.deviation:
            return 0
        if self.z > 0 and not self.z * _paired_error(got, best) < _paired_mean(got, best):
            return 0
        return best


def _means(got: Tally) -> list[float]:
    return [s / c if c else 0.0 for s, c in zip(got.sums, got.counts, strict=True)]


def _paired_mean(got: Tally, i: int) -> float:
    """Root ``i``'s mean reward less the first root's, on the deals both had."""
    k = got.paired[i]
    return got.diffs[i] / k if k else 0.0


def _paired_error(got: Tally, i: int) -> float:
    """The standard error of ``_paired_mean`` (infinite below two deals)."""
    k = got.paired[i]
    if k < 2:
        return math.inf
    mean = got.diffs[i] / k
    var = max(0.0, (got.squares[i] - k * mean * mean) / (k - 1))
    return math.sqrt(var / k)
