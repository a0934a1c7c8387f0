"""Seeded randomness that can be copied and saved.

Engines never touch the global ``random`` module: every state owns one ``Rng`` so that a
seed and a list of actions always give the same game, and a clone draws the same future.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from .errors import ElfenlandError

T = TypeVar("T")


def as_rng(rng: object) -> Rng:
    """The generator a caller hands to ``resample_from_infostate``: an ``Rng``, or a
    ``random.Random`` (drawn from, so it advances as OpenSpiel's own rngs do).
    Anything else raises ``ElfenlandError`` rather than an ``AttributeError`` from
    deep inside an engine."""
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, random.Random):
        return Rng.sharing(rng)
    raise ElfenlandError(f"rng is an elfenland Rng or a random.Random, not "
                         f"{type(rng).__name__}")


class Rng:
    __slots__ = ("_r",)

    def __init__(self, seed: int | str | None = 0) -> None:
        self._r = random.Random(seed)

    @classmethod
    def sharing(cls, r: random.Random) -> Rng:
        """An ``Rng`` drawing from ``r`` itself: ``r`` advances as it is used."""
        new = cls.__new__(cls)
        new._r = r
        return new

    def copy(self) -> Rng:
        """An independent generator in the same state.  ``random.Random()`` would first
        seed itself from ``os.urandom``, only to have that state replaced: made without
        ``__init__`` and given the state at once, the copy costs half as much (a server
        copies a game's generator at many of its actions)."""
        new = Rng.__new__(Rng)
        new._r = random.Random.__new__(random.Random)
        new._r.setstate(self._r.getstate())
        return new

    def randrange(self, n: int) -> int:
        return self._r.randrange(n)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self._r.randrange(len(seq))]

    def shuffle(self, items: list[Any]) -> None:
        self._r.shuffle(items)

    def draw_from_counts(self, counts: list[int]) -> int:
        """Remove one item at random from a multiset given as counts; return its kind."""
        total = sum(counts)
        if total <= 0:
            raise ValueError("draw from an empty pile")
        k = self._r.randrange(total)
        for kind, n in enumerate(counts):
            if k < n:
                counts[kind] -= 1
                return kind
            k -= n
        raise AssertionError("unreachable")

    def getstate(self) -> Any:
        return self._r.getstate()

    def setstate(self, state: Any) -> None:
        self._r.setstate(state)

    def to_json(self) -> list[Any]:
        version, internal, gauss = self._r.getstate()
        return [version, list(internal), gauss]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Rng:
        try:
            version, internal, gauss = data
            new = cls(0)
            new._r.setstate((int(version), tuple(int(x) for x in internal), gauss))
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"bad random state: {exc}") from None
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and self._r.getstate() == other._r.getstate()

    __hash__ = None  # type: ignore[assignment]


class SeededOnUse(Rng):
    """``Rng(seed)``, its Mersenne Twister seeded only when first drawn from.  A search
    gives each rollout a copy of a deal with its own seed, and most rollouts end before
    the game draws anything; seeding costs 4 us, a twentieth of a two-player
    rollout of the quick level.  Every draw, copy and comparison is ``Rng(seed)``'s."""

    __slots__ = ("_seed",)

    def __init__(self, seed: int | str | None = 0) -> None:  # the generator: __getattr__
        self._seed = seed

    def __getattr__(self, name: str) -> Any:
        if name != "_r":
            raise AttributeError(name)
        r = self._r = random.Random(self._seed)
        return r
