"""Token buckets: bursts are fine, a flood is not.  One per connection for play; for
chat, one per seat and one per address (``KeyedBuckets``), so reconnecting or opening
more sockets buys nothing."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable


class TokenBucket:
    def __init__(self, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.last = clock()

    def ready(self) -> bool:
        """Whether a token is there now (nothing spent)."""
        now = self.clock()
        return min(self.burst, self.tokens + (now - self.last) * self.rate) >= 1.0

    def full(self) -> bool:
        """Whether the bucket has filled up again (forgetting it then loses nothing)."""
        return self.tokens + (self.clock() - self.last) * self.rate >= self.burst

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens (at most a whole burst) if there are as many."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        cost = min(cost, self.burst)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def give(self, tokens: float = 1.0) -> None:
        """Give back tokens taken for something that did not happen (up to a burst)."""
        self.take(0.0)  # brings the count up to now
        self.tokens = min(self.burst, self.tokens + tokens)

    def wait(self, cost: float = 1.0) -> float:
        """Seconds until ``cost`` tokens (at most a whole burst) are there."""
        now = self.clock()
        have = min(self.burst, self.tokens + (now - self.last) * self.rate)
        return max(0.0, min(cost, self.burst) - have) / self.rate if self.rate > 0 else math.inf


class KeyedBuckets:
    """A bucket per key (a seat, an address), made on first use; at most ``keys`` are
    kept, the least recently used dropped first (a dropped one was full again, or is the
    oldest of a flood of keys, which is the best that bounded memory allows)."""

    def __init__(self, rate: float, burst: int, keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.keys = keys
        self.clock = clock
        self._buckets: OrderedDict[Hashable, TokenBucket] = OrderedDict()

    def bucket(self, key: Hashable) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
            while len(self._buckets) > self.keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket


def take_all(buckets: list[TokenBucket]) -> bool:
    """Spend one token from each bucket if every one has one (none spent otherwise)."""
    if not all(b.ready() for b in buckets):
        return False
    for b in buckets:
        b.take()
    return True
