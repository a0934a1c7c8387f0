"""A decision's budget: at most so many rollouts, and at most so many seconds on a clock.

The clock is a parameter, so that the same bot keeps a wall-time promise in a game
(``time.perf_counter``: a player waits in wall time) and plays a fair, load-free match
in a bench (``time.thread_time``: CPU seconds of the deciding thread, which a loaded
machine does not shrink), and a test can drive it by hand.  The search loops ask
``left()`` before every rollout, so a decision overruns its deadline by at most one
rollout (about a millisecond on the compiled engine), however loaded the machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable

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

    def start(self) -> None:
        self.used = 0
        self.deadline = self.clock() + self.seconds

    def left(self) -> bool:
        """Whether another rollout fits (the first always does: a decision needs one)."""
        if self.used >= self.iterations:
            return False
        return self.used == 0 or self.clock() < self.deadline

    def spend(self, n: int = 1) -> None:
        self.used += n
